"""Progress bars on stderr (rich), silent when stderr is not a terminal unless forced.

Set WALLTIME_PROGRESS=1 to force bars (e.g. in logs), 0 to silence them.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from rich.console import Console
from rich.progress import (BarColumn, DownloadColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                           TimeElapsedColumn)
from rich.text import Text

from .errors import printable

stderr = Console(stderr=True)


def enabled() -> bool:
    flag = os.environ.get("WALLTIME_PROGRESS")
    if flag is not None:
        return flag not in ("0", "", "false", "no")
    return sys.stderr.isatty()


@contextlib.contextmanager
def bar(transient: bool = True, unit: str = "steps") -> Iterator[Progress | None]:
    """A rich Progress on stderr, or None when progress display is off. It
    counts steps ("3/12") unless ``unit="bytes"`` (reading a file)."""
    if not enabled():
        yield None
        return
    with Progress(
        SpinnerColumn(),
        _Description(),
        BarColumn(),
        DownloadColumn() if unit == "bytes" else MofNCompleteColumn(),
        TimeElapsedColumn(),
        # forced on a pipe/file (WALLTIME_PROGRESS=1): draw anyway, else rich stays silent
        console=stderr if stderr.is_terminal else Console(stderr=True, force_terminal=True),
        transient=transient,
    ) as p:
        yield p


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Stages draw their own bars; a caller with a bar of its own keeps them
    silent meanwhile (one live display at a time)."""
    old = os.environ.get("WALLTIME_PROGRESS")
    os.environ["WALLTIME_PROGRESS"] = "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("WALLTIME_PROGRESS", None)
        else:
            os.environ["WALLTIME_PROGRESS"] = old


def note(message: str) -> None:
    """A one-line message for humans, on stderr: plain text (no markup; control
    characters escaped), since it may name a file or a partition from a log."""
    stderr.print(printable(message), markup=False, highlight=False, soft_wrap=True)


class _Description(TextColumn):
    """A task's description as plain text (no markup; control characters
    escaped): descriptions name the file being read."""

    def __init__(self) -> None:
        super().__init__("{task.description}", markup=False)

    def render(self, task) -> Text:
        return Text(printable(task.description))
