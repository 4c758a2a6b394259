"""Plain-Python twin of sql/metrics_run.sql, written from simulation.md "Metrics".

One job = a dict with month, submit, run, nodes, req, start, backfilled and
predicted_start (None if not predicted). Returns {month or 'all': metrics}.
The weighted wait is Tang Eq. 4 with Eq. 5's weight as printed: the user's
request t_req, not the scheduler's (adjusted) estimate.
"""

from __future__ import annotations

import statistics


def _mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def peak_in_use(jobs) -> int:
    """Most nodes in use at once: walk every instant where something changes;
    at an instant, jobs ending then have already left."""
    times = sorted({j["start"] for j in jobs if j["run"] > 0})
    best = 0
    for t in times:
        used = sum(j["nodes"] for j in jobs if j["run"] > 0 and j["start"] <= t < j["start"] + j["run"])
        best = max(best, used)
    return best


def eq4_weight(job, policy: str) -> float:
    """P_i of Tang Eq. 4: Eq. 5 (wait / t_req)^3 x nodes under WFP, else the wait."""
    wait = job["start"] - job["submit"]
    if policy == "wfp":
        return (wait / max(job["req"], 1)) ** 3 * job["nodes"]
    return float(wait)


def group_metrics(jobs, capacity: int, policy: str = "fcfs") -> dict:
    waits = [j["start"] - j["submit"] for j in jobs]
    resp = [w + j["run"] for w, j in zip(waits, jobs)]
    ends = [j["start"] + j["run"] for j in jobs]
    weights = [eq4_weight(j, policy) for j in jobs]
    score_sum = sum(weights)
    pred = [(j, w) for j, w in zip(jobs, waits) if j["predicted_start"] is not None]
    span = max(ends) - min(j["submit"] for j in jobs)
    err = _mean(abs(j["predicted_start"] - j["start"]) for j, _ in pred)
    pred_wait = _mean(w for _, w in pred)
    return {
        "jobs": len(jobs),
        "mean_wait": _mean(waits),
        "median_wait": statistics.median(waits),
        "max_wait": max(waits),
        "mean_response": _mean(resp),
        "mean_slowdown": _mean(r / max(j["run"], 1) for r, j in zip(resp, jobs)),
        "mean_bounded_slowdown": _mean(max(1.0, r / max(j["run"], 10)) for r, j in zip(resp, jobs)),
        "weighted_wait": (sum(w * p for w, p in zip(waits, weights)) / score_sum) if score_sum > 0 else 0.0,
        "utilization": (sum(j["nodes"] * j["run"] for j in jobs) / (capacity * span)) if span > 0 else None,
        "makespan": span,
        "backfill_ratio": _mean(1.0 if j["backfilled"] else 0.0 for j in jobs),
        "backfilled": sum(1 for j in jobs if j["backfilled"]),
        "predicted": len(pred),
        "prediction_error": err,
        "prediction_error_pct": (100.0 * err / pred_wait) if pred and pred_wait else None,
    }


def run_metrics(jobs, capacity: int, by_month: bool, policy: str = "fcfs") -> dict[str, dict]:
    """Metrics of the whole run ('all') and of each month of submission.
    peak_nodes: per simulated segment (each month alone when by_month)."""
    months = sorted({j["month"] for j in jobs})
    out = {"all": group_metrics(jobs, capacity, policy)}
    for m in months:
        out[m] = group_metrics([j for j in jobs if j["month"] == m], capacity, policy)
    if by_month:
        for m in months:
            out[m]["peak_nodes"] = peak_in_use([j for j in jobs if j["month"] == m])
        out["all"]["peak_nodes"] = max(out[m]["peak_nodes"] for m in months)
    else:
        out["all"]["peak_nodes"] = peak_in_use(jobs)
        for m in months:
            out[m]["peak_nodes"] = None
    return out
