"""`--grid tang`: accuracy of every Tang scheme (Tang et al. Figs. 4-10).

4 keys x 6 windows x 9 statistics at the default floor and minimum history,
and again with floor 0 (Figs. 6-7). The history statistics of one (key,
window) serve all 9 statistics and both floors, so the grid costs 24 window
passes, not 432; per-job estimates of grid schemes are scored, not stored.
"""

from __future__ import annotations

import polars as pl

from .. import progress
from ..schemes import KEYS, SCHEMES, STATS, WINDOWS, parse
from .accuracy import score_columns
from .compute import tang_from_stat, tang_stats

GRIDS = ("tang",)
DEFAULT_FLOOR = SCHEMES["tang"]["floor"][1]
DEFAULT_MIN = SCHEMES["tang"]["min"][1]
FLOORS = (DEFAULT_FLOOR, 0.0)
GRID_SIZES = {"tang": len(KEYS) * len(WINDOWS) * len(STATS) * len(FLOORS)}


def tang_grid_rows(jobs: pl.DataFrame) -> pl.DataFrame:
    """One accuracy row per grid scheme, with its key_type, win, stat, floor, min_jobs."""
    out = []
    with progress.bar() as bar:
        task = bar.add_task("tang grid", total=len(KEYS) * len(WINDOWS)) if bar else None
        for key in KEYS:
            for window in WINDOWS:
                out.append(_one_pass(jobs, key, window))
                if bar:
                    bar.advance(task)
    return pl.concat(out)


def scored_jobs(jobs: pl.DataFrame) -> pl.DataFrame:
    """A run cut short is no runtime to score against; Tang's estimates never read a job's own run,
    and its history already leaves it out (end NULL)."""
    return jobs.with_columns(pl.when(pl.col("cut_short")).then(None).otherwise(pl.col("run")).alias("run"))


def grid_columns(jobs: pl.DataFrame, key: str, window: str,
                 stats: tuple[str, ...] = STATS) -> tuple[pl.DataFrame, list[dict]]:
    """One history pass of (key, window): the jobs (job_id, run, req) with one estimate column per
    floor and statistic, named by the scheme, and each column's grid row (scheme, key_type, win,
    stat, floor, min_jobs)."""
    frame = tang_stats(jobs, key, window, list(stats))
    cols, meta = [], []
    for floor in FLOORS:
        for stat in stats:
            name = parse(f"tang:key={key},window={window},stat={stat},floor={floor:g},min={DEFAULT_MIN}").canonical
            cols.append(tang_from_stat(frame, stat, floor, DEFAULT_MIN).alias(name))
            meta.append({"scheme": name, "key_type": key, "win": window, "stat": stat,
                         "floor": float(floor), "min_jobs": DEFAULT_MIN})
    return frame.select("job_id", "run", "req", *cols), meta


def _one_pass(jobs: pl.DataFrame, key: str, window: str) -> pl.DataFrame:
    wide, meta = grid_columns(jobs, key, window)
    scores = score_columns(wide, [m["scheme"] for m in meta])
    return pl.DataFrame(meta).join(scores, on="scheme", how="left", maintain_order="left")
