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


# -- beside the loop ----------------------------------------------------------
# The same definitions in NumPy, computed by the process that ran the loop (a
# sweep's workers), so storing a run costs the writer a few rows instead of a
# query over its jobs. tests/test_simulate_metrics.py checks them against
# sql/metrics_run.sql and the naive twin on random runs.

def _group(submit, run, nodes, start, backfilled, predicted, score, capacity: int) -> dict:
    import numpy as np

    n = len(submit)
    wait = start - submit
    resp = wait + run
    end = start + run
    score_sum = float(score.sum())
    has = predicted >= 0
    span = int(end.max() - submit.min())
    k = int(has.sum())
    err = float(np.abs(predicted[has] - start[has]).sum() / k) if k else None
    pred_wait = float(wait[has].sum() / k) if k else None
    return {
        "jobs": n,
        "mean_wait": float(wait.sum() / n),
        "median_wait": float(np.median(wait)),
        "max_wait": int(wait.max()),
        "mean_response": float(resp.sum() / n),
        "mean_slowdown": float((resp / np.maximum(run, 1)).mean()),
        "mean_bounded_slowdown": float(np.maximum(1.0, resp / np.maximum(run, 10)).mean()),
        "weighted_wait": float((wait * score).sum() / score_sum) if score_sum > 0 else 0.0,
        "utilization": float((nodes * run).sum()) / (capacity * span) if span != 0 else None,
        "makespan": span,
        "backfill_ratio": float(backfilled.sum() / n),
        "backfilled": int(backfilled.sum()),
        "predicted": k,
        "prediction_error": err,
        "prediction_error_pct": 100.0 * err / pred_wait if k and pred_wait else None,
    }


def peak_nodes(start, run, nodes) -> int:
    """Most nodes in use at once (a sweep over start/end events, ends first at
    equal times): the maximum is reached just after some start, where the use
    is the nodes of the jobs started so far minus those of the jobs ended by then."""
    import numpy as np

    live = run > 0
    if not live.any():
        return 0
    if live.all():  # (no masked copies)
        s, e, w = start, start + run, nodes
    else:
        s, e, w = start[live], start[live] + run[live], nodes[live]
    # the order among equal times does not matter (each instant's sums are taken at its last event),
    # so not a stable sort: twice as fast at 11M jobs
    so = np.argsort(s)
    eo = np.argsort(e)
    started = np.cumsum(w[so])
    ended = np.concatenate([[0], np.cumsum(w[eo])])
    s_sorted = s[so]
    # all starts at one instant count together: take the last start of each instant
    last = np.r_[s_sorted[1:] != s_sorted[:-1], True]
    done = ended[np.searchsorted(e[eo], s_sorted[last], side="right")]
    return int((started[last] - done).max())


def eq4_weight(policy: str, submit, start, req, nodes):
    """P_i of Tang Eq. 4 per job, as sql/metrics_run.sql defines it: under WFP
    Eq. 5 as printed, (wait / t_req)^3 x nodes with t_req the user's request
    (a job without one, req < 0 or NULL, weighs nothing); else the wait."""
    import numpy as np

    wait = (start - submit).astype(np.float64)
    if policy != "wfp":
        return wait
    w = (wait / np.maximum(req, 1)) ** 3 * nodes
    return np.where(req >= 0, w, 0.0)


def compute_metrics(submit, run, nodes, start, backfilled, predicted, score, month_idx, months: list[str],
                    capacity: int, by_month: bool) -> list[dict]:
    """run_metrics rows ('all' first, then months in order) from a run's arrays;
    ``predicted`` is -1 where there is no forecast; ``score`` is the weight of
    the weighted wait (:func:`eq4_weight`). Same values as metrics_run.sql."""
    import numpy as np

    arrays = (submit, run, nodes, start, backfilled.astype(np.int64), predicted, score.astype(np.float64))
    whole = {"month": "all", **_group(*arrays, capacity)}
    rows = []
    peaks = []
    if len(month_idx) < 2 or bool((month_idx[1:] >= month_idx[:-1]).all()):  # loop order is mostly month order
        bounds = np.searchsorted(month_idx, np.arange(len(months) + 1))
        by_code = list(arrays)
    else:
        order = np.argsort(month_idx, kind="stable")  # each month one slice
        bounds = np.searchsorted(month_idx[order], np.arange(len(months) + 1))
        by_code = [a[order] for a in arrays]
    for code in sorted(np.flatnonzero(np.diff(bounds)), key=lambda c: months[c]):
        part = [a[bounds[code]:bounds[code + 1]] for a in by_code]
        row = {"month": months[code], **_group(*part, capacity)}
        row["peak_nodes"] = peak_nodes(part[3], part[1], part[2]) if by_month else None
        peaks.append(row["peak_nodes"])
        rows.append(row)
    whole["peak_nodes"] = max(peaks) if by_month else peak_nodes(start, run, nodes)
    return [whole, *rows]


def insert_metrics_many(con, rows: list[tuple[str, dict]]) -> None:
    """Store (run_id, row) pairs in one statement, from an Arrow table (caller
    holds the transaction and has deleted the runs' old rows): a study's
    coordinator stores a batch of finished runs at once, and binding each
    value as a parameter cost ~2 ms per run."""
    if not rows:
        return
    import pyarrow as pa

    cols = ("month", *METRIC_NAMES)
    table = pa.table({"run_id": pa.array([run_id for run_id, _ in rows], pa.string()),
                      **{c: pa.array([r[c] for _, r in rows]) for c in cols}})
    names = ", ".join(("run_id", *cols))
    con.register("_walltime_new_metrics", table)
    try:
        con.execute(f"INSERT INTO run_metrics ({names}) SELECT {names} FROM _walltime_new_metrics")
    finally:
        con.unregister("_walltime_new_metrics")


def insert_metrics(con, run_id: str, rows: list[dict]) -> None:
    """Store rows from :func:`compute_metrics` (caller holds the transaction)."""
    cols = ("month", *METRIC_NAMES)
    con.execute("DELETE FROM run_metrics WHERE run_id = ?", [run_id])
    one = f"(?{', ?' * len(cols)})"
    con.execute(f"INSERT INTO run_metrics (run_id, {', '.join(cols)}) VALUES {', '.join([one] * len(rows))}",
                [v for r in rows for v in (run_id, *(r[c] for c in cols))])
