"""Queue schedulers without reservations: `none` and `easy` backfilling.

Why this shape: running jobs sit in a sorted array by expected end (the EASY
shadow walk is a linear scan) and in a heap by actual end (completions); the
queue is an array kept in policy order -- arrival order for fcfs, sorted
insert for sjf/lwf, and for wfp an insertion sort at every pass (scores move
with time but the order barely changes). Started jobs leave holes that are
compacted lazily. Beside each job index the queue holds the slot's (nodes,
est_wait) pair (``qn``, interleaved), and a started job's slot gets nodes =
BIG: the backfill scan tests the EASY rule on those pairs in order, four per
branch (`_next_fit`), and reads the job arrays only for a slot that passes
(on UniLu-Gaia the queue is hundreds long, docs/speed.md, "The queue loop"). A
pass after arrivals only (nothing ended since the last full EASY pass, same
blocked head, its shadow time and extra nodes no greater) examines just the
new jobs: every older one failed with at least as much room before. An
overrun extension does not force a full pass: it only moves expected ends
later, and the shadow check catches what that changes. The same `_pass` runs
the real replay and the forward simulations that forecast start times
(Smith, Taylor & Foster Section 3).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..jit import jit
from . import _heaps as hp
from . import _sorted as rs
from ._cond import apply_row
from ._sorted import U1

U2, U3, U4, U5, U6, U7 = (np.uint64(c) for c in range(2, 8))
from ._common import (
    BIG, DONE, EASY_SJBF, FCFS, NONE, RUNNING, SJF, LWF, WAITING, WFP,
    expected_end, start_score, static_key, wfp_score,
)

# slots of the scalar state array
FREE, QLEN, QLIVE, RN, EN, QHEAD, DIRTY, VALID, LHEAD, LSHADOW, LEXTRA, GEN = range(12)
# slots of the forecast state for the `none` forecast's continuation (see _forecast_none)
CONT, CT, CFREE, CHN, CGEN, CPOPT = range(12, 18)
NSTATE = 18
# typed flags: passing bare literals would compile one copy of a function per literal value
YES, NO = np.bool_(True), np.bool_(False)

# The records the loop's functions pass: named tuples of the arrays that travel together (their
# fields are listed in replay_buffers' glossary). Numba passes a tuple as its fields, one by one, so a
# record costs what its arrays did as separate arguments; a function reads them as ``S.qn``, or
# unpacks the few it uses at its top. But a small helper called per job or per pass and not inlined
# (_enqueue, _first_waiting, _slot, ...) takes only the arrays it uses: a record passes every field,
# and with S (15 arrays) and J passed to those two the loop took 1.8x its time (docs/speed.md, "The queue loop").
Jobs = namedtuple("Jobs", "submit run nodes est_wait est_run req")  # the inputs (est_*: written when learned)
# one schedule: the replay's, or a forecast's copy of it (runtime: how long its jobs last; the forecast's
# are its fdur). newbuf and buf are scratch, shared by the replay and its forecasts
Sched = namedtuple("Sched", "st state eend runtime q qkey qn sbuf rkey rjid ekey ejid epos newbuf buf")
# where a schedule's starts go: start of jobs lo..hi-1 (the replay: all; a forecast: its targets) and, when
# it records, backfilled, score and first_bound of every job
Out = namedtuple("Out", "start backfilled score first_bound lo hi")
Users = namedtuple("Users", "ju jp urun")  # the learned scheme's per-user counts of running jobs (_learned)
History = namedtuple("History", "user hlast hprev hcnt")  # ave2 learned in the replay (_predict_arrivals)
# the forecasts: the schedule copy fs, the outputs (pred; fbf, fsc, ffb: a separate-duration forecast's
# scratch), the `none` forecast's heap of (end, nodes) pairs, the conditional table (_cond)
Forecast = namedtuple("Forecast", "fs pred fbf fsc ffb hkey hval ctime coff cjob cval")


@jit(nrt=False)
def _enqueue(j, policy, est_wait, nodes, q, qkey, qn, st, state):
    """Put job j in the queue at its place in the static order."""
    state[j] = WAITING
    n = st[QLEN]
    k = static_key(policy, j, est_wait, nodes)
    pos = n
    if policy == SJF or policy == LWF:
        pos = _slot(policy, j, est_wait, nodes, q, qkey, st)  # first slot whose (key, job) is greater
        for s in range(n, pos, -1):
            q[s] = q[s - 1]
            qkey[s] = qkey[s - 1]
            qn[2 * s] = qn[2 * s - 2]
            qn[2 * s + 1] = qn[2 * s - 1]
    q[pos] = j
    qkey[pos] = k
    qn[2 * pos] = nodes[j]
    qn[2 * pos + 1] = est_wait[j]
    st[QLEN] = n + 1
    st[QLIVE] += 1


@jit(nrt=False)
def _compact(q, qkey, qn, st, state):
    m = 0
    for s in range(st[QHEAD], st[QLEN]):
        if state[q[s]] == WAITING:
            q[m] = q[s]
            qkey[m] = qkey[s]
            qn[2 * m] = qn[2 * s]
            qn[2 * m + 1] = qn[2 * s + 1]
            m += 1
    st[QLEN] = m
    st[QHEAD] = 0


@jit(inline=True, nrt=False)
def _end_first(nodes, S):
    """The job first in the actual-end heap leaves the machine."""
    st = S.st
    j = S.ejid[0]
    st[EN] = hp.pop(S.ekey, S.ejid, S.epos, st[EN])
    st[RN] = rs.remove(S.rkey, S.rjid, st[RN], S.eend[j], j)
    st[FREE] += nodes[j]
    S.state[j] = DONE
    st[DIRTY] = 1
    st[GEN] += 1


@jit(inline=True, nrt=False)
def _complete(t, nodes, S):
    """Every job whose actual end is <= t leaves the machine."""
    st, ekey = S.st, S.ekey
    while st[EN] > 0 and ekey[0] <= t:
        _end_first(nodes, S)


@jit(inline=True, nrt=False)
def _complete_learn(t, J, S, H):
    """_complete, and each ended job's run time joins its user's history (the
    replay's ave2 from the simulated schedule, pyss's ``fit`` at a simulated
    termination). The heap pops in (end, job index) order: that is the order
    of the history among jobs of one user ending at the same instant."""
    st, ekey, ejid, run = S.st, S.ekey, S.ejid, J.run
    user, hlast, hprev, hcnt = H.user, H.hlast, H.hprev, H.hcnt
    while st[EN] > 0 and ekey[0] <= t:
        j = ejid[0]
        u = user[j]
        if u >= 0:
            hprev[u] = hlast[u]
            hlast[u] = run[j]
            hcnt[u] += 1
        _end_first(J.nodes, S)


@jit(inline=True, nrt=False)
def next_instant(i, n, submit, S):
    """The next event's time: the next submission or the first actual end (BIG: none left)."""
    tn = submit[i] if i < n else BIG
    if S.st[EN] > 0 and S.ekey[0] < tn:
        tn = S.ekey[0]
    return tn


