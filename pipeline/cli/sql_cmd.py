"""``walltime sql``: read-only SQL over the warehouse.

Why an allow-list and a locked connection: a read-only DuckDB connection still
lets ``COPY ... TO``, ``PRAGMA import_database`` or ``ATTACH`` write files. So
DuckDB's own parser splits the query and only SELECT statements (and EXPLAIN
of a SELECT) are run, on a connection with external access, extension
auto-install/auto-load and configuration changes turned off
(:func:`pipeline.warehouse.Warehouse.sql_reader`).
"""

from __future__ import annotations

import re
from typing import Annotated

import typer

from ..errors import WalltimeError, quote
from . import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_csv, print_json, print_table, rows_as_dicts, warehouse

ALLOWED = {"SELECT"}  # statement types from duckdb.extract_statements; EXPLAIN only of these
_EXPLAIN = re.compile(r"^\s*EXPLAIN(\s+ANALYZE)?\b", re.IGNORECASE)


def check_read_only(query: str) -> None:
    """Refuse every statement that is not a SELECT (or EXPLAIN of a SELECT).
    DESCRIBE, SHOW, SUMMARIZE, FROM-first and WITH queries parse as SELECT."""
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as e:
        raise WalltimeError(f"sql: {' '.join(str(e).split())}") from None
    if not statements:
        raise WalltimeError("sql: the query is empty")
    for st in statements:
        kind = st.type.name
        if kind == "EXPLAIN":
            inner = _EXPLAIN.sub("", st.query, count=1)
            if inner.strip() == st.query.strip() or not inner.strip():
                raise WalltimeError("sql: cannot tell what this EXPLAIN explains; `walltime sql` is read-only")
            check_read_only(inner)
        elif kind not in ALLOWED:
            raise WalltimeError(f"sql: {kind} statements are refused; `walltime sql` is read-only")


# Column types DuckDB's own fetchall() turns into the same Python values as Arrow's
# to_pylist(); a result with any other type (time zones, intervals, maps, ...) goes
# through Arrow (time zones as zoneinfo, no pytz needed). Arrow costs 0.1 s to import.
_PLAIN_TYPES = {"BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT",
                "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "VARCHAR", "DATE", "TIMESTAMP", "NULL", "\"NULL\""}


def _plain_types(rel) -> bool:
    return all(str(t) in _PLAIN_TYPES or str(t).startswith("DECIMAL(") for t in rel.types)


def run_query(wh, query: str) -> tuple[list[str], list[tuple]]:
    """Run read-only SQL; refuse anything that writes."""
    import duckdb

    check_read_only(query)
    con = wh.sql_reader()
    try:
        rel = con.sql(query)
        if rel is None:
            return [], []
        if _plain_types(rel):
            return list(rel.columns), rel.fetchall()
        table = rel.to_arrow_table()
        return table.column_names, [tuple(r.values()) for r in table.to_pylist()]
    except duckdb.Error as e:
        raise WalltimeError(f"sql: {quote(' '.join(str(e).split()), 300)}") from None
    finally:
        con.close()


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
    columns, rows = run_query(warehouse(wh), query)
    if as_json:
        print_json(rows_as_dicts(columns, rows))
    elif csv:
        print_csv(columns, rows)
    else:
        print_table(columns, rows)
