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
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """The three answers for one trace, on one screen: how wrong the requested times
    are, how much better the best system estimator guesses, and what that does to
    the queue under one scheduler (default FCFS + EASY).

    Computes missing estimates and simulations first (progress on stderr), then
    reuses them: a second summary only reads the warehouse.
    """
    from .. import progress
    from ..summary import summarize
    from ..summary.words import sentences

    s = summarize(warehouse(wh), trace, policy, backfill, say=None if as_json else progress.note)
    if as_json:
        print_json(s.as_dict())
        return
    print("\n".join(sentences(s)))
    print(f"\n({'computed ' + str(len(s.computed)) + ' missing pieces, ' if s.computed else 'all reused, '}"
          f"{s.seconds:.1f} s; `--json` for scripts)")