@jit(inline=True, nrt=False)
def _predict_arrivals(t, i, J, H):
    """Estimates of the jobs submitted at t (from index i) from the history
    of jobs ended before t in this replay: Tsafrir's ave2 as pyss's
    predictor_tsafrir computes it -- floor of the mean run time of the
    user's last two ended jobs, at most the request; the request while the
    user has fewer than two (or no user id). Called before the ends at t
    are learned: pyss handles the submissions of an instant before its
    terminations."""
    submit, req, est_wait, est_run = J.submit, J.req, J.est_wait, J.est_run
    user, hlast, hprev, hcnt = H.user, H.hlast, H.hprev, H.hcnt
    n = submit.shape[0]
    k = i
    while k < n and submit[k] == t:
        u = user[k]
        e = req[k]
        if u >= 0 and hcnt[u] >= 2:
            a = (hlast[u] + hprev[u]) // 2
            if a < e:
                e = a
        est_wait[k] = e
        est_run[k] = e
        k += 1


@jit(nrt=False)
def _complete_forecast(t, nodes, st, state, rkey, rjid):
    """In a forecast every job ends exactly at its expected end."""
    c = 0
    while c < st[RN] and rkey[c] <= t:
        j = rjid[c]
        st[FREE] += nodes[j]
        state[j] = DONE
        c += 1
    st[RN] = rs.drop_front(rkey, rjid, st[RN], c)


@jit(inline=True, nrt=False)
def _extend(t, start, J, overrun, S):
    """Jobs still running at or past their expected end get a new one: the
    running set's front (ends <= t) is replaced by the new ends in one merge
    (_sorted.replace_front) rather than a removal and c sorted inserts."""
    est_run, req, eend, st, rkey, rjid, buf = J.est_run, J.req, S.eend, S.st, S.rkey, S.rjid, S.buf
    c = 0
    while c < st[RN] and rkey[c] <= t:
        buf[c] = rjid[c]
        c += 1
    if c == 0:
        return
    for k in range(c):  # new ends, sorted by (end, job): an insertion sort, as c is small (2.4 on CEA-Curie with ave2)
        j = buf[k]
        e = expected_end(start[j], est_run[j], req[j], t, overrun)
        eend[j] = e
        p = k
        while p > 0 and (eend[buf[p - 1]] > e or (eend[buf[p - 1]] == e and buf[p - 1] > j)):
            buf[p] = buf[p - 1]
            p -= 1
        buf[p] = j
    rs.replace_front(rkey, rjid, st[RN], c, eend, buf)
    st[GEN] += 1  # not DIRTY: nothing ended, and a later end only moves the shadow later (see _arrivals_only)


