"""The plain forms of `walltime traces` and `walltime sql`, run without Typer.

Why: Typer builds a Pydantic ``TypeAdapter`` for every parameter it parses
(0.1-0.15 s of imports and schema building), which doubled the start-up of the
two commands scripts call most (bench/startup.py; aim: under 0.3 s).

Only command lines whose meaning is beyond doubt are taken: the command name
first, then the command's own options (``--json``, ``--csv`` for sql,
``--warehouse DIR`` or ``--warehouse=DIR``, each at most once, a value that is
not empty and does not start with ``-``) and, for sql, exactly one query that
does not start with ``-``. Anything else (``--help``, a typo, a missing or
repeated option, ``--``) goes to Typer, so help texts and usage errors are
Typer's own. ``--warehouse`` falls back to ``$WALLTIME_WAREHOUSE`` (when not
empty) and then ``warehouse``, as Click does. tests/test_cli_startup.py runs
both paths on the same command lines and compares what they print.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .plain import DEFAULT_WAREHOUSE, ENV_VAR

# command -> (its flags, how many positional arguments it takes)
_COMMANDS = {"traces": (("--json",), 0), "sql": (("--json", "--csv"), 1)}


def _parse(argv: list[str]) -> tuple[set[str], Path | None, list[str]] | None:
    """(flags given, --warehouse value or None, positional arguments), or None
    when the line is not one of the plain forms."""
    flags, positional = _COMMANDS[argv[0]]
    seen: set[str] = set()
    wh: Path | None = None
    args: list[str] = []
    rest = iter(argv[1:])
    for a in rest:
        if not a.startswith("-"):
            args.append(a)
            continue
        name, eq, value = a.partition("=")
        if name in seen:
            return None
        seen.add(name)
        if name in flags and not eq:
            continue
        if name != "--warehouse":
            return None
        if not eq:
            value = next(rest, "")
        if not value or value.startswith("-"):
            return None
        wh = Path(value)
    if len(args) != positional:
        return None
    return seen - {"--warehouse"}, wh, args


def command(argv: list[str]) -> Callable[[], None] | None:
    """A function running this command line without Typer, or None (Typer's turn)."""
    if not argv or argv[0] not in _COMMANDS:
        return None
    parsed = _parse(argv)
    if parsed is None:
        return None
    flags, wh, args = parsed
    if wh is None:
        wh = Path(os.environ[ENV_VAR]) if os.environ.get(ENV_VAR) else DEFAULT_WAREHOUSE
    from . import readers

    if argv[0] == "traces":
        return lambda: readers.show_traces(wh, "--json" in flags)
    return lambda: readers.show_sql(wh, args[0], "--csv" in flags, "--json" in flags)
