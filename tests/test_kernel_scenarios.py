"""Tiny workloads whose schedules were worked out by hand (see comments)."""

from __future__ import annotations

import pytest

from kernel_checks import arrays, assert_same, run_both


def J(submit, run, nodes, est, req=None):
    return dict(submit=submit, run=run, nodes=nodes, est=est, req=req if req is not None else max(est, run, 1))


def starts(jobs, capacity, policy="fcfs", backfill="easy", adjust="regular", overrun="request"):
    w = arrays([dict(j, job_id=i) for i, j in enumerate(jobs)])
    fast, slow = run_both(w, capacity, policy, backfill, adjust, overrun)
    assert_same(fast, slow)
    return {k: v.tolist() for k, v in zip(("start", "bf", "pred", "score", "bound"), fast)}


# capacity 4. J0 holds 2 nodes until 10; J1 wants all 4 (shadow 10, extra 0);
# J2 (2 nodes, 3 s) ends by the shadow and backfills at 2; J3 (2 nodes, 20 s)
# finds no free node until J1 ends at 15.
EASY_BASIC = [J(0, 10, 2, 10), J(1, 5, 4, 5), J(2, 3, 2, 3), J(3, 20, 2, 20)]


def test_easy_backfills_short_job_before_the_shadow():
    r = starts(EASY_BASIC, 4)
    assert r["start"] == [0, 10, 2, 15]
    assert r["bf"] == [False, False, True, False]
    assert r["bound"] == [-1, 10, -1, 15]  # J3 is the blocked head at 10, behind J1 (ends 15)
    # forecasts at submission: J1 at J0's end; J2 now; J3 after J1 (J2 ends at 5, J1 runs 10..15)
    assert r["pred"] == [0, 10, 2, 15]


def test_none_keeps_queue_order():
    r = starts(EASY_BASIC, 4, backfill="none")
    assert r["start"] == [0, 10, 15, 15]
    assert r["bf"] == [False] * 4
    assert r["bound"] == [-1] * 4


# capacity 6. J0 holds 4 nodes until 10; J1 wants 5: shadow 10, extra 2+4-5 = 1.
# J2 and J3 (1 node, 100 s) arrive at 2: they end after the shadow, so only the
# extra node may be used: J2 starts, J3 waits for J1 (5 s from 10) to end.
EASY_EXTRA = [J(0, 10, 4, 10), J(1, 5, 5, 5), J(2, 100, 1, 100), J(2, 100, 1, 100)]


def test_easy_uses_extra_nodes_once():
    r = starts(EASY_EXTRA, 6)
    assert r["start"] == [0, 10, 2, 15]
    assert r["bf"] == [False, False, True, False]
    assert r["bound"] == [-1, 10, -1, 15]


def test_easy_underestimate_request_vs_double():
    # capacity 2. J0 (2 nodes) estimates 4 but runs 9, request 20. J1 (2 nodes)
    # becomes the head at 1 with shadow 4. At 6 J2 (2 nodes, 1 s) arrives after
    # J0 overran: its expected end becomes 20 (request) or 8 (4 doubled). Nothing
    # fits before J0 really ends: J1 starts at 9, J2 when J1 ends at 12.
    jobs = [J(0, 9, 2, 4, 20), J(1, 3, 2, 3), J(6, 1, 2, 1)]
    for overrun in ("request", "double"):
        r = starts(jobs, 2, overrun=overrun)
        assert r["start"] == [0, 9, 12]
        assert r["bound"] == [-1, 4, 12]
    # what the forecasts saw at 6: J0 ending at 20 (request) or 8 (double)
    assert starts(jobs, 2, overrun="request")["pred"][2] == 23
    assert starts(jobs, 2, overrun="double")["pred"][2] == 11


def test_zero_length_job_frees_its_nodes_at_the_same_instant():
    # capacity 1: J0 runs 0 s, J1 waits behind it; J0's end opens a new instant
    # at the same time, so J1 starts at 0 too.
    r = starts([J(0, 0, 1, 0), J(0, 5, 1, 5)], 1)
    assert r["start"] == [0, 0]


def test_wfp_orders_by_eq5_score():
    # capacity 2: J0 holds both nodes until 10. At 10, waits are 9 (J1: est 90, 2
    # nodes -> (0.1)^3*2) and 5 (J2: est 5, 1 node -> 1): J2 goes first, J1 after.
    jobs = [J(0, 10, 2, 10), J(1, 5, 2, 90), J(5, 5, 1, 5)]
    r = starts(jobs, 2, policy="wfp", backfill="none")
    assert r["start"] == [0, 15, 10]
    assert r["score"][2] == pytest.approx(1.0)
    assert r["score"][1] == pytest.approx((14 / 90) ** 3 * 2)
    fcfs = starts(jobs, 2, policy="fcfs", backfill="none")
    assert fcfs["start"] == [0, 10, 15]
    assert fcfs["score"] == [0.0, 9.0, 10.0]


def test_conservative_compresses_after_early_end():
    # capacity 4. J0 (4 nodes) estimates 10 but ends at 5. J1 (2 nodes, 5 s) and
    # J2 (2 nodes, 3 s) are both reserved at 10 side by side; J0's early end
    # compresses the schedule and both start at 5.
    jobs = [J(0, 5, 4, 10), J(1, 5, 2, 5), J(2, 3, 2, 3)]
    r = starts(jobs, 4, backfill="conservative")
    assert r["pred"] == [0, 10, 10]
    assert r["bound"] == [0, 10, 10]
    assert r["start"] == [0, 5, 5]
    assert r["bf"] == [False, False, False]


def test_conservative_backfills_without_delaying_anyone():
    # capacity 4. J0 (2 nodes) runs 0..10. J1 (4 nodes) is reserved at 10. J2
    # (2 nodes, 8 s) fits in the hole 2..10 and starts at once (backfilled: J1
    # waits ahead of it). J3 (2 nodes, 8 s) arrives at 3: no hole left before
    # J1's reservation ends at 15.
    jobs = [J(0, 10, 2, 10), J(1, 5, 4, 5), J(2, 8, 2, 8), J(3, 8, 2, 8)]
    r = starts(jobs, 4, backfill="conservative")
    assert r["pred"] == [0, 10, 2, 15]
    assert r["start"] == [0, 10, 2, 15]
    assert r["bf"] == [False, False, True, False]


def test_conservative_reinserts_after_overrun():
    # capacity 2. J0 (2 nodes) estimates 5, runs 8, request 10. J1 (2 nodes, 3 s)
    # is reserved at 5; at that instant J0 is still running: its expected end
    # becomes 10 and J1 moves to 10. J2 (1 node, 1 s, arriving at 6) goes after
    # J1, at 13. J0 ends at 8, earlier than 10: compression brings J1 to 8 and
    # J2 to 11.
    jobs = [J(0, 8, 2, 5, 10), J(1, 3, 2, 3), J(6, 1, 1, 1)]
    r = starts(jobs, 2, backfill="conservative")
    assert r["pred"] == [0, 5, 13]
    assert r["start"] == [0, 8, 11]
    # doubling: at 5 the estimate 5 doubles to 10 = the request: same schedule
    assert starts(jobs, 2, backfill="conservative", overrun="double")["start"] == [0, 8, 11]