@jit(inline=True, nrt=False)
def _shadow(head, nodes, free, S):
    """EASY: (shadow time, extra nodes) for the blocked head (spec)."""
    rkey, rjid = S.rkey, S.rjid
    rn = np.uint64(S.st[RN])
    need = nodes[head]
    avail = free
    p = np.uint64(0)  # unsigned indices: no wraparound code (see _sorted)
    while True:
        avail += nodes[np.uint64(rjid[p])]
        if avail >= need:
            break
        p += U1
    shadow = rkey[p]
    p += U1
    while p < rn and rkey[p] <= shadow:
        avail += nodes[np.uint64(rjid[p])]
        p += U1
    return shadow, avail - need


@jit(inline=True, nrt=False)
def _ahead(sa, a, sb, b):
    return sa > sb or (sa == sb and a < b)


@jit(nrt=False)
def _wfp_sort(t, submit, est_wait, nodes, q, qn, sbuf, st, state):
    """Drop started jobs from q and put it in Eq. 5 order at t (descending score,
    ties by arrival): an insertion sort, as the previous order is nearly right."""
    m = 0
    for s in range(st[QHEAD], st[QLEN]):
        j = q[s]
        if state[j] == WAITING:
            sc = wfp_score(t, submit[j], est_wait[j], nodes[j])
            k = m
            while k > 0 and _ahead(sc, j, sbuf[k - 1], q[k - 1]):
                q[k] = q[k - 1]
                qn[2 * k] = qn[2 * k - 2]
                qn[2 * k + 1] = qn[2 * k - 1]
                sbuf[k] = sbuf[k - 1]
                k -= 1
            q[k] = j
            qn[2 * k] = nodes[j]
            qn[2 * k + 1] = est_wait[j]
            sbuf[k] = sc
            m += 1
    st[QLEN] = m
    st[QHEAD] = 0
    return m


@jit(nrt=False)
def _wfp_head(t, submit, est_wait, nodes, q, st, state):
    best = -1
    bs = 0.0
    for s in range(st[QHEAD], st[QLEN]):
        j = q[s]
        if state[j] == WAITING:
            sc = wfp_score(t, submit[j], est_wait[j], nodes[j])
            if best < 0 or _ahead(sc, j, bs, best):
                best = j
                bs = sc
    return best


@jit(nrt=False)
def _first_waiting(q, st, state):
    s = st[QHEAD]
    while s < st[QLEN] and state[q[s]] != WAITING:
        s += 1
    st[QHEAD] = s
    return q[s] if s < st[QLEN] else -1


@jit(nrt=False)
def _pass(t, policy, backfill, J, S, O, U, i0, i1, record, track):
    """One scheduling pass at t on schedule S; jobs i0..i1-1 arrived at t. Returns how many
    jobs in [O.lo, O.hi) started (a forecast's targets). ``record``: the actual-end heap and
    O's backfilled, score and first_bound are kept (the replay, a separate-duration forecast);
    ``track``: the learned scheme's per-user counts U."""
    nodes, est_wait, q, qn, st, state, first_bound = J.nodes, J.est_wait, S.q, S.qn, S.st, S.state, O.first_bound
    if st[QLIVE] == 0:
        st[VALID] = 0
        return 0
    if st[QLEN] - st[QHEAD] > st[QLIVE] + (st[QLIVE] >> 2) + 32:  # holes cost every scan; compacting is cheap
        _compact(q, S.qkey, qn, st, state)
    free = st[FREE]
    if free == 0:  # nothing can start; only EASY's first shadow is recorded
        st[VALID] = 0
        if record and backfill != NONE:
            if policy == WFP:
                head = _wfp_head(t, J.submit, est_wait, nodes, q, st, state)
            else:
                head = _first_waiting(q, st, state)
            if first_bound[head] < 0:
                first_bound[head] = _shadow(head, nodes, free, S)[0]
        return 0
    if st[VALID] == 1 and st[DIRTY] == 0 and i1 > i0:
        done, started = _arrivals_only(t, policy, backfill, J, S, O, U, i0, i1, record, track)
        if done:
            st[DIRTY] = 0
            return started
    st[DIRTY] = 0
    st[VALID] = 0
    if policy == WFP:
        _wfp_sort(t, J.submit, est_wait, nodes, q, qn, S.sbuf, st, state)
    m = st[QLEN]
    started = 0
    head = -1
    _first_waiting(q, st, state)  # skips leading holes
    k = st[QHEAD]
    while k < m:
        j = q[k]
        k += 1
        if state[j] != WAITING:
            continue
        if nodes[j] <= free:
            free -= nodes[j]
            qn[2 * k - 2] = BIG  # the slot is a hole now: no scan will take it for a candidate
            started += _start(j, t, NO, policy, J, S, O, U, record, track)
        else:
            head = j
            break
    st[FREE] = free
    if head < 0 or backfill == NONE:
        return started
    shadow, extra = _shadow(head, nodes, free, S)
    if record and first_bound[head] < 0:
        first_bound[head] = shadow
    uk, um = np.uint64(k), np.uint64(m)  # unsigned: no wraparound code in the scan (see _sorted)
    lim = shadow - t  # a job with est_wait <= lim is expected to end by the shadow time
    if backfill == EASY_SJBF:
        free, extra, got = _scan_sjbf(t, policy, J, S, O, U, uk, um, free, lim, shadow, extra, record, track)
        started += got
    else:
        while free > 0:
            uk = _next_fit(qn, uk, um, free, lim, extra)
            if uk >= um:
                break
            nj = qn[U2 * uk]
            j = q[uk]
            uk += U1
            if state[np.uint64(j)] != WAITING:
                continue
            ok, extra = _may_backfill(t, est_wait[j], nj, shadow, extra)
            if not ok:
                continue
            free -= nj
            qn[U2 * uk - U2] = BIG
            started += _start(j, t, YES, policy, J, S, O, U, record, track)
    st[FREE] = free
    if record and policy != WFP:
        st[VALID] = 1
        st[LHEAD] = head
        st[LSHADOW] = shadow
        st[LEXTRA] = extra
    return started


