"""The CLI's pieces that need no Typer: the warehouse option's default and
environment variable, and the output helpers (table / JSON / CSV).

Why apart from common.py: `walltime traces` and `walltime sql` run without
Typer (pipeline/cli/fast.py) and import only this, rich and DuckDB.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ..errors import printable

ENV_VAR = "WALLTIME_WAREHOUSE"  # == pipeline.warehouse.ENV_VAR (tests/test_cli_startup.py)
DEFAULT_WAREHOUSE = Path("warehouse")

stdout = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)


def warehouse(path: Path):
    """A Warehouse (imported here, not at start-up: it pulls in DuckDB)."""
    from ..warehouse import Warehouse

    return Warehouse(path)


def _plain(v: Any) -> Any:
    """A JSON-friendly version of a value from DuckDB/Arrow."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    dec = sys.modules.get("decimal")  # a Decimal exists only if its module was imported (0.01 s at start-up)
    if dec is not None and isinstance(v, dec.Decimal):
        return float(v)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return str(v)


def print_json(doc: Any) -> None:
    import json

    json.dump(doc, sys.stdout, default=_plain, indent=2)
    sys.stdout.write("\n")


def rows_as_dicts(columns: list[str], rows: list[tuple]) -> list[dict]:
    return [{c: _plain(v) for c, v in zip(columns, r)} for r in rows]


def shown(v: Any) -> str:
    """How a value is shown to a person (tables, sentences): control characters
    escaped (``\\x1b``: :func:`pipeline.errors.printable`) and rich markup escaped
    (``[/x]`` is shown, not interpreted). Why: values come from logs, and a job
    name holding ``ESC]0;...BEL`` or ``[/x]`` must neither act on the terminal
    nor crash the table. JSON and CSV keep values exact; they do not use this."""
    from rich.markup import escape

    return escape(printable("" if v is None else str(_plain(v))))


def print_table(columns: list[str], rows: list[tuple], title: str | None = None) -> None:
    """The one printer of tables: every header, title and cell goes through :func:`shown`."""
    table = Table(title=None if title is None else shown(title), show_lines=False, header_style="bold")
    for c in columns:
        table.add_column(shown(c), overflow="fold")
    for r in rows:
        table.add_row(*(shown(v) for v in r))
    stdout.print(table)


def say(text: str) -> None:
    """Print a line for a person on stdout (not through rich): control characters
    escaped (a path or name in it may come from a log or a directory listing)."""
    print(printable(text))


def print_csv(columns: list[str], rows: list[tuple]) -> None:
    import csv

    w = csv.writer(sys.stdout, lineterminator="\n")  # LF, as shell tools expect (csv's default is CRLF)
    w.writerow(columns)
    for r in rows:
        w.writerow(["" if v is None else _plain(v) for v in r])
