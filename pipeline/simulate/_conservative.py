"""Conservative backfilling with schedule compression (Mu'alem & Feitelson 2.1).

Every waiting job holds a reservation (anchor) in the availability profile.
The profile holds each running job until its expected end and each waiting
job over [anchor, anchor + max(est_wait, 1)); a hold is at least 1 s so a
job is never booked on nodes that are busy at its own start instant.
The start of a reservation is an event of its own (an instant).
Whenever the profile stops matching reality -- a job ends before or after
the end the profile held for it, a running job overruns, or (selective
adjustment) a starting job's running estimate differs from its waiting one
-- every waiting job, in arrival order, is removed and put back at its
earliest anchor (compression: never later than before when only holes
opened). New jobs are placed after that, in arrival order; jobs anchored
at the current time start.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..jit import jit
from . import _heaps as hp
from . import _profile as pf
from ._cond import apply_row
from ._common import BIG, RUNNING, WAITING, DONE, expected_end, precedes, start_score
from ._easy import Jobs

# The records the loop passes: named tuples of the arrays that travel together (every field is in
# conservative_buffers' glossary). Numba passes a tuple as its fields, so a record costs what its arrays
# did as separate arguments; but the small helpers called at every instant and not inlined (_end_jobs,
# _extend_overruns, _reinsert_all, _hold_at_start) take only the arrays they use, as in the EASY loop
# (docs/speed.md, "The queue loop": a record passed to a per-job helper passes all its fields).
# Jobs (the inputs: submit run nodes est_wait est_run req) is the EASY loop's record.
# One schedule's bookkeeping, the replay's or its forecast's own copy (see _forecast).
Book = namedtuple("Book", "state anc pe start w ekey ejid epos hkey hjid hpos pt pu buf started")
Out = namedtuple("Out", "backfilled score first")  # the replay's outputs besides B.start
# the forecasts on separate durations: their schedule copy fb, the durations fdur, the output pred,
# the conditional table (_cond)
Forecast = namedtuple("Forecast", "fb fdur pred ctime coff cjob cval")


# The hottest code of a heavy run (70-77% of CEA-Curie's CPU): find_without's scan, inlined here. Its
# speed moves by ~15% with where it falls in 64-byte lines, i.e. with the size of every function linked
# before it in the compiled-ahead module (docs/journal/conservative-records-2026-11-30.md).
@jit(nrt=False)
def _reinsert_all(t, w, wn, state, anc, nodes, est_wait, pt, pu, m, capacity):
    for s in range(wn):
        k = w[s]
        if state[k] != WAITING:
            continue
        d = max(est_wait[k], 1)
        a = pf.find_without(pt, pu, m, t, nodes[k], d, capacity, anc[k], anc[k] + d)
        if a == anc[k]:  # stays: removing and re-adding its hold would give the same profile
            continue
        m = pf.add(pt, pu, m, anc[k], anc[k] + d, -nodes[k])
        m = pf.add(pt, pu, m, a, a + d, nodes[k])
        anc[k] = a
    return m


@jit
def _book(n, r):
    """A schedule's arrays for n jobs, at most r - 1 of them running at once (empty: n = r = 0)."""
    p = 2 * n + 4 if n > 0 else 0
    return Book(np.zeros(n, np.int64), np.full(n, -1, np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64),
                np.empty(n + 1 if n > 0 else 0, np.int64), np.empty(r, np.int64), np.empty(r, np.int64),
                np.full(n, -1, np.int64), np.empty(r, np.int64), np.empty(r, np.int64), np.full(n, -1, np.int64),
                np.zeros(p, np.int64), np.zeros(p, np.int64), np.empty(r, np.int64), np.empty(r, np.int64))


