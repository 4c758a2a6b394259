"""Wait times for the generated log: the site's own schedule, FCFS + EASY backfilling.

Why: a real log records when each job started, and analyses of the original
schedule (wait distributions, backfill shares) need it. The generated site
runs the scheduler most SP2-era logs come from (EASY, requested times as the
estimates), with the rules of specs/simulation.md for ``--policy fcfs
--backfill easy --estimate request``; jobs never overrun since run <= req.
The plain twin is ``tests/test_generate_waits.py::naive_easy``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _heap_push(keys, vals, n, key, val):
    i = n
    keys[i] = key
    vals[i] = val
    while i > 0:
        p = (i - 1) >> 1
        if keys[p] < keys[i] or (keys[p] == keys[i] and vals[p] <= vals[i]):
            break
        keys[p], keys[i] = keys[i], keys[p]
        vals[p], vals[i] = vals[i], vals[p]
        i = p
    return n + 1


@njit(cache=True)
def _heap_pop(keys, vals, n):
    n -= 1
    keys[0] = keys[n]
    vals[0] = vals[n]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        c = left
        right = left + 1
        if right < n and (keys[right] < keys[left] or (keys[right] == keys[left] and vals[right] < vals[left])):
            c = right
        if keys[i] < keys[c] or (keys[i] == keys[c] and vals[i] <= vals[c]):
            break
        keys[c], keys[i] = keys[i], keys[c]
        vals[c], vals[i] = vals[i], vals[c]
        i = c
    return n


@njit(cache=True)
def easy_starts(submit, run, req, nodes, capacity):
    """Start times under FCFS + EASY with ``req`` as the estimate.

    Jobs must be sorted by (submit, id); ``run <= req`` and ``nodes <= capacity``.
    """
    n = submit.shape[0]
    start = np.full(n, -1, dtype=np.int64)
    end_keys = np.empty(n, dtype=np.int64)       # heap of actual ends
    end_jobs = np.empty(n, dtype=np.int64)
    heap_n = 0
    running = np.empty(n, dtype=np.int64)        # unordered running set (swap-remove)
    where = np.full(n, -1, dtype=np.int64)
    run_n = 0
    queue = np.empty(n, dtype=np.int64)          # waiting jobs in FCFS order
    q_lo = 0
    q_hi = 0
    free = capacity
    nxt = 0
    t = 0
    while nxt < n or heap_n > 0:
        t_end = end_keys[0] if heap_n > 0 else np.iinfo(np.int64).max
        t_sub = submit[nxt] if nxt < n else np.iinfo(np.int64).max
        t = min(t_end, t_sub)
        while heap_n > 0 and end_keys[0] <= t:       # completions first
            j = end_jobs[0]
            heap_n = _heap_pop(end_keys, end_jobs, heap_n)
            free += nodes[j]
            k = where[j]
            run_n -= 1
            last = running[run_n]
            running[k] = last
            where[last] = k
            where[j] = -1
        while nxt < n and submit[nxt] <= t:          # then arrivals
            queue[q_hi] = nxt
            q_hi += 1
            nxt += 1
        # one scheduling pass: the queue's head while it fits ...
        while q_lo < q_hi and nodes[queue[q_lo]] <= free:
            j = queue[q_lo]
            q_lo += 1
            start[j] = t
            free -= nodes[j]
            heap_n = _heap_push(end_keys, end_jobs, heap_n, t + run[j], j)
            running[run_n] = j
            where[j] = run_n
            run_n += 1
        if q_lo >= q_hi or free == 0 or q_hi - q_lo == 1:
            continue
        # ... then the head's reservation (shadow time, extra nodes) and one backfill scan
        head = queue[q_lo]
        exp_key = np.empty(run_n, dtype=np.int64)
        for r in range(run_n):
            j = running[r]
            exp_key[r] = max(start[j] + req[j], t) * (n + 1) + j
        order = np.argsort(exp_key)
        avail = free
        shadow = t
        r = 0
        while avail < nodes[head]:
            j = running[order[r]]
            avail += nodes[j]
            shadow = max(start[j] + req[j], t)
            r += 1
        while r < run_n:                            # ties at the shadow time count too
            j = running[order[r]]
            if max(start[j] + req[j], t) > shadow:
                break
            avail += nodes[j]
            r += 1
        extra = avail - nodes[head]
        out = q_lo + 1
        for i in range(q_lo + 1, q_hi):
            j = queue[i]
            ok = False
            if nodes[j] <= free:
                if t + req[j] <= shadow:
                    ok = True
                elif nodes[j] <= extra:
                    ok = True
                    extra -= nodes[j]
            if ok:
                start[j] = t
                free -= nodes[j]
                heap_n = _heap_push(end_keys, end_jobs, heap_n, t + run[j], j)
                running[run_n] = j
                where[j] = run_n
                run_n += 1
            else:
                queue[out] = j
                out += 1
        q_hi = out
    return start


def easy_waits(submit: np.ndarray, run: np.ndarray, req: np.ndarray, nodes: np.ndarray, capacity: int) -> np.ndarray:
    """Wait times (s) of jobs sorted by submit under the generated site's scheduler."""
    arrays = [np.ascontiguousarray(a, dtype=np.int64) for a in (submit, run, req, nodes)]
    return easy_starts(*arrays, np.int64(capacity)) - arrays[0]
