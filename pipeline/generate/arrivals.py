"""Arrival times with daily and weekly cycles, by time-warping a Poisson process.

Why a warp: a non-homogeneous Poisson process is a homogeneous one run on the
clock Lambda(t) = integral of the intensity. With an intensity that is
constant within each hour, Lambda is piecewise linear and its inverse is one
``np.interp``: exact, vectorised, and the hour/weekday are taken in the
trace's own time zone (daylight saving included).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .model import HOUR, Model


def hourly_intensity(unix_start: int, hours: int, tz: str, m: Model) -> np.ndarray:
    """Relative submission rate for each hour after ``unix_start`` (local clock)."""
    mids = unix_start + HOUR * np.arange(hours, dtype=np.int64) + HOUR // 2
    local = pl.from_epoch(pl.Series("t", mids), time_unit="s").dt.replace_time_zone("UTC").dt.convert_time_zone(tz)
    hour = local.dt.hour().to_numpy().astype(np.int64)
    weekend = local.dt.weekday().to_numpy() >= 6  # Polars: Monday=1 .. Sunday=7
    profile = np.asarray(m.hourly, dtype=np.float64)
    return profile[hour] * np.where(weekend, m.weekend_factor, 1.0)


def burst_starts(unit: np.ndarray, span: float, unix_start: int, tz: str, m: Model) -> np.ndarray:
    """Map ``unit`` (sorted, in [0, 1]) to seconds after the start so that the
    points follow the cyclic intensity over ``[0, span)``."""
    hours = int(np.ceil(span / HOUR)) + 1
    rate = hourly_intensity(unix_start, hours, tz, m)
    edges = HOUR * np.arange(hours + 1, dtype=np.float64)
    clock = np.concatenate(([0.0], np.cumsum(rate * HOUR)))
    total = np.interp(span, edges, clock)
    return np.interp(unit * total, clock, edges)


def unit_order_statistics(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` sorted points in [0, 1], the first at 0 and the last at 1 (so the
    submissions span the whole target span even for a few bursts), the ones in
    between distributed as a Poisson process's."""
    if count < 2:
        return np.zeros(count)
    c = np.cumsum(rng.exponential(1.0, count))
    return (c - c[0]) / (c[-1] - c[0])
