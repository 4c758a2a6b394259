"""Build a big synthetic SWF from a real trace, for benchmarks and kill tests.

Why: no public trace has millions of lines; repeating a real one keeps its
real field formats and value mix. Copy k shifts job ids past the previous copy
and submit times past its last submission, so ids stay unique and submits
keep rising. Vectorised with Polars (no Python loop over lines).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl

_JOB = r"^\s*(\d+)\s+(\d+)(.*)$"


def job_lines(source: Path) -> tuple[list[bytes], pl.DataFrame]:
    """(header lines, frame of job_id / submit / rest-of-line) of a real SWF."""
    raw = gzip.open(source).read() if source.suffix == ".gz" else source.read_bytes()
    lines = raw.decode().splitlines()
    header = [ln for ln in lines if ln.lstrip().startswith(";")]
    jobs = pl.Series("l", [ln for ln in lines if ln.strip() and not ln.lstrip().startswith(";")]).to_frame()
    parts = jobs.select(
        pl.col("l").str.extract(_JOB, 1).cast(pl.Int64).alias("job_id"),
        pl.col("l").str.extract(_JOB, 2).cast(pl.Int64).alias("submit"),
        pl.col("l").str.extract(_JOB, 3).alias("rest"),
    )
    return header, parts


def build(source: Path, n_lines: int, out: Path, gz: bool = False) -> int:
    """Write an SWF of ``n_lines`` job lines (plus the source's header) to ``out``."""
    header, parts = job_lines(source)
    id_step = int(parts["job_id"].max()) + 1
    t_step = int(parts["submit"].max()) + 1
    copies = -(-n_lines // parts.height)
    frames = [
        parts.select(
            pl.format("{} {}{}", pl.col("job_id") + k * id_step, pl.col("submit") + k * t_step, pl.col("rest"))
        )
        for k in range(copies)
    ]
    body = pl.concat(frames).head(n_lines).to_series()
    text = ("\n".join(header) + "\n" if header else "") + "\n".join(body.to_list()) + "\n"
    data = text.encode()
    if gz:
        data = gzip.compress(data, compresslevel=1)
    out.write_bytes(data)
    return n_lines
