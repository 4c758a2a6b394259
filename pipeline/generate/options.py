"""Option checks and the trace's start time and zone, shared by the library and the CLI."""

from __future__ import annotations

import datetime as dt
import math
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import polars as pl

from ..errors import WalltimeError
from ..ingest.ranges import INT32, MAX_SPAN

DEFAULT_START = "2025-01-06"  # a Monday, midnight local time
DEFAULT_TZ = "Europe/Stockholm"
WAITS = ("easy", "none")


MAX_JOBS = 10_000_000  # checked before any work: a typo (1e12) is a refusal, not an out-of-memory (~1 GB per 10 M)


def check_options(jobs: int, seed: int, capacity: int, load: float, waits: str = "easy") -> None:
    if not isinstance(jobs, (int, np.integer)) or not 0 < jobs <= MAX_JOBS:
        raise WalltimeError(f"--jobs: must be a positive number of jobs, at most {MAX_JOBS:,}, got {jobs}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise WalltimeError(f"--seed: must be a non-negative integer, got {seed}")
    if not isinstance(capacity, (int, np.integer)) or not 1 <= capacity <= INT32:
        raise WalltimeError(f"--capacity: must be from 1 to {INT32:,} processors, got {capacity}")
    if not (isinstance(load, (int, float)) and math.isfinite(load) and load > 0):
        raise WalltimeError(f"--load: must be a positive number (offered utilization, e.g. 0.7), got {load}")
    if waits not in WAITS:
        raise WalltimeError(f'--waits: "{waits}" is not one of {", ".join(WAITS)}')


def unix_start_of(start: str | dt.datetime, tz: str) -> int:
    """Unix time of ``start`` read as local time in ``tz`` (an aware datetime keeps its own zone)."""
    zone = zone_of(tz)
    if isinstance(start, str):
        try:
            start = dt.datetime.fromisoformat(start)
        except ValueError:
            raise WalltimeError(f'--start: "{start}" is not a date like 2025-01-06 or 2025-01-06T08:00') from None
    if start.tzinfo is None:
        start = start.replace(tzinfo=zone)
    try:
        unix = int(start.timestamp())
    except (OverflowError, ValueError):  # year 1 or 9999 moved out of range by the zone
        unix = MAX_SPAN + 1
    if not -MAX_SPAN <= unix <= MAX_SPAN:
        raise WalltimeError(f'--start: "{start.replace(tzinfo=None).isoformat(" ")}" is out of range; '
                            f"expected a date from {_date(-MAX_SPAN)} to {_date(MAX_SPAN)} "
                            "(every reader's range: 200 years around 1970)")
    return unix


def zone_of(tz: str) -> ZoneInfo:
    try:
        zone = ZoneInfo(tz)
        pl.Series([0]).cast(pl.Datetime("ms")).dt.replace_time_zone("UTC").dt.convert_time_zone(tz)  # Polars knows it too
        return zone
    except (ZoneInfoNotFoundError, ValueError, pl.exceptions.PolarsError):
        raise WalltimeError(f'--timezone: "{tz}" is not a known IANA time zone (e.g. Europe/Stockholm, UTC)') from None


def _date(unix: int) -> str:
    return (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=unix)).strftime("%Y-%m-%d")


def check_end(unix_start: int, last: int) -> None:
    """A trace that starts in range but would end past it (``last``: seconds after the start)."""
    if unix_start + last > MAX_SPAN:
        raise WalltimeError(f"--start: the trace would end after {_date(MAX_SPAN)} (every reader's range: "
                            "200 years around 1970); start earlier, or raise --load or lower --jobs")
