"""Smith, Taylor & Foster's replays on the planner of runs: what `walltime reproduce --paper smith`
stores, so that a second reproduction reuses it.

What is stored (docs/architecture.md, "The planner of runs"):

- the workloads, as derived traces (simulate/derived_traces.py): ``smith-ctc2m`` (two months of
  CTC-SP2), ``smith-sdsc96`` (SDSC Paragon 1996 without queue 0, requests = each queue's longest
  run), ``smith-ctcfull``, ``smith-sdsc96x05`` (SDSC96, interarrivals halved);
- the request replays that weight the template search (smith_runs.searched_for: the algorithm on
  the requests) and the schedule runs (Tables 10-15: the algorithm on a predictor), as ``SimItem``s
  through ``simulate_many``;
- Smith's searched sets, as named template sets (``smith:set=NAME``, as `walltime
  search-templates` stores them): a name per workload and algorithm with a digest of the search's
  weights and parameters, so a set is searched again only when what it was searched on changed;
- every predictor's estimates (request, gibbons, downey with key=queue, each set), as stored
  estimate schemes.

The wait forecasts (Tables 4-9: a forecast at every submission re-predicting the running jobs,
``kernel.simulate_forecast_running``) stay experiment harnesses, computed in smith_runs.tabulate
each time from what is stored: they are not replays a user would store or ask for again.

The numbers are the in-memory path's (smith_runs.run_all, which tests compare): the planner's runs
round the predictors' fractional estimates to the nearest second (SimConfig.est_rounding "nearest"),
as the in-memory path always did, where every other stored run rounds them up.
"""

from __future__ import annotations

import hashlib
import time

import numpy as np

from ..estimates import ensure_estimates
from ..estimates.search import search
from ..estimates.templates import set_text, stored_sets, store_set
from ..schemes import parse
from ..simulate.config import SimConfig, SimItem
from ..simulate.derived_traces import derive
from ..simulate.inputs import estimate_column
from ..simulate.many import auto_workers, plan_runs, simulate_many
from ..warehouse import Warehouse, transaction
from .smith_runs import (ALGS, PREDICTORS, SEARCH, SPECS, Workload, arrays, event_counts, schedule_metrics,
                         set_keys, tabulate, workloads)


def config(w: Workload, alg: str, estimate: str) -> SimConfig:
    """One of Smith's replays: ``alg`` (ALGS) scheduling on ``estimate``, a job past its estimate
    held to its request (their simulator's rule, kernel.OVERRUNS['request']), fractional predictions
    rounded to the nearest second (as smith_runs.predictions always rounded them)."""
    pol, bf = ALGS[alg]
    return SimConfig(policy=pol, backfill=bf, estimate=estimate, adjust="regular", overrun="request",
                     capacity=w.capacity, est_rounding="nearest")


def replay(wh: Warehouse, items: dict, order: dict) -> dict:
    """Run the items (key -> SimItem) not stored yet through simulate_many and return key -> each job's
    start, in the order of ``order[trace]`` (the workload's job ids, smith_runs.arrays' order)."""
    if not items:
        return {}
    todo = list(items.values())
    jobs = sum(len(order[i.trace]) for i in todo)
    simulate_many(wh, todo, workers=auto_workers(jobs), label=f"Smith replays ({len(todo)})")
    con = wh.reader()
    try:
        plan = plan_runs(con, wh.root, todo, dry_run=True)  # every run stored now: their run ids, in order
        if len(plan.reused) != len(todo):
            raise RuntimeError("Smith replays: a run is not stored after simulate_many")
        out = {}
        for key, run in zip(items, plan.reused):
            rows = con.execute("SELECT job_id, start FROM sim_jobs WHERE run_id = ? ORDER BY job_id",
                               [run["run_id"]]).fetchnumpy()
            ids = order[items[key].trace]
            pos = np.searchsorted(rows["job_id"], ids)
            if len(rows["job_id"]) != len(ids) or not np.array_equal(rows["job_id"][pos], ids):
                raise RuntimeError(f"Smith replay {run['run_id']}: its jobs are not the workload's")
            out[key] = np.asarray(rows["start"], dtype=np.int64)[pos]
        return out
    finally:
        con.close()


def set_name(w: Workload, tag: str, weights: np.ndarray | None) -> str:
    """A searched set's name: the workload, the algorithm, and a digest of what the search depends on
    beyond the derived trace's content (its weights and SEARCH)."""
    h = hashlib.sha256(repr(SEARCH).encode())
    if weights is not None:
        h.update(np.ascontiguousarray(weights, dtype=np.int64).tobytes())
    return f"smith-{w.key}-{tag}-{h.hexdigest()[:12]}"


