"""Helpers the paper modules share: trace names, queries, the report's compute phase."""

from __future__ import annotations

from ..report.compute import prepare
from ..simulate import make_config, simulate
from ..warehouse import Warehouse

KTH, CTC, SDSC = "KTH-SP2-1996-2.1-cln", "CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln"
HPC2N, CEA, BLUE = "HPC2N-2002-2.2-cln", "CEA-Curie-2011-2.1-cln", "SDSC-BLUE-2000-4.2-cln"
LANL, PAR96 = "LANL-CM5-1994-4.1-cln", "SDSC-Par-1996-3.1-cln"
SHORT = {KTH: "KTH", CTC: "CTC", SDSC: "SDSC", HPC2N: "HPC2N", CEA: "CEA-Curie", BLUE: "SDSC-BLUE",
         LANL: "LANL-CM5", PAR96: "SDSC-Par 1996"}


def rows(con, sql: str, *params) -> list[dict]:
    cur = con.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def capacities(traces: dict) -> dict[str, int]:
    return {t: c for t, c in traces.items() if c}


def run_plan(wh: Warehouse, traces: dict, sections: list[str], experiment: str) -> None:
    """The report's planned simulations of one experiment (sql/041_report_plan.sql)."""
    prepare(wh, list(traces), sections, capacities(traces), [experiment], grid=False)


def simulate_month_runs(wh: Warehouse, trace: str, capacity: int | None, backfill: str, estimate: str,
                        policy: str = "fcfs") -> str:
    """One monthly (--split month) simulation; returns its run_id (a stored run is reused)."""
    cfg = make_config(policy=policy, backfill=backfill, estimate=estimate, split="month", capacity=capacity)
    return simulate(wh, trace, cfg).run_id


def pct_change(new, base):
    return None if new is None or base in (None, 0) else 100.0 * (new / base - 1)


def boot_interval(cols, stat) -> tuple[float | None, float | None]:
    """The 95% bootstrap interval of ``stat`` over periods (months, or seeds): ``cols`` is k equal-length
    series over the same n periods (paired: one resample of the periods draws the same periods in every
    series); ``stat`` maps the resampled (k x RESAMPLES x n) array to RESAMPLES values. (None, None) under
    2 periods. The resampled periods are summary/compare.py's (seed 23, 2,000 draws), as every interval
    the project prints."""
    import numpy as np

    from ..summary.compare import resample_index

    arr = np.asarray(cols, dtype=float)
    if arr.ndim != 2 or arr.shape[1] < 2 or not np.isfinite(arr).all():
        return None, None
    v = np.asarray(stat(arr[:, resample_index(arr.shape[1])]), dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return None, None
    lo, hi = np.percentile(v, [2.5, 97.5])
    return float(lo), float(hi)


def mean_of(x):
    """boot_interval's statistic: the mean of the first series."""
    return x[0].mean(axis=-1)


def diff_of_means(x):
    """boot_interval's statistic: the mean of the first series minus the mean of the second."""
    return x[0].mean(axis=-1) - x[1].mean(axis=-1)
