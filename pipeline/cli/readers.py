"""What `walltime traces` and `walltime sql` do, without Typer.

Why apart from their *_cmd modules: these two read-only commands are the ones
users run most often in scripts, and they start in under 0.3 s only without
Typer's parameter machinery (pipeline/cli/fast.py calls them directly; the
Typer commands call the same functions).

`sql`: why an allow-list and a locked connection: a read-only DuckDB connection
still lets ``COPY ... TO``, ``PRAGMA import_database`` or ``ATTACH`` write
files. So DuckDB's own parser splits the query and only SELECT statements (and
EXPLAIN of a SELECT) are run, on a connection with external access, extension
auto-install/auto-load and configuration changes turned off
(:meth:`pipeline.warehouse.Warehouse.sql_reader`).
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import sqlfiles
from ..derived import derived_sources
from ..errors import DAMAGE, DamagedWarehouse, WalltimeError, duckdb_message, quote
from .plain import print_csv, print_json, print_table, rows_as_dicts, warehouse

ALLOWED = {"SELECT"}  # statement types from duckdb.extract_statements; EXPLAIN only of these
_EXPLAIN = re.compile(r"^\s*EXPLAIN(\s+ANALYZE)?\b", re.IGNORECASE)


# -- walltime traces ---------------------------------------------------------
def list_traces(wh) -> tuple[list[str], list[tuple]]:
    con = wh.reader(attach_results=False)  # sql/traces_list.sql does not read sim_jobs
    try:
        cur = con.execute(sqlfiles.load("traces_list"))
        columns, rows = [d[0] for d in cur.description], cur.fetchall()
        source = derived_sources(con)  # a paper's workload `reproduce` derived: from which trace
        return [*columns, "derived_from"], [(*r, source.get(r[0])) for r in rows]
    finally:
        con.close()


def show_traces(wh: Path, as_json: bool) -> None:
    """The body of `walltime traces`."""
    columns, rows = list_traces(warehouse(wh))
    if as_json:
        print_json(rows_as_dicts(columns, rows))
        return
    short = [tuple(v[:16] if c == "sha256" else v for c, v in zip(columns, r)) for r in rows]
    print_table(columns, short)


# -- walltime sql ------------------------------------------------------------
def check_read_only(query: str, con=None) -> None:
    """Refuse every statement that is not a SELECT (or EXPLAIN of a SELECT).
    DESCRIBE, SHOW, SUMMARIZE, FROM-first and WITH queries parse as SELECT.
    ``con``: parse with this open connection (DuckDB's module-level parser
    starts a database instance of its own, 25 ms)."""
    import duckdb

    try:
        statements = (con or duckdb).extract_statements(query)
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
            check_read_only(inner, con)
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

    try:
        con = wh.sql_reader()
    except (WalltimeError, OSError):
        check_read_only(query)  # a refused or broken query is named first, as before
        raise
    try:
        check_read_only(query, con)
        rel = con.sql(query)
        if rel is None:
            return [], []
        if _plain_types(rel):
            return list(rel.columns), rel.fetchall()
        table = rel.to_arrow_table()
        return table.column_names, [tuple(r.values()) for r in table.to_pylist()]
    except duckdb.Error as e:
        if isinstance(e, duckdb.IOException) and any(d in str(e).lower() for d in DAMAGE):
            raise DamagedWarehouse(duckdb_message(e)) from None  # a block of the file is missing or broken
        raise WalltimeError(f"sql: {quote(' '.join(str(e).split()), 300)}") from None
    finally:
        con.close()


def show_sql(wh: Path, query: str, csv: bool, as_json: bool) -> None:
    """The body of `walltime sql`."""
    columns, rows = run_query(warehouse(wh), query)
    if as_json:
        print_json(rows_as_dicts(columns, rows))
    elif csv:
        print_csv(columns, rows)
    else:
        print_table(columns, rows)
