"""The ``walltime`` command: a thin Typer layer over the library.

Each stage's commands live in their own module here and register on ``app``.
``main`` turns user mistakes (WalltimeError, bad options), failed file
operations (a full disk, a read-only file system) and damaged warehouse files
into one line on stderr and exit code 1. Anything else is a bug: one line
saying so, exit code 2, and the traceback only with WALLTIME_DEBUG=1.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from ..errors import WalltimeError, duckdb_message, one_line, os_message, quote

app = typer.Typer(
    name="walltime",
    help="How wrong are users' runtime estimates, how much better can the system guess them, "
    "and what does that do to the queue? Ingest job traces, characterize and improve "
    "estimates, replay schedulers, report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("walltime")
    except PackageNotFoundError:
        return "unknown (not installed; run from a source tree)"


def _print_version(value: bool) -> None:
    if value:
        print(f"walltime {version()}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                               help="Print walltime's version and exit.")] = False,
) -> None:
    """How wrong are users' runtime estimates, how much better can the system guess them,
    and what does that do to the queue? Start with `walltime demo`, or `walltime ingest
    TRACE.swf` then `walltime summary TRACE`."""


def _register_commands() -> None:
    """Import every ``*_cmd`` module here; each registers its commands on ``app``."""
    import importlib
    import pkgutil

    for mod in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.endswith("_cmd")):
        importlib.import_module(f"{__name__}.{mod}")


_register_commands()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # bare `walltime`: the help, and success
        argv = ["--help"]
    try:
        code = app(args=argv, standalone_mode=False)
    except WalltimeError as e:
        _fail(str(e))
    except KeyboardInterrupt:
        _fail("interrupted; the warehouse is as it was before this command", code=130)
    except OSError as e:
        _fail(os_message(e))
    except Exception as e:  # Typer/Click usage errors carry format_message()
        if hasattr(e, "format_message") and hasattr(e, "exit_code"):
            ctx = getattr(e, "ctx", None)
            where = f"{ctx.command_path}: " if ctx is not None else "walltime: "
            _fail(where + quote(e.format_message().replace("\n", " "), 400))
        if type(e).__name__ == "Abort":
            _fail("aborted", code=1)
        if type(e).__module__.split(".")[0] in ("duckdb", "_duckdb"):
            _fail(duckdb_message(e))
        if os.environ.get("WALLTIME_DEBUG") == "1":
            raise
        _fail(f"internal error ({type(e).__name__}: {quote(' '.join(str(e).split()), 200)}); this is a bug "
              "in walltime: please report it with the command you ran (WALLTIME_DEBUG=1 shows the traceback)",
              code=2)
    sys.exit(code if isinstance(code, int) else 0)


def _fail(message: str, code: int = 1) -> None:
    print(f"error: {one_line(message)}", file=sys.stderr)
    sys.exit(code)
