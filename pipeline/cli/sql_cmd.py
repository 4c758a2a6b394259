"""``walltime sql``: read-only SQL over the warehouse (the body and the
read-only checks are in pipeline/cli/readers.py, shared with the fast path)."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt
from .readers import ALLOWED, _plain_types, check_read_only, run_query, show_sql  # noqa: F401  (re-exported)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="The SQL query (DuckDB dialect): SELECT statements only.", show_default=False)],
    csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Run read-only SQL on the warehouse (tables: traces, jobs, rejects, trace_header, ...).

    Only SELECT (with DESCRIBE, SHOW, SUMMARIZE, WITH, FROM-first) and EXPLAIN of a
    SELECT; no files outside the warehouse database can be read or written.
    """
    show_sql(wh, query, csv, as_json)
