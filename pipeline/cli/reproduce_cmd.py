"""``walltime reproduce``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, warehouse


# == tuple(pipeline.reproduce.PAPERS) (tests/test_cli_startup.py); not imported: it pulls in DuckDB
PAPERS = ("mualem", "mualem-models", "tang", "klusacek", "klusacek-nodes", "smith")


@app.command("reproduce")
def reproduce_cmd(
    paper: Annotated[list[str] | None, typer.Option(
        "--paper", help=f"Paper to reproduce (repeatable; default all): {', '.join(PAPERS)}.",
        show_default=False)] = None,
    out: Annotated[Path, typer.Option("--out", help="Directory for reproduction.md, .html and -checks.json.")] = Path("docs"),
    traces: Annotated[Path | None, typer.Option(
        "--traces", help="Directory of the SWF traces (default $WALLTIME_TRACES, else ../shared/traces).",
        show_default=False)] = None,
    quick: Annotated[bool, typer.Option("--quick", help="One trace per paper and 3 seeds (the CI set-up, minutes).")] = False,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Run the papers' experiments on the traces and write their published numbers beside ours.

    Ingests the traces the set-ups need (from --traces), runs the simulations and
    estimates (stored work is reused), and writes OUT/reproduction.md (this is
    docs/reproduction.md), OUT/reproduction.html and OUT/reproduction-checks.json:
    every check with paper, ours, difference, rule and verdict.
    """
    from ..reproduce import reproduce

    res = reproduce(warehouse(wh), paper or None, out, traces, quick)
    if as_json:
        print_json(res.__dict__)
    else:
        print(f"{res.markdown}: {res.checks} checks ({res.exploratory} exploratory, not in the headline); "
              f"{res.headline}; {res.seconds['total']:.0f} s. "
              f"Also {res.html}, {res.checks_json}.")
