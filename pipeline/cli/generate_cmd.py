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
    out: Annotated[Path, typer.Option("--out", help="File to write: SWF (.gz: gzip-compressed); with --shape eagle|fdata "
                                      ".parquet, .csv or .csv.gz.", show_default=False)],
    shape: Annotated[str, typer.Option("--shape", help="'swf' (the SWF model), or a table in a dataset's columns that "
                                       "`ingest --format table --preset eagle|fdata` reads: 'eagle' (NREL Eagle, drawn "
                                       "like its sample), 'fdata' (Fugaku's F-DATA).")] = "swf",
    jobs: Annotated[int, typer.Option("--jobs", help="Number of jobs.")] = 20000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed; the same seed gives the same bytes.")] = 0,
    capacity: Annotated[int | None, typer.Option("--capacity", help="Processors of the machine (header MaxProcs); "
                                                 "default 256, eagle 94,248, fdata 7,630,848.",
                                                 show_default=False)] = None,
    load: Annotated[float, typer.Option("--load", help="Offered load: sum(procs*run) / (capacity * span).")] = 0.7,
    start: Annotated[str | None, typer.Option("--start", help=f"Local start date/time of the trace (a Monday is typical); "
                                              f"default {DEFAULT_START}, eagle 2018-11-05, fdata 2021-03-01.",
                                              show_default=False)] = None,
    timezone: Annotated[str | None, typer.Option("--timezone", help=f"IANA zone of the site (header TimeZoneString); "
                                                 f"default {DEFAULT_TZ}, eagle America/Denver, fdata Asia/Tokyo.",
                                                 show_default=False)] = None,
    waits: Annotated[str | None, typer.Option("--waits", help="Wait times: 'easy' (the site's FCFS + EASY schedule, the "
                                              "default) or 'none' (-1); --shape swf only (tables draw their waits).",
                                              show_default=False)] = None,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Write a synthetic workload as SWF (the demo's built-in workload).

    Daily and weekly arrival cycles, Lublin-Feitelson-like sizes and runtimes,
    users resubmitting job templates, and Mu'alem-Feitelson requested times
    rounded to the values users type.

    The warehouse is not touched; load the file with `walltime ingest`.
    """
    if shape != "swf":
        _table(out, shape, jobs, seed, capacity, load, start, timezone, waits, as_json)
        return
    from ..generate import generate_file

    capacity = 256 if capacity is None else capacity
    summary = generate_file(out, jobs, seed, capacity, load, start=start or DEFAULT_START, tz=timezone or DEFAULT_TZ,
                            waits=waits or "easy")
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


def _table(out: Path, shape: str, jobs: int, seed: int, capacity: int | None, load: float, start: str | None,
           timezone: str | None, waits: str | None, as_json: bool) -> None:
    from ..errors import WalltimeError
    from ..generate.tables import generate_table_file

    if waits is not None:
        raise WalltimeError(f"--waits {waits}: applies to --shape swf only; a --shape {shape} table draws its waits")
    summary = generate_table_file(out, shape, jobs, seed, capacity=capacity, load=load, start=start, tz=timezone)
    if as_json:
        print_json(summary)
        return
    progress.note(f"generated in {summary['timings']['generate_s']} s, written in {summary['timings']['write_s']} s")
    print(
        f"{summary['path']}: {summary['jobs']:,} {shape}-shaped jobs ({summary['job_ids']:,} job ids) over "
        f"{summary['span_days']:.1f} days on {summary['capacity']:,} processors, offered load "
        f"{summary['offered_load']:.3f}, {summary['users']:,} users, R < 0.5 for {summary['share_r_below_half']:.0%} "
        f"of jobs; load it with `walltime ingest {summary['path']} --format table --preset {shape} "
        f"--tz {summary['timezone']} --capacity {summary['capacity']}`"
    )
