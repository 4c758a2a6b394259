"""Columns derived at ingest: nodes, submit_ts, end, month.

Why at ingest: every later stage (estimates, monthly simulation, reports) needs
them, and the trace's time zone is only known here.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import polars as pl
import pyarrow as pa


def resolve_tz(tz_string: str | None) -> tuple[str, str | None]:
    """The zone used for months: the header's TimeZoneString when Polars knows
    it, else UTC (with a note saying why)."""
    if not tz_string:
        return "UTC", None
    try:
        pl.Series([0]).cast(pl.Datetime("ms")).dt.replace_time_zone("UTC").dt.convert_time_zone(tz_string)
        return tz_string, None
    except Exception:
        return "UTC", f'unknown TimeZoneString "{tz_string}"; months are computed in UTC'


def derive_columns(jobs: pl.DataFrame, trace: str, unix_start: int | None, tz: str,
                   month: bool = True, release: str | None = None) -> pl.DataFrame:
    """Add trace, nodes, cores (SWF: = nodes, processors), submit_ts (UTC), end and month (in ``tz``; not with
    ``month=False``: the caller adds :func:`month_dictionary` itself).

    ``release`` 'eligible': ``wait`` counts from ``eligible`` where it is
    known (sacct), so a job starts at eligible + wait; otherwise at submit + wait.

    Without UnixStartTime the submit times are taken as Unix times (absolute
    logs such as Alea's) -- for relative logs that places them in 1970.
    """
    base = unix_start or 0
    if "eligible" not in jobs.columns:
        jobs = jobs.with_columns(pl.lit(None, pl.Int64).alias("eligible"))
    waits_from = pl.coalesce(["eligible", "submit"]) if release == "eligible" else pl.col("submit")
    size = (pl.when(pl.col("procs") > 0).then(pl.col("procs"))
            .when(pl.col("req_procs") > 0).then(pl.col("req_procs")).otherwise(None))
    ts = pl.from_epoch(pl.col("submit") + base, time_unit="s").dt.replace_time_zone("UTC")
    out = jobs.with_columns(
        pl.lit(trace).alias("trace"),
        size.alias("nodes"),
        ts.alias("submit_ts"),
        (waits_from + pl.col("wait") + pl.col("run")).alias("end"),
    )
    if "cores" not in out.columns:  # SWF: the size is processors (node counts unknown: node_count NULL)
        out = out.with_columns(size.alias("cores"))
    if not month:
        return out
    if out["submit"].null_count() == out.height:  # a log without times (sacct default fields)
        return out.with_columns(pl.lit(None, pl.String).alias("month"))
    month = _months(out["submit"].to_numpy() + base, tz)
    if month is None:  # zone unknown to zoneinfo: let Polars convert every row
        return out.with_columns(ts.dt.convert_time_zone(tz).dt.strftime("%Y-%m").alias("month"))
    return out.with_columns(pl.Series("month", month, dtype=pl.String))


def _months(epoch: np.ndarray, tz: str) -> pa.Array | None:
    """'YYYY-MM' in ``tz`` of each Unix time. Why not strftime per row: the
    zone conversion of millions of rows costs more than the rest of the
    derived columns; a trace spans few months, so find each row's month by
    binary search among the month starts."""
    if len(epoch) == 0:
        return pa.array([], pa.string())
    got = month_dictionary(epoch, tz)
    return None if got is None else got.dictionary.take(got.indices)


def month_dictionary(epoch: np.ndarray, tz: str) -> pa.DictionaryArray | None:
    """:func:`_months` as a dictionary array (the month labels and one 32-bit
    index per row): what the jobs file stores, without a string per row.
    None when ``tz`` is unknown to zoneinfo or a time is out of its range."""
    try:
        zone = ZoneInfo(tz)
        first = datetime.fromtimestamp(int(epoch.min()), zone)
    except (ZoneInfoNotFoundError, ValueError, OverflowError, OSError):
        return None
    last = int(epoch.max())
    y, m = first.year, first.month
    starts, labels = [], []
    while True:
        start = int(datetime(y, m, 1, tzinfo=zone).timestamp())
        if start > last:
            break
        starts.append(start)
        labels.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    codes = np.searchsorted(np.array(starts, dtype=np.int64), epoch.astype(np.int64, copy=False), side="right") - 1
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), pa.array(labels, pa.string()))