@jit
def conservative_buffers(n, capacity, fsep, fdur, ctime, coff, cjob, cval):
    """The outputs and working arrays of one conservative replay of n jobs, as the records the loop
    passes: (B, O, F), B the replay's schedule (`Book`), O its outputs (`Out`), F the forecasts on
    separate durations (`Forecast`: fdur and the conditional table as given; with ``fsep`` its own
    schedule copy F.fb and the output F.pred, else those empty). Glossary (r = min(n, capacity) + 1:
    at most ``capacity`` jobs run at once, nodes >= 1; F.fb's arrays have the same lengths):

    ============  =======  =======  =======================================================  ======================
    array         dtype    length   holds                                                    written by
    ============  =======  =======  =======================================================  ======================
    B.start       int64    n        each job's start instant, -1 until it starts (output)    _start_reserved
    O.backfilled  bool     n        started while a job ahead in queue order still waits     _replay (output)
    O.score       float64  n        the policy's score of a job when it started (output)     _replay (output)
    O.first       int64    n        the job's first reservation (output; also the            _replay (output)
                                    predicted start without fsep)
    F.pred        int64    n        the job's start in the forecast at its submission        _forecast (output)
                                    (with fsep; else empty)
    (B.* and F.fb.*, one schedule's bookkeeping:)
    state         int64    n        PENDING, WAITING, RUNNING or DONE (_common)              _replay, _start_reserved,
                                                                                             _end_jobs
    anc           int64    n        a waiting job's reservation: the start of its hold       _replay, _reinsert_all
                                    [anc, anc + max(est_wait, 1)) in the profile
    pe            int64    n        a running job's end held in the profile                  _start_reserved,
                                                                                             _extend_overruns
    w             int64    n + 1    waiting jobs in arrival order, with holes where jobs     _replay (compacts it)
                                    started (compacted past 2 x live + 32 slots)
    ekey, ejid    int64    r        running jobs in a min-heap by actual end (start + run;   _start_reserved, _end_jobs
                                    a forecast's: + fdur) (_heaps.py; en of them)
    epos          int64    n        each running job's slot in that heap (-1: none)          _heaps.push/pop
    hkey, hjid    int64    r        running jobs in a min-heap by held end pe: the overrun   _start_reserved, _end_jobs,
                                    check (hn of them)                                       _extend_overruns
    hpos          int64    n        each running job's slot in that heap (-1: none)          _heaps
    pt, pu        int64    2n + 4   the profile: breakpoints and nodes in use from each      _profile.add/prune
                                    (_profile.py; m of them)
    buf           int64    r        jobs past their held end at t (scratch)                  _extend_overruns
    started       int64    r        the jobs started at the current instant                  _start_reserved
    F.fdur        int64    n        each job's forecast duration (the caller's array:        _cond.apply_row
                                    a conditional row rewrites running jobs')
    ============  =======  =======  =======================================================  ======================

    The forecast's copy F.fb (a `Book` with the arrays above, of a forward simulation that must not
    touch the replay's) is refilled from B at every forecast (_forecast)."""
    r = min(n, capacity) + 1
    B = _book(n, r)
    O = Out(np.zeros(n, np.bool_), np.zeros(n, np.float64), np.full(n, -1, np.int64))
    F = Forecast(_book(n if fsep else 0, r if fsep else 0), fdur, np.full(n if fsep else 0, -1, np.int64),
                 ctime, coff, cjob, cval)
    return B, O, F


@jit
def conservative_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, overrun, fdur, fsep,
                     ctime, coff, cjob, cval):
    """Replay with conservative backfilling. See kernel.simulate for outputs.
    The predicted start is the first reservation; with ``fsep``, it is the
    job's start in a forward simulation of this scheduler from its state at
    the job's submission, with jobs lasting the forecast durations ``fdur``
    (:func:`_forecast`) and running jobs the value of their conditional
    table row (_cond.apply_row) where it has one. The arrays travel as the
    records of :func:`conservative_buffers` (its glossary says what each holds)."""
    B, O, F = conservative_buffers(submit.shape[0], capacity, fsep, fdur, ctime, coff, cjob, cval)
    _replay(Jobs(submit, run, nodes, est_wait, est_run, req), capacity, policy, overrun, B, O, F, fsep)
    return B.start, O.backfilled, F.pred if fsep else O.first.copy(), O.score, O.first


@jit(nrt=False)
def _hold_at_start(t, est_run_j, est_wait_j, nj, pt, pu, m):
    """A job starting at t was booked for its est_wait; from now the profile holds it
    for est_run (they differ under selective adjustment). Returns (m, held end,
    whether the profile changed)."""
    held = t + max(est_run_j, 1)
    booked = t + max(est_wait_j, 1)
    if held > booked:
        return pf.add(pt, pu, m, booked, held, nj), held, True
    if held < booked:
        return pf.add(pt, pu, m, held, booked, -nj), held, True
    return m, held, False


@jit(inline=True, nrt=False)
def _start_reserved(t, J, dur, B, wn, wl, m, en, hn, capacity):
    """Jobs whose reservation starts at t start, each lasting dur[j] (the replay: its run; a
    forecast: its forecast duration); when a start changed the profile (selective adjustment),
    every waiting job is re-placed and the new anchors at t start too. The start loop of the
    replay and of its forecasts. Returns (waiting jobs left, m, en, hn, how many started: the
    first of B.started)."""
    state, anc, w = B.state, B.anc, B.w
    nodes, est_wait, est_run = J.nodes, J.est_wait, J.est_run
    ns = 0
    while wl > 0:
        changed = False
        before = ns
        for s in range(wn):
            j = w[s]
            if state[j] != WAITING or anc[j] != t:
                continue
            state[j] = RUNNING
            wl -= 1
            B.start[j] = t
            B.started[ns] = j
            ns += 1
            m, held, moved = _hold_at_start(t, est_run[j], est_wait[j], nodes[j], B.pt, B.pu, m)
            changed = changed or moved
            B.pe[j] = held
            en = hp.push(B.ekey, B.ejid, B.epos, en, t + dur[j], j)
            hn = hp.push(B.hkey, B.hjid, B.hpos, hn, held, j)
        if ns == before or not changed or wl == 0:
            break
        m = _reinsert_all(t, w, wn, state, anc, nodes, est_wait, B.pt, B.pu, m, capacity)
    return wl, m, en, hn, ns


