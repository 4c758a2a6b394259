"""Naive twin of pipeline.simulate.kernel.simulate: plain Python from the spec.

Written for obviousness, not speed: every pass recomputes expected ends,
queue order, free nodes and (for conservative) usage from lists of
intervals. Same signature and outputs as the Numba kernel; the tests compare
them job by job. Rules: ../shared/specs/simulation.md and
docs/simulation-kernel.md.
"""

from __future__ import annotations

import math

import numpy as np

FCFS, SJF, LWF, WFP = 0, 1, 2, 3
NONE, EASY, CONSERVATIVE = 0, 1, 2
EASY_SJBF = 3  # easy, the backfill scan by ascending est_wait (EASY++)
REQUEST, DOUBLE, TSAFRIR = 0, 1, 2
TSAFRIR_MINUTES = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 3000, 6000]  # added at the 1st, 2nd, ... overrun


def expected_end(start, est_run, req, t, overrun):
    """Expected end, seen at t, of a job that is still running at t."""
    if start + est_run > t:
        return start + est_run
    if start + req <= t:
        return t  # past its request: ends "now"
    if overrun == REQUEST:
        return start + req
    if overrun == TSAFRIR:
        # the overruns one after another: each happens when the expected end before it is reached
        end = start + est_run
        for minutes in TSAFRIR_MINUTES:
            if end > t:
                return end
            end = min(start + est_run + 60 * minutes, start + req)
        return end if end > t else start + req
    est = max(est_run, 1)
    while start + est <= t:
        est *= 2
    return min(start + est, start + req)


class Workload:
    def __init__(self, submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, overrun, fdur=None):
        self.submit = [int(x) for x in submit]
        self.job_id = [int(x) for x in job_id]
        self.run = [int(x) for x in run]
        self.nodes = [int(x) for x in nodes]
        self.est_wait = [int(x) for x in est_wait]
        self.est_run = [int(x) for x in est_run]
        self.req = [int(x) for x in req]
        self.capacity = int(capacity)
        self.policy = int(policy)
        self.overrun = int(overrun)
        self.n = len(self.submit)
        # how long each job lasts in a forecast (kernel.simulate_forecast); None: its est_run
        self.fdur = None if fdur is None else [int(x) for x in fdur]
        self.cond = {}  # {(forecast instant, running job): its conditional run time} (simulate_forecast)

    def fdur_of(self, j):
        return self.fdur[j]

    def wfp_score(self, j, t):
        r = (t - self.submit[j]) / max(self.est_wait[j], 1)
        return r * r * r * self.nodes[j]

    def order_key(self, j, t):
        """Queue order: smaller key first; ties by (submit, job id)."""
        tie = (self.submit[j], self.job_id[j])
        if self.policy == SJF:
            return (self.est_wait[j],) + tie
        if self.policy == LWF:
            return (self.est_wait[j] * self.nodes[j],) + tie
        if self.policy == WFP:
            return (-self.wfp_score(j, t),) + tie
        return tie

    def score_at_start(self, j, t):
        return self.wfp_score(j, t) if self.policy == WFP else float(t - self.submit[j])


def simulate_forecast(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun,
                      fc_run, cond=None):
    """Twin of kernel.simulate_forecast (and, with ``cond``, of
    kernel.simulate_forecast_running). none/easy: the schedule on est_wait/est_run,
    the forecasts with each job lasting min(fc_run, est_run) (a running job: from its
    start, at least until the forecast instant, at most its expected end).
    Conservative: see _conservative_forecast_sim. ``cond``: {(forecast instant,
    job): run time} -- a job running at that instant lasts that (capped like
    fc_run) from its start instead of fc_run."""
    if backfill == CONSERVATIVE:
        return _conservative_forecast_sim(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy,
                                          overrun, fc_run, cond)
    fdur = [min(int(a), int(b)) for a, b in zip(fc_run, est_run)]
    return simulate(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun, True,
                    fdur, cond)


