"""Numba event loop vs the naive twin on generated workloads, plus invariants.

Every policy x backfill x adjustment x overrun combination; workloads with
ties at equal times, zero runtimes, machine-wide jobs, overruns (est < run),
requests below runtime and zero estimates.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_checks import arrays, assert_same, check_invariants, run_both

POLICIES = ("fcfs", "sjf", "lwf", "wfp")
BACKFILLS = ("none", "easy", "conservative")


@st.composite
def workloads(draw, max_jobs=14):
    capacity = draw(st.integers(1, 6))
    n = draw(st.integers(1, max_jobs))
    ids = draw(st.lists(st.integers(0, 10_000), min_size=n, max_size=n, unique=True))
    jobs = []
    for i in range(n):
        run = draw(st.integers(0, 12))
        kind = draw(st.sampled_from(["exact", "over", "under", "zero", "any"]))
        est = {"exact": run, "over": run + draw(st.integers(1, 10)), "under": max(0, run - draw(st.integers(1, 6))),
               "zero": 0, "any": draw(st.integers(0, 25))}[kind]
        req = max(1, run + draw(st.integers(-4, 10)))
        nodes = draw(st.one_of(st.just(capacity), st.integers(1, capacity)))
        jobs.append(dict(submit=draw(st.integers(0, 25)), run=run, nodes=nodes, est=est, req=req, job_id=ids[i]))
    return arrays(jobs), capacity


COMBOS = list(itertools.product(("regular", "selective"), ("request", "double")))


@pytest.mark.parametrize("backfill", BACKFILLS)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads())
def test_kernel_matches_naive_twin(policy, backfill, case):
    compare_every_combo(*case, policy, backfill)


def compare_every_combo(w, capacity, policy, backfill):
    """Kernel vs twin, and the invariants, under every adjust x overrun; returns
    the kernel's outputs per combination."""
    outs = []
    for adjust, overrun in COMBOS:
        fast, slow = run_both(w, capacity, policy, backfill, adjust, overrun)
        assert_same(fast, slow, f"{policy}/{backfill}/{adjust}/{overrun}")
        est_run = w["est"] if adjust == "regular" else w["req"]
        check_invariants(w, capacity, fast, backfill, policy, est_run)
        outs.append(fast)
    return outs


@st.composite
def honest_workloads(draw):
    """Estimates and requests never below the runtime: the bound invariants must hold."""
    capacity = draw(st.integers(1, 6))
    n = draw(st.integers(1, 16))
    jobs = []
    for i in range(n):
        run = draw(st.integers(0, 12))
        est = run + draw(st.integers(0, 8))
        req = max(1, est + draw(st.integers(0, 8)))
        jobs.append(dict(submit=draw(st.integers(0, 30)), run=run, nodes=draw(st.integers(1, capacity)),
                         est=est, req=req, job_id=i))
    return arrays(jobs), capacity


@pytest.mark.parametrize("backfill,policy", [("easy", "fcfs")] + [("conservative", p) for p in POLICIES])
@settings(max_examples=80, deadline=None)
@given(case=honest_workloads())
def test_start_no_later_than_first_bound(backfill, policy, case):
    for fast in compare_every_combo(*case, policy, backfill):
        assert (fast[4] >= 0).any() or backfill == "easy"
