"""Rules shared by every scheduler in the event loop (simulation spec).

Why a module: the expected end of a running job (with overrun extension) and
the queue-order keys are used by the EASY/none loop, its forecasts and the
conservative loop; keeping them in one place keeps them identical.

Speed note for every kernel module: the functions that run per event are
compiled with ``_nrt=False`` (Numba's option to drop reference counting).
With it on, each call of a helper taking k arrays costs 2k atomic
increments/decrements, which was 60-80% of the loop's time; the arrays are
allocated (with reference counting) by `queue_sim` / `conservative_sim` and
outlive the loop, so nothing needs counting inside.
"""

from __future__ import annotations

from ..jit import jit

FCFS, SJF, LWF, WFP = 0, 1, 2, 3
NONE, EASY, CONSERVATIVE = 0, 1, 2
EASY_SJBF = 3  # the loop's code for easy with --backfill-order sjbf (EASY++, Tsafrir et al. 2007)
REQUEST, DOUBLE, TSAFRIR = 0, 1, 2
# --overrun tsafrir: what the k-th overrun adds to est_run (1, 5, 15, 30 min, 1, 2, 5, 10, 20, 50, 100 h)
TSAFRIR_STEPS = (60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000)

# job states
PENDING, WAITING, RUNNING, DONE = 0, 1, 2, 3
BIG = 1 << 62


@jit(nrt=False)
def expected_end(start, est_run, req, t, overrun):
    """Expected end of a job still running at t (spec: overrun extension).

    A pure function of t: `request` jumps to start+req, `double` doubles the
    estimate (from at least 1 s) until it passes t, capped at start+req,
    `tsafrir` adds the first step of TSAFRIR_STEPS that puts start+est_run+step
    past t (the steps passed by t are the overruns before it), capped at
    start+req, and past the last step jumps to start+req; a job past its
    request is expected to end now (t).
    """
    e0 = start + est_run
    if e0 > t:
        return e0
    lim = start + req
    if lim <= t:
        return t
    if overrun == REQUEST:
        return lim
    if overrun == TSAFRIR:
        for step in TSAFRIR_STEPS:
            if e0 + step > t:
                return min(e0 + step, lim)
        return lim
    e = est_run if est_run > 0 else 1
    while start + e <= t:
        e *= 2
    return min(start + e, lim)


@jit(nrt=False)
def wfp_score(t, submit, est_wait, nodes):
    """Tang Eq. 5: (wait / est_wait)**3 * nodes, est_wait floored at 1 s."""
    r = float(t - submit) / float(est_wait if est_wait > 1 else 1)
    return r * r * r * float(nodes)


@jit(nrt=False)
def static_key(policy, j, est_wait, nodes):
    """Time-independent sort key (ties broken by job index): fcfs/wfp use arrival."""
    if policy == SJF:
        return est_wait[j]
    if policy == LWF:
        return est_wait[j] * nodes[j]
    return j


@jit(nrt=False)
def start_score(policy, t, j, submit, est_wait, nodes):
    """The job's queue-order score at its start (Tang Eq. 4 weight)."""
    if policy == WFP:
        return wfp_score(t, submit[j], est_wait[j], nodes[j])
    return float(t - submit[j])


@jit(nrt=False)
def precedes(policy, t, a, b, submit, est_wait, nodes):
    """True when job a is ahead of job b in queue order at time t."""
    if policy == WFP:
        sa = wfp_score(t, submit[a], est_wait[a], nodes[a])
        sb = wfp_score(t, submit[b], est_wait[b], nodes[b])
        if sa != sb:
            return sa > sb
        return a < b
    ka = static_key(policy, a, est_wait, nodes)
    kb = static_key(policy, b, est_wait, nodes)
    if ka != kb:
        return ka < kb
    return a < b