@jit(nrt=False)
def _end_jobs(t, ekey, ejid, epos, en, hkey, hjid, hpos, hn, state, pe, nodes, pt, pu, m):
    """Jobs whose run ends by t leave; one ending before the end the profile held
    for it frees the rest of its hold. Returns (en, hn, m, whether any ended early)."""
    early = False
    while en > 0 and ekey[0] <= t:
        j = ejid[0]
        en = hp.pop(ekey, ejid, epos, en)
        hn = hp.remove_at(hkey, hjid, hpos, hn, hpos[j])
        state[j] = DONE
        if pe[j] != t:
            early = True
            m = pf.add(pt, pu, m, t, pe[j], -nodes[j])
    return en, hn, m, early


@jit(nrt=False)
def _extend_overruns(t, hkey, hjid, hpos, hn, buf, start, est_run, req, overrun, nodes, pt, pu, m, pe):
    """Jobs still running at the end the profile held for them get a new end by the
    overrun rule. Returns (hn, m, whether any was extended)."""
    c = 0
    while hn > 0 and hkey[0] <= t:
        buf[c] = hjid[0]
        c += 1
        hn = hp.pop(hkey, hjid, hpos, hn)
    for k in range(c):
        j = buf[k]
        e = max(expected_end(start[j], est_run[j], req[j], t, overrun), t + 1)
        m = pf.add(pt, pu, m, t, e, nodes[j])
        pe[j] = e
        hn = hp.push(hkey, hjid, hpos, hn, e, j)
    return hn, m, c > 0


@jit(nrt=False)
def _forecast(t, i0, i1, J, B, F, wn, m, en, capacity, overrun):
    """Predicted starts of jobs i0..i1-1 (just submitted at t and placed):
    Smith, Taylor & Foster's "scheduling simulation using the predicted run
    times as the run times of the applications". The scheduler itself is
    simulated forward from its state at t (B: wn slots of its waiting list,
    m profile breakpoints, en running jobs) with no further arrivals: the same
    profile, reservations and compression (every reservation still sized by
    est_wait / est_run), while each job lasts its forecast duration F.fdur -- a
    running job until max(start + fdur, t + 1), a job started in the forecast
    for fdur. A job that ends before the end held for it frees its nodes and
    every waiting job is re-placed in arrival order; one still running at
    its held end is extended by the overrun rule and the waiting jobs are
    re-placed -- exactly as in :func:`_replay`, whose start loop it runs (_start_reserved). So with fdur = the actual
    run times the forecast is the job's start in the schedule of the jobs
    submitted up to it (tests/test_kernel_forecast_estimates.py). Stops once
    jobs i0..i1-1 have all started; their starts go to F.pred. Runs on the
    copy F.fb, refilled here."""
    nodes, est_wait, est_run, req = J.nodes, J.est_wait, J.est_run, J.req
    w, state, start, anc, pe, ejid = B.w, B.state, B.start, B.anc, B.pe, B.ejid
    fdur, pred, C = F.fdur, F.pred, F.fb
    fpt, fpu, fanc, fpe, fstate, fw, fst = C.pt, C.pu, C.anc, C.pe, C.state, C.w, C.start
    fkey, fjid, fpos, fhkey, fhjid, fhpos = C.ekey, C.ejid, C.epos, C.hkey, C.hjid, C.hpos
    for k in range(m):
        fpt[k] = B.pt[k]
        fpu[k] = B.pu[k]
    fm = m
    fwn = 0
    for s in range(wn):
        j = w[s]
        if state[j] == WAITING:
            fw[fwn] = j
            fwn += 1
            fanc[j] = anc[j]
            fstate[j] = WAITING
    wl = fwn
    fen = 0
    fhn = 0
    for s in range(en):
        j = ejid[s]
        fpe[j] = pe[j]
        fst[j] = start[j]
        fen = hp.push(fkey, fjid, fpos, fen, max(start[j] + fdur[j], t + 1), j)
        fhn = hp.push(fhkey, fhjid, fhpos, fhn, pe[j], j)
    left = i1 - i0
    tt = t
    while True:  # the replay's start loop, each job lasting its fdur; the targets' starts go to pred
        wl, fm, fen, fhn, ns = _start_reserved(tt, J, fdur, C, fwn, wl, fm, fen, fhn, capacity)
        for k in range(ns):
            j = C.started[k]
            if i0 <= j < i1:
                pred[j] = tt
                left -= 1
        if left <= 0:
            return
        nt = BIG
        if fen > 0:
            nt = fkey[0]
        for s in range(fwn):
            j = fw[s]
            if fstate[j] == WAITING and fanc[j] < nt:
                nt = fanc[j]
        tt = nt
        fm = pf.prune(fpt, fpu, fm, tt)
        fen, fhn, fm, ended_early = _end_jobs(tt, fkey, fjid, fpos, fen, fhkey, fhjid, fhpos, fhn, fstate, fpe,
                                              nodes, fpt, fpu, fm)
        fhn, fm, overran = _extend_overruns(tt, fhkey, fhjid, fhpos, fhn, C.buf, fst, est_run, req, overrun,
                                            nodes, fpt, fpu, fm, fpe)
        resched = ended_early or overran
        if resched:
            fm = _reinsert_all(tt, fw, fwn, fstate, fanc, nodes, est_wait, fpt, fpu, fm, capacity)


