"""A trace's jobs as Parquet files with a view (migration 190, pipeline/jobs_files.py):
a kill -9 between the files and their COMMIT leaves the warehouse as it was
(the files are invisible, the next writer deletes them); a kill right after
COMMIT shows the new rows and the next writer deletes the old files; an old
warehouse (jobs in a table) upgrades in place with the same rows, also when
the move is killed; a copied warehouse reads its own files.

Real CLI processes, real DuckDB files, the real KTH trace."""

from __future__ import annotations

import json
import shutil
import signal

import duckdb
import pytest

from conftest import run_cli, trace_path
from ingest_support import back_to_pre_190, snapshot, temporaries, uncommitted_jobs_files
from pipeline.jobs_files import committed_files, jobs_dir
from pipeline.warehouse import Warehouse

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
ROWS = "SELECT count(*), sum(hash(CAST(struct_pack(*COLUMNS(*)) AS VARCHAR))::HUGEINT) FROM jobs"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """KTH, plus its first 3,000 job lines as trace 'part' (to be replaced)."""
    d = tmp_path_factory.mktemp("jobsfiles")
    lines = trace_path(KTH)
    import gzip

    text = gzip.decompress(lines.read_bytes()).decode().split("\n")
    jobs = [ln for ln in text if ln.strip() and not ln.startswith(";")]
    (d / "part.swf").write_text("\n".join(jobs[:3000]) + "\n")
    (d / "more.swf").write_text("\n".join(jobs[:5000]) + "\n")
    wh = d / "wh"
    run_cli("ingest", str(lines), "--name", "kth", warehouse=wh, check=True)
    run_cli("ingest", str(d / "part.swf"), "--name", "part", warehouse=wh, check=True)
    return {"wh": wh, "more": d / "more.swf"}


@pytest.fixture
def wh(base, tmp_path):
    out = tmp_path / "wh"
    shutil.copytree(base["wh"], out)
    return out


def count(wh, trace: str) -> int:
    ran = run_cli("sql", f"SELECT count(*) AS n FROM jobs WHERE trace = '{trace}'", "--json", warehouse=wh)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)[0]["n"]


def test_kill_between_the_files_and_commit_leaves_the_warehouse_as_it_was(wh, base):
    before = snapshot(wh)
    proc = run_cli("ingest", str(base["more"]), "--name", "part", "--replace", warehouse=wh,
                   env={"WALLTIME_TEST_KILL_AT": "after-jobs-file"})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert len(uncommitted_jobs_files(wh)) == 1  # written under its final name, but named by no committed row
    assert snapshot(wh) == before and count(wh, "part") == 3000
    run_cli("ingest", str(trace_path(KTH)), "--name", "kth", warehouse=wh, check=True)  # a no-op writer
    assert uncommitted_jobs_files(wh) == [] and temporaries(wh) == []
    assert snapshot(wh) == before


def test_kill_right_after_commit_shows_the_new_rows(wh, base):
    [old] = committed_files(wh, "part")
    proc = run_cli("ingest", str(base["more"]), "--name", "part", "--replace", warehouse=wh,
                   env={"WALLTIME_TEST_KILL_AT": "after-commit"})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert count(wh, "part") == 5000 and old.exists()  # committed; the old file is now garbage
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)  # a plain DuckDB reader too
    assert con.execute("SELECT count(*) FROM jobs WHERE trace = 'part'").fetchone() == (5000,)
    con.close()
    run_cli("ingest", str(trace_path(KTH)), "--name", "kth", warehouse=wh, check=True)
    assert not old.exists() and len(committed_files(wh, "part")) == 1
    assert uncommitted_jobs_files(wh) == [] and temporaries(wh) == []


def _rows(wh) -> tuple:
    con = Warehouse(wh).reader(attach_results=False)
    try:
        return con.execute(ROWS).fetchone(), con.execute(
            "SELECT trace, count(*), min(job_id), max(job_id) FROM jobs GROUP BY ALL ORDER BY 1").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("killed", [False, True])
def test_old_warehouse_upgrades_in_place(wh, killed):
    """Before 190 the jobs were a table (with a Parquet mirror): the next
    writer applies 190 and moves them out to files; readers see the same rows
    before, during (a kill in the move) and after."""
    want = _rows(wh)
    back_to_pre_190(wh)
    assert (jobs_dir(wh) / "kth.parquet").exists()
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    assert con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'jobs'"
                       ).fetchone() == ("BASE TABLE",)
    con.close()
    assert _rows(wh) == want  # an old warehouse, read as it is
    if killed:
        proc = run_cli("traces", warehouse=wh)  # a reader changes nothing
        assert proc.returncode == 0
        proc = run_cli("ingest", str(trace_path(KTH)), "--name", "kth", warehouse=wh,
                       env={"WALLTIME_TEST_KILL_AT": "after-jobs-file"})
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        assert _rows(wh) == want  # migrated, not moved: the view shows the legacy rows
    run_cli("ingest", str(trace_path(KTH)), "--name", "kth", warehouse=wh, check=True)
    assert _rows(wh) == want
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM jobs_legacy").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM parquet_mirrors WHERE mirror = 'jobs'").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM jobs").fetchone()[0] == want[0][0]
    assert 190 in {v for (v,) in con.execute("SELECT version FROM schema_migrations").fetchall()}
    con.close()
    assert not (jobs_dir(wh) / "kth.parquet").exists()  # the old mirror files are gone
    assert uncommitted_jobs_files(wh) == [] and temporaries(wh) == []
    # the stages run on the upgraded warehouse
    run_cli("simulate", "kth", warehouse=wh, check=True)


def test_a_copied_warehouse_reads_its_own_files(wh, tmp_path):
    want = _rows(wh)
    run_cli("characterize", "kth", warehouse=wh, check=True)  # a writer: the view now names wh's files
    moved = tmp_path / "moved"
    shutil.move(str(wh), moved)  # the view's absolute paths now name nothing
    assert _rows(moved) == want  # walltime's connections use this directory's files
    con = duckdb.connect(str(moved / "walltime.duckdb"), read_only=True)
    with pytest.raises(duckdb.IOException):  # a plain DuckDB reader still has the old paths
        con.execute(ROWS).fetchone()
    con.close()
    # characterize stores its results: a writer that succeeds rewrites the persistent view
    run_cli("characterize", "part", warehouse=moved, check=True)
    con = duckdb.connect(str(moved / "walltime.duckdb"), read_only=True)
    assert con.execute(ROWS).fetchone() == want[0]
    con.close()
