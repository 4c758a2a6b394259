"""The report's compute phase: make sure the warehouse holds what the chosen
sections show, reusing whatever is stored.

What is needed is read from the warehouse views of sql/041_report_plan.sql
(``report_trace_fields``, ``report_schemes``, ``report_plan_runs``), so the
work done here and the tables that read its results cannot disagree. Runs
under the writer lock (re-entrant: the stages called here take it again); the
page itself is rendered afterwards from a read-only connection.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

from .. import derived, progress
from ..characterize import characterize
from ..estimates import ensure_estimates, estimate
from ..simulate import make_config
from ..warehouse import Warehouse

# section -> estimate roles it shows (their per-job estimates must be stored)
ROLES = {
    "estimates": ["original", "klusacek"],
    "adjustment": ["original", "p95", "p85", "p70", "klusacek", "feitelson", "ave2"],
    "scheduling": ["original", "p95", "p85", "p70"],
    "prediction": [],
}


@dataclass
class Step:
    what: str
    run: object  # callable, or None for a simulation (``item``): those run together, in parallel
    item: object = None  # simulate.config.SimItem
    beside: bool = False  # run in this process while the simulations' workers compute (the Tang grid)


@dataclass
class ComputeResult:
    steps: list[str] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)  # wall s per kind: characterize, estimates, tang, simulations, ...
    runs: list[dict] = field(default_factory=list)  # the simulations run: timings and CPU per run




def _rows(con, sql: str, params: list) -> list[dict]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def plan_steps(wh: Warehouse, traces: list[str], sections: list[str],
               capacity: dict[str, int] | None = None, experiments: list[str] | None = None,
               grid: bool = True) -> list[Step]:
    """The work still to do, in order (reads the warehouse; needs the lock).
    ``experiments`` limits the simulations to those parts of report_plan
    (tang, mualem, klusacek, smith); ``grid=False`` skips the Tang grid."""
    with wh.writer() as con:  # applies the report migrations too
        return _plan(con, wh, traces, sections, capacity, experiments, grid)


def describe(wh: Warehouse, traces: list[str], sections: list[str],
             capacity: dict[str, int] | None = None) -> list[str]:
    """What the report would compute, read-only (for ``walltime run --dry-run``):
    nothing is created or locked."""
    if not wh.exists():
        return [f"all experiments of the sections {', '.join(sections)} (the warehouse is empty)"]
    con = wh.reader()
    try:
        return [s.what for s in _plan(con, wh, traces, sections, capacity, None, True)]
    except Exception:  # a warehouse whose report views are not there yet
        return [f"the experiments of the sections {', '.join(sections)} not stored yet"]
    finally:
        con.close()


def _plan(con, wh: Warehouse, traces: list[str], sections: list[str], capacity: dict[str, int] | None,
          experiments: list[str] | None, grid: bool) -> list[Step]:
    capacity = capacity or {}
    steps: list[Step] = []
    for trace in traces:
        (fields,) = _rows(con, "SELECT * FROM report_trace_fields WHERE trace = ?", [trace])
        stored = derived.stored_schemes(con, trace)
        schemes = {r["role"]: r["estimate"] for r in _rows(
            con, "SELECT role, estimate FROM report_schemes WHERE trace = ?", [trace])}
        if "estimates" in sections:
            if not derived.characterized(con, trace):
                steps.append(Step(f"characterize {trace}", lambda t=trace: characterize(t, wh)))
        wanted = [schemes[r] for s in sections for r in ROLES.get(s, []) if r in schemes]
        sim_steps = _sim_steps(con, trace, fields, sections, capacity, experiments)
        # the sections' schemes and those the simulations' workers read from the estimates mirror, in
        # one step: each step reads the trace's jobs and rewrites the trace's whole mirror (every scheme
        # stored: 18 schemes x 1M jobs for the Eagle-shaped bench, 1.8 s a rewrite; ten times that at 11M)
        missing = list(dict.fromkeys(e for e in wanted + [s.item.config.estimate for s in sim_steps]
                                     if e not in stored))
        if missing:
            steps.append(Step(f"estimates {trace} ({len(missing)} schemes)",
                              lambda t=trace, m=missing: ensure_estimates(wh, t, m)))
        if grid and "adjustment" in sections and fields["has_request"]:
            if not derived.grid_stored(con, trace, "tang"):
                # nothing a simulation reads: it runs here while the workers simulate
                steps.append(Step(f"Tang grid {trace}", lambda t=trace: estimate(wh, t, [], grid="tang"),
                                  beside=True))
        steps += sim_steps
    return steps


def _sim_steps(con, trace: str, fields: dict, sections: list[str], capacity: dict[str, int],
               experiments: list[str] | None) -> list[Step]:
    """The report_plan_runs rows of the trace with no stored run, as simulation steps."""
    from ..simulate.config import SimItem

    sims = [s for s in ("scheduling", "prediction") if s in sections]
    if not sims:
        return []
    cap = capacity.get(trace)
    if (cap or fields["capacity"]) is None:
        return []  # no machine size: the sections say so (give --capacity TRACE=N)
    runs = _rows(con, "SELECT DISTINCT estimate, policy, backfill, adjust, overrun, split, predict_wait, "
                      "run_id, capacity FROM report_plan_runs WHERE trace = ? AND section IN "
                      "(SELECT unnest(?::VARCHAR[])) AND experiment IN (SELECT unnest(?::VARCHAR[])) "
                      "ORDER BY ALL", [trace, sims, experiments or ["tang", "mualem", "klusacek", "smith"]])
    cap_eff = cap or fields["capacity"]
    drop = bool(cap_eff is not None and fields["max_nodes"] is not None and fields["max_nodes"] > cap_eff)
    out = []
    for r in runs:
        if r["run_id"] is not None and (cap is None or r["capacity"] == cap):
            continue
        cfg = make_config(policy=r["policy"], backfill=r["backfill"], estimate=r["estimate"],
                          adjust=r["adjust"], overrun=r["overrun"], split=r["split"], capacity=cap,
                          drop_oversized=drop, predict_wait=r["predict_wait"])
        what = f"simulate {trace[:24]} {r['policy']}+{r['backfill']} {r['estimate'].split(',stat=')[-1][:20]}"
        out.append(Step(what, None, SimItem(trace, cfg)))
    return out


def prepare(wh: Warehouse, traces: list[str], sections: list[str],
            capacity: dict[str, int] | None = None, experiments: list[str] | None = None,
            grid: bool = True, summary: bool = False, workers: int | None = None) -> ComputeResult:
    """Compute what the sections need and is not stored yet, under the writer
    lock: characterize and the estimates one after another, then every
    simulation (with ``summary``, also the summary's runs) together on
    ``workers`` processes (pipeline.simulate.many.simulate_many; default: all
    cores when the batch is big enough to pay for starting them), with the
    Tang grid computed in this process meanwhile (no simulation reads it); the
    runs that finish during the grid commit after it. In-process simulations
    (1 worker) run after the grid."""
    done = ComputeResult()
    with wh.lock():
        steps = plan_steps(wh, traces, sections, capacity, experiments, grid)
        sims = [s for s in steps if s.item is not None]
        work = [s for s in steps if s.item is None and not s.beside]
        later = [s for s in steps if s.beside]  # the Tang grid: while the simulations run
        _run_steps(work, done)
        if summary:
            from ..summary import pending_runs
            from ..simulate.config import SimItem

            t = time.perf_counter()
            for trace in traces:
                did, runs = pending_runs(wh, trace)
                done.steps += [f"{trace}: {s}" for s in did]
                sims += [Step(f"{trace}: {what}", None, SimItem(trace, cfg)) for what, cfg in runs]
            done.seconds["summary estimates"] = time.perf_counter() - t
        if sims:
            t = time.perf_counter()
            done.runs = _simulate_all(wh, sims, workers, beside=(lambda: _run_steps(later, done)) if later else None)
            done.seconds["simulations"] = time.perf_counter() - t
            done.steps += [s.what for s in sims]
        else:
            _run_steps(later, done)
    return done


def _run_steps(work: list[Step], done: ComputeResult) -> None:
    """Run steps one after another in this process, timed by kind."""
    if not work:
        return
    with progress.bar() as bar:
        task = bar.add_task("report: computing", total=len(work)) if bar else None
        with progress.silenced() if bar else contextlib.nullcontext():
            for step in work:
                if bar:
                    bar.update(task, description=f"report: {step.what}")
                t = time.perf_counter()
                step.run()
                kind = step.what.split(" ")[0].lower()
                done.seconds[kind] = done.seconds.get(kind, 0.0) + time.perf_counter() - t
                done.steps.append(step.what)
                if bar:
                    bar.advance(task)


def _simulate_all(wh: Warehouse, sims: list[Step], workers: int | None, beside=None) -> list[dict]:
    from ..simulate.many import auto_workers, simulate_many

    if workers is None:  # in this process below many.PARALLEL_MIN_JOB_RUNS job-runs (jobs x simulations)
        con = wh.reader()
        try:
            jobs = dict(con.execute("SELECT trace, jobs FROM traces").fetchall())
        finally:
            con.close()
        workers = auto_workers(sum(jobs.get(s.item.trace) or 0 for s in sims))
    return simulate_many(wh, [s.item for s in sims], workers, label=f"report: {len(sims)} simulations",
                         beside=beside)
