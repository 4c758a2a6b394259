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
from dataclasses import dataclass, field

from .. import progress
from ..characterize import characterize
from ..estimates import ensure_estimates, estimate
from ..simulate import make_config, simulate
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
    run: object  # callable


@dataclass
class ComputeResult:
    steps: list[str] = field(default_factory=list)




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
        stored = {s for (s,) in con.execute(
            "SELECT scheme FROM estimate_accuracy WHERE trace = ?", [trace]).fetchall()}
        schemes = {r["role"]: r["estimate"] for r in _rows(
            con, "SELECT role, estimate FROM report_schemes WHERE trace = ?", [trace])}
        if "estimates" in sections:
            (has_char,) = con.execute(
                "SELECT count(*) > 0 FROM characterize_summary WHERE trace = ?", [trace]).fetchall()[0]
            if not has_char:
                steps.append(Step(f"characterize {trace}", lambda t=trace: characterize(t, wh)))
        wanted = [schemes[r] for s in sections for r in ROLES.get(s, []) if r in schemes]
        missing = list(dict.fromkeys(e for e in wanted if e not in stored))
        if missing:
            steps.append(Step(f"estimates {trace} ({len(missing)} schemes)",
                              lambda t=trace, m=missing: ensure_estimates(wh, t, m)))
        if grid and "adjustment" in sections and fields["has_request"]:
            (has_grid,) = con.execute(
                "SELECT count(*) > 0 FROM estimate_grid WHERE trace = ? AND grid = 'tang'", [trace]).fetchall()[0]
            if not has_grid:
                steps.append(Step(f"Tang grid {trace}", lambda t=trace: estimate(wh, t, [], grid="tang")))
        sims = [s for s in ("scheduling", "prediction") if s in sections]
        if not sims:
            continue
        cap = capacity.get(trace)
        if (cap or fields["capacity"]) is None:
            continue  # no machine size: the sections say so (give --capacity TRACE=N)
        runs = _rows(con, "SELECT DISTINCT estimate, policy, backfill, adjust, overrun, split, predict_wait, "
                          "run_id, capacity FROM report_plan_runs WHERE trace = ? AND section IN "
                          "(SELECT unnest(?::VARCHAR[])) AND experiment IN (SELECT unnest(?::VARCHAR[])) "
                          "ORDER BY ALL", [trace, sims, experiments or ["tang", "mualem", "klusacek", "smith"]])
        cap_eff = cap or fields["capacity"]
        drop = bool(cap_eff is not None and fields["max_nodes"] is not None and fields["max_nodes"] > cap_eff)
        for r in runs:
            if r["run_id"] is not None and (cap is None or r["capacity"] == cap):
                continue
            cfg = make_config(policy=r["policy"], backfill=r["backfill"], estimate=r["estimate"],
                              adjust=r["adjust"], overrun=r["overrun"], split=r["split"], capacity=cap,
                              drop_oversized=drop, predict_wait=r["predict_wait"])
            what = f"simulate {trace[:24]} {r['policy']}+{r['backfill']} {r['estimate'].split(',stat=')[-1][:20]}"
            steps.append(Step(what, lambda t=trace, c=cfg: simulate(wh, t, c)))
    return steps


def prepare(wh: Warehouse, traces: list[str], sections: list[str],
            capacity: dict[str, int] | None = None, experiments: list[str] | None = None,
            grid: bool = True) -> ComputeResult:
    """Compute what the sections need and is not stored yet, under the writer lock."""
    done = ComputeResult()
    with wh.lock():
        steps = plan_steps(wh, traces, sections, capacity, experiments, grid)
        if not steps:
            return done
        with progress.bar() as bar:
            task = bar.add_task("report: computing", total=len(steps)) if bar else None
            with progress.silenced() if bar else contextlib.nullcontext():
                for step in steps:
                    if bar:
                        bar.update(task, description=f"report: {step.what}")
                    step.run()
                    done.steps.append(step.what)
                    if bar:
                        bar.advance(task)
    return done
