"""Scheduling metrics of a run, computed in SQL over its ``sim_jobs`` rows.

Why SQL and not the event loop: the loop stays a pure scheduler, the metrics
are one reviewed query (sql/metrics_run.sql, definitions in simulation.md
"Metrics") that anyone can re-run against the warehouse, and a plain-Python
twin (tests/naive_metrics.py) checks it.
"""

from __future__ import annotations

from . import sqlfiles

METRIC_NAMES = (
    "jobs", "mean_wait", "median_wait", "max_wait", "mean_response", "mean_slowdown",
    "mean_bounded_slowdown", "weighted_wait", "utilization", "makespan", "backfill_ratio",
    "backfilled", "predicted", "prediction_error", "prediction_error_pct", "peak_nodes",
)


def compute_run_metrics(con, run_id: str) -> None:
    """(Re)compute and store run_metrics rows of ``run_id``: 'all' and one per month."""
    con.execute("DELETE FROM run_metrics WHERE run_id = ?", [run_id])
    con.execute(sqlfiles.load("metrics_run"), [run_id])


def read_run_metrics(con, run_id: str) -> tuple[dict, list[dict]]:
    """(whole-run metrics, [per-month metrics with "month": "YYYY-MM", ...])."""
    cur = con.execute(sqlfiles.load("metrics_read"), [run_id])
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r)) for r in cur.fetchall()]
    whole = next((r for r in rows if r["month"] == "all"), {})
    whole = {k: v for k, v in whole.items() if k != "month"}
    return whole, [r for r in rows if r["month"] != "all"]
