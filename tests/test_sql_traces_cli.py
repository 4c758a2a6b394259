"""`walltime sql` is read-only and prints table/CSV/JSON; `walltime traces`
lists traces; usage errors are one line with exit 1; progress bars appear on
stderr for big files when stderr is a terminal or WALLTIME_PROGRESS=1."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli, stderr_at_a_terminal, trace_path
from ingest_support import run_inproc, snapshot

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
BIG = "SDSC-BLUE-2000-4.2-cln.swf.gz"  # over the 2 MiB progress threshold


@pytest.fixture(scope="module")
def wh(tmp_path_factory) -> Path:
    wh = tmp_path_factory.mktemp("sql") / "wh"
    run_cli("ingest", str(trace_path(KTH)), warehouse=wh, check=True)
    return wh


REFUSED = {
    "INSERT INTO jobs SELECT * FROM jobs": "INSERT",
    "DELETE FROM jobs": "DELETE",
    "UPDATE traces SET jobs = 0": "UPDATE",
    "CREATE TABLE x AS SELECT 1": "CREATE",
    "DROP TABLE jobs": "DROP",
    "COPY jobs TO '{out}'": "COPY",
    "COPY (SELECT 1) TO '{out}'": "COPY",
    "ATTACH '{out}' AS other": "ATTACH",
    "EXPLAIN ANALYZE COPY (SELECT 1) TO '{out}'": "COPY",
    "SELECT 1; DELETE FROM jobs": "DELETE",
    "INSTALL httpfs": "LOAD",
    "SET threads = 1": "SET",
    "EXPORT DATABASE '{out}'": "EXPORT",
    "CHECKPOINT": "CALL",
    "PRAGMA import_database('{out}')": "PRAGMA",
    "PRAGMA version": "PRAGMA",
    "CALL pragma_version()": "CALL",
    "EXPLAIN PRAGMA version": "PRAGMA",
}


@pytest.mark.parametrize("query", sorted(REFUSED))
def test_sql_refuses_writes(wh, tmp_path, query):
    out = tmp_path / "written"
    before = snapshot(wh)
    ran = run_inproc("sql", query.format(out=out), warehouse=wh)
    assert ran.returncode == 1
    assert ran.stderr == f"error: sql: {REFUSED[query]} statements are refused; `walltime sql` is read-only\n"
    assert not out.exists()
    assert snapshot(wh) == before


def test_sql_refusal_through_the_console_script(wh, tmp_path):
    proc = run_cli("sql", f"COPY jobs TO '{tmp_path / 'x.csv'}'", warehouse=wh)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == "error: sql: COPY statements are refused; `walltime sql` is read-only\n"
    assert not (tmp_path / "x.csv").exists()


def test_sql_outputs(wh):
    q = "SELECT trace, count(*) AS n, min(submit_ts) AS first FROM jobs GROUP BY trace"
    doc = json.loads(run_cli("sql", q, "--json", warehouse=wh, check=True).stdout)
    assert doc == [{"trace": "KTH-SP2-1996-2.1-cln", "n": 28476, "first": "1996-09-30T10:38:01+00:00"}] or (
        doc[0]["n"] == 28476 and doc[0]["first"].startswith("1996-09-30"))
    rows = list(csv.reader(io.StringIO(run_inproc("sql", q, "--csv", warehouse=wh).stdout)))
    assert rows[0] == ["trace", "n", "first"] and rows[1][:2] == ["KTH-SP2-1996-2.1-cln", "28476"]
    table = run_inproc("sql", q, warehouse=wh).stdout
    assert "KTH-SP2-1996-2.1-cln" in table and "28476" in table
    # read statements beyond SELECT
    for ok in ("DESCRIBE jobs", "SHOW TABLES", "EXPLAIN SELECT count(*) FROM jobs", "SELECT * FROM pragma_version()",
               "FROM traces SELECT trace", "WITH a AS (SELECT 1 AS x) SELECT x FROM a"):
        ran = run_inproc("sql", ok, "--json", warehouse=wh)
        assert ran.returncode == 0, (ok, ran.stderr)
        json.loads(ran.stdout)


def test_sql_errors_are_one_line(wh):
    for q in ("SELEC 1", "SELECT nope FROM jobs", ""):
        ran = run_inproc("sql", q, warehouse=wh)
        assert ran.returncode == 1 and ran.stderr.startswith("error: sql: ") and ran.stderr.count("\n") == 1, q


def test_interface_tables_exist(wh):
    doc = json.loads(run_inproc("sql", "SELECT table_name FROM information_schema.tables", "--json",
                                warehouse=wh).stdout)
    names = {r["table_name"] for r in doc}
    assert {"traces", "jobs", "rejects", "trace_header", "schema_migrations", "parquet_mirrors"} <= names


def test_traces_table_and_json(wh):
    doc = json.loads(run_cli("traces", "--json", warehouse=wh, check=True).stdout)
    assert len(doc) == 1
    t = doc[0]
    assert (t["trace"], t["jobs"], t["rejected"], t["capacity"], t["users"]) == ("KTH-SP2-1996-2.1-cln", 28476, 0, 100, 214)
    assert t["first_submit"].startswith("1996-09-30") and t["last_submit"].startswith("1997-08-29")
    assert t["sha256"].startswith("blake3:") and len(t["sha256"]) == 7 + 64
    table = run_inproc("traces", warehouse=wh).stdout
    assert "KTH-SP2-1996-2.1-cln" in table and t["sha256"][:16] in table


def test_ingest_json_is_one_document(tmp_path):
    proc = run_cli("ingest", str(trace_path(KTH)), "--json", warehouse=tmp_path / "wh", check=True)
    doc = json.loads(proc.stdout)
    [r] = doc["traces"]
    assert (r["trace"], r["status"], r["jobs"], r["rejected"]) == ("KTH-SP2-1996-2.1-cln", "loaded", 28476, 0)
    assert set(r["timings"]) == {"read_s", "parse_s", "write_s", "files_s", "commit_s"}  # write_s = files_s + commit_s


@pytest.mark.parametrize("args", [
    ["ingest"],
    ["ingest", "x.swf", "--bogus"],
    ["ingest", "x.swf", "--format", "csv"],
    ["ingest", "a.swf", "b.swf", "--name", "one"],
    ["ingest", "a.swf", "--name", "bad name"],
    ["sql"],
    ["traces", "extra"],
    ["no-such-command"],
])
def test_usage_errors_are_one_line(args, tmp_path):
    ran = run_inproc(*args, warehouse=tmp_path / "wh")
    assert ran.returncode == 1, ran.stdout
    assert ran.stderr.startswith("error: ") and ran.stderr.count("\n") == 1, ran.stderr
    assert not (tmp_path / "wh" / "walltime.duckdb").exists()


def test_usage_error_through_the_console_script(tmp_path):
    proc = run_cli("ingest", "--bogus", warehouse=tmp_path / "wh")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "--bogus" in proc.stderr


def test_progress_bar_when_forced(tmp_path):
    proc = run_cli("ingest", str(trace_path(BIG)), warehouse=tmp_path / "wh", env={"WALLTIME_PROGRESS": "1"})
    assert proc.returncode == 0, proc.stderr
    for phase in ("reading", "parsing", "writing"):
        assert phase in proc.stderr
    assert "━" in proc.stderr  # a drawn bar
    assert proc.stdout.count("\n") == 1  # the result line only; bars never on stdout


def test_no_progress_bar_for_small_files_or_pipes(tmp_path):
    small = run_cli("ingest", str(trace_path(KTH)), warehouse=tmp_path / "a", env={"WALLTIME_PROGRESS": "1"})
    assert small.returncode == 0 and small.stderr == ""
    env = {k: v for k, v in os.environ.items() if k != "WALLTIME_PROGRESS"}
    piped = subprocess.run([sys.executable, "-m", "pipeline", "ingest", str(trace_path(BIG)),
                            "--warehouse", str(tmp_path / "b")], capture_output=True, text=True, env=env)
    assert piped.returncode == 0 and piped.stderr == ""


def test_progress_bar_on_a_terminal(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WALLTIME_PROGRESS"}
    code, text = stderr_at_a_terminal([sys.executable, "-m", "pipeline", "ingest", str(trace_path(BIG)),
                                       "--warehouse", str(tmp_path / "wh")], env=env)
    assert code == 0
    assert "reading SDSC-BLUE" in text and "parsing SDSC-BLUE" in text and "━" in text
