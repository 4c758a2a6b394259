"""Read a report table from its warehouse view, restricted to the report's traces."""

from __future__ import annotations

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
    cur = con.execute(query)
    return Table(title, view, [d[0] for d in cur.description], cur.fetchall(), query)


def rows(con, view: str, traces: list[str], order: str | None = None, columns: str = "*",
         where: str | None = None) -> list[dict]:
    """The same rows as dicts, for drawing figures."""
    cur = con.execute(view_query(view, traces, order, columns, where))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]
