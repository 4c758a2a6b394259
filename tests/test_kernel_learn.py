"""`--history simulated` (issue 26): Tsafrir's ave2 learned inside the replay
from its own ends, as pyss's predictor_tsafrir does (Gaussier et al. 2015),
Numba loop (kernel.simulate_learn) vs the naive twin (naive_sim.simulate_learn)
job by job: a hand-checked case, hypothesis workloads with users, and a real
trace. The twin keeps every ended job in a list and sorts the user's ones at
each submission; the loop keeps two run times and a count per user.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive_sim
from conftest import trace_path
from kernel_checks import assert_same, check_invariants
from test_kernel import workloads as kernel_workloads
from pipeline.simulate import kernel

CODES = {"none": 0, "easy": 1, "easy-sjbf": kernel.EASY_SJBF}


def both(w, user, capacity, policy, backfill, overrun, predict=False):
    args = (w["submit"], w["job_id"], w["run"], w["nodes"], w["req"], np.asarray(user, np.int64), capacity,
            kernel.POLICIES[policy], CODES[backfill], kernel.OVERRUNS[overrun], predict)
    return kernel.simulate_learn(*args), naive_sim.simulate_learn(*args)


def hand(submit, run, nodes, req, user, capacity, starts=None, est=None):
    """A hand-made FCFS + EASY case (job ids = positions): kernel and twin give ``starts`` and ``est``."""
    w = {k: np.array(v, np.int64) for k, v in
         dict(submit=submit, job_id=range(len(submit)), run=run, nodes=nodes, req=req).items()}
    for out in both(w, user, capacity, "fcfs", "easy", "request"):
        if starts is not None:
            assert out[0].tolist() == starts
        assert out[5].tolist() == est


def test_hand_checked_case():
    """One processor, one user; runs 100, 51, 30, 10, 5 s, requests 1,000 s.
    t=0: jobs 0 and 1 arrive with no history: the request. Job 0 runs 0-100,
    job 1 100-151. Job 2 (t=120) sees one ended job only: the request; it runs
    151-181. Job 3 (t=200) sees jobs 1 and 2: floor((51 + 30) / 2) = 40 (the
    mean is 40.5). Job 4 is submitted at 210, the instant job 3 ends: job 3 is
    not yet history (pyss handles an instant's submissions before its
    terminations), so 40 again, not floor((30 + 10) / 2) = 20."""
    hand([0, 0, 120, 200, 210], [100, 51, 30, 10, 5], [1] * 5, [1000] * 5, [0] * 5, 1,
         starts=[0, 100, 151, 200, 210], est=[1000, 1000, 1000, 40, 40])


def test_history_is_the_replays_not_the_logs():
    """Two processors. Job 0 (user 0, both processors, run 500) holds jobs 1
    and 2 of user 1 (runs 10 and 20, submitted at 1 and 2) until 500. Had they
    started at once, they would have ended at 11 and 22, before job 3's
    submission at 100, and a history from those ends would give job 3
    floor((10 + 20) / 2) = 15. In the replay they end at 510 and 520: job 3,
    submitted at 100, has no history (its request, 300) and starts at 510
    (ends 540); job 4, submitted at 600, gets jobs 2 and 3: floor((20 + 30) /
    2) = 25. User 0's job never counts for user 1."""
    hand([0, 1, 2, 100, 600], [500, 10, 20, 30, 30], [2, 1, 1, 1, 1], [1000, 100, 100, 300, 300], [0, 1, 1, 1, 1], 2,
         starts=[0, 500, 500, 510, 600], est=[1000, 100, 100, 300, 25])


def test_unknown_user_and_request_cap():
    """A user index of -1 has no history (the request), and the mean is capped at the request."""
    # job 2: min(4, (5 + 7) // 2 = 6); job 3: user -1
    hand([0, 10, 20, 30], [5, 7, 3, 3], [1] * 4, [10, 10, 4, 10], [0, 0, 0, -1], 1, est=[10, 10, 4, 10])


