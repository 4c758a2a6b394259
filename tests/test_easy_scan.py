"""The EASY backfill scan's shortcuts (docs/speed.md, "The queue loop"): the sign test
of `_next_fit` is the EASY rule, and long queues -- where started slots are
marked as holes, compacted, and scanned four at a time -- still give the naive
twin's schedule job by job (the generic twin tests draw at most 14 jobs, too
few for a compaction)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_checks import arrays, assert_same, check_invariants, run_both
from pipeline.simulate._common import BIG
from pipeline.simulate._easy import _next_fit

small = st.integers(0, 40)


@settings(max_examples=300, deadline=None)
@given(pairs=st.lists(st.tuples(st.one_of(small, st.just(BIG)), small), max_size=40),
       start=st.integers(0, 45), free=small, lim=st.integers(-5, 40), extra=small)
def test_next_fit_is_the_easy_rule(pairs, start, free, lim, extra):
    """First slot from `start` with nodes <= free and (est <= lim or nodes <= extra); a hole (BIG nodes) never."""
    qn = np.array([x for p in pairs for x in p] + [0, 0], dtype=np.int64)
    m = len(pairs)
    start = min(start, m)
    want = next((s for s in range(start, m)
                 if pairs[s][0] <= free and (pairs[s][1] <= lim or pairs[s][0] <= extra)), m)
    got = _next_fit(qn, np.uint64(start), np.uint64(m), free, lim, extra)
    assert int(got) == want


@st.composite
def long_queues(draw):
    """Many jobs on a small machine, most submitted early: queues of dozens to
    hundreds of jobs, so holes accumulate and the queue is compacted."""
    capacity = draw(st.integers(1, 8))
    n = draw(st.integers(30, 90))
    jobs = []
    for i in range(n):
        run = draw(st.integers(0, 30))
        est = max(0, run + draw(st.integers(-5, 40)))
        req = max(1, run + draw(st.integers(-5, 40)))
        nodes = draw(st.one_of(st.just(1), st.integers(1, capacity)))
        jobs.append(dict(submit=draw(st.integers(0, 60)), run=run, nodes=nodes, est=est, req=req, job_id=i))
    return arrays(jobs), capacity


@pytest.mark.parametrize("policy", ["fcfs", "sjf", "lwf", "wfp"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=long_queues())
def test_easy_long_queues_match_naive_twin(policy, case):
    w, capacity = case
    for adjust, overrun in (("regular", "request"), ("selective", "double")):
        fast, slow = run_both(w, capacity, policy, "easy", adjust, overrun, predict=False)
        assert_same(fast, slow, f"{policy}/easy/{adjust}/{overrun}")
        check_invariants(w, capacity, fast, "easy", policy, w["est"] if adjust == "regular" else w["req"])
