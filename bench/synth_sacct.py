"""A big sacct dump built from the real lab dumps, for bench/ingest.py.

Copy k of slurm-lab-sacct.txt (steps included) gets job ids + k*1000 (JobID
and JobIDRaw, arrays and het components alike) and its dates moved k days on,
so every copy is a valid, distinct day of the lab's workload. Built with
Polars string expressions (no Python loop per line).
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import polars as pl

DAY = "2026-11-22"


def build(src: Path, lines: int, out: Path) -> int:
    """Write at least ``lines`` data lines (plus the header); returns how many."""
    header, *body = src.read_text().splitlines()
    body = [b for b in body if b]
    copies = -(-lines // len(body))
    base = pl.DataFrame({"line": body}).with_row_index("pos")
    days = pl.DataFrame({"k": list(range(copies)),
                         "day": [(date(2000, 1, 1) + timedelta(days=k)).isoformat() for k in range(copies)]})
    df = days.join(base, how="cross").sort(["k", "pos"])
    parts = pl.col("line").str.splitn("|", 3).struct.rename_fields(["jobid", "raw", "rest"])
    shift = pl.col("k") * 1000

    def bump(col: pl.Expr) -> pl.Expr:
        g = col.str.extract_groups(r"^(\d+)(.*)$")
        return (g.struct.field("1").cast(pl.Int64) + shift).cast(pl.String) + g.struct.field("2")

    df = df.with_columns(parts.alias("p")).unnest("p").with_columns(
        bump(pl.col("jobid")).alias("jobid"), bump(pl.col("raw")).alias("raw"),
        pl.col("rest").str.split(DAY).list.join(pl.col("day")).alias("rest"),
    )
    text = df.select(pl.concat_str(["jobid", "raw", "rest"], separator="|"))
    with open(out, "w") as fh:
        fh.write(header + "\n")
        text.write_csv(fh, include_header=False, quote_style="never")
    return df.height


TIME_COLUMNS = ("Submit", "Eligible", "Start", "End")


def to_epoch(src: Path, out: Path, tz: str) -> None:
    """``src`` with its ISO times (local in ``tz``) as Unix seconds, as sacct
    prints them with SLURM_TIME_FORMAT=%s (None/Unknown kept)."""
    header, *body = src.read_text().splitlines()
    cols = header.split("|")
    df = pl.DataFrame({"line": body}).with_columns(pl.col("line").str.split("|").alias("f"))
    fields = [pl.col("f").list.get(i).alias(c) for i, c in enumerate(cols)]
    df = df.select(fields)

    def conv(c):
        t = pl.col(c).str.to_datetime("%Y-%m-%dT%H:%M:%S", strict=False).dt.replace_time_zone(tz, ambiguous="earliest")
        return pl.coalesce([t.dt.epoch("s").cast(pl.String), pl.col(c)]).alias(c)

    df = df.with_columns(conv(c) for c in TIME_COLUMNS if c in cols)
    with open(out, "w") as fh:
        fh.write(header + "\n")
        fh.write("\n".join(df.select(pl.concat_str(cols, separator="|"))[cols[0]].to_list()) + "\n")