def simulate_learn(submit, job_id, run, nodes, req, user, capacity, policy, backfill, overrun, predict):
    """Twin of kernel.simulate_learn: each job's estimate is computed when it
    is submitted at t from the ends of this replay: the user's jobs that
    ended before t, latest two by (end, job position); floor of their mean
    run time capped at the request, else the request (pyss's
    predictor_tsafrir). Returns simulate's five arrays and the estimates."""
    est = [int(x) for x in req]
    return simulate(submit, job_id, run, nodes, est, list(est), req, capacity, policy, backfill, overrun, predict,
                    user=user)


def _ave2_of_ended(w, j, t):
    """pyss's ave2 for job j submitted at t, from w.ended [(end, batch, position, run, user)]."""
    mine = sorted((e, b, k, r) for (e, b, k, r, u) in w.ended if u == w.user[j] and u >= 0 and e < t)
    if len(mine) < 2:
        return w.req[j]
    return min(w.req[j], (mine[-1][3] + mine[-2][3]) // 2)


def simulate_learned(submit, job_id, run, nodes, req, capacity, policy, backfill, overrun, ju, xs, model,
                     boosters):
    """Twin of _learned.learned_sim: each job submitted at t is predicted by
    LightGBM itself (``booster.predict`` + init of ``boosters[model[j]]``)
    on its static features ``xs[j]`` and dynamic features rebuilt from this
    replay after the ends at t: the user's ended jobs sorted by (end,
    position), the running ones from the replay's running set. Returns
    simulate's five arrays and the estimates."""
    est = [int(x) for x in req]
    learned = {"ju": [int(u) for u in ju], "xs": np.asarray(xs, np.float64), "model": [int(m) for m in model],
               "boosters": boosters}
    return simulate(submit, job_id, run, nodes, est, list(est), req, capacity, policy, backfill, overrun, False,
                    learned=learned)


def _learned_features(w, j, t, running):
    """The 22 features of job j at t (pipeline/estimates/learned.py FEATURES order)."""
    lw = w.learned
    xs = lw["xs"]
    row = [float(v) for v in xs[j][:11]] + [math.nan] * 11
    u = lw["ju"][j]
    if u < 0:
        return row
    mine = sorted((e, b, k) for (e, b, k, _, _) in w.ended if lw["ju"][k] == u and e <= t)
    mine = [(e, k) for e, _, k in mine]
    last = mine[::-1][:3]
    for i, (_, k) in enumerate(last):
        row[11 + i] = float(w.run[k])
        row[14 + i] = w.run[k] / xs[k][5] if xs[k][5] != 0 else (math.inf if w.run[k] > 0 else math.nan)
    runs = [k for k in running if lw["ju"][k] == u]
    row[17] = float(len(runs))
    if mine:
        row[18] = float(t - mine[-1][0])
        row[19] = sum(w.run[k] for _, k in mine) / len(mine)
    procs = [xs[k][6] for _, k in mine if not math.isnan(xs[k][6])]
    if sum(procs) > 0:
        row[20] = xs[j][6] / (sum(procs) / len(procs))
    row[21] = float(sum(0.0 if math.isnan(xs[k][6]) else xs[k][6] for k in runs))
    return row


def _learned_estimate(w, j, t, running):
    """walk_forward's rule on LightGBM's prediction, then integer seconds rounded up (inputs.est_seconds)."""
    lw = w.learned
    req_log = float(lw["xs"][j][5])
    m = lw["model"][j]
    if m >= 0:
        booster, init = lw["boosters"][m]
        p = float(booster.predict(np.array([_learned_features(w, j, t, running)]))[0]) + init
        e = math.expm1(max(p, 0.0))
        if not math.isnan(req_log):
            e = min(e, req_log)
    else:
        e = req_log
    if math.isnan(e) or e < 0:
        return w.req[j]
    return int(math.ceil(min(e, float(1 << 40))))


def simulate(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, backfill, overrun, predict,
             fdur=None, cond=None, user=None, learned=None):
    w = Workload(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, overrun, fdur)
    w.learned = learned
    w.cond = {} if cond is None else {k: int(v) for k, v in cond.items()}
    w.user = None if user is None else [int(x) for x in user]
    w.ended = []
    out = {
        "start": [-1] * w.n,
        "backfilled": [False] * w.n,
        "predicted": [-1] * w.n,
        "score": [0.0] * w.n,
        "bound": [-1] * w.n,
    }
    if backfill == CONSERVATIVE:
        _conservative(w, out)
    else:
        _replay(w, backfill, list(range(w.n)), [], {}, None, out, predict)
    arrays = (
        np.array(out["start"], dtype=np.int64),
        np.array(out["backfilled"], dtype=bool),
        np.array(out["predicted"], dtype=np.int64),
        np.array(out["score"], dtype=np.float64),
        np.array(out["bound"], dtype=np.int64),
    )
    return arrays if user is None and learned is None else (*arrays, np.array(w.est_wait, dtype=np.int64))


# ---------------------------------------------------------------- none / EASY

def _replay(w, backfill, arrivals, waiting, running, forecast, out, predict, t=None):
    """Event loop for `none`/`easy`.

    running: job -> [start, actual end]. In a forecast (``forecast`` = set of
    jobs whose start we want), jobs run exactly their est_run, nothing
    arrives, the loop starts with the pass at ``t`` and stops once every
    wanted job has started; returns {job: start}.
    """
    found = {}
    first = forecast is not None
    arrivals = list(arrivals)
    while True:
        if not first:
            times = [w.submit[arrivals[0]]] if arrivals else []
            times += [end for (_, end) in running.values()]
            if not times:
                break
            t = min(times)
            new = []
            while arrivals and w.submit[arrivals[0]] == t:
                new.append(arrivals.pop(0))
            if w.user is not None:  # estimates from this replay's ends before t (simulate_learn)
                for j in new:
                    w.est_wait[j] = w.est_run[j] = _ave2_of_ended(w, j, t)
            # the ends of one visit of an instant join the history together, by position; a job that
            # starts and ends at t (run 0) ends in the next visit of t, after them (the kernel's heap)
            batch = len(w.ended)
            for j in [j for j, (_, end) in running.items() if end <= t]:
                if forecast is None:  # a forecast's jobs end as estimated: not history
                    w.ended.append((running[j][1], batch, j, w.run[j], w.user[j] if w.user is not None else -1))
                del running[j]
            if getattr(w, "learned", None) is not None and forecast is None:  # simulate_learned
                for j in new:
                    w.est_wait[j] = w.est_run[j] = _learned_estimate(w, j, t, running)
            waiting.extend(new)
            if predict and new:
                fr = {j: [s, expected_end(s, w.est_run[j], w.req[j], t, w.overrun)]
                      for j, (s, _) in running.items()}
                if w.fdur is not None:
                    fr = {j: [s, min(max(s + running_dur(w, t, j, w.est_run[j]), t), e)] for j, (s, e) in fr.items()}
                got = _replay(w, backfill, [], list(waiting), fr, set(new), None, False, t)
                for j in new:
                    out["predicted"][j] = got[j]
        first = False
        for j, s in _queue_pass(w, backfill, t, waiting, running, out if forecast is None else None, forecast):
            found[j] = s
        if forecast is not None and forecast <= found.keys():
            return found
    return found


def _queue_pass(w, backfill, t, waiting, running, out, forecast):
    """One pass at t; starts jobs in `running`, returns [(job, t)] started."""
    expected = {j: expected_end(s, w.est_run[j], w.req[j], t, w.overrun) for j, (s, _) in running.items()}
    free = w.capacity - sum(w.nodes[j] for j in running)
    order = sorted(waiting, key=lambda j: w.order_key(j, t))
    started = []

    def start(j, backfilled):
        waiting.remove(j)
        runtime = w.run[j] if forecast is None else w.est_run[j] if w.fdur is None else w.fdur[j]
        running[j] = [t, t + runtime]
        expected[j] = t + w.est_run[j]
        started.append((j, t))
        if out is not None:
            out["start"][j] = t
            out["backfilled"][j] = backfilled
            out["score"][j] = w.score_at_start(j, t)

    head = None
    for k, j in enumerate(order):
        if w.nodes[j] <= free:
            free -= w.nodes[j]
            start(j, False)
        else:
            head = j
            rest = order[k + 1:]
            break
    if head is None or backfill == NONE:
        return started
    # EASY: shadow time and extra nodes for the head
    avail = free
    for j in sorted(expected, key=lambda j: (expected[j], w.job_id[j])):
        avail += w.nodes[j]
        if avail >= w.nodes[head]:
            shadow = expected[j]
            break
    extra = free + sum(w.nodes[j] for j in expected if expected[j] <= shadow) - w.nodes[head]
    if out is not None and out["bound"][head] < 0:
        out["bound"][head] = shadow
    if backfill == EASY_SJBF:
        rest = sorted(rest, key=lambda j: w.est_wait[j])  # a stable sort: ties stay in queue order
    for j in rest:
        if w.nodes[j] > free:
            continue
        if t + w.est_wait[j] <= shadow:
            pass
        elif w.nodes[j] <= extra:
            extra -= w.nodes[j]
        else:
            continue
        free -= w.nodes[j]
        start(j, True)
    return started


# ---------------------------------------------------------------- conservative

def _conservative(w, out, fdur=None):
    arrivals = list(range(w.n))
    waiting = []      # arrival order
    anchor = {}       # waiting job -> reserved start
    running = {}      # job -> [start, actual end, end held in the profile]
    while arrivals or running or waiting:
        times = [w.submit[arrivals[0]]] if arrivals else []
        times += [r[1] for r in running.values()]
        times += [anchor[k] for k in waiting]  # a reservation's start is an event
        t = min(times)
        reinsert = False
        for j in [j for j, r in running.items() if r[1] <= t]:
            if running[j][2] != t:  # ended earlier (or later) than the profile said
                reinsert = True
            del running[j]
        new = []
        while arrivals and w.submit[arrivals[0]] == t:
            new.append(arrivals.pop(0))
        for j, r in running.items():
            if r[2] <= t:  # overrun: still running at its expected end
                r[2] = max(expected_end(r[0], w.est_run[j], w.req[j], t, w.overrun), t + 1)
                reinsert = True
        assert all(anchor[k] >= t for k in waiting)
        if reinsert:
            _reinsert_all(w, t, waiting, anchor, running)
        for j in new:
            anchor[j] = _earliest(w, t, j, waiting, anchor, running)
            out["predicted"][j] = out["bound"][j] = anchor[j]
            waiting.append(j)
        if fdur is not None and new:
            got = _conservative_forecast(w, t, waiting, anchor, running, fdur, set(new))
            for j in new:
                out["predicted"][j] = got[j]
        started = _start_anchored(w, t, waiting, anchor, running, w.run)
        for k in started:
            out["start"][k] = t
            out["score"][k] = w.score_at_start(k, t)
            out["backfilled"][k] = any(w.order_key(x, t) < w.order_key(k, t) for x in waiting)


def _start_anchored(w, t, waiting, anchor, running, dur):
    """Start every waiting job anchored at t (job k lasts dur[k]); re-place
    the others when a start changes the profile. Returns the started jobs."""
    started = []
    while True:
        now = [k for k in waiting if anchor[k] == t]
        if not now:
            break
        changed = False
        for k in now:
            waiting.remove(k)
            del anchor[k]
            running[k] = [t, t + dur[k], t + max(w.est_run[k], 1)]
            if max(w.est_run[k], 1) != max(w.est_wait[k], 1):
                changed = True  # selective: its hold differs from its reservation
            started.append(k)
        if not changed or not waiting:
            break
        _reinsert_all(w, t, waiting, anchor, running)
    return started


def running_dur(w, t, j, cap):
    """A running job's forecast duration at instant t: its conditional value if
    the table has one (capped at ``cap``), else its forecast run time."""
    return min(w.cond[(t, j)], int(cap)) if (t, j) in w.cond else w.fdur_of(j)


def _conservative_forecast(w, t, waiting, anchor, running, fdur, wanted):
    """Smith's forecast for conservative backfilling: the same scheduler run
    forward from t with no further arrivals, each job lasting fdur (a running
    job until max(start + fdur, t + 1)); returns {job: start} for the wanted
    jobs."""
    waiting = list(waiting)
    anchor = dict(anchor)
    running = {j: [r[0], max(r[0] + running_dur(w, t, j, w.req[j]), t + 1), r[2]] for j, r in running.items()}
    found = {}
    while True:
        for k in _start_anchored(w, t, waiting, anchor, running, fdur):
            if k in wanted:
                found[k] = t
        if wanted <= found.keys():
            return found
        t = min([r[1] for r in running.values()] + [anchor[k] for k in waiting])
        reinsert = False
        for j in [j for j, r in running.items() if r[1] <= t]:
            if running[j][2] != t:
                reinsert = True
            del running[j]
        for j, r in running.items():
            if r[2] <= t:  # overrun: still running at its held end
                r[2] = max(expected_end(r[0], w.est_run[j], w.req[j], t, w.overrun), t + 1)
                reinsert = True
        if reinsert:
            _reinsert_all(w, t, waiting, anchor, running)


def _conservative_forecast_sim(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, overrun,
                               fc_run, cond=None):
    """Twin of kernel.simulate_forecast for conservative backfilling."""
    w = Workload(submit, job_id, run, nodes, est_wait, est_run, req, capacity, policy, overrun)
    fdur = [min(int(f), r) for f, r in zip(fc_run, w.req)]  # a forecast job never outlives its request
    w.fdur = fdur
    w.cond = {} if cond is None else {k: int(v) for k, v in cond.items()}
    out = {"start": [-1] * w.n, "backfilled": [False] * w.n, "predicted": [-1] * w.n,
           "score": [0.0] * w.n, "bound": [-1] * w.n}
    _conservative(w, out, fdur)
    return (np.array(out["start"], dtype=np.int64), np.array(out["backfilled"], dtype=bool),
            np.array(out["predicted"], dtype=np.int64), np.array(out["score"], dtype=np.float64),
            np.array(out["bound"], dtype=np.int64))


def _reinsert_all(w, t, waiting, anchor, running):
    """Remove each waiting job in arrival order and put it at its earliest anchor."""
    for k in waiting:
        anchor[k] = _earliest(w, t, k, waiting, anchor, running)


def _earliest(w, t, k, waiting, anchor, running):
    """Earliest s >= t where job k's nodes stay free for max(est_wait, 1) s."""
    intervals = [(t, r[2], w.nodes[j]) for j, r in running.items()]
    intervals += [(anchor[x], anchor[x] + max(w.est_wait[x], 1), w.nodes[x])
                  for x in waiting if x != k and x in anchor]
    duration = max(w.est_wait[k], 1)
    for s in sorted({t} | {b for (_, b, _) in intervals if b > t}):
        points = {s} | {a for (a, _, _) in intervals if s < a < s + duration}
        if all(sum(n for (a, b, n) in intervals if a <= u < b) + w.nodes[k] <= w.capacity for u in points):
            return s
    raise AssertionError("no anchor found")  # unreachable: nodes <= capacity
