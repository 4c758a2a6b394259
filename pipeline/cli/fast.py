"""The plain forms of `walltime traces`, `walltime sql` and `walltime predict`, run without Typer.

Why: Typer builds a Pydantic ``TypeAdapter`` for every parameter it parses
(0.1-0.15 s of imports and schema building), which doubled the start-up of the
two commands scripts call most (bench/startup.py; aim: under 0.3 s).

Only command lines whose meaning is beyond doubt are taken: the command name
first, then the command's own options (``--json``, ``--csv`` for sql,
``--warehouse DIR`` or ``--warehouse=DIR``, each at most once, a value that is
not empty and does not start with ``-``) and, for sql, exactly one query that
does not start with ``-``. Anything else (``--help``, a typo, a missing or
repeated option, ``--``) goes to Typer, so help texts and usage errors are
Typer's own. `predict` takes at most one TRACE and its job options, each at
most once, with a value not starting with ``-`` (digits only where Typer wants
an integer), and imports neither Rich nor the library's heavy stacks
(pipeline/cli/predict_run.py; aim 0.3 s for one job). ``--warehouse`` falls back to ``$WALLTIME_WAREHOUSE`` (when not
empty) and then ``warehouse``, as Click does. tests/test_cli_startup.py runs
both paths on the same command lines and compares what they print.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

# == pipeline/cli/plain.py's (not imported here: it loads Rich; tests/test_cli_startup.py)
ENV_VAR = "WALLTIME_WAREHOUSE"
DEFAULT_WAREHOUSE = Path("warehouse")

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


# `predict`: option -> whether Typer parses its value as an integer
_PREDICT = {"--model": False, "--user": False, "--account": False, "--partition": False, "--qos": False,
            "--name": False, "--request": False, "--processors": True, "--nodes": True, "--gpus": True,
            "--submit": True, "--warehouse": False}


def _parse_predict(argv: list[str]) -> tuple[dict[str, str], bool, list[str]] | None:
    """(option -> value, --json given, positional arguments) of a plain
    `predict` line, or None."""
    values: dict[str, str] = {}
    as_json = False
    args: list[str] = []
    rest = iter(argv[1:])
    for a in rest:
        if not a.startswith("-"):
            args.append(a)
            continue
        name, eq, value = a.partition("=")
        if name == "--json" and not eq and not as_json:
            as_json = True
            continue
        if name not in _PREDICT or name in values:
            return None
        if not eq:
            value = next(rest, "")
        if not value or value.startswith("-") or (_PREDICT[name] and not (value.isascii() and value.isdigit())):
            return None
        values[name] = value
    if len(args) > 1:
        return None
    return values, as_json, args


def _predict(argv: list[str]) -> Callable[[], None] | None:
    parsed = _parse_predict(argv)
    if parsed is None:
        return None
    values, as_json, args = parsed
    wh = values.pop("--warehouse", None)
    wh = Path(wh) if wh is not None else (Path(os.environ[ENV_VAR]) if os.environ.get(ENV_VAR)
                                          else DEFAULT_WAREHOUSE)
    model = values.pop("--model", None)
    given = {k[2:]: int(v) if _PREDICT[k] else v for k, v in values.items()}
    from .predict_run import run

    return lambda: run(args[0] if args else None, None if model is None else Path(model), given, wh, as_json)


def command(argv: list[str]) -> Callable[[], None] | None:
    """A function running this command line without Typer, or None (Typer's turn)."""
    if argv and argv[0] == "predict":
        return _predict(argv)
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
