"""``walltime run`` and ``walltime demo``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .. import progress
from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, print_table, warehouse

ExecutorOpt = Annotated[str, typer.Option("--executor", help="Where simulations run: local (processes) or dask.")]
SchedulerOpt = Annotated[str | None, typer.Option("--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786.")]
WorkersOpt = Annotated[int | None, typer.Option("--workers", min=1, help="Local worker processes (default: all cores).")]


def _show(res, as_json: bool) -> None:
    if as_json:
        print_json(res.as_dict())
        return
    runs = [s for s in res.steps if s.action == "run"]
    verb = "would run" if res.dry_run else "ran"
    print_table(["stage", "target", "action", "why"],
                [(s.stage, s.target, s.action if not res.dry_run or s.action == "skip" else "would run", s.why)
                 for s in res.steps])
    print(f"{res.study}: {verb} {len(runs)} steps, {len(res.steps) - len(runs)} up to date, {res.seconds:.1f} s"
          + (f"; report: {res.report}" if res.report else ""))


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="The study file (TOML).", show_default=False)],
    force: Annotated[bool, typer.Option(help="Recompute characterizations, simulations and the report even if stored.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would run; change nothing.")] = False,
    executor: ExecutorOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Run a whole study (traces, estimates, simulation grids, report) from one TOML file.

    Re-running does only the work whose inputs changed. Safe under cron: one run at
    a time (a second gets "warehouse is busy", exit 1), a log file, and a kill leaves
    every finished step stored and nothing half-written.
    """
    from ..study import load_study, run_study

    study = load_study(config)
    res = run_study(study, warehouse(wh), force=force, dry_run=dry_run, executor=executor,
                    workers=workers, scheduler=scheduler)
    _show(res, as_json)


@app.command()
def demo(
    jobs: Annotated[int, typer.Option(min=100, help="Jobs in the synthetic workload.")] = 20000,
    seed: Annotated[int, typer.Option(help="Random seed of the workload.")] = 1,
    out: Annotated[Path, typer.Option("--out", help="The report to write.")] = Path("walltime-demo.html"),
    workers: WorkersOpt = None,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """The whole pipeline on a built-in synthetic workload, ending with a report and the summary.

    Generates ~20,000 jobs (`walltime generate`), then ingests, characterizes,
    estimates, simulates (FCFS and WFP, EASY and conservative, regular and
    selective, by month), writes the HTML report and prints `walltime summary demo`.
    """
    from ..study.demo import TRACE, run_demo
    from ..summary import summarize
    from ..summary.words import sentences

    w = warehouse(wh)
    say = None if as_json else progress.note
    res = run_demo(w, jobs=jobs, seed=seed, out=out, workers=workers, say=say)
    s = summarize(w, TRACE, say=say)
    if as_json:
        print_json({**res.as_dict(), "summary": s.as_dict()})
        return
    runs = sum(st.action == "run" for st in res.steps)
    print(f"{res.study}: ran {runs} steps, {len(res.steps) - runs} up to date, {res.seconds:.1f} s; "
          f"report: {res.report}; the study's steps: `walltime run {w.root / 'demo' / 'demo.toml'} --dry-run`\n")
    print("\n".join(sentences(s)))
