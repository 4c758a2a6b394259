"""``walltime generate``: write a synthetic SWF workload (see docs/generate.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .. import progress
from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json

# == pipeline.generate.DEFAULT_START / DEFAULT_TZ (tests/test_cli_startup.py); not imported: Polars
DEFAULT_START = "2025-01-06"
DEFAULT_TZ = "Europe/Stockholm"


@app.command()
def generate(
    out: Annotated[Path, typer.Option("--out", help="SWF file to write (.gz: gzip-compressed).", show_default=False)],
    jobs: Annotated[int, typer.Option("--jobs", help="Number of jobs.")] = 20000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed; the same seed gives the same bytes.")] = 0,
    capacity: Annotated[int, typer.Option("--capacity", help="Processors of the machine (header MaxProcs).")] = 256,
    load: Annotated[float, typer.Option("--load", help="Offered load: sum(procs*run) / (capacity * span).")] = 0.7,
    start: Annotated[str, typer.Option("--start", help="Local start date/time of the trace (a Monday is typical).")] = DEFAULT_START,
    timezone: Annotated[str, typer.Option("--timezone", help="IANA zone of the site (header TimeZoneString).")] = DEFAULT_TZ,
    waits: Annotated[str, typer.Option("--waits", help="Wait times: 'easy' (the site's FCFS + EASY schedule) or 'none' (-1).")] = "easy",
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Write a synthetic workload as SWF (the demo's built-in workload).

    Daily and weekly arrival cycles, Lublin-Feitelson-like sizes and runtimes,
    users resubmitting job templates, and Mu'alem-Feitelson requested times
    rounded to the values users type.

    The warehouse is not touched; load the file with `walltime ingest`.
    """
    from ..generate import generate_file

    summary = generate_file(out, jobs, seed, capacity, load, start=start, tz=timezone, waits=waits)
    for line in summary["notes"]:
        progress.note(f"note: {line}")
    if as_json:
        print_json(summary)
        return
    progress.note(f"generated in {summary['timings']['generate_s']} s, written in {summary['timings']['write_s']} s")
    print(
        f"{summary['path']}: {summary['jobs']:,} jobs over {summary['span_days']:.1f} days on "
        f"{capacity:,} processors, offered load {summary['offered_load']:.3f}, "
        f"{summary['users']} users in {summary['projects']} projects, "
        f"R < 0.5 for {summary['share_r_below_half']:.0%} of jobs (content hash {summary['sha256'][:23]})"
    )
