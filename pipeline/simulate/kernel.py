"""The scheduling event loop: one compiled call replays a whole workload.

Semantics: ../../shared/specs/simulation.md, with the clarifications in
docs/simulation-kernel.md (zero-length jobs, zero estimates, conservative
triggers). The pure-Python twin tests/naive_sim.py must agree job by job.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..jit import jit
from . import _cache

_cache.refresh(Path(__file__).parent)

from ._common import CONSERVATIVE  # noqa: E402  (after the cache check)
from ._conservative import conservative_sim  # noqa: E402
from ._easy import queue_sim  # noqa: E402

POLICIES = {"fcfs": 0, "sjf": 1, "lwf": 2, "wfp": 3}
BACKFILLS = {"none": 0, "easy": 1, "conservative": 2}
OVERRUNS = {"request": 0, "double": 1, "tsafrir": 2}
EASY_SJBF = 3  # backfill code of easy with --backfill-order sjbf (EASY++); BACKFILLS name the others


@jit
def simulate(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun, predict):
    """All arrays int64, length n, sorted by (submit, job_id); run >= 0; 1 <= nodes <= capacity;
    req >= 1; est_wait, est_run >= 0 integer seconds. predict: bool (forecasts for none/easy).

    Returns (start int64[n], backfilled bool[n], predicted_start int64[n] (-1 where not predicted),
             score float64[n] (queue-order score at start: wfp Eq.5 score, else the job's wait),
             first_bound int64[n] (EASY: shadow time when the job first became the blocked head,
                                   -1 if never; conservative: its first reservation; none: -1)).
    Ties in queue order are broken by array position, i.e. (submit, job_id).
    """
    none = np.zeros(0, np.int64)  # no conditional table (plain runs make no forecast on a predictor)
    if backfill == CONSERVATIVE:
        return conservative_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, overrun,
                                est_run, False, none, none, none, none)
    return queue_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun, predict,
                     est_run, False, none, none, none, none, none, 0)


@jit
def simulate_forecast(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun,
                      fc_run):
    """As :func:`simulate_forecast_running` without a conditional table: every
    job, running ones included, lasts its fc_run in a forecast."""
    none = np.zeros(0, np.int64)
    return simulate_forecast_running(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy,
                                     backfill, overrun, fc_run, none, none, none, none)


@jit
def simulate_forecast_running(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, backfill,
                              overrun, fc_run, ctime, coff, cjob, cval):
    """As :func:`simulate` with forecasts on, but in a forecast each job lasts
    its forecast run time fc_run (int64 >= 0) while every scheduling decision
    still uses est_wait / est_run: Smith, Taylor & Foster's set-up, where the
    scheduler uses the requests and the wait-time forecast simulates it with
    a predictor's run times.

    Running jobs: in the forecast at instant ctime[k], job cjob[p] (p in
    coff[k]:coff[k+1]) lasts cval[p] from its start instead of fc_run -- the
    predictor's value given the job's age at ctime[k] (Downey's conditional
    lifetime, Smith's running-time ranges; pipeline/simulate/conditional.py).
    A running job not in its instant's row keeps its fc_run. Empty arrays: no
    table. cval is capped like fc_run.

    Conservative: fc_run is capped at the request req; the forecast
    simulates the scheduler forward from its state at the submission
    (reservations, their compression when a job ends before its held end,
    the overrun rule when it runs past est_run); a running job lasts until
    max(start + fc_run, forecast instant + 1 s). With fc_run = the actual
    run times (none past its request) it is the job's start in the schedule
    of the jobs submitted up to it. none / EASY: fc_run is capped at est_run
    and a running job lasts start + fc_run, at least until the forecast
    instant, at most its expected end."""
    if backfill == CONSERVATIVE:
        return conservative_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, overrun,
                                np.minimum(fc_run, req), True, ctime, coff, cjob, np.minimum(cval, req[cjob]))
    fdur = np.minimum(fc_run, est_run)
    return queue_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun, True,
                     fdur, True, ctime, coff, cjob, np.minimum(cval, est_run[cjob]), np.zeros(0, np.int64), 0)


@jit
def simulate_learn(submit, job_id, run, nodes, req, user, capacity, policy, backfill, overrun, predict):
    """As :func:`simulate` (backfill none or easy) with Tsafrir's ave2 computed
    inside the replay from its own ends (``--history simulated``; pyss's
    predictor_tsafrir, Gaussier et al. 2015): a job submitted at t gets
    floor((r1 + r2) / 2) capped at req, r1 and r2 the run times of its
    user's last two jobs that ended before t in this replay (ties at one
    instant in job order), else req. ``user``: int64 user index per job,
    -1 unknown (no history: req). Returns simulate's five arrays and the
    estimates used (est int64[n], both while waiting and running)."""
    nusers = 1 + (user.max() if user.shape[0] > 0 else 0)
    est_wait = req.copy()
    est_run = req.copy()
    none = np.zeros(0, np.int64)
    start, backfilled, pred, score, bound = queue_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy,
                                                      backfill, overrun, predict, est_run, False, none, none, none,
                                                      none, user, max(nusers, 1))
    return start, backfilled, pred, score, bound, est_wait