@jit(nrt=False)
def _replay(J, capacity, policy, overrun, B, O, F, fsep):
    """The event loop: instants in time order (ends, arrivals, one pass). ``fsep``: forecast
    each arrival's start on the durations F.fdur (_forecast)."""
    submit, run, nodes, est_wait, est_run, req = J.submit, J.run, J.nodes, J.est_wait, J.est_run, J.req
    state, anc, pe, start, w, started = B.state, B.anc, B.pe, B.start, B.w, B.started
    ekey, ejid, epos, hkey, hjid, hpos, pt, pu, buf = B.ekey, B.ejid, B.epos, B.hkey, B.hjid, B.hpos, B.pt, B.pu, B.buf
    backfilled, first, score = O.backfilled, O.first, O.score
    n = submit.shape[0]
    ck = 0
    wn = 0
    wlive = 0
    en = 0
    hn = 0
    m = 1
    next_anchor = BIG
    if n > 0:
        pt[0] = submit[0]
    i = 0
    while True:
        t = submit[i] if i < n else BIG
        if en > 0 and ekey[0] < t:
            t = ekey[0]
        if wlive > 0 and next_anchor < t:  # a reservation's start is an event
            t = next_anchor
        if t == BIG:
            break
        m = pf.prune(pt, pu, m, t)
        en, hn, m, resched = _end_jobs(t, ekey, ejid, epos, en, hkey, hjid, hpos, hn, state, pe, nodes, pt, pu, m)
        i0 = i
        while i < n and submit[i] == t:
            i += 1
        hn, m, overran = _extend_overruns(t, hkey, hjid, hpos, hn, buf, start, est_run, req, overrun, nodes,
                                          pt, pu, m, pe)
        resched = resched or overran
        if wn > 2 * wlive + 32:
            c = 0
            for s in range(wn):
                if state[w[s]] == WAITING:
                    w[c] = w[s]
                    c += 1
            wn = c
        if resched and wlive > 0:
            m = _reinsert_all(t, w, wn, state, anc, nodes, est_wait, pt, pu, m, capacity)
        for j in range(i0, i):
            d = max(est_wait[j], 1)
            a = pf.find(pt, pu, m, t, nodes[j], d, capacity)
            m = pf.add(pt, pu, m, a, a + d, nodes[j])
            anc[j] = a
            first[j] = a
            state[j] = WAITING
            w[wn] = j
            wn += 1
            wlive += 1
        if fsep and i > i0:
            ck, _ = apply_row(t, ck, F.ctime, F.coff, F.cjob, F.cval, F.fdur)
            _forecast(t, i0, i, J, B, F, wn, m, en, capacity, overrun)
        wlive, m, en, hn, ns = _start_reserved(t, J, run, B, wn, wlive, m, en, hn, capacity)
        next_anchor = BIG
        for s in range(wn):
            j = w[s]
            if state[j] == WAITING and anc[j] < next_anchor:
                next_anchor = anc[j]
        if ns > 0:
            best = n - n - 1  # typed, not a literal (one compiled copy of `precedes`)
            for s in range(wn):
                j = w[s]
                if state[j] == WAITING and (best < 0 or precedes(policy, t, j, best, submit, est_wait, nodes)):
                    best = j
            for k in range(ns):
                j = started[k]
                score[j] = start_score(policy, t, j, submit, est_wait, nodes)
                if best >= 0 and precedes(policy, t, best, j, submit, est_wait, nodes):
                    backfilled[j] = True
