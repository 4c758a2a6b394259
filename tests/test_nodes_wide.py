"""The node-aware loop's bitset pool on wide machines (session 5: tzcnt, whole free words
taken and filled in one step) against plain Python models.

The twin tests in test_nodes.py use at most 7 nodes (one word, one summary bit), so the
paths that only a wide machine takes (whole 64-node words, runs across many words) are
checked here: the pool helpers against a Python
set of free node ids over thousands of nodes, and the whole loop against its naive twin
on machines of 65-260 nodes with jobs of up to the whole machine.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_checks import arrays
from nodes_checks import args, assert_same, check_invariants, run_both
from pipeline.simulate._nodes import _bits, _take_lowest


def as_ranges(ids):
    """Sorted ids -> maximal (first, length) runs."""
    out = []
    for x in ids:
        if out and out[-1][0] + out[-1][1] == x:
            out[-1][1] += 1
        else:
            out.append([x, 1])
    return [tuple(r) for r in out]


def pool_ids(pool):
    return [w * 64 + b for w, word in enumerate(pool.tolist()) for b in range(64) if word >> b & 1]


ops = st.lists(st.tuples(st.sampled_from(["on", "off", "take"]), st.integers(0, 10_000),
                         st.one_of(st.integers(1, 70), st.integers(60, 700), st.integers(1, 10_000))),
               min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(m=st.integers(1, 9_000), seq=ops, start_full=st.booleans())
def test_pool_helpers_match_a_set_of_free_nodes(m, seq, start_full):
    nw = (m + 63) >> 6
    pool = np.zeros(nw, np.uint64)
    free = set()
    if start_full:
        _bits(pool, 0, m, True)
        free = set(range(m))
    p_first = np.empty(m + 1, np.int64)
    p_len = np.empty(m + 1, np.int64)
    for op, a, ln in seq:
        a %= m
        ln = min(ln, m - a)
        if op == "take":
            need = min(ln, len(free))
            if need == 0:
                continue
            lo = min(free) >> 6
            lo -= lo % 3  # any word at or below the first free one is a valid hint
            pn, stop = _take_lowest(pool, need, p_first, p_len, 0, lo)
            want = sorted(free)[:need]
            assert [(int(f), int(n)) for f, n in zip(p_first[:pn], p_len[:pn])] == as_ranges(want)
            assert stop == want[-1] >> 6, "stops in the word of the last node taken"
            free -= set(want)
        else:
            _bits(pool, a, ln, op == "on")
            rng = set(range(a, a + ln))
            free = free | rng if op == "on" else free - rng
        assert pool_ids(pool) == sorted(free)


@st.composite
def wide_workloads(draw):
    m = draw(st.integers(65, 260))
    n = draw(st.integers(1, 9))
    jobs = []
    for i in range(n):
        run = draw(st.integers(0, 12))
        est = draw(st.one_of(st.just(run), st.integers(0, 25)))
        nodes = draw(st.one_of(st.just(m), st.integers(1, m), st.integers(60, 140).map(lambda x: min(x, m))))
        jobs.append(dict(submit=draw(st.integers(0, 20)), run=run, nodes=nodes, est=est,
                         req=max(1, run + draw(st.integers(-4, 10))), job_id=i))
    return arrays(jobs), m


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=wide_workloads())
def test_fcfs_on_wide_machines_matches_naive_twin(case):
    w, m = case
    for pin in (-1, 0, 15):
        a = args(w, m, "none", "regular", 0, pin)
        fast, slow = run_both(*a)
        assert_same(fast, slow, f"m {m} pin {pin}")
        check_invariants(a, fast)
