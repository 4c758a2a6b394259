"""The ``learned`` scheme inside the replay (``--history simulated``).

The walk-forward boosters are trained on the log as the estimates stage
trains them (pipeline/estimates/learned.py); only the features a prediction
reads come from this replay. At each instant t the loop first ends the jobs
whose actual end is <= t (each joins its user's history, in (end, job)
order), then predicts each job submitted at t from the static part of its
feature row (categorical codes, request, processors, nodes, GPUs, hour,
weekday: precomputed per job) and the user's state in the replay:

- last_run_1..3, last_ratio_1..3: run time and run / request of the user's
  last three jobs ended at or before t in this replay (NaN when fewer);
- running, running_procs: the user's jobs (and their processors) started
  before t and not ended by t;
- since_last: t minus the end of the user's last ended job (NaN: none);
- user_mean_run: mean run time of the user's ended jobs (NaN: none);
- procs_ratio: the job's processors over the mean processors of the user's
  ended jobs (NaN when that sum is 0).

A job of unknown user has all of them NaN (as in the log's features). The
estimate is exactly walk_forward's: ``expm1(max(p + init, 0))`` capped at the
request, the request where the job's period has no model, then integer
seconds rounded up (inputs.est_seconds). Twin: tests/naive_sim.py
``simulate_learned``. Starts are counted per user by ``_easy._start``
(``track``), so the pass is the one every replay runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..jit import jit
from . import _cache

_cache.refresh(Path(__file__).parent)

from ..estimates.learned_trees import predict_one  # noqa: E402  (after the cache check)
from ._easy import (EN, QLIVE, VALID, YES, Jobs, Users, _end_first, _enqueue, _extend, _pass,  # noqa: E402
                    next_instant, replay_buffers)
from ._common import BIG  # noqa: E402

LAST = 3
NSTATIC = 11  # FEATURES[:11]: 5 categorical codes, req, procs, nodes, gpus, hour, weekday
REQ_COL, PROCS_COL = 5, 6
EST_CAP = float(1 << 40)  # inputs.EST_CAP
# per-user float state (row u of ustate): runs ring, ratios ring, seen, sum run, sum procs, n procs, last end
R0, A0, SEEN, SRUN, SPROC, NPROC, LEND = 0, LAST, 2 * LAST, 2 * LAST + 1, 2 * LAST + 2, 2 * LAST + 3, 2 * LAST + 4
NU = 2 * LAST + 5


@jit(numpy_errors=True)
def _learn_ends(t, J, S, U, xs, ustate):
    """Every job whose actual end is <= t leaves; its user's history and running counts follow."""
    run, st, ekey, ejid, ju, jp, urun = J.run, S.st, S.ekey, S.ejid, U.ju, U.jp, U.urun
    while st[EN] > 0 and ekey[0] <= t:
        j = ejid[0]
        u = ju[j]
        if u >= 0:
            e = ekey[0]
            k = np.int64(ustate[u, SEEN]) % LAST  # ring slot of this end
            ustate[u, R0 + k] = run[j]
            ustate[u, A0 + k] = run[j] / xs[j, REQ_COL]
            ustate[u, SEEN] += 1.0
            ustate[u, SRUN] += run[j]
            p = xs[j, PROCS_COL]
            if not np.isnan(p):
                ustate[u, SPROC] += p
                ustate[u, NPROC] += 1.0
            ustate[u, LEND] = e
            urun[2 * u] -= 1.0
            urun[2 * u + 1] -= jp[j]
        _end_first(J.nodes, S)


@jit(numpy_errors=True)
def _features(t, k, u, xs, ustate, urun, row):
    """Job k's feature row at t: its static part, the dynamic part from the replay."""
    for c in range(NSTATIC):
        row[c] = xs[k, c]
    for c in range(NSTATIC, row.shape[0]):
        row[c] = np.nan
    if u < 0:
        return
    seen = np.int64(ustate[u, SEEN])
    for i in range(min(seen, LAST)):  # i-th last: ring slot (seen - 1 - i) % LAST
        s = (seen - 1 - i) % LAST
        row[NSTATIC + i] = ustate[u, R0 + s]
        row[NSTATIC + LAST + i] = ustate[u, A0 + s]
    c = NSTATIC + 2 * LAST
    row[c] = urun[2 * u]
    if seen > 0:
        row[c + 1] = t - ustate[u, LEND]
        row[c + 2] = ustate[u, SRUN] / seen
    if ustate[u, SPROC] > 0:
        row[c + 3] = xs[k, PROCS_COL] / (ustate[u, SPROC] / ustate[u, NPROC])
    row[c + 4] = urun[2 * u + 1]


