"""Shared helpers for the node-aware tests: run the kernel and its twin, compare, check invariants."""

from __future__ import annotations

import numpy as np

import naive_nodes
from pipeline.simulate import kernel
from pipeline.simulate._nodes import node_lists, run_nodes

BACKFILL = {"none": 0, "conservative": 2}
COMPARED = ("start", "t_node", "t_node_strict", "changes", "first_plan", "pinned_at")


def args(w, m, backfill, adjust="regular", overrun=0, pin=-1, n=None):
    s = slice(0, n)
    est_run = w["est"] if adjust == "regular" else w["req"]
    return (w["submit"][s], w["run"][s], w["nodes"][s], w["est"][s], est_run[s], w["req"][s], m,
            BACKFILL[backfill], overrun, pin)


def run_both(*a):
    fast = run_nodes(*a)
    slow = naive_nodes.simulate(*a)
    return fast, slow


def assert_same(fast, slow, label=""):
    for name in COMPARED:
        a, b = fast[name], np.array(slow[name], dtype=np.int64)
        bad = np.flatnonzero(a != b)
        assert bad.size == 0, f"{label} {name} differs at jobs {bad[:10].tolist()}: kernel {a[bad[:10]].tolist()} naive {b[bad[:10]].tolist()}"
    sets = node_lists(fast)
    bad = [j for j, (x, y) in enumerate(zip(sets, slow["sets"])) if x != y]
    assert not bad, f"{label} node sets differ at jobs {bad[:10]}: kernel {[sets[j] for j in bad[:3]]} naive {[slow['sets'][j] for j in bad[:3]]}"


def check_invariants(a, out):
    """Spec invariants on one node-aware run (kernel output); a = the run's arguments."""
    submit, run, nodes, est_wait, est_run, req, m, backfill, overrun, pin = a
    start = out["start"]
    assert (start >= submit).all(), "every job starts, never before its submission"
    job, node = expand(out)
    assert (np.bincount(job, minlength=len(start)) == nodes).all(), "a job gets exactly its number of nodes"
    assert (node >= 0).all() and (node < m).all()
    assert len(np.unique(job * m + node)) == len(job), "a node appears once in a job's set"
    # no node holds two jobs at once (a zero-length job is the point t: no job may run across it)
    s, e = start[job], start[job] + run[job]
    pos = e > s
    order = np.lexsort((s[pos], node[pos]))
    ns, ss, es = node[pos][order], s[pos][order], e[pos][order]
    same = ns[1:] == ns[:-1]
    assert (ss[1:][same] >= es[:-1][same]).all(), "no node holds two jobs at once"
    for k in np.flatnonzero(~pos):
        x, t = node[k], s[k]
        assert not ((node[pos] == x) & (s[pos] < t) & (e[pos] > t)).any(), "zero-length job on a busy node"
    # T_node: between 0 and the wait; the strict reading never longer
    wait = start - submit
    assert (out["t_node"] >= 0).all() and (out["t_node"] <= wait).all()
    assert (out["t_node_strict"] >= 0).all() and (out["t_node_strict"] <= out["t_node"]).all()
    # a pinned job starts on its pinned nodes: its set did not change after it was pinned
    p = out["pinned_at"] >= 0
    assert (out["t_node"][p] >= (start - out["pinned_at"])[p]).all(), "a pinned job kept its pinned nodes"
    if pin < 0:
        assert not p.any()
    # planned starts: the first plan is never before the submission
    assert (out["first_plan"] >= submit).all()


def expand(out):
    """(job, node) pairs of every job's set."""
    jobs, nodes_ = [], []
    first, length = out["range_first"], out["range_len"]
    reps = np.repeat(np.arange(len(out["set_cnt"])), out["set_cnt"])
    k = np.concatenate([np.arange(o, o + c) for o, c in zip(out["set_off"], out["set_cnt"])]) if len(reps) else np.array([], np.int64)
    lens = length[k]
    jobs = np.repeat(reps, lens)
    starts = np.repeat(first[k], lens)
    offs = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
    nodes_ = starts + offs
    return jobs.astype(np.int64), nodes_.astype(np.int64)


def processor_count_starts(w, m, overrun=0, adjust="regular", n=None):
    """Start times of today's processor-count fcfs/none loop."""
    s = slice(0, n)
    est_run = w["est"] if adjust == "regular" else w["req"]
    return kernel.simulate(w["submit"][s], w["job_id"][s], w["run"][s], w["nodes"][s], w["est"][s], est_run[s],
                           w["req"][s], m, 0, 0, overrun, False)[0]
