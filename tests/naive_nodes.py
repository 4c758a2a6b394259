"""Naive twin of pipeline.simulate._nodes: node-level placement in plain Python.

Written from the spec's "Node-level placement" section for obviousness: every
pass rebuilds the whole plan from per-node lists of busy intervals and, for
each waiting job, tries every candidate start (the lower bound and every
interval end after it) against every node. Node sets are Python sets,
compared exactly. No shortcut of the fast kernel (availability levels,
incremental passes, fingerprints) is used here.
"""

from __future__ import annotations

from naive_sim import expected_end

NONE, CONSERVATIVE = 0, 2


def _free(busy, node, s, e):
    return all(b <= s or a >= e for a, b in busy[node])


def _place(busy, m, need, d, lb, pinned):
    """Earliest s >= lb at which the job's nodes are free over [s, s + d); its node set."""
    cands = sorted({lb} | {b for ivs in busy for _, b in ivs if b > lb})
    for s in cands:
        if pinned is not None:
            if all(_free(busy, x, s, s + d) for x in pinned):
                return s, set(pinned)
            continue
        got = [x for x in range(m) if _free(busy, x, s, s + d)]
        if len(got) >= need:
            return s, set(got[:need])
    raise AssertionError("unreachable: after the last interval end every node is free")


def simulate(submit, run, nodes, est_wait, est_run, req, m, backfill, overrun, pin):
    """Same inputs/outputs as _nodes.nodes_sim (job order = arrival order = fcfs).

    Returns dict: start, sets (list of sorted node lists), t_node, t_node_strict,
    changes, first_plan, pinned_at.
    """
    n = len(submit)
    submit, run, nodes = [int(x) for x in submit], [int(x) for x in run], [int(x) for x in nodes]
    est_wait, est_run, req = [int(x) for x in est_wait], [int(x) for x in est_run], [int(x) for x in req]
    start = [-1] * n
    sets = [None] * n
    plan = {}          # waiting job -> (planned start, planned set)
    pinned = {}        # waiting job -> pinned set
    last_set = [-1] * n
    last_pair = [-1] * n
    changes = [0] * n
    first_plan = [-1] * n
    pinned_at = [-1] * n
    running = {}       # job -> node set
    waiting = []
    nxt = 0
    while nxt < n or running or waiting:
        times = [submit[nxt]] if nxt < n else []
        times += [start[j] + run[j] for j in running]
        t = min(times)
        for j in [j for j in running if start[j] + run[j] <= t]:
            del running[j]
        while nxt < n and submit[nxt] == t:
            waiting.append(nxt)
            nxt += 1
        # the plan, in queue order, on top of the running jobs
        busy = [[] for _ in range(m)]
        for j, ns in running.items():
            hold = max(expected_end(start[j], est_run[j], req[j], t, overrun), t + 1)
            for x in ns:
                busy[x].append((start[j], hold))
        lb = t
        new_plan = {}
        for j in waiting:
            d = max(est_wait[j], 1)
            s, ns = _place(busy, m, nodes[j], d, lb, pinned.get(j))
            for x in ns:
                busy[x].append((s, s + d))
            if backfill == NONE:
                lb = s
            new_plan[j] = (s, ns)
            if j not in plan:
                last_set[j] = last_pair[j] = t
                first_plan[j] = s
            else:
                if plan[j][1] != ns:
                    changes[j] += 1
                    last_set[j] = t
                if plan[j] != (s, ns):
                    last_pair[j] = t
        plan = new_plan
        for j in list(waiting):
            s, ns = plan[j]
            if s == t:
                assert j not in pinned or pinned[j] == ns, "a pinned job starts on its pinned nodes"
                start[j] = t
                sets[j] = sorted(ns)
                running[j] = ns
                waiting.remove(j)
                del plan[j]
                pinned.pop(j, None)
            elif pin >= 0 and j not in pinned and s <= t + pin:
                pinned[j] = set(ns)
                pinned_at[j] = t
    return {
        "start": start,
        "sets": sets,
        "t_node": [start[j] - last_set[j] for j in range(n)],
        "t_node_strict": [start[j] - last_pair[j] for j in range(n)],
        "changes": changes,
        "first_plan": first_plan,
        "pinned_at": pinned_at,
    }
