"""Options every command shares (Typer annotations); the output helpers live
in pipeline/cli/plain.py (no Typer) and are re-exported here."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .plain import (  # noqa: F401  (re-exported for the *_cmd modules)
    DEFAULT_WAREHOUSE,
    ENV_VAR,
    _plain,
    print_csv,
    print_json,
    print_table,
    rows_as_dicts,
    say,
    shown,
    stdout,
    warehouse,
)

WarehouseOpt = Annotated[
    Path,
    typer.Option(
        "--warehouse",
        envvar=ENV_VAR,
        help="Warehouse directory (DuckDB file + Parquet).",
        show_default=True,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")]
