"""Where a run's per-job results live: one Parquet file per run, outside DuckDB.

Why: a sweep's runs are computed in parallel, and funnelling every run's jobs
through the one process that writes the DuckDB file made that process the
bottleneck. Now the process that ran the loop writes
``parquet/sim_jobs/<run_id>.parquet`` itself (temporary name, fsync, rename),
and the DuckDB file keeps only the catalogue: the ``runs`` row and the
``run_metrics`` rows, committed afterwards by the writer.

Readers see ``sim_jobs`` as a view (made per connection, :func:`attach`) over
those files, restricted to runs whose ``runs`` row is committed. So a file
whose run was never committed (the writer was killed between the worker's
rename and the commit) is invisible, and the next writer deletes it
(:func:`prepare_writer`). Re-running a stored run (``--force``) renames an
identical file over the old one (the loop is deterministic and the run_id
hashes inputs, configuration and code), so readers never see a mix.

An old warehouse kept the jobs in a ``sim_jobs`` table; migration 070 renames
it ``sim_jobs_legacy``, the view still shows its rows, and the first writer
moves them out to files (:func:`prepare_writer`).

A node-aware run's per-job node data (``sim_nodes``: node set, T_node, ...)
lives the same way in ``parquet/sim_nodes/<run_id>.parquet`` (migration 160
renames the old table ``sim_nodes_legacy``); every function here takes the
kind of result (``KINDS``), ``sim_jobs`` by default.

Light on purpose (no NumPy/Arrow at import): ``walltime sql`` attaches the view.
"""

from __future__ import annotations

import os
from pathlib import Path

# kind -> (columns of a run's file, what the view selects from the files, order of a file's rows)
# sim_jobs: "end" and wait are derived in the view (start + run, start - submit), not stored twice.
# OPTIONAL: columns a later version added (in the files, not in the select: _select adds them, or NULL
# where no file has them yet, every run being older than the column).
KINDS = {
    "sim_jobs": (
        ("run_id", "job_id", "month", "submit", "run", "nodes", "req", "est_wait", "est_run",
         "start", "backfilled", "predicted_start", "score", "first_bound", "preemptions"),
        'run_id, job_id, month, submit, run, nodes, req, est_wait, est_run, start, start + run AS "end", '
        "start - submit AS wait, backfilled, predicted_start, score, first_bound",
        "submit, job_id"),
    "sim_nodes": (
        ("run_id", "job_id", "node_count", "node_ranges", "t_node", "t_node_strict", "plan_changes", "pinned_at"),
        "run_id, job_id, node_count, node_ranges, t_node, t_node_strict, plan_changes, pinned_at",
        "job_id"),
}
OPTIONAL = {"sim_jobs": ("preemptions",)}


def _select(kind: str, optional: bool) -> str:
    """What the view selects from the files: KINDS' select and the OPTIONAL columns (else NULL)."""
    extra = [c if optional else f"NULL::BIGINT AS {c}" for c in OPTIONAL.get(kind, ())]
    return ", ".join([KINDS[kind][1], *extra])
DIR = ("parquet", "sim_jobs")
FILE_COLUMNS = KINDS["sim_jobs"][0]


def results_dir(root: str | os.PathLike, kind: str = "sim_jobs") -> Path:
    return Path(root) / "parquet" / kind


def run_file(root: str | os.PathLike, run_id: str, kind: str = "sim_jobs") -> Path:
    return results_dir(root, kind) / f"{run_id}.parquet"


def _has_legacy(con, kind: str = "sim_jobs") -> bool:
    import duckdb

    try:  # cheaper than asking the catalogue views (0.1-0.3 s on a busy machine)
        con.execute(f"SELECT 1 FROM main.{kind}_legacy LIMIT 0")
        return True
    except duckdb.CatalogException:
        return False


def attach(con, root: str | os.PathLike) -> None:
    """Create (or refresh) the temporary views ``sim_jobs`` and ``sim_nodes`` on ``con``.

    Each only on a warehouse migrated to per-run files for it (before migration
    070, resp. 160, the table is still there and is what readers get). A column of
    ``OPTIONAL`` that no file has yet (every run older than it) reads as NULL."""
    import duckdb

    for kind in KINDS:
        if not _has_legacy(con, kind):
            continue
        d = results_dir(root, kind)
        legacy = f"SELECT * FROM main.{kind}_legacy"
        if not (d.is_dir() and any(e.name.endswith(".parquet") and not e.name.startswith(".")
                                   for e in os.scandir(d))):
            con.execute(f"CREATE OR REPLACE TEMP VIEW {kind} AS {legacy}")
            continue
        glob = str(d.resolve() / "*.parquet").replace("'", "''")
        for optional in (True, False):  # (False: no file has the OPTIONAL columns yet)
            try:
                con.execute(f"CREATE OR REPLACE TEMP VIEW {kind} AS {legacy} UNION ALL BY NAME "
                            f"SELECT {_select(kind, optional)} FROM read_parquet('{glob}', union_by_name = true) "
                            "WHERE run_id IN (SELECT run_id FROM main.runs) "
                            f"AND run_id NOT IN (SELECT DISTINCT run_id FROM main.{kind}_legacy)")
                break
            except duckdb.BinderException:
                if not optional or not OPTIONAL.get(kind):
                    raise


