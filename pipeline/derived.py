"""What is stored for a trace's current content, and forgetting it on replace.

Why one module: results (estimates, grids, characterization, runs, template
sets) are computed from a trace's jobs; after ``ingest --replace`` they
describe content that is gone. The ingest removes them in its own transaction
(:func:`forget`), and every reader that asks "is X stored for this trace?"
asks here, through the named queries ``sql/stored_*.sql``, which also compare
with the trace's current content (its sha256, or when it was ingested), so a
warehouse written by an older version that kept stale rows is read right too.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from . import sim_results, sqlfiles


def derived_sources(con) -> dict[str, str]:
    """Each derived trace's source (table ``derived_traces``, sql/335: a paper's workload `reproduce` made
    from another trace); empty where no writer has added the table yet."""
    if not con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 'derived_traces'").fetchone():
        return {}
    return dict(con.execute("SELECT trace, source FROM derived_traces").fetchall())


def stored_schemes(con, trace: str) -> set[str]:
    """Estimate schemes stored for the trace's current content."""
    return {s for (s,) in con.execute(sqlfiles.load("estimates_stored"), [trace]).fetchall()}


def grid_stored(con, trace: str, grid: str) -> bool:
    """Whether grid ``grid`` (e.g. 'tang') is stored for the trace's current content."""
    return con.execute(sqlfiles.load("estimates_grid_stored"), [trace, grid]).fetchone()[0] > 0


def characterized(con, trace: str) -> bool:
    """Whether the trace's characterization was computed from its current content."""
    return con.execute(sqlfiles.load("stored_characterize"), [trace]).fetchone()[0] > 0


def stored_run(con, trace: str, config: str, code_version: str | None = None) -> str | None:
    """The newest run of the trace under ``config`` (canonical JSON) computed
    from its current content (and by ``code_version``, when given), or None."""
    row = con.execute(sqlfiles.load("stored_run"), [trace, config, code_version]).fetchone()
    return row[0] if row else None


def forget(con, trace: str) -> tuple[list[str], list[str]]:
    """Inside the caller's transaction: remove every result computed from
    ``trace``'s content (``sql/trace_forget_results.sql``). Returns the run ids
    whose files to delete after COMMIT (:func:`drop_run_files`) and the traces
    whose estimates mirror must be staged anew (their rows changed)."""
    runs = [r for (r,) in con.execute("SELECT run_id FROM runs WHERE trace = ?", [trace]).fetchall()]
    mirrors = [t for (t,) in con.execute(
        "SELECT DISTINCT trace FROM estimates WHERE trace = $1 OR scheme IN "
        "(SELECT 'smith:set=' || name FROM template_sets WHERE trace = $1)", [trace]).fetchall()]
    for statement in sqlfiles.statements("trace_forget_results"):
        con.execute(statement, [trace])
    return runs, mirrors


def drop_run_files(root, run_ids: list[str]) -> None:
    """After COMMIT: delete the per-job files of forgotten runs (a kill before
    this leaves files no view shows; the next writer deletes them too)."""
    for run_id in run_ids:
        for kind in sim_results.KINDS:
            with contextlib.suppress(FileNotFoundError):
                Path(sim_results.run_file(root, run_id, kind)).unlink()


def drop_model_files(root, trace: str) -> None:
    """After COMMIT: delete a replaced trace's learned model directory
    (its ``learned_models`` row went in the transaction)."""
    import shutil

    from .learned_model import legacy_holds, legacy_model_dir, model_dir

    shutil.rmtree(model_dir(root, trace), ignore_errors=True)
    old = legacy_model_dir(root, trace)  # an earlier walltime's place: removed only when it says it is this trace's
    if old != model_dir(root, trace) and legacy_holds(old, trace):
        shutil.rmtree(old, ignore_errors=True)