@jit(numpy_errors=True)
def _estimate(p, has_model, req_log, req_sim):
    """walk_forward's estimate, then inputs.est_seconds: integer seconds."""
    if has_model:
        e = np.expm1(max(p, 0.0))
        if not np.isnan(req_log):
            e = min(e, req_log)
    else:
        e = req_log  # NaN when the log has no request
    if not (e >= 0.0):
        return req_sim
    return np.int64(np.ceil(min(e, EST_CAP)))


@jit(numpy_errors=True)
def learned_sim(submit, run, nodes, req, capacity, policy, backfill, overrun, ju, nusers, xs, model, jp, forest):
    """Replay (backfill none or easy / easy-sjbf) with each arrival's estimate
    from the trees of its period's model (``model[j]``, -1: none) on its
    features in this replay. ``ju`` user index (-1 unknown), ``xs`` the
    static feature rows (float64[n, >= 11], loop order), ``jp`` processors
    (NaN -> 0) for running_procs, ``forest`` learned_trees.Forest.arrays().
    Returns (start, backfilled, predicted (-1), score, first_bound, est)."""
    n = submit.shape[0]
    S, O, pred = replay_buffers(run, capacity)
    st = S.st
    est_wait = req.copy()
    est_run = req.copy()
    J = Jobs(submit, run, nodes, est_wait, est_run, req)
    ustate = np.zeros((max(nusers, 1), NU), np.float64)
    U = Users(ju, jp, np.zeros(2 * max(nusers, 1), np.float64))
    row = np.empty(NSTATIC + 2 * LAST + 5, np.float64)
    (feat, thr, cat, miss, dleft, left, right, clo, chi, cats, leaf, root, mlo, mhi, init) = forest
    i = 0
    while True:
        t = next_instant(i, n, submit, S)
        if t == BIG:
            break
        _learn_ends(t, J, S, U, xs, ustate)
        i0 = i
        while i < n and submit[i] == t:
            m = model[i]
            p = 0.0
            if m >= 0:
                _features(t, i, ju[i], xs, ustate, U.urun, row)
                p = predict_one(row, m, feat, thr, cat, miss, dleft, left, right, clo, chi, cats, leaf, root,
                                mlo, mhi, init)
            e = _estimate(p, m >= 0, xs[i, REQ_COL], req[i])
            est_wait[i] = e
            est_run[i] = e
            _enqueue(i, policy, est_wait, nodes, S.q, S.qkey, S.qn, st, S.state)
            i += 1
        _extend(t, O.start, J, overrun, S)
        if st[QLIVE] == 0:
            st[VALID] = 0
            continue
        _pass(t, policy, backfill, J, S, O, U, i0, i, YES, YES)
    return O.start, O.backfilled, pred, O.score, O.first_bound, est_wait


def loop_inputs(jobs, s, job_id: np.ndarray) -> tuple:
    """The arguments of :func:`learned_sim` after ``overrun``, for the jobs
    ``job_id`` (loop order) of the estimates' job frame ``jobs`` and the
    learned scheme ``s``: (ju, nusers, xs, model, jp, forest arrays). The
    models are trained walk-forward on the log (learned.fit), as the
    estimates stage trains them."""
    key = (str(s), int(jobs.hash_rows().sum()), jobs.height)
    if key not in _FITS:
        _FITS[key] = _fit(jobs, s)
        while len(_FITS) > 8:
            _FITS.pop(next(iter(_FITS)))
    ids, x, model_of, arrays = _FITS[key]
    by_id = np.argsort(ids, kind="stable")
    pos = by_id[np.searchsorted(ids[by_id], job_id)]
    if not np.array_equal(ids[pos], job_id):
        raise AssertionError("the learned features lack a simulated job")  # same trace: unreachable
    xs = np.ascontiguousarray(x[pos][:, :NSTATIC])
    code = xs[:, 0]
    ju = np.where(np.isnan(code), -1, np.nan_to_num(code, nan=-1.0)).astype(np.int64)
    nusers = int(ju.max()) + 1 if len(ju) else 0
    jp = np.nan_to_num(xs[:, PROCS_COL], nan=0.0)
    return ju, max(nusers, 1), xs, np.ascontiguousarray(model_of[pos]), jp, arrays


# fitted models by (scheme, jobs): evaluate's tuning and its whole-trace replays train them once per process
_FITS: dict = {}


def _fit(jobs, s) -> tuple:
    from ..estimates import learned as L
    from ..estimates.learned_trees import Forest

    frame, x, models, model_of, _ = L.fit(jobs, s["q"], s["loss"], s["under"], s["retrain"], s["window"],
                                          s["trees"])
    forest = Forest()
    for booster, init in models:
        forest.add(booster, init)
    return frame["job_id"].to_numpy(), x, model_of, forest.arrays()
