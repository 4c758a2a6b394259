"""``walltime export``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, say, warehouse


@app.command()
def export(
    trace: Annotated[str, typer.Argument(help="Trace name (see `walltime traces`).", show_default=False)],
    format: Annotated[str, typer.Option("--format", help="swf (Standard Workload Format with a full header), parquet (every column) or slurm-conf (the cluster model of simulate --scheduler slurm: the slurm.conf kept at ingest, else one inferred from the trace, to edit and give back to ingest --slurm-conf).")] = "swf",
    out: Annotated[Path, typer.Option("--out", help="File to write (replaced if it exists).", show_default=False)] = ...,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Write a trace for other tools: SWF for pyss, Alea, Batsim...; Parquet
    reads back with `ingest --format table --preset walltime`."""
    from ..export import export as run_export

    r = run_export(warehouse(wh), trace, format, out)
    if as_json:
        print_json(r.as_dict())
        return
    say(f"wrote {r.jobs:,} jobs of trace {r.trace!r} to {r.out} as {r.format} ({r.bytes:,} bytes)")
