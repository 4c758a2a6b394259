"""Helpers for the simulate stage tests: read-only SQL and the invariants
every stored run must keep (simulation.md), checked in SQL plus an
independent Python sweep."""

from __future__ import annotations


def q(wh, sql, params=()):
    con = wh.reader()
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def check_invariants(wh, run_id):
    (cap, n_sim, split), = q(wh, "SELECT capacity, jobs_simulated, split FROM runs WHERE run_id = ?", [run_id])
    (n, bad_start, bad_end, bad_wait), = q(wh, """
        SELECT count(*), count(*) FILTER (WHERE start < submit),
               count(*) FILTER (WHERE "end" <> start + run), count(*) FILTER (WHERE wait <> start - submit)
        FROM sim_jobs WHERE run_id = ?""", [run_id])
    assert n == n_sim, "every simulated job has a row (and so a start and an end)"
    assert bad_start == 0, "start >= submit"
    assert bad_end == 0 and bad_wait == 0, "each job runs exactly its runtime"
    # never more nodes in use than capacity: a sweep per simulated segment
    rows = q(wh, "SELECT month, start, run, nodes FROM sim_jobs WHERE run_id = ? AND run > 0", [run_id])
    events = {}
    for month, start, run, nodes in rows:
        seg = events.setdefault(month if split == "month" else "all", [])
        seg.append((start, nodes))
        seg.append((start + run, -nodes))
    peak = 0
    for seg in events.values():
        used = 0
        for _, delta in sorted(seg):  # at equal times ends (negative) come first
            used += delta
            peak = max(peak, used)
    assert peak <= cap, f"{peak} nodes in use on a {cap}-node machine"
    (stored_peak,), = q(wh, "SELECT peak_nodes FROM run_metrics WHERE run_id = ? AND month = 'all'", [run_id])
    assert stored_peak == peak
