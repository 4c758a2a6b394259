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

# One schedule's bookkeeping, the replay's or its forecast's own copy (see _forecast): job state,
# reservation (anc) and held end (pe), start, the waiting list w, the running jobs by actual end
# (ekey, ejid, epos) and by held end (hkey, hjid, hpos), the profile (pt, pu), scratch buf and the jobs
# started at the current instant (started). Built once per loop: a named tuple costs its fields.
Book = namedtuple("Book", "state anc pe start w ekey ejid epos hkey hjid hpos pt pu buf started")


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
def conservative_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, overrun, fdur, fsep,
                     ctime, coff, cjob, cval):
    """Replay with conservative backfilling. See kernel.simulate for outputs.
    The predicted start is the first reservation; with ``fsep``, it is the
    job's start in a forward simulation of this scheduler from its state at
    the job's submission, with jobs lasting the forecast durations ``fdur``
    (:func:`_forecast`) and running jobs the value of their conditional
    table row (_cond.apply_row) where it has one."""
    n = submit.shape[0]
    start = np.full(n, -1, np.int64)
    backfilled = np.zeros(n, np.bool_)
    first = np.full(n, -1, np.int64)
    score = np.zeros(n, np.float64)
    state = np.zeros(n, np.int64)
    anc = np.full(n, -1, np.int64)
    pe = np.zeros(n, np.int64)      # end held in the profile for a running job
    w = np.empty(n + 1, np.int64)   # waiting jobs in arrival order (with holes)
    r = min(n, capacity) + 1        # at most `capacity` jobs run at once (nodes >= 1)
    ekey = np.empty(r, np.int64)    # running jobs by actual end
    ejid = np.empty(r, np.int64)
    epos = np.full(n, -1, np.int64)
    hkey = np.empty(r, np.int64)    # running jobs by held end (overrun check)
    hjid = np.empty(r, np.int64)
    hpos = np.full(n, -1, np.int64)
    buf = np.empty(r, np.int64)
    started = np.empty(r, np.int64)
    pt = np.zeros(2 * n + 4, np.int64)
    pu = np.zeros(2 * n + 4, np.int64)
    fn = 2 * n + 4 if fsep else 1   # the forecast's own copies (see _forecast)
    fpt = np.zeros(fn, np.int64)
    fpu = np.zeros(fn, np.int64)
    fj = n if fsep else 1
    fanc = np.zeros(fj, np.int64)
    fpe = np.zeros(fj, np.int64)
    fstate = np.zeros(fj, np.int64)
    fw = np.empty(fj + 1, np.int64)
    fr = r if fsep else 1
    fkey = np.empty(fr, np.int64)
    fjid = np.empty(fr, np.int64)
    fpos = np.full(fj, -1, np.int64)
    fhkey = np.empty(fr, np.int64)
    fhjid = np.empty(fr, np.int64)
    fhpos = np.full(fj, -1, np.int64)
    fbuf = np.empty(fr, np.int64)
    fst = np.zeros(fj, np.int64)
    fstarted = np.empty(fr, np.int64)
    pred = np.full(n, -1, np.int64)
    _replay(submit, run, nodes, est_wait, est_run, req, capacity, policy, overrun,
            start, backfilled, first, score, state, anc, pe, w, ekey, ejid, epos, hkey, hjid, hpos,
            buf, started, pt, pu, fdur, fsep, fpt, fpu, fanc, fpe, fstate, fw, fkey, fjid, fpos,
            fhkey, fhjid, fhpos, fbuf, fst, fstarted, pred, ctime, coff, cjob, cval)
    return start, backfilled, pred if fsep else first.copy(), score, first


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
def _start_reserved(t, nodes, est_wait, est_run, dur, B, wn, wl, m, en, hn, capacity):
    """Jobs whose reservation starts at t start, each lasting dur[j] (the replay: its run; a
    forecast: its forecast duration); when a start changed the profile (selective adjustment),
    every waiting job is re-placed and the new anchors at t start too. The start loop of the
    replay and of its forecasts. Returns (waiting jobs left, m, en, hn, how many started: the
    first of B.started)."""
    state, anc, w = B.state, B.anc, B.w
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
def _forecast(t, i0, i1, w, wn, state, start, nodes, est_wait, est_run, req, overrun, pt, pu, m, anc, pe, fdur,
              ejid, en, capacity, fpt, fpu, fanc, fpe, fstate, fw, fkey, fjid, fpos, fhkey, fhjid, fhpos,
              fbuf, fst, fstarted, pred):
    """Predicted starts of jobs i0..i1-1 (just submitted at t and placed):
    Smith, Taylor & Foster's "scheduling simulation using the predicted run
    times as the run times of the applications". The scheduler itself is
    simulated forward from its state at t with no further arrivals: the same
    profile, reservations and compression (every reservation still sized by
    est_wait / est_run), while each job lasts its forecast duration -- a
    running job until max(start + fdur, t + 1), a job started in the forecast
    for fdur. A job that ends before the end held for it frees its nodes and
    every waiting job is re-placed in arrival order; one still running at
    its held end is extended by the overrun rule and the waiting jobs are
    re-placed -- exactly as in :func:`_replay`, whose start loop it runs (_start_reserved). So with fdur = the actual
    run times the forecast is the job's start in the schedule of the jobs
    submitted up to it (tests/test_kernel_forecast_estimates.py). Stops once
    jobs i0..i1-1 have all started; their starts go to ``pred``."""
    for k in range(m):
        fpt[k] = pt[k]
        fpu[k] = pu[k]
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
    B = Book(fstate, fanc, fpe, fst, fw, fkey, fjid, fpos, fhkey, fhjid, fhpos, fpt, fpu, fbuf, fstarted)
    while True:  # the replay's start loop, each job lasting its fdur; the targets' starts go to pred
        wl, fm, fen, fhn, ns = _start_reserved(tt, nodes, est_wait, est_run, fdur, B, fwn, wl, fm, fen, fhn, capacity)
        for k in range(ns):
            j = fstarted[k]
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
        fhn, fm, overran = _extend_overruns(tt, fhkey, fhjid, fhpos, fhn, fbuf, fst, est_run, req, overrun,
                                            nodes, fpt, fpu, fm, fpe)
        resched = ended_early or overran
        if resched:
            fm = _reinsert_all(tt, fw, fwn, fstate, fanc, nodes, est_wait, fpt, fpu, fm, capacity)


