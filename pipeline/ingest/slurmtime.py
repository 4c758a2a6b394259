"""Slurm's time strings as Polars expressions: durations and zone-less stamps.

Why expressions: a sacct dump has millions of lines; every conversion here is
one vectorised pass (no Python per line), and each returns NULL for a string
it cannot read so that the caller can name the bad line.
"""

from __future__ import annotations

import polars as pl

# [D-][HH:]MM[:SS] as printed by Slurm (Timelimit, Elapsed).
_DURATION = r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$"
NO_LIMIT = ("UNLIMITED", "Partition_Limit", "INFINITE")
MISSING_TIME = ("", "None", "Unknown")
TIME_FORMATS = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M")


def duration_seconds(col: pl.Expr) -> pl.Expr:
    """Seconds of a Slurm duration: ``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH``,
    ``D-HH:MM``, ``D-HH:MM:SS`` (plain numbers are minutes, as in sbatch
    --time). NULL when the string is not one of these."""
    s = col.str.strip_chars()
    parts = s.str.extract_groups(_DURATION)
    d = parts.struct.field("1").cast(pl.Int64)
    a = parts.struct.field("2").cast(pl.Int64)
    b = parts.struct.field("3").cast(pl.Int64)
    c = parts.struct.field("4").cast(pl.Int64)
    no_day = (
        pl.when(c.is_not_null()).then(a * 3600 + b * 60 + c)
        .when(b.is_not_null()).then(a * 60 + b)
        .otherwise(a * 60)
    )
    with_day = d * 86400 + a * 3600 + b.fill_null(0) * 60 + c.fill_null(0)
    return pl.when(d.is_not_null()).then(with_day).otherwise(no_day)


def naive_time(col: pl.Expr) -> pl.Expr:
    """A zone-less timestamp in any of :data:`TIME_FORMATS` (NULL otherwise)."""
    s = col.str.strip_chars()
    return pl.coalesce([s.str.to_datetime(f, strict=False, time_unit="us") for f in TIME_FORMATS])


def local_epoch(col: pl.Expr, tz: str, ambiguous: str) -> pl.Expr:
    """Unix seconds of naive local times in ``tz``. ``ambiguous``: 'earliest'
    or 'latest' for the repeated hour of a DST change; a time in the skipped
    hour is NULL."""
    return col.dt.replace_time_zone(tz, ambiguous=ambiguous, non_existent="null").dt.epoch("s")


def ordered_epochs(cols: list[pl.Expr], tz: str) -> list[pl.Expr]:
    """Unix seconds of successive event times (submit, start, end) of one job.

    Why: in the hour repeated when DST ends, a local time names two instants.
    The first event takes the earlier one; each later event takes the earlier
    one unless that would put it before the previous event, then the later
    one. So a job submitted at 01:50 (summer time) that starts at 01:10
    (winter time) waits 20 minutes, not minus 40."""
    out = []
    prev = None
    for c in cols:
        early, late = local_epoch(c, tz, "earliest"), local_epoch(c, tz, "latest")
        cur = early if prev is None else pl.when(early < prev).then(late).otherwise(early)
        out.append(cur)
        prev = pl.coalesce([cur, prev]) if prev is not None else cur
    return out