def bind_for_migrations(con) -> None:
    """Before a migration runs: views that migrations create over ``sim_jobs``
    (``sim_nodes``) are bound when created, so give the name a temporary
    stand-in (the old table's rows, same columns); :func:`attach` replaces it afterwards."""
    for kind in KINDS:
        if _has_legacy(con, kind):
            con.execute(f"CREATE OR REPLACE TEMP VIEW {kind} AS SELECT * FROM main.{kind}_legacy")


def unbind_after_migrations(con) -> None:
    """Drop the stand-ins of :func:`bind_for_migrations` (:func:`attach` makes the real views)."""
    for kind in KINDS:
        con.execute(f"DROP VIEW IF EXISTS temp.{kind}")


def write_atomically(table, final: Path, syncer=None, after=None, **options):
    """Write an Arrow table to ``final`` as Parquet: under a temporary name
    (``.tmp-...part``: no view reads it, and a writer that finds it after a
    kill deletes it), fsynced, then renamed. Delta-encoded integers + LZ4: 2x
    faster to write than plain + zstd (0.08 s vs 0.15 s for CTC-SP2's 77k jobs)
    for 15% more bytes, scanned as fast (docs/speed.md, "Ingest").

    ``syncer`` (a one-thread executor): the fsync and rename are done there
    and a future is returned. ``after``: called once the file has its name;
    its result (else ``final``) is the return value (or the future's)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .checks import open_new

    tmp, fh = open_new(final, ".part")  # never through a link
    ints = {f.name: "DELTA_BINARY_PACKED" for f in table.schema if pa.types.is_int64(f.type)}
    try:
        pq.write_table(table, fh, compression="lz4", column_encoding=ints, **options)
        fh.flush()
    except BaseException:
        fh.close()
        tmp.unlink(missing_ok=True)
        raise

    def finish():
        try:
            with fh:
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return after() if after is not None else final

    return syncer.submit(finish) if syncer is not None else finish()


def write_run_file(root: str | os.PathLike, run_id: str, table, kind: str = "sim_jobs", syncer=None):
    """Write a run's jobs (an Arrow table) atomically to its file; returns the path.
    The temporary name does not end in .parquet, so the view never reads it, and
    starts with .tmp-, so a writer that finds it after a kill deletes it.

    ``syncer`` (a one-thread executor, a study worker's): the fsync and the
    rename are left to it and a future of the path is returned, so the worker
    runs its next loop meanwhile (~3 ms of disk wait per CTC-SP2 run); the
    worker reports its runs only once every future is done."""
    import pyarrow as pa

    final = run_file(root, run_id, kind)
    final.parent.mkdir(parents=True, exist_ok=True)
    text = [f.name for f in table.schema if not pa.types.is_integer(f.type) and not pa.types.is_floating(f.type)
            and not pa.types.is_boolean(f.type)]
    # statistics only on run_id, which is what queries select files by
    return write_atomically(table, final, syncer, lambda: _written(final),
                            use_dictionary=text, write_statistics=["run_id"])


def _written(final: Path) -> Path:
    if os.environ.get("WALLTIME_TEST_KILL_AT"):  # tests only; a study's worker need not import DuckDB
        from .transactions import fault_hook  # here: it imports DuckDB

        fault_hook("after-run-file")  # tests: a kill between a run's file and its commit
    return final


def prepare_writer(con, root: str | os.PathLike) -> None:
    """Under the writer lock, before storing runs: move an old warehouse's
    ``sim_jobs_legacy`` / ``sim_nodes_legacy`` rows out to per-run files (one
    transaction each), and delete files of runs that were never committed.
    Leaves the views attached."""
    for kind, (columns, _, order) in KINDS.items():
        if not _has_legacy(con, kind):
            continue
        legacy = [r for (r,) in con.execute(f"SELECT DISTINCT run_id FROM {kind}_legacy").fetchall()]
        if legacy:
            for run_id in legacy:
                cols = [f"NULL::BIGINT AS {c}" if c in OPTIONAL.get(kind, ()) else c for c in columns]  # (later)
                table = con.sql(f"SELECT {', '.join(cols)} FROM {kind}_legacy WHERE run_id = $1 "
                                f"ORDER BY {order}", params=[run_id]).to_arrow_table()
                write_run_file(root, run_id, table, kind)
            con.execute("BEGIN TRANSACTION")
            try:
                con.execute(f"DELETE FROM {kind}_legacy")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
            con.execute("CHECKPOINT")  # give the space back
        d = results_dir(root, kind)
        if d.is_dir():
            committed = {r for (r,) in con.execute("SELECT run_id FROM runs").fetchall()}
            for entry in os.scandir(d):
                name = entry.name
                if name.endswith(".parquet") and not name.startswith(".") and name[:-8] not in committed:
                    Path(entry.path).unlink(missing_ok=True)
    attach(con, root)