def test_a_job_that_starts_and_ends_at_one_instant_joins_the_history_last():
    """Found by Hypothesis (SJF, one processor). User 2's jobs 7 (position 7,
    runs 1 -> 2) and 5 (position 5, starts at 2 with run 0, ends at 2) end at
    the same instant, but job 5's end is queued when it starts, after the
    ends of instant 2 were taken: it joins the history after job 7 (pyss: in
    the order the terminations were queued), so job 9 at t=6 averages jobs 3
    (run 3, ended 5) and 5 (run 0): floor(3 / 2) = 1, not floor(4 / 2) = 2."""
    w = {k: np.array(v, np.int64) for k, v in dict(
        submit=[0, 0, 0, 0, 0, 1, 1, 1, 1, 6], run=[0, 1, 0, 3, 0, 0, 0, 1, 0, 0], nodes=[1] * 10,
        req=[1, 1, 1, 3, 1, 2, 1, 1, 1, 2], job_id=[1, 4, 5, 6, 8, 2, 3, 7, 9, 0]).items()}
    user = [0, 0, 0, 2, 0, 2, 0, 2, 0, 2]
    for backfill in CODES:
        fast, slow = both(w, user, 1, "sjf", backfill, "request")
        assert fast[0].tolist() == slow[0].tolist() == [0, 0, 1, 2, 1, 2, 1, 1, 2, 6]
        assert fast[5].tolist() == slow[5].tolist() == [1, 1, 1, 3, 1, 2, 1, 1, 1, 1]


@st.composite
def workloads_with_users(draw):
    w, capacity = draw(kernel_workloads(max_jobs=18))
    n = len(w["submit"])
    user = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    return w, np.array(user, np.int64), capacity


@pytest.mark.parametrize("policy", ["fcfs", "sjf", "lwf", "wfp"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads_with_users())
def test_kernel_matches_naive_twin(policy, case):
    """Every output and the estimates, none/easy/easy-sjbf x three corrections, forecasts on."""
    w, user, capacity = case
    for backfill in CODES:
        for overrun in ("request", "double", "tsafrir"):
            fast, slow = both(w, user, capacity, policy, backfill, overrun, predict=True)
            assert_same(fast[:5], slow[:5], f"{policy}/{backfill}/{overrun}")
            assert (fast[5] == slow[5]).all(), f"{policy}/{backfill}/{overrun} estimates"
            check_invariants({**w, "est": fast[5]}, capacity, fast[:5], backfill.split("-")[0], policy, fast[5])


def _swf_jobs(name: str, first: int) -> tuple[dict, np.ndarray, int]:
    """The first ``first`` runnable jobs of a trace file (runtime >= 0, size > 0), its users and MaxProcs."""
    rows, cap = [], None
    with gzip.open(trace_path(name), "rt") as fh:
        for line in fh:
            if line.startswith(";"):
                if "MaxProcs:" in line:
                    cap = int(line.split(":")[1])
                continue
            f = line.split()
            run, procs = int(f[3]), int(f[4]) if int(f[4]) > 0 else int(f[7])
            if run < 0 or procs <= 0:
                continue
            rows.append((int(f[1]), int(f[0]), run, procs, int(f[8]), int(f[11])))
            if len(rows) == first:
                break
    rows.sort()
    c = np.array(rows, np.int64).T
    req = np.where(c[4] <= 0, np.maximum(c[2], 1), c[4])
    w = {"submit": c[0], "job_id": c[1], "run": c[2], "nodes": c[3], "req": req}
    return w, c[5], cap


@pytest.mark.slow
@pytest.mark.parametrize("backfill", ["easy", "easy-sjbf"])
def test_real_trace_matches_naive_twin(backfill):
    """The whole of KTH-SP2 (28,475 jobs with a runtime and a size, 100 processors; users as in the log, ids made dense as the pipeline does)."""
    w, user, cap = _swf_jobs("KTH-SP2-1996-2.1-cln.swf.gz", 10**9)
    dense = np.unique(user, return_inverse=True)[1].astype(np.int64)
    fast, slow = both(w, dense, cap, "fcfs", backfill, "request")
    assert_same(fast[:5], slow[:5], backfill)
    assert (fast[5] == slow[5]).all()
    assert (fast[5] < w["req"]).mean() > 0.3, "most users have history: many estimates below the request"
    assert fast[1].any()
