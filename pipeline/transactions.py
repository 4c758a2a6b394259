"""One DuckDB transaction (:func:`transaction`), and the points where tests
kill the process (:func:`fault_hook`: right after a COMMIT, between a file
and the commit that names it).

Why a module of its own: the warehouse (pipeline/warehouse.py) and the file
stores it composes (pipeline/jobs_files.py, pipeline/sim_results.py) all
commit through these, so they sit below all three.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import duckdb

_HOOK_COUNTS: dict[str, int] = {}


def fault_hook(point: str) -> None:
    """Tests only: ``WALLTIME_TEST_KILL_AT=<point>[:N]`` kills this process
    with SIGKILL the N-th time (default 1st) it passes ``point`` (e.g.
    ``after-commit``: right after a COMMIT), to prove recovery at that moment."""
    spec = os.environ.get("WALLTIME_TEST_KILL_AT")
    if not spec:
        return
    name, _, nth = spec.partition(":")
    if name != point:
        return
    _HOOK_COUNTS[point] = _HOOK_COUNTS.get(point, 0) + 1
    if _HOOK_COUNTS[point] == int(nth or 1):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """BEGIN ... COMMIT, or ROLLBACK on any exception."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    fault_hook("after-commit")
