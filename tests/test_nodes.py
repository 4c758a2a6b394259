"""Node-aware loop (pipeline/simulate/_nodes.py) vs its naive twin on generated workloads.

Job by job: start, node set, T_node (both readings), planned-set changes, first
plan, pinning instant; plus the invariants (tests/nodes_checks.py), fcfs
without pinning = today's processor-count fcfs, and exact estimates = stable
plans (T_node = wait, no change).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_checks import arrays
from nodes_checks import args, assert_same, check_invariants, processor_count_starts, run_both
from pipeline.simulate._nodes import run_nodes


@st.composite
def workloads(draw, max_jobs=14, exact=False):
    m = draw(st.integers(1, 7))
    n = draw(st.integers(1, max_jobs))
    jobs = []
    for i in range(n):
        run = draw(st.integers(1 if exact else 0, 12))
        kind = "exact" if exact else draw(st.sampled_from(["exact", "over", "under", "zero", "any"]))
        est = {"exact": run, "over": run + draw(st.integers(1, 10)), "under": max(0, run - draw(st.integers(1, 6))),
               "zero": 0, "any": draw(st.integers(0, 25))}[kind]
        req = max(1, run + draw(st.integers(0 if exact else -4, 10)))
        nodes = draw(st.one_of(st.just(m), st.integers(1, m)))
        jobs.append(dict(submit=draw(st.integers(0, 25)), run=run, nodes=nodes, est=est, req=req, job_id=i))
    return arrays(jobs), m


COMBOS = list(itertools.product(("regular", "selective"), (0, 1), (-1, 0, 5, 20)))


@pytest.mark.parametrize("backfill", ["none", "conservative"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads())
def test_nodes_match_naive_twin(backfill, case):
    w, m = case
    for adjust, overrun, pin in COMBOS:
        a = args(w, m, backfill, adjust, overrun, pin)
        fast, slow = run_both(*a)
        assert_same(fast, slow, f"{backfill}/{adjust}/{overrun}/pin {pin}")
        check_invariants(a, fast)


@settings(max_examples=80, deadline=None)
@given(case=workloads(max_jobs=20))
def test_fcfs_without_pinning_starts_as_processor_count(case):
    w, m = case
    for adjust, overrun in itertools.product(("regular", "selective"), (0, 1)):
        out = run_nodes(*args(w, m, "none", adjust, overrun, -1))
        assert (out["start"] == processor_count_starts(w, m, overrun, adjust)).all()


@pytest.mark.parametrize("backfill", ["none", "conservative"])
@settings(max_examples=60, deadline=None)
@given(case=workloads(max_jobs=16, exact=True))
def test_exact_estimates_keep_every_plan(backfill, case):
    """With runtimes known (est = run >= 1) the plan never moves: T_node = wait, no change."""
    w, m = case
    for pin in (-1, 10):
        out = run_nodes(*args(w, m, backfill, pin=pin))
        assert (out["changes"] == 0).all()
        assert (out["t_node"] == out["start"] - w["submit"]).all()
        assert (out["t_node_strict"] == out["t_node"]).all()


def test_pinning_holds_nodes_a_compression_would_move():
    """Two 1-node jobs run on nodes 0 and 1; job 2 (1 node) waits, planned on node 0
    (job 0 expected to end first). Job 1 ends early: unpinned, job 2 moves to node 1
    and starts there at once; pinned (interval covers its plan), it waits for node 0."""
    w = arrays([dict(submit=0, run=10, nodes=1, est=10, req=10, job_id=0),
                dict(submit=0, run=2, nodes=1, est=20, req=20, job_id=1),
                dict(submit=0, run=5, nodes=1, est=5, req=5, job_id=2)])
    w["nodes"][:] = 1
    # two nodes: jobs 0 and 1 start at 0 on nodes 0 and 1; job 2 waits, planned at 10 on node 0
    free = run_nodes(*args(w, 2, "none", pin=-1))
    pinned = run_nodes(*args(w, 2, "none", pin=3600))
    assert free["start"].tolist() == [0, 0, 2]
    assert pinned["start"].tolist() == [0, 0, 10]
    assert free["changes"][2] == 1 and free["t_node"][2] == 0
    assert pinned["changes"][2] == 0 and pinned["t_node"][2] == 10 and pinned["pinned_at"][2] == 0
    for a, out in ((args(w, 2, "none", pin=-1), free), (args(w, 2, "none", pin=3600), pinned)):
        check_invariants(a, out)
        assert_same(out, run_both(*a)[1])


def test_zero_estimate_seen_again_in_its_start_instant():
    """Job 0 (estimate 0, request 2) starts at 0 with job 1, whose runtime is 0: job 1's end
    gives a second pass at 0, where job 0's expected end is already reached and so extended
    to its request (2), as the twin computes it; job 2 (both nodes) is planned at 2 from then,
    so its (start, set) pair last changed at 0 (T_node strict 2). Hypothesis found it."""
    w = arrays([dict(submit=0, run=2, nodes=1, est=0, req=2, job_id=0),
                dict(submit=0, run=0, nodes=1, est=0, req=1, job_id=1),
                dict(submit=0, run=0, nodes=2, est=0, req=1, job_id=2)])
    for overrun in (0, 1):
        a = args(w, 2, "none", "regular", overrun, -1)
        fast, slow = run_both(*a)
        assert_same(fast, slow, f"overrun {overrun}")
        check_invariants(a, fast)
    assert run_nodes(*args(w, 2, "none"))["t_node_strict"].tolist() == [0, 0, 2]
