"""Shared helpers for the kernel tests: run both simulators, check invariants."""

from __future__ import annotations

import numpy as np

import naive_sim
from pipeline.simulate import kernel

OUTPUTS = ("start", "backfilled", "predicted_start", "score", "first_bound")


def arrays(jobs):
    """jobs: list of dicts (submit, run, nodes, est, req[, job_id]) -> sorted int64 arrays."""
    jobs = sorted(jobs, key=lambda j: (j["submit"], j.get("job_id", 0)))
    cols = {k: np.array([j[k] for j in jobs], dtype=np.int64) for k in ("submit", "run", "nodes", "est", "req")}
    cols["job_id"] = np.array([j.get("job_id", i) for i, j in enumerate(jobs)], dtype=np.int64)
    return cols


def run_both(w, capacity, policy, backfill, adjust, overrun, predict=True):
    est_run = w["est"] if adjust == "regular" else w["req"]
    args = (w["submit"], w["job_id"], w["run"], w["nodes"], w["est"], est_run, w["req"], capacity,
            kernel.POLICIES[policy], kernel.BACKFILLS[backfill], kernel.OVERRUNS[overrun], predict)
    return kernel.simulate(*args), naive_sim.simulate(*args)


def assert_same(fast, slow, label=""):
    for name, a, b in zip(OUTPUTS, fast, slow):
        bad = np.flatnonzero(a != b)
        assert bad.size == 0, f"{label} {name} differs at jobs {bad[:10].tolist()}: kernel {a[bad[:10]].tolist()} naive {b[bad[:10]].tolist()}"


def check_invariants(w, capacity, out, backfill, policy, est_run):
    """Spec invariants on one run (kernel output)."""
    start, backfilled, predicted, score, bound = out
    submit, run, nodes = w["submit"], w["run"], w["nodes"]
    assert (start >= 0).all(), "every job starts"
    assert (start >= submit).all(), "start >= submit"
    end = start + run
    # nodes in use never exceed capacity: sweep starts and ends (ends first at a tie)
    times = np.concatenate([end, start])
    delta = np.concatenate([-nodes, nodes])
    order = np.lexsort((delta, times))
    assert np.cumsum(delta[order]).max(initial=0) <= capacity, "over capacity"
    # a zero-length job coexists with every job that started before it and is still running
    zero = np.flatnonzero(run == 0)
    if zero.size:
        t = start[zero]
        s_sorted, e_sorted = np.argsort(start, kind="stable"), np.argsort(end, kind="stable")
        cs = np.concatenate([[0], np.cumsum(nodes[s_sorted])])
        ce = np.concatenate([[0], np.cumsum(nodes[e_sorted])])
        before = cs[np.searchsorted(start[s_sorted], t, "left")] - ce[np.searchsorted(end[e_sorted], t, "right")]
        assert (before + nodes[zero] <= capacity).all(), "zero-length job over capacity"
    if backfill == "none":
        assert not backfilled.any()
        assert (bound == -1).all()
    exact_enough = (est_run >= run).all() and (w["est"] >= run).all()
    # The bounds are theorems only when a starting job is expected to hold what it
    # was scheduled with: under selective adjustment it is expected to run until its
    # request, which pushes reservations (conservative) and the shadow (EASY) later.
    same_hold = (np.maximum(est_run, 1) == np.maximum(w["est"], 1)).all()
    if backfill == "conservative":
        assert (bound >= submit).all()
        assert (predicted == bound).all()
        if exact_enough and same_hold:
            assert (start <= bound).all(), "conservative: no job later than its first reservation"
    if backfill == "easy" and policy == "fcfs" and exact_enough and same_hold:
        has = bound >= 0
        assert (start[has] <= bound[has]).all(), "easy: no job later than its first shadow time"
