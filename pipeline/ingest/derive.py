"""Columns derived at ingest: nodes, submit_ts, end, month.

Why at ingest: every later stage (estimates, monthly simulation, reports) needs
them, and the trace's time zone is only known here.
"""

from __future__ import annotations

import polars as pl


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


def derive_columns(jobs: pl.DataFrame, trace: str, unix_start: int | None, tz: str) -> pl.DataFrame:
    """Add trace, nodes, submit_ts (UTC), end and month (in ``tz``).

    Without UnixStartTime the submit times are taken as Unix times (absolute
    logs such as Alea's) -- for relative logs that places them in 1970.
    """
    base = unix_start or 0
    ts = pl.from_epoch(pl.col("submit") + base, time_unit="s").dt.replace_time_zone("UTC")
    return jobs.with_columns(
        pl.lit(trace).alias("trace"),
        pl.when(pl.col("procs") > 0).then(pl.col("procs"))
        .when(pl.col("req_procs") > 0).then(pl.col("req_procs"))
        .otherwise(None).alias("nodes"),
        ts.alias("submit_ts"),
        (pl.col("submit") + pl.col("wait") + pl.col("run")).alias("end"),
        ts.dt.convert_time_zone(tz).dt.strftime("%Y-%m").alias("month"),
    )