@jit(nrt=False)  # not inlined: the default scan's code in _pass stays as it was
def _scan_sjbf(t, policy, J, S, O, U, uk, um, free, lim, shadow, extra, record, track):
    """EASY++'s backfill scan (--backfill-order sjbf, Tsafrir et al. 2007):
    the slots from uk on, visited by ascending est_wait, ties by slot (queue
    order), each tested with the EASY rule. Free and extra nodes only shrink
    during a scan, so a slot that fails the rule (`_next_fit`'s test) once
    fails at its turn too, and the first slot in (est_wait, slot) order that
    passes it is the next to start. So: one `_next_fit` scan puts the slots
    that pass into ``cand`` (S.newbuf, a scratch of the queue's length; 7 a pass on
    average on CEA-Curie) and finds their first; after each start the
    candidates are filtered with the new free and extra nodes (the started
    slot is a hole: it fails), finding the next first. Returns (free, extra,
    jobs of [O.lo, O.hi) started)."""
    est_wait, q, qn, state, cand = J.est_wait, S.q, S.qn, S.state, S.newbuf
    c = 0
    best = -1
    while True:
        uk = _next_fit(qn, uk, um, free, lim, extra)
        if uk >= um:
            break
        s = np.int64(uk)
        cand[c] = s
        c += 1
        if best < 0 or qn[2 * s + 1] < qn[2 * best + 1]:  # ties: the earlier slot, found first
            best = s
        uk += U1
    started = 0
    while best >= 0:
        j = q[best]
        if state[j] == WAITING:  # always (as in the queue-order scan, checked all the same)
            nj = qn[2 * best]
            ok, extra = _may_backfill(t, est_wait[j], nj, shadow, extra)  # ok: it passed with these free/extra
            if ok:
                free -= nj
                qn[2 * best] = BIG  # a hole now (see _pass)
                started += _start(j, t, YES, policy, J, S, O, U, record, track)
        done = best
        m = 0
        best = -1
        if free > 0:
            for p in range(c):
                s = cand[p]
                ns = qn[2 * s]
                es = qn[2 * s + 1]
                if s != done and (free - ns) | ((lim - es) & (extra - ns)) >= 0:
                    cand[m] = s
                    m += 1
                    if best < 0 or es < qn[2 * best + 1]:
                        best = s
        c = m
    return free, extra, started


@jit(inline=True, nrt=False)
def _next_fit(qn, uk, um, free, lim, extra):
    """First slot from uk (uint64) whose (nodes, est_wait) pair passes the EASY
    rule -- nodes <= free, and est_wait <= lim (ends by the shadow) or nodes <=
    extra -- or um. Most slots fail, so the test is one sign test on
    ``(free - nodes) | ((lim - est_wait) & (extra - nodes))`` (non-negative
    exactly when the rule passes; no operand near overflow): the loop's one
    branch is almost always taken, where separate tests on random data (LLVM
    keeps ``&``/``|`` of comparisons as branches) were mispredicted."""
    while uk + U4 <= um:  # four slots (one cache line) per branch: all fail when the AND of the four is negative
        p = U2 * uk
        n0, n1, n2, n3 = qn[p], qn[p + U2], qn[p + U4], qn[p + U6]
        f0 = (free - n0) | ((lim - qn[p + U1]) & (extra - n0))
        f1 = (free - n1) | ((lim - qn[p + U3]) & (extra - n1))
        f2 = (free - n2) | ((lim - qn[p + U5]) & (extra - n2))
        f3 = (free - n3) | ((lim - qn[p + U7]) & (extra - n3))
        if f0 & f1 & f2 & f3 >= 0:
            break
        uk += U4
    while uk < um:
        nj = qn[U2 * uk]
        if (free - nj) | ((lim - qn[U2 * uk + U1]) & (extra - nj)) >= 0:
            return uk
        uk += U1
    return uk


