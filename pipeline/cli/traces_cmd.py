"""``walltime traces``."""

from __future__ import annotations

from .. import sqlfiles
from . import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, print_table, rows_as_dicts, warehouse


def list_traces(wh) -> tuple[list[str], list[tuple]]:
    con = wh.reader()
    try:
        cur = con.execute(sqlfiles.load("traces_list"))
        return [d[0] for d in cur.description], cur.fetchall()
    finally:
        con.close()


@app.command()
def traces(wh: WarehouseOpt = DEFAULT_WAREHOUSE, as_json: JsonOpt = False) -> None:
    """The traces in the warehouse: jobs, rejected lines, span, capacity, users, sha256."""
    columns, rows = list_traces(warehouse(wh))
    if as_json:
        print_json(rows_as_dicts(columns, rows))
        return
    short = [tuple(v[:16] if c == "sha256" else v for c, v in zip(columns, r)) for r in rows]
    print_table(columns, short)
