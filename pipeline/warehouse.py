"""The warehouse: one DuckDB file plus Parquet mirrors under one directory.

Why this shape: DuckDB gives SQL and one-transaction atomic writes; the big
per-job tables are Parquet files the DuckDB file catalogues (a trace's jobs,
``parquet/jobs/<trace>/``: pipeline/jobs_files.py; a run's jobs: pipeline/sim_results.py),
and the Parquet mirrors (``parquet/estimates/<trace>.parquet``) let other tools
and remote workers read the estimates without opening the database. Writers hold an exclusive
``flock`` on ``.writer.lock`` for the whole command, so a second writer fails
fast with "warehouse is busy" instead of waiting or corrupting anything; a
``kill -9`` releases the lock and leaves only uncommitted (invisible) work.

Parquet mirrors that belong to a DuckDB transaction are *staged*
(:meth:`Warehouse.stage_parquet`): written under ``.tmp-<token>-<name>``, the
token recorded in ``parquet_mirrors`` inside the transaction, and renamed into
place after COMMIT (:meth:`Warehouse.publish`). The next writer renames staged
files whose token was committed and deletes the rest, so a kill at any point
leaves either the old or the new state, never a mix. Every mirror goes
through that path (:meth:`Warehouse.stage_mirror`), and the first writer under
each lock compares every mirror with its table and rebuilds the ones out of step
(:meth:`Warehouse.heal_mirrors`).

Readers are never locked out for long: DuckDB cannot open a file read-only
while another process has it open for writing, so writers hold the database
open only while they commit (they compute with it closed), and readers retry
for up to ``WALLTIME_READ_WAIT`` seconds (10) on a lock conflict. A writer
that finds a reader holding the file waits as long, then says a reader has it
open. Every connection has extension auto-install and auto-load turned off (a
foreign file must not make DuckDB download anything).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shutil
import stat
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from . import jobs_files, sim_results, sqlfiles
from .checks import open_new, write_file
from .errors import DAMAGE, OPENED, DamagedWarehouse, WalltimeError, WarehouseBusy, quote, why
from .transactions import fault_hook, transaction

if TYPE_CHECKING:  # annotations only: pyarrow is imported where Parquet is written
    import pyarrow as pa

DB_FILE = "walltime.duckdb"
LOCK_FILE = ".writer.lock"
# files whose name the warehouse fixes: a link under one of these names is refused, never followed
CONTROL_FILES = (DB_FILE, DB_FILE + ".wal", LOCK_FILE)
ENV_VAR = "WALLTIME_WAREHOUSE"
TRACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$")
_STAGED = re.compile(r"^\.tmp-([0-9a-f]{32})-(.+)$")
SAFE_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
# mirror -> (key column, SQL giving the mirror's rows for key $1)
MIRRORS = {
    "estimates": ("trace", "SELECT trace, scheme, job_id, est, hist FROM estimates WHERE trace = $1 "
                           "ORDER BY scheme, job_id"),
}
# A mirror written part by part in the same order as its query: the parts (in order) and one part's rows.
# Sorting a scheme's rows by job_id one scheme at a time, not every row by (scheme, job_id): an 11M-job
# trace's 7 schemes streamed in 6.2 s against 11.6 s.
MIRROR_PARTS = {
    "estimates": ("SELECT DISTINCT scheme FROM estimates WHERE trace = $1 ORDER BY scheme",
                  "SELECT trace, scheme, job_id, est, hist FROM estimates WHERE trace = $1 AND scheme = $2 "
                  "ORDER BY job_id"),
}
# (a trace's jobs and a run's per-job results are not mirrors: their Parquet files are
# the only copy, written before their catalogue rows commit; see pipeline/jobs_files.py
# and pipeline/sim_results.py)


def _lock_down(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    """Turn a reader into one for user SQL (`walltime sql`; docs/ingest.md): files outside the database and its
    runs' result directory cannot be read, and no setting can be changed back."""
    # in this order: DuckDB takes allowed_directories only while external access is on
    dirs = [sim_results.results_dir(root, kind) for kind in sim_results.KINDS] + [jobs_files.jobs_dir(root)]
    allowed = ", ".join("'" + (str(d.resolve()) + os.sep).replace("'", "''") + "'" for d in dirs)
    con.execute(f"SET allowed_directories = [{allowed}]")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def default_root() -> Path:
    return Path(os.environ.get(ENV_VAR) or "warehouse")


