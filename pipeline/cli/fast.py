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


def _scan(argv: list[str], flags: tuple[str, ...], valued) -> tuple[set[str], dict[str, str], list[str]] | None:
    """(flags given, option -> value, positional arguments) of a command line
    whose options are ``flags`` (no value) and ``valued`` (one value each, not
    empty, not starting with ``-``), each at most once; None for anything else."""
    seen: set[str] = set()
    values: dict[str, str] = {}
    args: list[str] = []
    rest = iter(argv[1:])
    for a in rest:
        if not a.startswith("-"):
            args.append(a)
            continue
        name, eq, value = a.partition("=")
        if name in seen or name in values:
            return None
        if name in flags and not eq:
            seen.add(name)
            continue
        if name not in valued:
            return None
        if not eq:
            value = next(rest, "")
        if not value or value.startswith("-"):
            return None
        values[name] = value
    return seen, values, args


def _parse(argv: list[str]) -> tuple[set[str], Path | None, list[str]] | None:
    """(flags given, --warehouse value or None, positional arguments), or None
    when the line is not one of the plain forms."""
    flags, positional = _COMMANDS[argv[0]]
    parsed = _scan(argv, flags, ("--warehouse",))
    if parsed is None or len(parsed[2]) != positional:
        return None
    seen, values, args = parsed
    return seen, Path(values["--warehouse"]) if "--warehouse" in values else None, args


# `predict`: option -> whether Typer parses its value as an integer
_PREDICT = {"--model": False, "--user": False, "--account": False, "--partition": False, "--qos": False,
            "--name": False, "--request": False, "--processors": True, "--nodes": True, "--gpus": True,
            "--submit": True, "--warehouse": False}


def _parse_predict(argv: list[str]) -> tuple[dict[str, str], bool, list[str]] | None:
    """(option -> value, --json given, positional arguments) of a plain
    `predict` line (at most one TRACE; digits only for Typer's integers), or None."""
    parsed = _scan(argv, ("--json",), _PREDICT)
    if parsed is None or len(parsed[2]) > 1:
        return None
    seen, values, args = parsed
    if any(_PREDICT[k] and not (v.isascii() and v.isdigit()) for k, v in values.items()):
        return None
    return values, "--json" in seen, args


def _predict(argv: list[str]) -> Callable[[], None] | None:
    parsed = _parse_predict(argv)
    if parsed is None:
        return None
    values, as_json, args = parsed
    wh = values.pop("--warehouse", None)
    wh = Path(wh) if wh is not None else (Path(os.environ[ENV_VAR]) if os.environ.get(ENV_VAR)
                                          else DEFAULT_WAREHOUSE)
    model = values.pop("--model", None)
    long = next((k for k, v in values.items() if _PREDICT[k] and len(v) > 18), None)
    if long is not None:  # Python refuses to convert past 4,300 digits; no count or time needs 19
        from ..errors import WalltimeError, quote

        raise WalltimeError(f'{long} "{quote(values[long], 24)}": expected a whole number of at most 18 digits')
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
