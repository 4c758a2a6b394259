"""Read a report table from its warehouse view, restricted to the report's traces."""

from __future__ import annotations

from .memo import cached
from .page import Table


def quote(v: str) -> str:
    return "'" + str(v).replace("'", "''") + "'"


def view_query(view: str, traces: list[str], order: str | None = None, columns: str = "*",
               where: str | None = None, limit: int | None = None) -> str:
    """The exact query a table shows under it, so a reader can rerun it with `walltime sql`."""
    cond = f"trace IN ({', '.join(quote(t) for t in traces) or 'NULL'})" + (f" AND {where}" if where else "")
    q = f"SELECT {columns} FROM {view} WHERE {cond} ORDER BY {order or 'ALL'}"
    return q + (f" LIMIT {limit}" if limit else "")


def view_table(con, title: str, view: str, traces: list[str], order: str | None = None,
               columns: str = "*", where: str | None = None, limit: int | None = None) -> Table:
    query = view_query(view, traces, order, columns, where, limit)
    names, got = fetch(con, query)
    return Table(title, view, names, list(got), query)


def rows(con, view: str, traces: list[str], order: str | None = None, columns: str = "*",
         where: str | None = None) -> list[dict]:
    """The same rows as dicts, for drawing figures."""
    names, got = fetch(con, view_query(view, traces, order, columns, where))
    return [dict(zip(names, r)) for r in got]


def fetch(con, query: str) -> tuple[list[str], list[tuple]]:
    """(column names, rows) of ``query``; a figure and the table under it ask for the same
    query, so within the page's rendering (memo.session) it runs once."""
    def run():
        cur = con.execute(query)
        return [d[0] for d in cur.description], cur.fetchall()

    return cached(con, ("query", query), run)
