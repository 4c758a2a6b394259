"""The warehouse: one DuckDB file plus Parquet mirrors under one directory.

Why this shape: DuckDB gives SQL and one-transaction atomic writes; the Parquet
mirrors (``parquet/<table>/<trace>.parquet``) let other tools and remote workers
read the big tables without opening the database. Writers hold an exclusive
``flock`` on ``.writer.lock`` for the whole command, so a second writer fails
fast with "warehouse is busy" instead of waiting or corrupting anything; a
``kill -9`` releases the lock and leaves only uncommitted (invisible) work.

Parquet mirrors that belong to a DuckDB transaction are *staged*
(:meth:`Warehouse.stage_parquet`): written under ``.tmp-<token>-<name>``, the
token recorded in ``parquet_mirrors`` inside the transaction, and renamed into
place after COMMIT (:meth:`Warehouse.publish`). The next writer renames staged
files whose token was committed and deletes the rest, so a kill at any point
leaves either the old or the new state, never a mix.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from . import sim_results, sqlfiles
from .errors import WalltimeError, WarehouseBusy

DB_FILE = "walltime.duckdb"
LOCK_FILE = ".writer.lock"
ENV_VAR = "WALLTIME_WAREHOUSE"
TRACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$")
_STAGED = re.compile(r"^\.tmp-([0-9a-f]{32})-(.+)$")


def default_root() -> Path:
    return Path(os.environ.get(ENV_VAR) or "warehouse")


def check_trace_name(name: str) -> str:
    if not TRACE_NAME.match(name):
        raise WalltimeError(
            f'trace name "{name}" is not allowed: use letters, digits and . _ + - '
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

    # -- readers -----------------------------------------------------------
    def reader(self) -> duckdb.DuckDBPyConnection:
        """A read-only connection. Fails with a clear message if there is no
        warehouse yet or a writer holds it."""
        if not self.exists():
            raise WalltimeError(
                f"{self.db_path}: no warehouse here yet; load a trace with `walltime ingest FILE.swf`"
            )
        try:
            con = duckdb.connect(str(self.db_path), read_only=True)
        except duckdb.IOException as e:
            raise _busy(self.db_path, e) from None
        sim_results.attach(con, self.root)
        return con

    # -- writers -----------------------------------------------------------
    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the writer lock, or fail at once with WarehouseBusy.
        Re-entrant within one Warehouse object."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
                raise WarehouseBusy(
                    f"{self.root}: warehouse is busy: another walltime command (pid {holder}) "
                    "is writing it; try again when it has finished"
                ) from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            self._recover_temporaries()
            self._lock_depth = 1
            yield
        finally:
            self._lock_depth = 0
            os.close(fd)  # closing the descriptor releases the flock

    @contextlib.contextmanager
    def writer(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """Lock, open read-write, bring the schema up to date, and yield the
        connection. Callers wrap their changes in ONE transaction
        (:func:`transaction`)."""
        with self.lock():
            try:
                con = duckdb.connect(str(self.db_path))
            except duckdb.IOException as e:
                raise _busy(self.db_path, e) from None
            try:
                migrate(con)
                sim_results.attach(con, self.root)
                yield con
            finally:
                con.close()

    def _recover_temporaries(self) -> None:
        """Finish or undo what a killed writer left (we hold the lock): staged
        mirrors whose token was committed are renamed into place, every other
        temporary is removed."""
        temps = list(self.root.rglob(".tmp-*"))
        if not temps:
            return
        committed: set[str] = set()
        if self.exists():
            try:
                con = duckdb.connect(str(self.db_path), read_only=True)
            except duckdb.IOException as e:
                raise _busy(self.db_path, e) from None
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
                else:
                    tmp.unlink()

    # -- Parquet mirrors -----------------------------------------------------
    def parquet_path(self, table: str, trace: str) -> Path:
        return self.root / "parquet" / table / f"{trace}.parquet"

    def write_parquet(self, table: str, trace: str, data: pa.Table) -> Path:
        """Write a Parquet mirror atomically (temporary name, then rename)."""
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
        final = self.parquet_path(table, key)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.with_name(f".tmp-{uuid.uuid4().hex}-{final.name}")
        _write_fsync(data, tmp)
        return tmp

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
            os.replace(tmp, tmp.with_name(_STAGED.match(tmp.name).group(2)))

    @staticmethod
    def discard(staged: list[Path]) -> None:
        """Remove staged mirrors of a transaction that was rolled back."""
        for tmp in staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def drop_parquet(self, table: str, trace: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.parquet_path(table, trace).unlink()


def write_parquet_atomic(data: pa.Table, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    _write_fsync(data, tmp)
    os.replace(tmp, path)
    return path


def _write_fsync(data: pa.Table, path: Path) -> None:
    import pyarrow as pa  # here, not at import: `walltime traces`/`sql` never write Parquet
    import pyarrow.parquet as pq

    # dictionary pages only for text columns: numbers gain little from them and cost time
    text = [f.name for f in data.schema
            if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            or pa.types.is_string_view(f.type) or pa.types.is_dictionary(f.type)]
    pq.write_table(data, path, compression="zstd", use_dictionary=text)
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """BEGIN ... COMMIT, or ROLLBACK on any exception."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


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
        with transaction(con):
            con.execute(text)
            con.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)", [version, name])
        applied.append(name)
    return applied


def _busy(path: Path, err: Exception) -> WalltimeError:
    text = str(err)
    if "lock" in text.lower():
        m = re.search(r"PID (\d+)", text)
        who = f" (pid {m.group(1)})" if m else ""
        return WarehouseBusy(
            f"{path}: warehouse is busy: another process{who} has it open for writing; "
            "try again when it has finished"
        )
    return WalltimeError(f"{path}: cannot open the warehouse: {text.splitlines()[0]}")