def _wait(var: str) -> float:
    try:
        return max(0.0, float(os.environ.get(var) or 10))
    except ValueError:
        return 10.0


def check_trace_name(name: str) -> str:
    if not TRACE_NAME.match(name):
        raise WalltimeError(
            f'trace name "{quote(name)}" is not allowed: use letters, digits and . _ + - '
            "(at most 128, starting with a letter or digit)"
        )
    return name


class Warehouse:
    """A warehouse directory. Cheap to create; opens connections on demand."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else default_root()
        self._lock_depth = 0

    @property
    def db_path(self) -> Path:
        return self.root / DB_FILE

    def exists(self) -> bool:
        return self.db_path.exists()

    def check_root(self) -> None:
        """Refuse a --warehouse that names something other than a directory."""
        if self.root.exists() and not self.root.is_dir():
            raise WalltimeError(f"--warehouse {quote(self.root)}: is a file, not a warehouse directory")
        if self.db_path.exists() and not self.db_path.is_file():
            raise WalltimeError(f"{quote(self.db_path)}: is not a file; not a walltime warehouse")
        for name in CONTROL_FILES:
            if (self.root / name).is_symlink():
                raise _linked(self.root / name)

    # -- readers -----------------------------------------------------------
    def reader(self, for_user_sql: bool = False, attach_results: bool = True) -> duckdb.DuckDBPyConnection:
        """A read-only connection to the last committed state. Fails with a
        clear message if there is no warehouse yet; waits up to
        WALLTIME_READ_WAIT seconds while a writer commits. ``attach_results=False``:
        no ``sim_jobs`` view (it reads every run file's footer when created)."""
        self.check_root()
        if not self.exists():
            raise WalltimeError(
                f"{self.db_path}: no warehouse here yet; load a trace with `walltime ingest FILE.swf`"
            )
        self._mend_if_left()
        con = self._connect(read_only=True, config=SAFE_CONFIG, wait=_wait("WALLTIME_READ_WAIT"))
        try:
            self._check_walltime(con)
            jobs_files.attach(con, self.root)
            if attach_results:
                sim_results.attach(con, self.root)
            if for_user_sql:
                _lock_down(con, self.root)
        except BaseException:
            con.close()
            raise
        return con

    def sql_reader(self) -> duckdb.DuckDBPyConnection:
        """A reader that can read nothing but the database and its runs' result
        files: no other file, no extension loading, no settings changes (user SQL)."""
        return self.reader(for_user_sql=True)

    def _connect(self, read_only: bool, config: dict, wait: float) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + wait
        delay = 0.02
        while True:
            try:
                con = duckdb.connect(str(self.db_path), read_only=read_only, config=config)
                OPENED[:] = [self.db_path]  # named by a damage message from a later query (errors.duckdb_message)
                return con
            except duckdb.Error as e:
                if _lock_conflict(e) and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.25)
                    continue
                raise self._open_error(e, read_only, wait) from None

    def _open_error(self, err: Exception, read_only: bool, wait: float) -> WalltimeError:
        text = " ".join(str(err).split())
        if _lock_conflict(err):
            m = re.search(r"PID (\d+)", text)
            who = f" (pid {m.group(1)})" if m else ""
            if read_only:
                return WarehouseBusy(
                    f"{self.root}: warehouse is busy: a writer{who} has kept it open for more than "
                    f"{wait:g} s; try again when it has finished")
            if self._lock_depth:
                return WarehouseBusy(
                    f"{self.root}: warehouse is busy: a reader{who} has it open (waited {wait:g} s); "
                    "try again when it has finished")
            return WarehouseBusy(
                f"{self.root}: warehouse is busy: another process{who} has it open; "
                "try again when it has finished")
        return damaged(self.db_path, err)

    @staticmethod
    def _check_walltime(con: duckdb.DuckDBPyConnection) -> None:
        """Refuse a DuckDB file that is not ours (it has tables, but no schema_migrations)."""
        try:  # ours: one cheap probe (the catalogue views cost 20-50 ms on the first query)
            con.execute("SELECT 1 FROM main.schema_migrations LIMIT 0")
            return
        except duckdb.Error:
            pass  # not ours, empty, or damaged: the query below tells which
        try:
            names = {t for (t,) in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
        except duckdb.Error as e:
            raise damaged(Path(con.execute("SELECT path FROM duckdb_databases() WHERE NOT internal LIMIT 1")
                               .fetchone()[0] or "?"), e) from None
        if names and "schema_migrations" not in names:
            path = con.execute("SELECT path FROM duckdb_databases() WHERE NOT internal LIMIT 1").fetchone()[0]
            raise WalltimeError(f"{path}: not a walltime warehouse (a DuckDB database with other tables); "
                                "choose another --warehouse directory")

    # -- writers -----------------------------------------------------------
    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the writer lock, or fail at once with WarehouseBusy.
        Re-entrant within one Warehouse object. A command that fails in a
        warehouse that did not exist leaves no directory behind."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        self.check_root()
        created = _missing_dirs(self.root)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise WalltimeError(f"--warehouse {quote(self.root)}: cannot create the directory: "
                                f"{why(e)}") from None
        try:
            fd = _open_lock(self.root / LOCK_FILE)
        except (OSError, WalltimeError) as e:
            if created:
                _remove_created(self.root, created)
            if isinstance(e, WalltimeError):
                raise
            raise WalltimeError(f"{self.root / LOCK_FILE}: cannot open the writer lock: {why(e)}") from None
        ok = False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
                raise WarehouseBusy(
                    f"{self.root}: warehouse is busy: another walltime command (pid {quote(holder)}) "
                    "is writing it; try again when it has finished"
                ) from None
            with contextlib.suppress(OSError):  # a read-only file system still locks
                os.ftruncate(fd, 0)
                os.pwrite(fd, str(os.getpid()).encode(), 0)
            self._lock_depth = 1
            self._recover_temporaries()
            if self.exists():
                self._prepare()
            yield
            ok = True
        finally:
            self._lock_depth = 0
            os.close(fd)  # closing the descriptor releases the flock
            if not ok and created and not self.exists():
                _remove_created(self.root, created)

    @contextlib.contextmanager
    def writer(self, attach_results: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        """Lock, open read-write, bring the schema up to date, and yield the
        connection. Callers wrap their changes in ONE transaction
        (:func:`transaction`) and keep the block short: readers wait while it
        is open. ``attach_results=False``: no ``sim_jobs`` view (creating it
        reads every run file's footer; a study's commits do not need it)."""
        with self.lock():
            existed = self.exists()
            con = self._connect(read_only=False, config=SAFE_CONFIG, wait=_wait("WALLTIME_WRITE_WAIT"))
            try:
                if existed:
                    self._check_walltime(con)
                migrate(con)
                jobs_files.attach(con, self.root)
                if attach_results:
                    sim_results.attach(con, self.root)
                yield con
                jobs_files.settle(con, self.root)
            finally:
                con.close()

    def new_database(self) -> NewDatabase:
        """Under the lock, for a warehouse whose database does not exist yet:
        start building it (every migration) under a temporary name, in a
        thread, while the caller reads its input (0.3-0.4 s that a first
        ingest no longer waits for). See :class:`NewDatabase`."""
        assert self._lock_depth and not self.exists()
        return NewDatabase(self)

    def _prepare(self) -> None:
        """First thing under the lock: refuse a foreign or damaged file, bring
        the schema up to date, move an old warehouse's jobs out to files and drop
        jobs files never committed (pipeline/jobs_files.py), heal the mirrors and
        drop result files of runs that never committed (pipeline/sim_results.py), so that read-only
        connections opened under the lock see a current, consistent schema."""
        con = self._connect(read_only=False, config=SAFE_CONFIG, wait=_wait("WALLTIME_WRITE_WAIT"))
        try:
            self._check_walltime(con)
            migrate(con)
            jobs_files.prepare_writer(con, self.root)
            self.heal_mirrors(con)
            sim_results.prepare_writer(con, self.root)
        finally:
            con.close()

    def _left_behind(self) -> bool:
        """Whether a killed writer left a temporary where readers look: a staged
        mirror (``parquet/<mirror>/.tmp-*``: the mirror beside it is stale) or a
        half-written model directory (``models/.tmp-*``). One directory listing
        each, so every reader can afford the look."""
        for d in [*(self.root / "parquet" / m for m in MIRRORS), self.root / "models"]:
            try:
                with os.scandir(d) as it:
                    if any(e.name.startswith(".tmp-") for e in it):
                        return True
            except OSError:
                continue
        return False

    def _mend_if_left(self) -> None:
        """A command that only reads (a warm `summary`, `sql`) after a writer
        was killed between its COMMIT and its renames: take the writer lock for
        a moment, which finishes or undoes what was left (:meth:`_recover_temporaries`,
        :meth:`heal_mirrors`). A busy or read-only warehouse is left as it is:
        its writer, or the next one, mends it."""
        if self._lock_depth or not self._left_behind():
            return
        with contextlib.suppress(WalltimeError):  # WarehouseBusy included
            with self.lock():
                pass

    def _recover_temporaries(self) -> None:
        """Finish or undo what a killed writer left (we hold the lock): staged
        mirrors whose token was committed are renamed into place, every other
        temporary is removed."""
        temps = list(self.root.rglob(".tmp-*"))
        if not temps:
            return
        committed: set[str] = set()
        if self.exists():
            con = self._connect(read_only=True, config=SAFE_CONFIG, wait=_wait("WALLTIME_WRITE_WAIT"))
            try:
                if con.execute(
                    "SELECT count(*) FROM information_schema.tables WHERE table_name = 'parquet_mirrors'"
                ).fetchone()[0]:
                    committed = {t for (t,) in con.execute("SELECT token FROM parquet_mirrors").fetchall()}
            finally:
                con.close()
        for tmp in temps:
            m = _STAGED.match(tmp.name)
            with contextlib.suppress(OSError):
                if m and m.group(1) in committed:
                    os.replace(tmp, tmp.with_name(m.group(2)))
                elif tmp.is_dir() and not tmp.is_symlink():  # a half-written directory (models/.tmp-model-*)
                    shutil.rmtree(tmp)
                else:
                    tmp.unlink()

    # -- Parquet mirrors -----------------------------------------------------
    def parquet_path(self, table: str, trace: str) -> Path:
        return self.root / "parquet" / table / f"{trace}.parquet"

    def write_parquet(self, table: str, trace: str, data: pa.Table) -> Path:
        """Write a Parquet file atomically (temporary name, then rename), outside
        any transaction. Not for the mirrors of tables: those go through
        :meth:`stage_mirror` / :meth:`stage_parquet` (recorded, healed)."""
        return write_parquet_atomic(data, self.parquet_path(table, trace))

    def stage_parquet(self, con: duckdb.DuckDBPyConnection, table: str, key: str, data: pa.Table) -> Path:
        """Write a mirror under a temporary name and record it in
        ``parquet_mirrors`` using ``con``'s open transaction. Call
        :meth:`publish` with the returned path after COMMIT."""
        tmp = self.write_staged(table, key, data)
        self.record_staged(con, table, key, tmp, data.num_rows)
        return tmp

    def write_staged(self, table: str, key: str, data: pa.Table) -> Path:
        """The file half of :meth:`stage_parquet` (touches no connection, so it
        may run in a thread while DuckDB works)."""
        return self._write_new(table, key, data)[0]

    def _write_new(self, table: str, key: str, data) -> tuple[Path, int]:
        """(the staged file, its rows) of ``data``: an Arrow table, or a RecordBatchReader."""
        final = self.parquet_path(table, key)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp, fh = open_new(final)  # .tmp-<token>-<name>, never through a link
        try:
            with fh:
                rows = _write_fsync(data, fh)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return tmp, rows

    @staticmethod
    def record_staged(con: duckdb.DuckDBPyConnection, table: str, key: str, tmp: Path, rows: int) -> None:
        """The database half of :meth:`stage_parquet`: inside the open transaction."""
        con.execute(
            "INSERT OR REPLACE INTO parquet_mirrors VALUES (?, ?, ?, ?, ?)",
            [table, key, _STAGED.match(tmp.name).group(1), rows, datetime.now(timezone.utc)],
        )

    @staticmethod
    def publish(staged: list[Path]) -> None:
        """Rename staged mirrors into place (after their transaction committed)."""
        for tmp in staged:
            final = tmp.with_name(_STAGED.match(tmp.name).group(2))
            if tmp.name.startswith(f".tmp-{'0' * 32}-"):  # a removal marker
                with contextlib.suppress(FileNotFoundError):
                    final.unlink()
                tmp.unlink()
            else:
                os.replace(tmp, final)

    @staticmethod
    def discard(staged: list[Path]) -> None:
        """Remove staged mirrors of a transaction that was rolled back."""
        for tmp in staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def stage_mirror(self, con: duckdb.DuckDBPyConnection, mirror: str, key: str) -> list[Path]:
        """Stage the mirror of ``key`` from its table as ``con``'s open
        transaction sees it (or record its removal when no rows are left);
        publish the returned paths after COMMIT."""
        # streamed in batches, not held whole: an 11M-job trace's 7 schemes are 77M rows, 5.2 GB
        # as one Arrow table (7.1 GB peak), 2.1 GB peak streamed
        tmp, rows = self._write_new(mirror, key, _mirror_rows(con, mirror, key))
        if rows:
            self.record_staged(con, mirror, key, tmp, rows)
            return [tmp]
        tmp.unlink()
        con.execute("DELETE FROM parquet_mirrors WHERE mirror = ? AND key = ?", [mirror, key])
        return [self._doomed(mirror, key)]

    def _doomed(self, mirror: str, key: str) -> Path:
        """An empty staged marker: publishing it removes the mirror file."""
        final = self.parquet_path(mirror, key)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.with_name(f".tmp-{'0' * 32}-{final.name}")
        tmp.unlink(missing_ok=True)  # (a leftover: we hold the lock) then created new, never through a link
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
        return tmp

    def heal_mirrors(self, con: duckdb.DuckDBPyConnection) -> list[str]:
        """Rebuild every mirror whose file is missing, holds another number
        of rows than its table, or other columns (a kill, or a warehouse from
        an older version -- e.g. jobs mirrors written before migration 060
        added the names -- can leave one stale), and drop mirror files of keys
        with no rows. Returns "mirror/key" of what it fixed."""
        stale: list[tuple[str, str]] = []
        for mirror, (column, query) in MIRRORS.items():
            counts = dict(con.execute(f'SELECT "{column}", count(*) FROM "{mirror}" GROUP BY ALL').fetchall())
            columns = [d[0] for d in con.execute(f"SELECT * FROM ({query}) LIMIT 0", [""]).description]
            for key, n in counts.items():
                if _parquet_shape(self.parquet_path(mirror, key)) != (n, columns):
                    stale.append((mirror, key))
            folder = self.root / "parquet" / mirror
            if folder.is_dir():
                for f in folder.glob("*.parquet"):
                    if f.stem not in counts:
                        stale.append((mirror, f.stem))
        if not stale:
            return []
        staged: list[Path] = []
        try:
            with transaction(con):
                for mirror, key in stale:
                    staged += self.stage_mirror(con, mirror, key)
        except BaseException:
            self.discard(staged)
            raise
        self.publish(staged)
        return [f"{m}/{k}" for m, k in stale]

    def drop_parquet(self, table: str, trace: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.parquet_path(table, trace).unlink()


def _mirror_rows(con: duckdb.DuckDBPyConnection, mirror: str, key: str):
    """The mirror's rows of ``key`` as a RecordBatchReader, in MIRRORS' order (part by part where
    MIRROR_PARTS says how: the same rows in the same order, cheaper to sort)."""
    import pyarrow as pa

    _, query = MIRRORS[mirror]
    if mirror not in MIRROR_PARTS:
        return con.sql(query, params=[key]).to_arrow_reader(1 << 20)
    parts_sql, part_sql = MIRROR_PARTS[mirror]
    parts = [p for (p,) in con.execute(parts_sql, [key]).fetchall()]
    schema = con.sql(f"SELECT * FROM ({query}) LIMIT 0", params=[key]).to_arrow_table().schema

    def batches():  # one part's result read to its end before the next query runs on ``con``
        for part in parts:
            yield from con.sql(part_sql, params=[key, part]).to_arrow_reader(1 << 20)

    return pa.RecordBatchReader.from_batches(schema, batches())


def write_parquet_atomic(data: pa.Table, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, lambda fh: _write_fsync(data, fh), option="--warehouse")
    return path


def _write_fsync(data, fh) -> int:
    """Write ``data`` (an Arrow table, or a RecordBatchReader: batch by batch) as Parquet into the open
    file ``fh`` and fsync it; returns the rows written."""
    import pyarrow as pa  # here, not at import: `walltime traces`/`sql` never write Parquet
    import pyarrow.parquet as pq

    # dictionary pages only for text columns: numbers gain little from them and cost time
    text = [f.name for f in data.schema
            if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            or pa.types.is_string_view(f.type) or pa.types.is_dictionary(f.type)]
    # string views are written as plain Parquet strings, read back as ``string`` (as DuckDB-written mirrors)
    views = any(pa.types.is_string_view(f.type) for f in data.schema)
    # Delta-encoded integers + LZ4: half the CPU of plain + zstd (0.46 vs 0.86 CPU-s for a
    # million SWF jobs, docs/speed.md, "Ingest") for 14% more bytes; DuckDB scans them as fast
    ints = {f.name: "DELTA_BINARY_PACKED" for f in data.schema if pa.types.is_int64(f.type)}
    opts = {"compression": "lz4", "use_dictionary": text, "column_encoding": ints, "store_schema": not views}
    if isinstance(data, pa.Table):
        pq.write_table(data, fh, **opts)
        rows = data.num_rows
    else:
        rows = 0
        with pq.ParquetWriter(fh, data.schema, **opts) as w:
            for batch in data:
                if batch.num_rows:
                    w.write_batch(batch)
                    rows += batch.num_rows
    fh.flush()
    os.fsync(fh.fileno())
    return rows


class NewDatabase:
    """A warehouse's database built beside other work (:meth:`Warehouse.new_database`).

    It is built as ``.tmp-new-<hex>.duckdb`` in the warehouse directory: until
    :meth:`install` renames it to the database's name the warehouse does not
    exist, so a command that fails (:meth:`discard`) or is killed leaves no
    database behind (a killed one's temporary is deleted by the next writer,
    as every ``.tmp-*``)."""

    def __init__(self, wh: Warehouse):
        self.wh = wh
        self.tmp = wh.root / f".tmp-new-{uuid.uuid4().hex}.duckdb"
        self.schema = None  # the Arrow schema of ``jobs`` (pipeline/jobs_files.py)
        self.ok = False
        self.installed = False
        self._thread = threading.Thread(target=self._build, daemon=True, name="walltime-new-warehouse")
        self._thread.start()

    def _build(self) -> None:
        try:
            con = duckdb.connect(str(self.tmp), config=SAFE_CONFIG)
            try:
                migrate(con)
                self.schema = jobs_files.schema(con)
                con.execute("CHECKPOINT")
            finally:
                con.close()
            self.ok = not Path(str(self.tmp) + ".wal").exists()
        except Exception:  # (the caller then creates the database itself, and reports its error)
            self.ok = False

    def install(self):
        """Rename the built database into place; returns the ``jobs`` schema, or
        None when the build failed (the caller creates the database itself)."""
        self._thread.join()
        if not self.ok or self.wh.exists():
            self.discard()
            return None
        os.replace(self.tmp, self.wh.db_path)
        self.installed = True
        return self.schema

    def discard(self) -> None:
        """Remove the temporary database unless it was installed."""
        self._thread.join()
        if not self.installed:
            for path in (self.tmp, Path(str(self.tmp) + ".wal")):
                with contextlib.suppress(OSError):
                    path.unlink()


def migrate(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Apply the sql/NNN_*.sql migrations not yet applied, each in its own
    transaction, and return their file names."""
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations("
        "version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMPTZ DEFAULT now())"
    )
    done = {v for (v,) in con.execute("SELECT version FROM schema_migrations").fetchall()}
    applied = []
    for version, name, text in sqlfiles.migrations():
        if version in done:
            continue
        sim_results.bind_for_migrations(con)
        with transaction(con):
            con.execute(text)
            con.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)", [version, name])
        applied.append(name)
    if applied:
        sim_results.unbind_after_migrations(con)
    return applied


def _lock_conflict(err: Exception) -> bool:
    text = str(err).lower()
    return "lock" in text and ("conflicting" in text or "could not set lock" in text)


def damaged(path: Path, err: Exception) -> WalltimeError:
    """The one-line message for a database DuckDB cannot read."""
    text = " ".join(str(err).split())
    if any(d in text.lower() for d in DAMAGE):
        what = "not a DuckDB file" if ("extension" in text.lower() or "not a valid" in text.lower()) else "damaged"
        return DamagedWarehouse(f"{path}: damaged warehouse ({what}: {quote(text, 120)}); "
                                "restore it from a backup or re-ingest into a new --warehouse")
    return WalltimeError(f"{path}: cannot open the warehouse: {quote(text, 200)}")


def _parquet_shape(path: Path) -> tuple[int, list[str]] | None:
    """(rows, column names) from the file's footer only; None when unreadable."""
    import pyarrow as pa  # here, not at import (lazy CLI start-up)
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path).metadata
        return meta.num_rows, meta.schema.to_arrow_schema().names
    except (OSError, pa.ArrowException):
        return None


def _linked(path: Path) -> WalltimeError:
    return WalltimeError(f"{quote(path)}: is a link (symbolic or hard); a warehouse's control files are never "
                         "followed through links: remove it, or choose another --warehouse directory")


def _open_lock(path: Path) -> int:
    """Open (or create) the writer lock without following a link: a link
    planted as ``.writer.lock`` would otherwise have its target truncated and
    a pid written into it. A hard link, or anything but a regular file, is refused too."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _linked(path) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        if stat.S_ISREG(st.st_mode):
            raise _linked(path)
        raise WalltimeError(f"{quote(path)}: the writer lock is not a regular file; remove it")
    return fd


def _missing_dirs(path: Path) -> list[Path]:
    """``path`` and its parents that do not exist yet (deepest first)."""
    out = []
    p = path.absolute()
    while not p.exists() and p != p.parent:
        out.append(p)
        p = p.parent
    return out


def _remove_created(root: Path, created: list[Path]) -> None:
    """Undo what :meth:`Warehouse.lock` created for a command that failed."""
    with contextlib.suppress(OSError):
        (root / LOCK_FILE).unlink()
    for d in created:
        try:
            d.rmdir()
        except OSError:
            break