@jit(inline=True, nrt=False)
def _may_backfill(t, est_wait_j, nj, shadow, extra):
    """The EASY rule for a job behind the blocked head: it may start if it is
    expected to end by the shadow time, or else if it fits in the extra nodes,
    which it then uses up. Returns (may start, extra nodes left)."""
    if t + est_wait_j <= shadow:
        return True, extra
    if nj <= extra:
        return True, extra - nj
    return False, extra


@jit(nrt=False)
def _arrivals_only(t, policy, backfill, J, S, O, U, i0, i1, record, track):
    """EASY pass when only jobs i0..i1-1 arrived since the last full pass, whose
    head is still blocked. Returns (applicable, started). Valid for EASY++ too:
    the older jobs failed with at least as much room, whatever the visit order.
    Also after overrun extensions (`_extend`): free nodes unchanged, and the
    shadow and extra nodes are recomputed here and checked against the last
    pass's, so an old job (est_wait > old shadow - old t, or nodes > old
    extra) still fails the EASY rule."""
    nodes, est_wait, qn, st, newbuf = J.nodes, J.est_wait, S.qn, S.st, S.newbuf
    head = st[LHEAD]
    kh = static_key(policy, head, est_wait, nodes)
    c = 0
    for j in range(i0, i1):  # new jobs in queue order (insertion sort on the static key)
        kj = static_key(policy, j, est_wait, nodes)
        if kj < kh:
            return False, 0  # a new job goes ahead of the head: full pass
        p = c
        while p > 0 and static_key(policy, newbuf[p - 1], est_wait, nodes) > kj:
            newbuf[p] = newbuf[p - 1]
            p -= 1
        newbuf[p] = j
        c += 1
    if backfill == EASY_SJBF:  # EASY++ visits them by est_wait, ties in queue order (a stable sort)
        for a in range(1, c):
            j = newbuf[a]
            p = a
            while p > 0 and est_wait[newbuf[p - 1]] > est_wait[j]:
                newbuf[p] = newbuf[p - 1]
                p -= 1
            newbuf[p] = j
    free = st[FREE]
    shadow, extra = _shadow(head, nodes, free, S)
    if shadow > st[LSHADOW] or extra > st[LEXTRA]:
        return False, 0
    started = 0
    for p in range(c):
        if free == 0:
            break
        j = newbuf[p]
        nj = nodes[j]
        if nj > free:
            continue
        ok, extra = _may_backfill(t, est_wait[j], nj, shadow, extra)
        if not ok:
            continue
        free -= nj
        qn[2 * _slot(policy, j, est_wait, nodes, S.q, S.qkey, st)] = BIG  # a hole now (see _pass)
        started += _start(j, t, YES, policy, J, S, O, U, record, track)
    st[FREE] = free
    st[LSHADOW] = shadow
    st[LEXTRA] = extra
    return True, started


@jit(nrt=False)
def _slot(policy, j, est_wait, nodes, q, qkey, st):
    """The queue slot of waiting job j under a static order (not wfp): the
    queue is sorted by (key, job) between QHEAD and QLEN, holes included."""
    k = static_key(policy, j, est_wait, nodes)
    lo, hi = st[QHEAD], st[QLEN]
    while lo < hi:
        mid = (lo + hi) >> 1
        if qkey[mid] < k or (qkey[mid] == k and q[mid] < j):
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit(inline=True, nrt=False)
def _start(j, t, bf, policy, J, S, O, U, record, track):
    st = S.st
    S.state[j] = RUNNING
    st[QLIVE] -= 1
    e = t + J.est_run[j]
    S.eend[j] = e
    st[RN] = rs.insert(S.rkey, S.rjid, st[RN], e, j)
    if record:  # forecasts end jobs by expected end and need no heap
        st[EN] = hp.push(S.ekey, S.ejid, S.epos, st[EN], t + S.runtime[j], j)
        O.backfilled[j] = bf
        O.score[j] = start_score(policy, t, j, J.submit, J.est_wait, J.nodes)
    if track:  # the learned scheme in the replay: the user's jobs and processors running (_learned.py)
        u = U.ju[j]
        if u >= 0:
            U.urun[2 * u] += 1.0
            U.urun[2 * u + 1] += U.jp[j]
    if O.lo <= j < O.hi:
        O.start[j] = t
        return 1
    return 0