def searched(wh: Warehouse, w: Workload, name: str, weights: np.ndarray | None) -> tuple[tuple, float]:
    """Set ``name``: the stored one when it was searched on this derived trace with SEARCH, else searched
    now (smith_runs.searched_for's search) and stored. Returns (templates, seconds searched here)."""
    con = wh.reader()
    try:
        row = stored_sets(con).get(name)
    finally:
        con.close()
    if row and row["trace"] == w.trace and (row["generations"], row["population"], row["seed"]) == SEARCH:
        return row["templates"], 0.0
    t0 = time.perf_counter()
    best, err, _ = search(w.jobs, np.ones(w.jobs.height, bool), *SEARCH, weights=weights)
    secs = time.perf_counter() - t0
    with wh.writer() as con, transaction(con):
        store_set(con, name, best, w.trace, err, None, *SEARCH)
    return tuple(best), secs


def _rounded(est: np.ndarray, req: np.ndarray) -> np.ndarray:
    """smith_runs.predictions' rule: nearest second, a missing estimate -> the request."""
    return np.clip(np.round(np.where(np.isnan(est), req, est)), 0, 2 ** 40).astype(np.int64)


def run_stored(wh: Warehouse, traces: dict, quick: bool) -> dict:
    """smith_runs.run_all's result, with the workloads stored as derived traces, the replays run
    through the planner and the sets and estimates stored: what is stored already is reused. Holds
    the writer lock throughout (simulate_many's commits expect it: a writer that takes the lock
    anew deletes the run files not committed yet)."""
    with wh.lock():
        return _run_stored(wh, traces, quick)


def _run_stored(wh: Warehouse, traces: dict, quick: bool) -> dict:
    t_all = time.perf_counter()
    con = wh.reader()
    try:
        ws = workloads(con, traces, quick)
    finally:
        con.close()
    for w in ws:
        derive(wh, w.trace, w.source, w.recipe)
    arr = {w.key: arrays(w) for w in ws}
    order = {w.trace: np.sort(arr[w.key]["job_id"]) for w in ws}
    rank = {w.key: np.searchsorted(order[w.trace], arr[w.key]["job_id"]) for w in ws}
    for w in ws:
        ensure_estimates(wh, w.trace, ["request"])
    # the request replays that weight the searches: each algorithm on the requests
    reqs = {(w.key, alg): SimItem(w.trace, config(w, alg, "request"))
            for w in ws for alg in sorted({alg for alg, _ in set_keys(w)})}
    starts = {k: v[rank[k[0]]] for k, v in replay(wh, reqs, order).items()}
    sets, names, search_s = {}, {}, {}
    for w in ws:
        a = arr[w.key]
        names[w.key, "plain"] = set_name(w, "plain", None)
        plain, search_s[w.key] = searched(wh, w, names[w.key, "plain"], None)
        w.templates = tuple(plain)
        for alg, running in sorted(set_keys(w)):
            queued, run_n = event_counts(a["submit"], starts[w.key, alg], a["run"])
            weights = 1 + queued + (run_n if running else 0)
            name = set_name(w, f"{alg.lower()}{'' if running else '-waiting'}", weights)
            names[w.key, alg, running] = name
            tpl, secs = searched(wh, w, name, weights)
            sets[w.key, alg, running] = (tpl, secs)
    # every predictor's estimates, stored; read back in the workload's order
    est, preds = {}, {}
    for w in ws:
        specs = {p: SPECS[p] for p in PREDICTORS if p != "smith"}
        specs["smith"] = f"smith:set={names[w.key, 'plain']}"
        for alg, running in set_keys(w):
            specs[alg, running] = f"smith:set={names[w.key, alg, running]}"
        keys = [k for k in specs if specs[k] != "actual"]  # actual: the jobs' runs, nothing to store
        canon = dict(zip(keys, ensure_estimates(wh, w.trace, [specs[k] for k in keys])))
        a = arr[w.key]
        con = wh.reader()
        try:
            ids = order[w.trace]
            col = {k: estimate_column(con, w.trace, c, ids)[rank[w.key]] for k, c in canon.items()}
        finally:
            con.close()
        col["actual"] = a["run"].astype(np.float64)  # the actual scheme's value (estimates/compute.py)
        est[w.key] = {p: _rounded(col[p], a["req"]) for p in PREDICTORS}
        preds[w.key] = {k: _rounded(col[k], a["req"]) for k in set_keys(w)}
    # the schedule runs (Tables 10-15)
    items = {}
    for w in ws:
        for p in PREDICTORS:
            for alg in w.sched_algs:
                scheme = (canon_of(names[w.key, alg, alg != "LWF"]) if p == "smith" else parse(SPECS[p]).canonical)
                items[w.key, p, alg] = SimItem(w.trace, config(w, alg, scheme))
    scheds = {k: v[rank[k[0]]] for k, v in replay(wh, items, order).items()}
    planned_s = (time.perf_counter() - t_all) / max(len(ws), 1)

    def provide(w: Workload, a: dict):
        w.facts["planned_s"] = planned_s
        s = {k: (sets[w.key, *k][0], preds[w.key][k], sets[w.key, *k][1]) for k in set_keys(w)}
        return (est[w.key], set_text(w.templates), search_s[w.key], s,
                lambda alg, p, e: schedule_metrics(a, w.capacity, scheds[w.key, p, alg]))

    return tabulate(ws, provide)


def canon_of(name: str) -> str:
    return parse(f"smith:set={name}").canonical

