"""``walltime summary``."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, warehouse


@app.command()
def summary(
    trace: Annotated[str, typer.Argument(help="Trace name (see `walltime traces`).", show_default=False)],
    policy: Annotated[str, typer.Option(help="Queue order of the scheduler compared: fcfs, sjf, lwf, wfp.")] = "fcfs",
    backfill: Annotated[str, typer.Option(help="Backfilling of the scheduler compared: none, easy, conservative.")] = "easy",
    objective: Annotated[str, typer.Option(help="What the recommendation must improve: wait (mean wait), bsld (mean bounded slowdown) or balanced (the average of their changes in percent).")] = "balanced",
    capacity: Annotated[int | None, typer.Option(help="Machine size in processors (default: the trace's, or its partitions' sizes with --partition).")] = None,
    partition: Annotated[list[str] | None, typer.Option("--partition", help="Replay only this partition's jobs (repeatable); sized by ingest --capacity PARTITION=N or --slurm-conf, or by --capacity.")] = None,
    split: Annotated[str, typer.Option(help="month: simulate each month of submission alone; none: the whole trace at once.")] = "none",
    load_factor: Annotated[float, typer.Option(help="Multiply interarrival times by this factor (below 1: more load).")] = 1.0,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """The three answers for one trace, on one screen: how wrong the requested times
    are, how much better the best system estimator guesses, and what that does to
    the queue under one scheduler (default FCFS + EASY), with a recommendation on
    the site's objective (docs/summary.md).

    Computes missing estimates and simulations first (progress on stderr), then
    reuses them: a second summary only reads the warehouse.
    """
    from .. import progress
    from ..summary import Options, summarize
    from ..summary.words import sentences

    opts = Options(policy=policy, backfill=backfill, objective=objective, capacity=capacity,
                   partitions=tuple(partition or ()), split=split, load_factor=load_factor)
    s = summarize(warehouse(wh), trace, say=None if as_json else progress.note, opts=opts)
    if as_json:
        print_json(s.as_dict())
        return
    print("\n".join(sentences(s)))
    print(f"\n({'computed ' + str(len(s.computed)) + ' missing pieces, ' if s.computed else 'all reused, '}"
          f"{s.seconds:.1f} s; `--json` for scripts)")