@jit(nrt=False)
def _forecast(t, lo, hi, policy, backfill, J, S, O, U, F, fsep):
    """Predicted starts of jobs lo..hi-1 (just submitted at t): replay the
    queue and the running jobs forward with estimates as runtimes and no
    further arrivals. With ``fsep`` the forecast simulates the scheduler
    itself (its order, shadows and expected ends still from est_wait /
    est_run) while each job lasts its forecast duration ``fdur`` (at most
    est_run; a running job: start + fdur, at least t, at most its expected
    end) -- Smith, Taylor & Foster's "scheduling simulation using the
    predicted run times as the run times of the applications"."""
    q, qkey, qn, st, state, rkey, rjid = S.q, S.qkey, S.qn, S.st, S.state, S.rkey, S.rjid
    fs = F.fs
    fq, fqkey, fqn, fst, fstate, frkey, frjid = fs.q, fs.qkey, fs.qn, fs.st, fs.state, fs.rkey, fs.rjid
    m = 0
    for s in range(st[QHEAD], st[QLEN]):
        j = q[s]
        if state[j] == WAITING:
            fq[m] = j
            fqkey[m] = qkey[s]
            fqn[2 * m] = qn[2 * s]
            fqn[2 * m + 1] = qn[2 * s + 1]
            fstate[j] = WAITING
            m += 1
    rn = st[RN]
    for s in range(rn):
        frkey[s] = rkey[s]
        frjid[s] = rjid[s]
        fstate[rjid[s]] = RUNNING
    fst[:] = 0
    fst[FREE] = st[FREE]
    fst[QLEN] = m
    fst[QLIVE] = m
    fst[RN] = rn
    FO = Out(F.pred, F.fbf, F.fsc, F.ffb, lo, hi)  # the targets' starts; fbf, fsc, ffb: scratch (empty unless fsep)
    left = hi - lo
    tt = t
    # no arrivals in a forecast: the pass's arrivals are the empty range hi..hi-1
    if fsep:
        en = 0
        for s in range(rn):
            j = frjid[s]
            fs.eend[j] = frkey[s]
            e = min(max(O.start[j] + fs.runtime[j], t), frkey[s])
            en = hp.push(fs.ekey, fs.ejid, fs.epos, en, e, j)
        fst[EN] = en
        while True:
            left -= _pass(tt, policy, backfill, J, fs, FO, U, hi, hi, YES, NO)
            if left <= 0:
                return
            tt = fs.ekey[0]
            _complete(tt, J.nodes, fs)
    while True:  # every job ends at its expected end: no heap, nothing recorded
        left -= _pass(tt, policy, backfill, J, fs, FO, U, hi, hi, NO, NO)
        if left <= 0:
            return
        tt = frkey[0]
        _complete_forecast(tt, J.nodes, fst, fstate, frkey, frjid)


@jit
def _place_next(need, dur, free, tt, hkey, hval, hn, popped, fst):
    """One step of the in-order forecast walk: wait (popping the end heap) until
    `need` nodes are free, then hold them for `dur`. Records in fst[CPOPT] the
    first instant the walk had to wait for an end. Returns (free, tt, hn, popped)."""
    while free < need:
        e = hkey[0]
        free += hval[0]
        hn = hp.pop_pair(hkey, hval, hn)
        if e > tt:
            tt = e
        popped = True
    if popped and fst[CPOPT] == BIG:
        fst[CPOPT] = tt
    free -= need
    hn = hp.push_pair(hkey, hval, hn, tt + dur, need)
    return free, tt, hn, popped


@jit(nrt=False)
def _forecast_none(t, lo, hi, policy, nodes, S, start, F, fsep):
    """The forecast without backfilling under a static order (fcfs, sjf, lwf):
    jobs start in queue order, each at the first time (never before the one
    ahead) when enough nodes are free. So instead of replaying passes, one
    walk of the queue up to the last job submitted at t, with the running
    jobs' ends in a min-heap of (end, nodes) popped only while a job does not
    fit: O((queue + running) log) per forecast instead of a sorted insert per start.

    Under fcfs the jobs submitted at t are the tail, so when nothing happened
    since the previous forecast (no end, no overrun extension: st[GEN]
    unchanged) that forecast's walk is this one's beginning: it continues
    from its saved heap and time. Valid because the previous walk's placements
    were either the real pass's own starts (before any pop) or at times >= t
    (checked: CPOPT), where the free-node count as a function of time is the
    same seen from either instant."""
    q, st, state, rkey, rjid = S.q, S.st, S.state, S.rkey, S.rjid
    pred, hkey, hval, fst, fdur = F.pred, F.hkey, F.hval, F.fs.st, F.fs.runtime
    left = hi - lo
    if (policy == FCFS and fst[CONT] == 1 and fst[CGEN] == st[GEN] and fst[CPOPT] >= t):
        tt = max(fst[CT], t)
        free = fst[CFREE]
        hn = fst[CHN]
        popped = fst[CPOPT] < BIG
        for j in range(lo, hi):  # the new tail, in queue order
            free, tt, hn, popped = _place_next(nodes[j], fdur[j], free, tt, hkey, hval, hn, popped, fst)
            pred[j] = tt
        fst[CT] = tt
        fst[CFREE] = free
        fst[CHN] = hn
        return
    rn = st[RN]
    hn = 0
    if fsep:
        for s in range(rn):
            j = rjid[s]
            hn = hp.push_pair(hkey, hval, hn, min(max(start[j] + fdur[j], t), rkey[s]), nodes[j])
    else:  # a sorted array is a heap
        for s in range(rn):
            hkey[s] = rkey[s]
            hval[s] = nodes[rjid[s]]
        hn = rn
    tt = t
    free = st[FREE]
    popped = False
    fst[CPOPT] = BIG
    s = st[QHEAD]
    m = st[QLEN]
    while left > 0 and s < m:
        j = q[s]
        s += 1
        if state[j] != WAITING:
            continue
        free, tt, hn, popped = _place_next(nodes[j], fdur[j], free, tt, hkey, hval, hn, popped, fst)
        if lo <= j < hi:
            pred[j] = tt
            left -= 1
    fst[CONT] = 1 if policy == FCFS else 0
    fst[CT] = tt
    fst[CFREE] = free
    fst[CHN] = hn
    fst[CGEN] = st[GEN]


