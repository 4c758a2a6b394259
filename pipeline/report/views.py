"""Read a report table from its warehouse view, restricted to the report's traces."""

from __future__ import annotations

from .page import Table


def view_table(con, title: str, view: str, traces: list[str], order: str | None = None) -> Table:
    names = ", ".join("'" + t.replace("'", "''") + "'" for t in traces)
    where = f"trace IN ({names})"
    query = f"SELECT * FROM {view} WHERE {where}" + (f" ORDER BY {order}" if order else " ORDER BY ALL")
    cur = con.execute(query)
    return Table(title, view, [d[0] for d in cur.description], cur.fetchall(), where)
