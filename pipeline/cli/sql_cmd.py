"""``walltime sql``: read-only SQL over the warehouse."""

from __future__ import annotations

from typing import Annotated

import duckdb
import typer

from ..errors import WalltimeError
from . import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_csv, print_json, print_table, rows_as_dicts, warehouse

READ_ONLY = {"SELECT", "EXPLAIN", "PRAGMA"}


def run_query(wh, query: str) -> tuple[list[str], list[tuple]]:
    """Run one read-only statement; refuse anything that writes."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as e:
        raise WalltimeError(f"sql: {str(e).splitlines()[0]}") from None
    if not statements:
        raise WalltimeError("sql: the query is empty")
    for st in statements:
        kind = st.type.name
        if kind not in READ_ONLY:
            raise WalltimeError(f"sql: {kind} statements are refused; `walltime sql` is read-only")
    con = wh.reader()
    try:
        cur = con.execute(query)
        if cur.description is None:
            return [], []
        return [d[0] for d in cur.description], cur.fetchall()
    except duckdb.Error as e:
        raise WalltimeError(f"sql: {' '.join(str(e).split())}") from None
    finally:
        con.close()


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="The SQL query (DuckDB dialect).", show_default=False)],
    csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Run read-only SQL on the warehouse (tables: traces, jobs, rejects, trace_header, ...)."""
    columns, rows = run_query(warehouse(wh), query)
    if as_json:
        print_json(rows_as_dicts(columns, rows))
    elif csv:
        print_csv(columns, rows)
    else:
        print_table(columns, rows)