@jit
def replay_buffers(run, capacity):
    """The outputs and working arrays of one replay of n jobs lasting ``run`` (queue_sim,
    _learned.learned_sim), as the records the loop passes: (S, O, pred), S the schedule (`Sched`:
    st, state, eend, runtime = run, q, qkey, qn, sbuf, rkey, rjid, ekey, ejid, epos, newbuf, buf), O
    its outputs (`Out`: start, backfilled, score, first_bound; lo, hi = 0, n: every job), pred the
    forecasts' output. Glossary (r = min(n, capacity) + 1: at most ``capacity`` jobs run at once):

    ===========  =======  =======  =====================================================  ==========================
    array        dtype    length   holds                                                  written by
    ===========  =======  =======  =====================================================  ==========================
    start        int64    n        each job's start instant (-1 until it starts)          _start (output)
    backfilled   bool     n        started out of queue order (EASY's rule)               _start (output)
    pred         int64    n        forecast start at submission (-1: none asked)          _predict/_forecast (output)
    score        float64  n        the policy's score of a job when it started            _start (output)
    first_bound  int64    n        the first EASY shadow time computed for a queue head   _pass (output)
    state        int64    n        PENDING, WAITING, RUNNING or DONE (_common)            _enqueue, _start, _complete
    eend         int64    n        a running job's expected end (start + estimate,        _start, _extend
                                   moved by the overrun rule)
    q            int64    n + 1    the queue: job indices in policy order, holes for      _enqueue, _compact
                                   started jobs between st[QHEAD] and st[QLEN]
    qkey         int64    n + 1    each queue slot's static sort key (sjf, lwf)           _enqueue, _compact
    qn           int64    2n + 2   each queue slot's (nodes, est_wait), interleaved;      _enqueue, _start, _compact
                                   nodes = BIG once the job started (scan skips it)
    sbuf         float64  n + 1    wfp's scores during its insertion sort (scratch)       _wfp_sort
    rkey, rjid   int64    r        running jobs sorted by (expected end, job): the EASY   _start, _extend, _complete
                                   shadow walk (_sorted.py; st[RN] of them)
    ekey, ejid   int64    r        running jobs in a min-heap by actual end (start +      _start, _complete
                                   run): completions (_heaps.py; st[EN] of them)
    epos         int64    n        each running job's slot in that heap (-1: none)        _heaps.push/pop
    newbuf       int64    n + 1    the jobs arrived at t in their policy order, for a     _arrivals_only
                                   pass after arrivals only (scratch)
    buf          int64    r        running jobs whose expected end moved (scratch)        _extend
    st           int64    NSTATE   the loop's scalars, by the names at the top (FREE      every helper
                                   nodes, queue bounds, counts, pass validity, ...)
    ===========  =======  =======  =====================================================  ==========================

    queue_sim allocates the rest (`_forecasts`): a forecast's copy of the schedule (F.fs, a `Sched`
    of the arrays above, of a forward simulation that must not touch the replay's; its runtime the
    forecast durations fdur, its heap empty unless they differ from est_run; newbuf and buf the
    replay's), the `none` forecast's heap of (end, nodes) pairs (F.hkey, F.hval), the
    separate-duration forecast's outputs (F.fbf, F.fsc, F.ffb), and the per-user history of ave2
    learned in the replay (`History`: hlast, hprev: a user's last two runtimes; hcnt: how many
    ended), each empty when its feature is off."""
    n = run.shape[0]
    r = min(n, capacity) + 1  # at most `capacity` jobs run at once (nodes >= 1)
    st = np.zeros(NSTATE, np.int64)
    st[FREE] = capacity
    O = Out(np.full(n, -1, np.int64), np.zeros(n, np.bool_), np.zeros(n, np.float64), np.full(n, -1, np.int64),
            np.int64(0), n)
    pred = np.full(n, -1, np.int64)
    S = Sched(st, np.zeros(n, np.int64), np.zeros(n, np.int64), run, np.empty(n + 1, np.int64),
              np.empty(n + 1, np.int64), np.empty(2 * n + 2, np.int64), np.empty(n + 1, np.float64),
              np.empty(r, np.int64), np.empty(r, np.int64), np.empty(r, np.int64), np.empty(r, np.int64),
              np.full(n, -1, np.int64), np.empty(n + 1, np.int64), np.empty(r, np.int64))
    return S, O, pred


