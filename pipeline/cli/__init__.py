"""The ``walltime`` command: a thin Typer layer over the library.

Each stage's commands live in their own module here and register on ``app``
(pipeline/cli/_app.py, imported when first asked for: ``from pipeline.cli import
app``). ``main`` first offers the command line to pipeline/cli/fast.py, which
runs the plain forms of `walltime traces` and `walltime sql` without Typer
(start-up under 0.3 s), and gives everything else, --help and every mistake
included, to Typer.

``main`` turns user mistakes (WalltimeError, bad options), failed file
operations (a full disk, a read-only file system) and damaged warehouse files
into one line on stderr and exit code 1. Anything else is a bug: one line
saying so, exit code 2, and the traceback only with WALLTIME_DEBUG=1.
"""

from __future__ import annotations

import contextlib
import os
import sys

from ..errors import WalltimeError, duckdb_message, one_line, os_message, quote


def __getattr__(name: str):
    """``app`` (the Typer application) is built on first use."""
    if name == "app":
        from ._app import app, register

        register()  # every command
        globals()["app"] = app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    # No command does linear algebra, but NumPy's OpenBLAS starts a thread per
    # core at import that spins: 3% of a 2 M-line sacct ingest's CPU, taken
    # from the scan running beside the imports. (Before NumPy is imported.)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from . import fast

    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # bare `walltime`: the help, and success
        argv = ["--help"]
    try:
        run = fast.command(argv)
        if run is not None:
            code = run()
        else:
            from ._app import app, register

            register(argv[0])  # only the named command's module, when argv[0] names one
            code = app(args=argv, standalone_mode=False)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
    except BrokenPipeError:  # `walltime sql ... | head`: the reader has all it wanted
        _pipe_closed()
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


def _pipe_closed() -> None:
    """The reader of stdout went away: exit quietly with the status a Unix tool
    killed by SIGPIPE has (128 + 13), and let nothing flush into the closed pipe."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(141)


def _fail(message: str, code: int = 1) -> None:
    print(f"error: {one_line(message)}", file=sys.stderr)
    sys.exit(code)
