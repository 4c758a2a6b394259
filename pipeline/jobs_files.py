"""Where a trace's jobs live: Parquet files outside DuckDB, one set per trace.

Why: inserting a trace into a DuckDB table cost 1.7-2.1 CPU-s per million
rows (compression), more than reading and parsing them, and the rows were
written twice (table + Parquet mirror). Now the ingest writes each trace's
jobs once, as ``parquet/jobs/<trace>/<token>-<k>.parquet`` (k = 0..parts-1,
in row order; big traces are cut in parts written on every core), under their
final names, fsynced, BEFORE its ``jobs_files`` row commits. The DuckDB file
keeps only the catalogue: ``jobs_files`` (which token is the trace's), and a
persistent view ``jobs`` over the committed files, rewritten in the same
transaction (migration 190). So:

- a file that no committed row names is invisible (a writer killed before
  COMMIT) and the next writer deletes it (:func:`prepare_writer`); after
  COMMIT the trace's older token's files are deleted, or by the next writer
  if this one is killed first;
- readers open the DuckDB file only when no writer has it open, and then see
  the view of the last commit, which names only complete files;
- the view holds absolute paths (plain ``duckdb.connect`` on the file works).
  A warehouse copied or moved elsewhere: every walltime connection makes a
  temporary view over its own directory (:func:`attach`) and the next writer
  rewrites the persistent one.

An old warehouse kept the jobs in a table; migration 190 renames it
``jobs_legacy`` (the view shows its rows meanwhile) and the first writer moves
them out to files. ``jobs_legacy`` stays, empty, as the holder of the columns'
types: every file is cast to them, and a migration that adds ``jobs`` columns
says what older files get in :data:`ADDED` (the next writer rewrites them: :func:`_add_columns`).

Light on purpose (no Arrow at import): ``walltime sql`` attaches the view.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from pathlib import Path

ROWS_PER_PART = 250_000  # a trace above this is written in parts, one per core at most
# Parquet min/max statistics only where readers filter (statistics on every text column cost 20% of the write)
STATISTICS = ("trace", "job_id", "submit", "submit_ts", "month")
NOT_NULL = ("trace", "job_id", "line")  # the old table's NOT NULL columns (120 let submit be NULL)
_TOKEN = re.compile(r"^([0-9a-f]{32})-(\d+)\.parquet$")


def jobs_dir(root: str | os.PathLike) -> Path:
    return Path(root) / "parquet" / "jobs"


def trace_dir(root: str | os.PathLike, trace: str) -> Path:
    return jobs_dir(root) / trace


def part_path(root: str | os.PathLike, trace: str, token: str, k: int) -> Path:
    return trace_dir(root, trace) / f"{token}-{k}.parquet"


def migrated(con) -> bool:
    import duckdb

    try:  # cheaper than asking the catalogue views
        con.execute("SELECT 1 FROM main.jobs_files LIMIT 0").fetchall()
        return True
    except duckdb.CatalogException:
        return False


def _resolved(root) -> str:
    return str(Path(root).resolve())


def view_sql(con, root: str | os.PathLike) -> str:
    """The ``jobs`` view over the committed files of ``root`` (the legacy table
    while no trace has files)."""
    rows = con.execute("SELECT trace, token, parts FROM main.jobs_files ORDER BY trace").fetchall()
    paths = [str(part_path(_resolved(root), t, tok, k)) for t, tok, parts in rows for k in range(parts)]
    if not paths:
        return "SELECT * FROM main.jobs_legacy"
    listed = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
    return f"SELECT * FROM read_parquet([{listed}])"


def refresh_view(con, root: str | os.PathLike) -> None:
    """Rewrite the persistent view for ``root`` (inside the caller's transaction)."""
    con.execute("CREATE OR REPLACE VIEW main.jobs AS " + view_sql(con, root))
    con.execute("UPDATE main.jobs_files SET root = ? WHERE root <> ?", [_resolved(root)] * 2)


def moved(con, root: str | os.PathLike) -> bool:
    """True when the persistent view's paths were written for another directory."""
    rows = con.execute("SELECT root FROM main.jobs_files LIMIT 1").fetchall()  # all: frees the result
    return bool(rows) and rows[0][0] != _resolved(root)


def attach(con, root: str | os.PathLike) -> None:
    """On a walltime connection: if the warehouse was copied or moved since its
    view was written, shadow it with a temporary view over this directory (the
    persistent one is rewritten by the next command that writes: :func:`settle`)."""
    if migrated(con) and moved(con, root):
        con.execute("CREATE OR REPLACE TEMP VIEW jobs AS " + view_sql(con, root))


def settle(con, root: str | os.PathLike) -> None:
    """After a writer's work succeeded: rewrite the persistent view if the
    warehouse was moved (a refused command changes nothing, so not before)."""
    if migrated(con) and moved(con, root):
        from .transactions import transaction

        with transaction(con):
            refresh_view(con, root)
        con.execute("DROP VIEW IF EXISTS temp.jobs")


def schema(con):
    """The Arrow schema of ``jobs`` (the legacy table's column types)."""
    return con.sql("SELECT * FROM main.jobs_legacy LIMIT 0").to_arrow_table().schema


def conform(data, target):
    """``data`` (an Arrow table) with the columns of ``target`` in its order and
    types; text columns keep their layout (string views and dictionaries of
    strings cost no copy)."""
    import pyarrow as pa

    cols = []
    for f in target:
        col = data.column(f.name)
        text = pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
        if pa.types.is_dictionary(col.type):  # text as a dictionary (SWF ids: ingest/names.py)
            text_kept = pa.types.is_string(col.type.value_type)
        else:
            text_kept = (pa.types.is_string_view(col.type) or pa.types.is_string(col.type)
                         or pa.types.is_large_string(col.type))
        if not (text and text_kept) and col.type != f.type:
            col = col.cast(f.type)
        cols.append(col)
    out = pa.Table.from_arrays(cols, names=target.names)
    for name in NOT_NULL:
        if out.column(name).null_count:
            raise ValueError(f"jobs.{name}: {out.column(name).null_count} NULL values (the column is NOT NULL)")
    return out


def parts_for(rows: int) -> int:
    return max(1, min(os.cpu_count() or 1, -(-rows // ROWS_PER_PART)))


def write(root: str | os.PathLike, trace: str, data) -> tuple[str, int]:
    """Write a trace's jobs (an Arrow table, already :func:`conform`-ed) under a
    new token, in parts written in threads (the Parquet writer holds one core);
    returns (token, parts). Each part: temporary name, fsync, rename."""
    from concurrent.futures import ThreadPoolExecutor

    token = uuid.uuid4().hex
    parts = parts_for(data.num_rows)
    step = -(-data.num_rows // parts)
    d = trace_dir(root, trace)
    d.mkdir(parents=True, exist_ok=True)
    slices = [(k, data.slice(k * step, step)) for k in range(parts)]
    try:
        if parts == 1:
            _write_part(part_path(root, trace, token, 0), data)
        else:
            with ThreadPoolExecutor(parts) as pool:
                list(pool.map(lambda ks: _write_part(part_path(root, trace, token, ks[0]), ks[1]), slices))
    except BaseException:
        discard(root, trace, token, parts)
        raise
    return token, parts


def _write_part(final: Path, data) -> None:
    import pyarrow as pa

    from .sim_results import write_atomically

    text = [f.name for f in data.schema
            if pa.types.is_string(f.type) or pa.types.is_large_string(f.type) or pa.types.is_string_view(f.type)
            or pa.types.is_dictionary(f.type)]
    write_atomically(data, final, use_dictionary=text, store_schema=False,
                     write_statistics=[c for c in STATISTICS if c in data.schema.names])


def discard(root, trace: str, token: str, parts: int) -> None:
    """Remove the files of a token that was never committed."""
    for k in range(parts):
        part_path(root, trace, token, k).unlink(missing_ok=True)


def record(con, root, trace: str, token: str, parts: int, rows: int) -> None:
    """The catalogue row of a trace's files (inside the caller's transaction)."""
    from datetime import datetime, timezone

    con.execute("INSERT OR REPLACE INTO main.jobs_files VALUES (?, ?, ?, ?, ?, ?)",
                [trace, token, parts, rows, _resolved(root), datetime.now(timezone.utc)])


def forget(con, trace: str) -> None:
    con.execute("DELETE FROM main.jobs_files WHERE trace = ?", [trace])


def committed_files(root, trace: str) -> list[Path]:
    """For readers without the database (study workers): the files of the one
    token found in the trace's directory, in row order. Under the writer lock
    (a study's coordinator holds it) the directory holds only the committed
    token's files (:func:`prepare_writer`, :func:`drop_others`)."""
    d = trace_dir(root, trace)
    found: dict[str, dict[int, Path]] = {}
    if d.is_dir():
        for entry in os.scandir(d):
            m = _TOKEN.match(entry.name)
            if m:
                found.setdefault(m.group(1), {})[int(m.group(2))] = Path(entry.path)
    if len(found) != 1:
        raise FileNotFoundError(f"{d}: expected the files of one committed token, found {len(found)}")
    (parts,) = found.values()
    return [parts[k] for k in sorted(parts)]


def drop_others(root, trace: str, keep: str | None) -> None:
    """Delete the trace's files of every token but ``keep`` (None: all, and the directory)."""
    d = trace_dir(root, trace)
    if not d.is_dir():
        return
    for entry in os.scandir(d):
        m = _TOKEN.match(entry.name)
        if (m and m.group(1) != keep) or (not m and entry.name.startswith(".tmp-")):
            Path(entry.path).unlink(missing_ok=True)
    if keep is None:
        shutil.rmtree(d, ignore_errors=True)


def prepare_writer(con, root: str | os.PathLike) -> None:
    """Under the writer lock, before anything is written: move an old
    warehouse's ``jobs_legacy`` rows out to files (one transaction) and delete files no committed row names
    (and the mirror files ``parquet/jobs/<trace>.parquet`` of before 190)."""
    if not migrated(con):
        return
    from .transactions import fault_hook, transaction

    legacy = [t for (t,) in con.execute("SELECT DISTINCT trace FROM main.jobs_legacy ORDER BY trace").fetchall()]
    if legacy:
        target = schema(con)
        written = []
        try:
            for trace in legacy:
                data = con.sql("SELECT * FROM main.jobs_legacy WHERE trace = $1 ORDER BY job_id",
                               params=[trace]).to_arrow_table()
                token, parts = write(root, trace, conform(data, target))
                written.append((trace, token, parts, data.num_rows))
            fault_hook("after-jobs-file")  # tests: a kill between the files and their commit
            with transaction(con):
                for trace, token, parts, rows in written:
                    record(con, root, trace, token, parts, rows)
                con.execute("DELETE FROM main.jobs_legacy")
                refresh_view(con, root)
        except BaseException:
            for trace, token, parts, _ in written:
                discard(root, trace, token, parts)
            raise
        con.execute("CHECKPOINT")  # give the space back
    _add_columns(con, root)
    committed = dict(con.execute("SELECT trace, token FROM main.jobs_files").fetchall())
    d = jobs_dir(root)
    if d.is_dir():
        for entry in os.scandir(d):
            if entry.is_dir():
                drop_others(root, entry.name, committed.get(entry.name))
            elif entry.name.endswith(".parquet"):  # a mirror file from before migration 190
                Path(entry.path).unlink(missing_ok=True)
    missing = {t for t in committed if not trace_dir(root, t).is_dir()}
    if missing:
        from .errors import DamagedWarehouse

        raise DamagedWarehouse(f"{jobs_dir(root)}: the jobs files of trace(s) {', '.join(sorted(missing))} "
                               "are missing; restore the warehouse from a backup or re-ingest them")


# Columns a migration added to ``jobs`` after traces had files, and what an older
# file's rows get (SQL over the file's columns ``j`` and the trace's ``traces`` row ``t``):
# migration 240, cores and nodes apart. The size was cores (SWF processors,
# sacct/table CPUs) unless the trace was ingested with --size nodes.
ADDED = {
    "cores": "CASE WHEN unit = 'nodes' THEN NULL ELSE j.nodes END",
    "node_count": "CASE WHEN unit = 'nodes' THEN j.nodes END",
}


def _add_columns(con, root) -> None:
    """Rewrite the committed files that lack a column of ``jobs_legacy`` (a
    migration added it), in one transaction, and the view over them: the
    rule this module's docstring states (every file has the table's columns).
    Such a migration points the view at the legacy table meanwhile."""
    import pyarrow.parquet as pq

    from .transactions import transaction

    target = schema(con)
    rows = con.execute("SELECT trace, token, parts FROM main.jobs_files ORDER BY trace").fetchall()
    stale = []
    for trace, token, parts in rows:
        first = part_path(root, trace, token, 0)
        if not first.exists():  # missing files: prepare_writer names them (a damaged warehouse)
            continue
        have = set(pq.read_schema(first).names)
        missing = [n for n in target.names if n not in have]
        if missing:
            stale.append((trace, token, parts, missing))
    if not stale and (not rows or "read_parquet" in _view_text(con)):
        return
    written = []
    try:
        for trace, token, parts, missing in stale:
            files = ", ".join("'" + str(part_path(root, trace, token, k)).replace("'", "''") + "'"
                              for k in range(parts))
            unit = "(SELECT size_unit FROM main.traces WHERE trace = $1)"
            fills = ", ".join(f"{ADDED.get(n, 'NULL').replace('unit', unit)} AS {n}" for n in missing)
            data = con.sql(f"SELECT j.*, {fills} FROM read_parquet([{files}]) j",  # (row order kept)
                           params=[trace] if "$1" in fills else None).to_arrow_table()
            new_token, new_parts = write(root, trace, conform(data, target))
            written.append((trace, new_token, new_parts, data.num_rows))
        with transaction(con):
            for trace, token, parts, n in written:
                record(con, root, trace, token, parts, n)
            refresh_view(con, root)
    except BaseException:
        for trace, token, parts, _ in written:
            discard(root, trace, token, parts)
        raise


def _view_text(con) -> str:
    got = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'jobs' AND schema_name = 'main' "
                      "AND NOT temporary").fetchall()
    return got[0][0] if got else ""
