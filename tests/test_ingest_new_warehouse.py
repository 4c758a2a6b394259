"""A first ingest builds the warehouse's database beside the parse, under a
temporary name (Warehouse.new_database): a bad file or a kill before the
rename leaves no warehouse, and the next writer removes the temporary."""

from __future__ import annotations

import json

from conftest import run_cli, trace_path
from pipeline import sqlfiles


def _tmp_files(root):
    return sorted(p.name for p in root.rglob(".tmp-*")) if root.exists() else []


def test_first_ingest_installs_a_complete_database(tmp_path):
    wh = tmp_path / "fresh"
    run_cli("ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", "--tz", "Europe/Berlin",
            warehouse=wh, check=True)
    assert _tmp_files(wh) == []
    got = json.loads(run_cli("sql", "select count(*) as n, max(version) as v from schema_migrations", "--json",
                             warehouse=wh, check=True).stdout)[0]
    versions = [v for v, _, _ in sqlfiles.migrations()]
    assert got == {"n": len(versions), "v": max(versions)}
    assert json.loads(run_cli("traces", "--json", warehouse=wh, check=True).stdout)[0]["jobs"] == 96


def test_bad_file_leaves_no_warehouse_and_no_temporary(tmp_path):
    lines = trace_path("slurm-lab-sacct.txt").read_text().splitlines()
    bad = lines[:5] + ["1|2|x"] + lines[5:]
    (tmp_path / "bad.txt").write_text("\n".join(bad) + "\n")
    proc = run_cli("ingest", str(tmp_path / "bad.txt"), "--format", "sacct", "--tz", "Europe/Berlin",
                   warehouse=tmp_path / "fresh")
    assert proc.returncode == 1 and proc.stderr.startswith("error: ") and len(proc.stderr.strip().splitlines()) == 1
    assert "bad.txt:6:" in proc.stderr
    assert not (tmp_path / "fresh").exists()


def test_kill_before_the_rename_leaves_no_warehouse(tmp_path):
    wh = tmp_path / "fresh"
    args = ("ingest", str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")))
    proc = run_cli(*args, warehouse=wh, env={"WALLTIME_TEST_KILL_AT": "parsed"})
    assert proc.returncode == -9
    assert not (wh / "walltime.duckdb").exists()
    assert "no warehouse here yet" in run_cli("traces", warehouse=wh).stderr
    run_cli(*args, warehouse=wh, check=True)  # the next writer removes the temporary
    assert _tmp_files(wh) == []
    assert json.loads(run_cli("traces", "--json", warehouse=wh, check=True).stdout)[0]["jobs"] == 28476