@jit(nrt=False)
def _replay(submit, run, nodes, est_wait, est_run, req, capacity, policy, overrun,
            start, backfilled, first, score, state, anc, pe, w, ekey, ejid, epos, hkey, hjid, hpos,
            buf, started, pt, pu, fdur, fsep, fpt, fpu, fanc, fpe, fstate, fw, fkey, fjid, fpos,
            fhkey, fhjid, fhpos, fbuf, fst, fstarted, pred, ctime, coff, cjob, cval):
    """The event loop: instants in time order (ends, arrivals, one pass)."""
    B = Book(state, anc, pe, start, w, ekey, ejid, epos, hkey, hjid, hpos, pt, pu, buf, started)
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
            ck, _ = apply_row(t, ck, ctime, coff, cjob, cval, fdur)
            _forecast(t, i0, i, w, wn, state, start, nodes, est_wait, est_run, req, overrun, pt, pu, m, anc, pe,
                      fdur, ejid, en, capacity, fpt, fpu, fanc, fpe, fstate, fw, fkey, fjid, fpos,
                      fhkey, fhjid, fhpos, fbuf, fst, fstarted, pred)
        wlive, m, en, hn, ns = _start_reserved(t, nodes, est_wait, est_run, run, B, wn, wlive, m, en, hn, capacity)
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
