"""``walltime report``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..checks import check_out_dir, check_out_file
from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, warehouse

# == list(pipeline.report.SECTIONS) (tests/test_cli_startup.py); not imported: it pulls in DuckDB
SECTIONS = ("summary", "overview", "estimates", "adjustment", "scheduling", "prediction", "queue")


@app.command()
def report(
    traces: Annotated[list[str] | None, typer.Argument(help="Traces to report on (default: all but the paper workloads `reproduce` derives).", show_default=False)] = None,
    out: Annotated[Path, typer.Option("--out", help="The HTML file to write.")] = Path("walltime-report.html"),
    sections: Annotated[str | None, typer.Option(help=f"Comma-separated sections (default all): {', '.join(SECTIONS)}.")] = None,
    csv: Annotated[Path | None, typer.Option("--csv", help="Also write every table as CSV into this directory.")] = None,
    figures: Annotated[Path | None, typer.Option(
        "--figures", help="Also write every figure as PDF and PNG into this directory (papers, slides).")] = None,
    capacity: Annotated[list[str] | None, typer.Option(
        "--capacity", help="TRACE=N: simulate TRACE on N processors (repeatable), e.g. CTC-SP2-1996-3.1-cln=512.",
        show_default=False)] = None,
    gantt: Annotated[list[str] | None, typer.Option(
        "--gantt", help="RUN_ID:FROM:TO: a Gantt chart of that window of a stored run (FROM/TO: YYYY-MM-DD "
        "or YYYY-MM-DDTHH, UTC; repeatable).", show_default=False)] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, help="Processes for the simulations (default: all cores when there are many).",
        show_default=False)] = None,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Write one self-contained HTML page for your traces: the summary's three answers first,
    then the papers' tables and figures and the queue over time (matplotlib figures inlined).

    First computes what the chosen sections need and the warehouse lacks (characterize,
    estimates, the Tang grid, simulations; progress on stderr), reusing what is stored.
    Every table is a report_* view: see the query under it, or --csv.
    """
    check_out_file(out, "--out")  # before any computing
    if csv is not None:
        check_out_dir(csv, "--csv", "*.csv")
    if figures is not None:
        check_out_dir(figures, "--figures", "*.p[dn][fg]")
    from ..report import build_report, parse_capacity, parse_sections

    res = build_report(warehouse(wh), traces or None, out, parse_sections(sections), csv,
                       parse_capacity(capacity or []), figures, gantt=gantt, workers=workers)
    if as_json:
        print_json(res.__dict__)
    else:
        print(f"{res.out}: {len(res.sections)} sections, {res.tables} tables, {res.figures} figures"
              + (f"; computed {len(res.computed)} missing pieces" if res.computed else "")
              + (f"; {len(res.figure_files)} figure files in {figures}" if figures else ""))
