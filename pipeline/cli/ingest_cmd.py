"""``walltime ingest``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .. import progress
from . import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, warehouse


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="SWF trace files, plain or .gz.", show_default=False)],
    name: Annotated[str | None, typer.Option(help="Trace name (default: file name without .swf/.gz). One file only.")] = None,
    format: Annotated[str, typer.Option("--format", help="Input format; only 'swf' for now.")] = "swf",
    lenient: Annotated[bool, typer.Option(help="Load the good lines; keep bad ones, with reasons, in `rejects`.")] = False,
    replace: Annotated[bool, typer.Option(help="Overwrite a trace of the same name whose content differs.")] = False,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Load job traces into the warehouse, all or nothing.

    Re-ingesting the same content (sha256 of the decompressed bytes) is a no-op.
    A bad line refuses the whole command with file:line: field, unless --lenient.
    """
    if format != "swf":
        raise typer.BadParameter(f'"{format}" is not supported yet; use swf', param_hint="--format")
    from ..ingest import ingest as ingest_files

    results = ingest_files(paths, warehouse(wh), name=name, lenient=lenient, replace=replace)
    for r in results:
        for n in r.notes:
            progress.note(f"note: {n}")
    if as_json:
        print_json({"warehouse": str(wh), "traces": [r.as_dict() for r in results]})
        return
    for r in results:
        if r.status == "unchanged":
            print(f"{r.path}: unchanged: same content as trace {r.same_as!r} already in the warehouse; nothing to do")
        else:
            extra = f", {r.rejected:,} bad line{'s' * (r.rejected > 1)} kept in rejects" if r.rejected else ""
            print(f"{r.path}: {r.status} as trace {r.trace!r}: {r.jobs:,} jobs{extra}")