@jit
def _forecasts(S, fdur, pred, predict, fsep, backfill, ctime, coff, cjob, cval):
    """The forecasts' record (`Forecast`) beside the replay's schedule S, its jobs lasting fdur: each
    array empty when its feature is off (no forecast; the `none` walk's heap only for backfill none;
    the forecast's own heap and outputs only with separate durations)."""
    n = S.state.shape[0]
    r = S.rkey.shape[0]
    f = n if predict else 0
    fr = r if predict else 0
    fs = Sched(np.zeros(NSTATE, np.int64), np.zeros(f, np.int64), np.zeros(f, np.int64), fdur,
               np.empty(f + 1 if predict else 0, np.int64), np.empty(f + 1 if predict else 0, np.int64),
               np.empty(2 * f + 2 if predict else 0, np.int64), np.empty(f + 1 if predict else 0, np.float64),
               np.empty(fr, np.int64), np.empty(fr, np.int64), np.empty(r if fsep else 0, np.int64),
               np.empty(r if fsep else 0, np.int64), np.full(n if fsep else 0, -1, np.int64), S.newbuf, S.buf)
    hsize = n + r if predict and backfill == NONE else 0
    fn = n if fsep else 0
    return Forecast(fs, pred, np.zeros(fn, np.bool_), np.zeros(fn, np.float64), np.full(fn, -1, np.int64),
                    np.empty(hsize, np.int64), np.empty(hsize, np.int64), ctime, coff, cjob, cval)


@jit
def queue_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun, predict,
              fdur, fsep, ctime, coff, cjob, cval, user, nusers):
    """Replay with backfill `none` or `easy`. See kernel.simulate for outputs.
    With ``fsep``, forecast jobs last ``fdur`` (see _forecast), running jobs
    the value of their conditional table row (_cond.apply_row) where it has one.
    ``nusers`` > 0: estimates from the replay's own ends (_predict_arrivals),
    written into est_wait and est_run; ``user`` the job's user index (0 ..
    nusers - 1, -1 unknown)."""
    J = Jobs(submit, run, nodes, est_wait, est_run, req)
    S, O, pred = replay_buffers(run, capacity)
    F = _forecasts(S, fdur, pred, predict, fsep, backfill, ctime, coff, cjob, cval)
    H = History(user, np.zeros(nusers, np.int64), np.zeros(nusers, np.int64), np.zeros(nusers, np.int64))
    U = Users(np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.float64))  # not tracked here
    _replay(J, policy, backfill, overrun, S, O, U, F, H, predict, fsep, nusers > 0)
    return O.start, O.backfilled, pred, O.score, O.first_bound


@jit(nrt=False)
def _replay(J, policy, backfill, overrun, S, O, U, F, H, predict, fsep, learn):
    """The event loop: instants in time order (ends, arrivals, one pass).
    ``learn``: the arrivals' estimates come from the ends of this replay
    (computed before the ends at t are learned)."""
    submit, nodes, est_wait, st, state, q, qkey, qn = J.submit, J.nodes, J.est_wait, S.st, S.state, S.q, S.qkey, S.qn
    n = submit.shape[0]
    i = 0
    ck = 0
    while True:
        t = next_instant(i, n, submit, S)
        if t == BIG:
            break
        if learn:
            _predict_arrivals(t, i, J, H)
            _complete_learn(t, J, S, H)
        else:
            _complete(t, nodes, S)
        i0 = i
        while i < n and submit[i] == t:
            _enqueue(i, policy, est_wait, nodes, q, qkey, qn, st, state)
            i += 1
        _extend(t, O.start, J, overrun, S)
        if predict and i > i0:
            if fsep:
                ck, changed = apply_row(t, ck, F.ctime, F.coff, F.cjob, F.cval, F.fs.runtime)
                if changed:  # running jobs' forecast ends moved: no continuation of the last walk
                    F.fs.st[CONT] = 0
            _predict(t, i0, i, policy, backfill, J, S, O, U, F, fsep)
        if st[QLIVE] == 0:  # what _pass does on an empty queue, without the call
            st[VALID] = 0
            continue
        _pass(t, policy, backfill, J, S, O, U, i0, i, YES, NO)


@jit(nrt=False)
def _predict(t, i0, i, policy, backfill, J, S, O, U, F, fsep):
    """Forecast the starts of jobs i0..i-1, submitted at t (before the pass at t).
    When they are the only waiting jobs and all fit in the free nodes, the pass
    at t starts them all: no forward simulation is needed."""
    st, nodes, pred = S.st, J.nodes, F.pred
    if st[QLIVE] == i - i0:
        need = 0
        for j in range(i0, i):
            need += nodes[j]
        if need <= st[FREE]:
            for j in range(i0, i):
                pred[j] = t
            F.fs.st[CONT] = 0
            return
    if backfill == NONE and policy != WFP:
        _forecast_none(t, i0, i, policy, nodes, S, O.start, F, fsep)
        return
    _forecast(t, i0, i, policy, backfill, J, S, O, U, F, fsep)
