"""Queue schedulers without reservations: `none` and `easy` backfilling.

Why this shape: running jobs sit in two indexed heaps (by expected end, by
actual end) so completions and the EASY shadow walk cost O(log n) per job;
the queue is an array kept in policy order (arrival order for fcfs and wfp,
sorted insert for sjf/lwf; wfp is re-sorted at every pass because its
scores change with time). Started jobs leave holes that are compacted
lazily. The same `_pass` runs the real replay and the forward simulations
that forecast start times (Smith, Taylor & Foster Section 3).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _heaps as hp
from ._common import (
    BIG, DONE, EASY, NONE, RUNNING, SJF, LWF, WAITING, WFP,
    expected_end, start_score, static_key, wfp_score,
)

# slots of the scalar state array
FREE, QLEN, QLIVE, RN, EN = 0, 1, 2, 3, 4


@njit(cache=True)
def _enqueue(j, policy, est_wait, nodes, q, qkey, st, state):
    """Put job j in the queue at its place in the static order."""
    state[j] = WAITING
    n = st[QLEN]
    k = static_key(policy, j, est_wait, nodes)
    pos = n
    if policy == SJF or policy == LWF:
        lo, hi = 0, n  # first slot whose (key, job) is greater than (k, j)
        while lo < hi:
            mid = (lo + hi) >> 1
            if qkey[mid] < k or (qkey[mid] == k and q[mid] < j):
                lo = mid + 1
            else:
                hi = mid
        pos = lo
        for s in range(n, pos, -1):
            q[s] = q[s - 1]
            qkey[s] = qkey[s - 1]
    q[pos] = j
    qkey[pos] = k
    st[QLEN] = n + 1
    st[QLIVE] += 1


@njit(cache=True)
def _compact(q, qkey, st, state):
    m = 0
    for s in range(st[QLEN]):
        if state[q[s]] == WAITING:
            q[m] = q[s]
            qkey[m] = qkey[s]
            m += 1
    st[QLEN] = m


@njit(cache=True)
def _complete(t, nodes, st, state, rkey, rjid, rpos, ekey, ejid, epos):
    """Every job whose actual end is <= t leaves the machine."""
    while st[EN] > 0 and ekey[0] <= t:
        j = ejid[0]
        st[EN] = hp.pop(ekey, ejid, epos, st[EN])
        st[RN] = hp.remove_at(rkey, rjid, rpos, st[RN], rpos[j])
        st[FREE] += nodes[j]
        state[j] = DONE


@njit(cache=True)
def _extend(t, start, est_run, req, overrun, st, rkey, rjid, rpos, buf):
    """Jobs still running at or past their expected end get a new one."""
    c = 0
    while st[RN] > 0 and rkey[0] <= t:
        buf[c] = rjid[0]
        c += 1
        st[RN] = hp.pop(rkey, rjid, rpos, st[RN])
    for k in range(c):
        j = buf[k]
        e = expected_end(start[j], est_run[j], req[j], t, overrun)
        st[RN] = hp.push(rkey, rjid, rpos, st[RN], e, j)


@njit(cache=True)
def _shadow(head, nodes, free, st, rkey, rjid, aux):
    """EASY: (shadow time, extra nodes) for the blocked head (spec)."""
    rn = st[RN]
    need = nodes[head]
    avail = free
    an = hp.walk_start(aux)
    shadow = 0
    while True:
        p, an = hp.walk_next(rkey, rjid, rn, aux, an)
        avail += nodes[rjid[p]]
        if avail >= need:
            shadow = rkey[p]
            break
    while an > 0 and rkey[aux[0]] <= shadow:
        p, an = hp.walk_next(rkey, rjid, rn, aux, an)
        avail += nodes[rjid[p]]
    return shadow, avail - need


@njit(cache=True)
def _wfp_order(t, submit, est_wait, nodes, q, st, state, ordbuf, sbuf):
    """Waiting jobs by descending Eq. 5 score, ties by arrival (stable sort)."""
    m = 0
    for s in range(st[QLEN]):
        j = q[s]
        if state[j] == WAITING:
            ordbuf[m] = j
            sbuf[m] = -wfp_score(t, submit[j], est_wait[j], nodes[j])
            m += 1
    idx = np.argsort(sbuf[:m], kind="mergesort")
    tmp = ordbuf[:m].copy()
    for k in range(m):
        ordbuf[k] = tmp[idx[k]]
    return m


@njit(cache=True)
def _wfp_head(t, submit, est_wait, nodes, q, st, state):
    best = -1
    bs = 0.0
    for s in range(st[QLEN]):
        j = q[s]
        if state[j] == WAITING:
            sc = wfp_score(t, submit[j], est_wait[j], nodes[j])
            if best < 0 or sc > bs:  # arrival order breaks ties
                best = j
                bs = sc
    return best


@njit(cache=True)
def _first_waiting(q, st, state):
    for s in range(st[QLEN]):
        if state[q[s]] == WAITING:
            return q[s]
    return -1


@njit(cache=True)
def _pass(t, policy, backfill, submit, nodes, est_wait, est_run, runtime,
          q, qkey, st, state, rkey, rjid, rpos, ekey, ejid, epos, ordbuf, sbuf, aux,
          out_start, backfilled, score, first_bound, record, lo, hi):
    """One scheduling pass at t. Returns how many jobs in [lo, hi) started."""
    if st[QLIVE] == 0:
        return 0
    if st[QLEN] > 2 * st[QLIVE] + 32:
        _compact(q, qkey, st, state)
    free = st[FREE]
    if free == 0:  # nothing can start; only EASY's first shadow is recorded
        if record and backfill == EASY:
            if policy == WFP:
                head = _wfp_head(t, submit, est_wait, nodes, q, st, state)
            else:
                head = _first_waiting(q, st, state)
            if first_bound[head] < 0:
                first_bound[head] = _shadow(head, nodes, free, st, rkey, rjid, aux)[0]
        return 0
    if policy == WFP:
        arr = ordbuf
        m = _wfp_order(t, submit, est_wait, nodes, q, st, state, ordbuf, sbuf)
    else:
        arr = q
        m = st[QLEN]
    started = 0
    head = -1
    k = 0
    while k < m:
        j = arr[k]
        k += 1
        if state[j] != WAITING:
            continue
        if nodes[j] <= free:
            free -= nodes[j]
            started += _start(j, t, False, policy, submit, nodes, est_wait, est_run, runtime, st, state,
                              rkey, rjid, rpos, ekey, ejid, epos, out_start, backfilled, score, record, lo, hi)
        else:
            head = j
            break
    st[FREE] = free
    if head < 0 or backfill == NONE:
        return started
    shadow, extra = _shadow(head, nodes, free, st, rkey, rjid, aux)
    if record and first_bound[head] < 0:
        first_bound[head] = shadow
    while k < m and free > 0:
        j = arr[k]
        k += 1
        if state[j] != WAITING:
            continue
        nj = nodes[j]
        if nj > free:
            continue
        if t + est_wait[j] <= shadow:
            pass
        elif nj <= extra:
            extra -= nj
        else:
            continue
        free -= nj
        started += _start(j, t, True, policy, submit, nodes, est_wait, est_run, runtime, st, state,
                          rkey, rjid, rpos, ekey, ejid, epos, out_start, backfilled, score, record, lo, hi)
    st[FREE] = free
    return started


@njit(cache=True)
def _start(j, t, bf, policy, submit, nodes, est_wait, est_run, runtime, st, state,
           rkey, rjid, rpos, ekey, ejid, epos, out_start, backfilled, score, record, lo, hi):
    state[j] = RUNNING
    st[QLIVE] -= 1
    st[RN] = hp.push(rkey, rjid, rpos, st[RN], t + est_run[j], j)
    st[EN] = hp.push(ekey, ejid, epos, st[EN], t + runtime[j], j)
    if record:
        backfilled[j] = bf
        score[j] = start_score(policy, t, j, submit, est_wait, nodes)
    if lo <= j < hi:
        out_start[j] = t
        return 1
    return 0


@njit(cache=True)
def _forecast(t, lo, hi, policy, backfill, submit, nodes, est_wait, est_run,
              q, qkey, st, state, rkey, rjid, ekey_unused,
              fq, fqkey, fst, fstate, frkey, frjid, frpos, fekey, fejid, fepos,
              ordbuf, sbuf, aux, pred, dummy_b, dummy_s, dummy_f):
    """Predicted starts of jobs lo..hi-1 (just submitted at t): replay the
    queue and the running jobs forward with estimates as runtimes and no
    further arrivals."""
    m = 0
    for s in range(st[QLEN]):
        j = q[s]
        if state[j] == WAITING:
            fq[m] = j
            fqkey[m] = qkey[s]
            fstate[j] = WAITING
            m += 1
    rn = st[RN]
    for s in range(rn):  # a heap copied slot by slot is still a heap
        j = rjid[s]
        frkey[s] = rkey[s]
        frjid[s] = j
        frpos[j] = s
        fekey[s] = rkey[s]  # running jobs end exactly when expected
        fejid[s] = j
        fepos[j] = s
        fstate[j] = RUNNING
    fst[FREE] = st[FREE]
    fst[QLEN] = m
    fst[QLIVE] = m
    fst[RN] = rn
    fst[EN] = rn
    left = hi - lo
    tt = t
    while True:
        left -= _pass(tt, policy, backfill, submit, nodes, est_wait, est_run, est_run,
                      fq, fqkey, fst, fstate, frkey, frjid, frpos, fekey, fejid, fepos, ordbuf, sbuf, aux,
                      pred, dummy_b, dummy_s, dummy_f, False, lo, hi)
        if left <= 0:
            return
        tt = fekey[0]
        _complete(tt, nodes, fst, fstate, frkey, frjid, frpos, fekey, fejid, fepos)


@njit(cache=True)
def queue_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun, predict):
    """Replay with backfill `none` or `easy`. See kernel.simulate for outputs."""
    n = submit.shape[0]
    start = np.full(n, -1, np.int64)
    backfilled = np.zeros(n, np.bool_)
    pred = np.full(n, -1, np.int64)
    score = np.zeros(n, np.float64)
    first_bound = np.full(n, -1, np.int64)
    state = np.zeros(n, np.int64)
    q = np.empty(n + 1, np.int64)
    qkey = np.empty(n + 1, np.int64)
    rkey = np.empty(n, np.int64)
    rjid = np.empty(n, np.int64)
    rpos = np.full(n, -1, np.int64)
    ekey = np.empty(n, np.int64)
    ejid = np.empty(n, np.int64)
    epos = np.full(n, -1, np.int64)
    ordbuf = np.empty(n, np.int64)
    sbuf = np.empty(n, np.float64)
    aux = np.empty(n + 2, np.int64)
    buf = np.empty(n, np.int64)
    st = np.zeros(5, np.int64)
    st[FREE] = capacity
    if predict:
        fq = np.empty(n + 1, np.int64)
        fqkey = np.empty(n + 1, np.int64)
        fstate = np.zeros(n, np.int64)
        frkey = np.empty(n, np.int64)
        frjid = np.empty(n, np.int64)
        frpos = np.full(n, -1, np.int64)
        fekey = np.empty(n, np.int64)
        fejid = np.empty(n, np.int64)
        fepos = np.full(n, -1, np.int64)
    else:
        fq = fqkey = fstate = frkey = frjid = frpos = fekey = fejid = fepos = np.empty(0, np.int64)
    fst = np.zeros(5, np.int64)
    i = 0
    while True:
        tn = submit[i] if i < n else BIG
        if st[EN] > 0 and ekey[0] < tn:
            tn = ekey[0]
        if tn == BIG:
            break
        t = tn
        _complete(t, nodes, st, state, rkey, rjid, rpos, ekey, ejid, epos)
        i0 = i
        while i < n and submit[i] == t:
            _enqueue(i, policy, est_wait, nodes, q, qkey, st, state)
            i += 1
        _extend(t, start, est_run, req, overrun, st, rkey, rjid, rpos, buf)
        if predict and i > i0:
            _forecast(t, i0, i, policy, backfill, submit, nodes, est_wait, est_run,
                      q, qkey, st, state, rkey, rjid, ekey,
                      fq, fqkey, fst, fstate, frkey, frjid, frpos, fekey, fejid, fepos,
                      ordbuf, sbuf, aux, pred, backfilled, score, first_bound)
        _pass(t, policy, backfill, submit, nodes, est_wait, est_run, run,
              q, qkey, st, state, rkey, rjid, rpos, ekey, ejid, epos, ordbuf, sbuf, aux,
              start, backfilled, score, first_bound, True, 0, n)
    return start, backfilled, pred, score, first_bound
