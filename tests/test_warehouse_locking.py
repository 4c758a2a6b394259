"""One writer at a time; readers work while nobody writes; a killed writer's
staged Parquet files are finished or dropped by the next writer; an old
warehouse is upgraded by the next writing command without losing data.

Lock and database holders are real separate processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from conftest import run_cli, trace_path
from ingest_support import run_inproc, snapshot, temporaries
from pipeline import sqlfiles
from pipeline.warehouse import Warehouse, transaction

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
NASA = "NASA-iPSC-1993-3.1-cln.swf.gz"


@pytest.fixture
def loaded(tmp_path) -> Path:
    wh = tmp_path / "wh"
    run_cli("ingest", str(trace_path(NASA)), warehouse=wh, check=True)
    return wh


def hold(code: str, wh: Path) -> subprocess.Popen:
    """A python process that runs ``code`` (with ``wh`` bound), prints 'ready', sleeps."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        f"wh = Path({str(wh)!r})\n"
        f"{code}\n"
        "print('ready', flush=True)\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.strip() == "ready", proc.stderr.read()
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()


def one_line_error(proc, *needles):
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for n in needles:
        assert n in proc.stderr, proc.stderr


def test_second_writer_is_refused_while_lock_is_held(loaded):
    holder = hold("from pipeline.warehouse import Warehouse\n"
                  "cm = Warehouse(wh).lock(); cm.__enter__()", loaded)
    try:
        before = snapshot(loaded)
        proc = run_cli("ingest", str(trace_path(KTH)), warehouse=loaded)
        one_line_error(proc, "warehouse is busy", f"(pid {holder.pid})")
        assert snapshot(loaded) == before
        # nobody has the database open: readers work
        assert run_cli("traces", "--json", warehouse=loaded).returncode == 0
        ran = run_inproc("sql", "SELECT count(*) AS n FROM jobs", "--json", warehouse=loaded)
        assert ran.returncode == 0 and json.loads(ran.stdout)[0]["n"] > 0
    finally:
        stop(holder)
    # the lock dies with its holder
    run_cli("ingest", str(trace_path(KTH)), warehouse=loaded, check=True)


@pytest.mark.slow
def test_database_held_open_for_writing_gives_busy_errors(loaded):
    holder = hold("import duckdb\ncon = duckdb.connect(str(wh / 'walltime.duckdb'))", loaded)
    try:
        one_line_error(run_cli("traces", warehouse=loaded), "warehouse is busy")
        one_line_error(run_cli("sql", "SELECT 1", warehouse=loaded), "warehouse is busy")
        one_line_error(run_cli("ingest", str(trace_path(KTH)), warehouse=loaded), "warehouse is busy")
    finally:
        stop(holder)
    assert run_cli("traces", warehouse=loaded).returncode == 0


def test_readers_on_missing_warehouse(tmp_path):
    one_line_error(run_inproc("traces", warehouse=tmp_path / "none"), "no warehouse here yet")
    one_line_error(run_inproc("sql", "SELECT 1", warehouse=tmp_path / "none"), "no warehouse here yet")


def test_staged_mirror_is_published_or_dropped_by_next_writer(loaded):
    """What a writer killed between COMMIT and the rename leaves behind (a
    committed staged file) is renamed into place; an uncommitted one is removed."""
    wh = Warehouse(loaded)
    data = pa.table({"x": [1, 2, 3]})
    with wh.writer() as con:
        with transaction(con):
            committed = wh.stage_parquet(con, "demo", "kept", data)
        with pytest.raises(RuntimeError):
            with transaction(con):
                rolled_back = wh.stage_parquet(con, "demo", "lost", data)
                raise RuntimeError("killed")
    # neither published yet (as if the process had died here)
    assert sorted(temporaries(loaded)) == sorted([committed, rolled_back])
    with Warehouse(loaded).lock():
        pass
    assert temporaries(loaded) == []
    assert wh.parquet_path("demo", "kept").exists()
    assert not wh.parquet_path("demo", "lost").exists()
    con = duckdb.connect(str(wh.db_path), read_only=True)
    assert con.execute("SELECT sum(x) FROM read_parquet(?)", [str(wh.parquet_path("demo", "kept"))]).fetchone() == (6,)
    con.close()


def test_old_warehouse_is_upgraded_without_losing_data(tmp_path):
    """A warehouse made when only migration 001 existed (as an older walltime
    left it, data included) is brought up to date by the next ingest."""
    current = tmp_path / "current"
    run_cli("ingest", str(trace_path(KTH)), warehouse=current, check=True)
    old = tmp_path / "old"
    old.mkdir()
    first = sqlfiles.migrations()[0]
    assert first[0] == 1
    con = duckdb.connect(str(old / "walltime.duckdb"))
    con.execute("CREATE TABLE schema_migrations(version INTEGER PRIMARY KEY, name VARCHAR, "
                "applied_at TIMESTAMPTZ DEFAULT now())")
    con.execute(first[2])
    con.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)", [1, first[1]])
    con.execute(f"ATTACH '{current / 'walltime.duckdb'}' AS cur (READ_ONLY)")
    for table in ("traces", "trace_header", "jobs", "rejects"):
        cols = ", ".join(f'"{c}"' for (c, *_) in con.execute(f"DESCRIBE {table}").fetchall())
        con.execute(f"INSERT INTO {table} BY NAME SELECT {cols} FROM cur.{table}")  # the columns 001 had
    con.close()
    before = _kth_rows(old)
    kept = _columns(old)  # later migrations add columns (filled from these); these must not change

    proc = run_cli("ingest", str(trace_path(NASA)), "--json", warehouse=old)
    assert proc.returncode == 0, proc.stderr
    # KTH's rows are exactly as they were; NASA is added next to them
    assert _kth_rows(old, kept) == before
    con = duckdb.connect(str(old / "walltime.duckdb"), read_only=True)
    versions = [v for (v,) in con.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()]
    assert versions == [v for v, _, _ in sqlfiles.migrations()]
    assert con.execute("SELECT count(*) FROM traces").fetchone() == (2,)
    con.close()
    # and the old trace is recognised: same content again is a no-op
    again = run_cli("ingest", str(trace_path(KTH)), "--json", warehouse=old)
    assert json.loads(again.stdout)["traces"][0]["status"] == "unchanged"


_OLD_TABLES = ("traces", "trace_header", "jobs", "rejects")


def _columns(wh: Path) -> dict[str, str]:
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    try:
        return {t: ", ".join(f'"{c}"' for (c, *_) in con.execute(f"DESCRIBE {t}").fetchall())
                for t in _OLD_TABLES}
    finally:
        con.close()


def _kth_rows(wh: Path, columns: dict[str, str] | None = None) -> dict:
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*), sum(hash(CAST(x AS VARCHAR))::HUGEINT) FROM "
                               f"(SELECT {columns[t] if columns else '*'} FROM {t} "
                               "WHERE trace = 'KTH-SP2-1996-2.1-cln') x").fetchone()
                for t in _OLD_TABLES}
    finally:
        con.close()
