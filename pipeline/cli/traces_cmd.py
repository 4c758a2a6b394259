"""``walltime traces`` (the body is in pipeline/cli/readers.py, shared with the fast path)."""

from __future__ import annotations

from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt
from .readers import list_traces, show_traces  # noqa: F401  (list_traces: for callers of this module)


@app.command()
def traces(wh: WarehouseOpt = DEFAULT_WAREHOUSE, as_json: JsonOpt = False) -> None:
    """The traces in the warehouse: jobs, rejected lines, span, capacity, users, sha256."""
    show_traces(wh, as_json)
