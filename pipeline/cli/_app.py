"""The Typer application: the root options and every ``*_cmd`` module's commands.

Imported on demand (``pipeline.cli.app``), not when ``pipeline.cli`` is: Typer
builds a Pydantic adapter for each parameter it parses, which `walltime traces`
and `walltime sql` do not wait for (pipeline/cli/fast.py).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Annotated

import typer

from . import coerce

coerce.install()  # plain option values without Pydantic (pipeline/cli/coerce.py)

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


# command -> the module that registers it (tests/test_cli_startup.py checks this
# against what the modules register)
COMMAND_MODULES = {
    "characterize": "characterize_cmd", "estimate": "estimate_cmd", "evaluate": "evaluate_cmd", "export": "export_cmd",
    "generate": "generate_cmd", "ingest": "ingest_cmd", "report": "report_cmd", "reproduce": "reproduce_cmd",
    "run": "run_cmd", "demo": "run_cmd", "search-templates": "search_cmd", "simulate": "simulate_cmd",
    "sql": "sql_cmd", "summary": "summary_cmd", "traces": "traces_cmd", "warm-up": "warmup_cmd",
    "predict": "predict_cmd", "export-model": "predict_cmd",
}


def register(command: str | None = None) -> None:
    """Register ``command`` alone (all a command line naming it needs: Typer
    then builds one command's parameters instead of every command's), or, for
    anything else (--help, --version, a typo), every ``*_cmd`` module."""
    if command in COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{COMMAND_MODULES[command]}")
        return
    here = str(Path(__file__).resolve().parent)
    for mod in sorted(m.name for m in pkgutil.iter_modules([here]) if m.name.endswith("_cmd")):
        importlib.import_module(f"{__package__}.{mod}")
