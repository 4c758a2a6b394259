"""Node-aware loop vs its naive twin on real traces, job by job (start, node set, T_node, changes).

The twin rebuilds every plan from per-node interval lists (seconds per few
hundred jobs at 512 nodes), so both run the first 800 jobs of each trace
(400 under conservative, whose twin is slower still) as a workload of their own. Whole traces check the fast loop's invariants
and, without pinning, fcfs starts equal to today's processor-count fcfs.
"""

from __future__ import annotations

import pytest

from kernel_inputs import trace_loader
from nodes_checks import args, assert_same, check_invariants, processor_count_starts, run_both
from pipeline.simulate._nodes import run_nodes

TRACES = {
    "KTH": ("KTH-SP2-1996-2.1-cln.swf.gz", None),
    "SDSC": ("SDSC-SP2-1998-4.2-cln.swf.gz", None),
    "CTC": ("CTC-SP2-1996-3.1-cln.swf.gz", 512),
}
PREFIX = {"none": 800, "conservative": 400}


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    return trace_loader(tmp_path_factory, TRACES)


@pytest.mark.slow
@pytest.mark.parametrize("pin", [-1, 3600])
@pytest.mark.parametrize("backfill", ["none", "conservative"])
@pytest.mark.parametrize("key", list(TRACES))
def test_real_trace_prefix_matches_naive_twin(trace, key, backfill, pin):
    w, m = trace(key)
    a = args(w, m, backfill, pin=pin, n=PREFIX[backfill])
    fast, slow = run_both(*a)
    assert_same(fast, slow, f"{key}/{backfill}/pin {pin}")
    check_invariants(a, fast)
    assert (fast["changes"] > 0).any(), "request estimates move some plans"
    if pin >= 0:
        assert (fast["pinned_at"] >= 0).any()


@pytest.mark.slow
@pytest.mark.parametrize("key", list(TRACES))
def test_whole_trace_fcfs(trace, key):
    w, m = trace(key)
    free = run_nodes(*args(w, m, "none", pin=-1))
    assert (free["start"] == processor_count_starts(w, m)).all(), "fcfs without pinning = processor-count fcfs"
    check_invariants(args(w, m, "none", pin=-1), free)
    a = args(w, m, "none", pin=3600)
    pinned = run_nodes(*a)
    check_invariants(a, pinned)
    # pinning keeps more node predictions alive (the paper's finding, on these traces)
    assert (pinned["t_node"] > 0).mean() > (free["t_node"] > 0).mean()
