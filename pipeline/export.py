"""``walltime export``: any trace as SWF (for pyss, Alea, Batsim, ...) or Parquet.

Every header line is made of printable characters only (log text such as a job
name or the source file's name is escaped, :func:`pipeline.errors.printable`;
in the "id=name" lists spaces too), so no text can end a comment line and
forge a job line or header field: the job lines are the 18 numbers alone.

Why SWF with a full header: other simulators read only the 18 numeric
fields, so the header says where the numbers came from (source file and
format) and which names each id stands for (users, accounts, QOS,
partitions, job names of a sacct trace). Parquet keeps every column of
``jobs`` plus ``submit_epoch`` and reads back with ``ingest --format table
--preset walltime``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from . import __version__ as VERSION
from .checks import check_regular, write_file
from .errors import WalltimeError, printable
from .timed import require_times
from .ingest.swf import COLUMNS
from .warehouse import Warehouse

FORMATS = ("swf", "parquet", "slurm-conf")  # slurm-conf: the Slurm replay's model (kept, else inferred)
# SWF field -> (string column it codes, what the header calls it)
NAMED_IDS = [("user_id", "user", "users (field 12)"), ("group_id", "account", "accounts (field 13, Tang's project)"),
             ("exe_id", "job_name", "job names (field 14)"), ("queue_id", "qos", "QOS (field 15)"),
             ("partition_id", "partition", "partitions (field 16)")]
MAX_LISTED = 1000  # more distinct names than this are counted, not listed


@dataclass
class ExportResult:
    trace: str
    format: str
    out: str
    jobs: int
    bytes: int

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def export(wh: Warehouse, trace: str, fmt: str, out: str | os.PathLike) -> ExportResult:
    if fmt not in FORMATS:
        raise WalltimeError(f"--format {fmt}: use swf, parquet or slurm-conf")
    out = Path(out)
    if not out.parent.is_dir():
        raise WalltimeError(f"--out {out}: folder {out.parent} does not exist")
    check_regular(out)  # before reading: a device or FIFO is never replaced
    con = wh.reader()
    if fmt == "slurm-conf":
        try:
            return _slurm_conf(con, trace, out)
        finally:
            con.close()
    try:
        cur = con.execute("SELECT trace, source, format, computer, installation, unix_start_time, tz, capacity, "
                          "size_unit, steps_skipped, release FROM traces WHERE trace = ?", [trace])
        rows = cur.fetchall()
        row = rows[0] if rows else None
        if row is None:
            raise WalltimeError(f'TRACE: no trace "{trace}" in the warehouse; see `walltime traces`')
        info = dict(zip([d[0] for d in cur.description], row))
        require_times(con, trace, f"export --format {fmt}")
        jobs = pl.from_arrow(con.sql(
            "SELECT * EXCLUDE (submit_ts) FROM jobs WHERE trace = $t ORDER BY job_id", params={"t": trace}).arrow())
        parts = con.execute('SELECT "partition", capacity, source FROM trace_partitions WHERE trace = ? ORDER BY 1',
                            [trace]).fetchall()
    finally:
        con.close()
    if fmt == "swf":
        if info["release"] == "eligible":  # SWF's wait is start - submit: submit is when the job could start
            jobs = jobs.with_columns(pl.coalesce(["eligible", "submit"]).alias("submit"))
        size = write_file(out, _swf_header(info, jobs, parts) + _swf_lines(jobs))
    else:
        base = info["unix_start_time"] or 0
        table = jobs.with_columns((pl.col("submit") + base).alias("submit_epoch")).to_arrow()
        meta = {b"walltime": f"trace={trace};format={info['format']};tz={info['tz']};capacity={info['capacity']}".encode()}
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
        size = write_file(out, lambda fh: pq.write_table(table, fh))
    return ExportResult(trace, fmt, str(out), jobs.height, size)


def _slurm_conf(con, trace: str, out: Path) -> ExportResult:
    """The slurm.conf the Slurm replay uses for ``trace``: the one kept at ingest, else the inferred one."""
    from .simulate.slurm.infer import infer_conf

    if not con.execute("SELECT count(*) FROM traces WHERE trace = ?", [trace]).fetchone()[0]:
        raise WalltimeError(f'TRACE: no trace "{trace}" in the warehouse; see `walltime traces`')
    kept = con.execute("SELECT text FROM trace_slurm_files WHERE trace = ? AND kind = 'slurm.conf'",
                       [trace]).fetchone()
    text = kept[0] if kept else infer_conf(con, trace)
    size = write_file(out, text)
    (jobs,) = con.execute("SELECT count(*) FROM jobs WHERE trace = ?", [trace]).fetchone()
    return ExportResult(trace, "slurm-conf", str(out), jobs, size)


def _swf_lines(jobs: pl.DataFrame) -> str:
    """The 18 fields, -1 for unknown, one job per line."""
    def field(c):
        col = pl.col(c)
        if jobs.schema[c].is_float():  # whole numbers without '.0', others in shortest exact form
            text = pl.when(col == col.round(0)).then(col.cast(pl.Int64).cast(pl.String)).otherwise(col.cast(pl.String))
        else:
            text = col.cast(pl.String)
        return text.fill_null("-1")
    lines = jobs.select(pl.concat_str([field(c) for c in COLUMNS], separator=" ").alias("l"))["l"]
    return "\n".join(lines.to_list()) + ("\n" if jobs.height else "")


def _swf_header(info: dict, jobs: pl.DataFrame, parts: list) -> str:
    start = info["unix_start_time"]
    h = ["Version: 2.2", f"Computer: {info['computer'] or info['trace']}"]
    if info["installation"]:
        h.append(f"Installation: {info['installation']}")
    h.append(f"Conversion: walltime {VERSION} export, {datetime.now(timezone.utc):%Y-%m-%d}")
    h += [f"MaxJobs: {jobs.height}", f"MaxRecords: {jobs.height}"]
    if start is not None:
        h.append(f"UnixStartTime: {start}")
        h.append(f"StartTime: {datetime.fromtimestamp(start, timezone.utc):%a %b %d %H:%M:%S UTC %Y}")
    h.append(f"TimeZoneString: {info['tz']}")
    if info.get("release") == "eligible":
        h.append("Note: submit is Slurm's Eligible where known (after holds, dependencies, --begin, requeues), "
                 "so that submit + wait is the start")
    if info["capacity"] is not None:
        h.append(f"{'MaxNodes' if info['size_unit'] == 'nodes' else 'MaxProcs'}: {info['capacity']}")
    src = Path(info["source"]).name if info["source"] else "?"
    h.append(f"Note: exported by walltime from trace {info['trace']} (format {info['format']}, file {src})")
    if info["format"] != "swf":
        unit = "nodes" if info["size_unit"] == "nodes" else "processors (CPUs)"
        h.append(f"Note: sizes (fields 5 and 8) count {unit}; job ids are renumbered 1.. in submission order, "
                 "the log's own ids are in walltime's slurm_id column")
        if info["steps_skipped"]:
            h.append(f"Note: {info['steps_skipped']} job steps of the log were not jobs and are not listed")
        for p, cap, psrc in parts:
            h.append(f"Note: partition {p} has {cap} {unit} ({psrc})")
        for id_col, name_col, label in NAMED_IDS:
            pairs = (jobs.select(id_col, name_col).drop_nulls().unique(maintain_order=True).sort(id_col))
            if pairs.height > MAX_LISTED:
                h.append(f"Note: {label}: {pairs.height} names, numbered in order of first appearance (not listed)")
            elif pairs.height:
                h.append(f"Note: {label}: " + " ".join(f"{i}={_name(n)}" for i, n in pairs.iter_rows()))
    return "".join(f"; {printable(line)}\n" for line in h)


def _name(text: str) -> str:
    """A name in an "id=name" list: spaces (the list's separator) escaped too;
    the rest (a newline would end the comment line) by :func:`printable`."""
    return printable(text).replace(" ", "\\x20")
