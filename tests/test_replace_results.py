"""Issue 28: after `ingest --replace`, nothing answers from the old content.

Warehouse A holds a KTH-SP2 cut with every kind of result (estimates, a Tang
grid, characterization, a template set and its estimates, runs with their
files, a summary); then the trace is replaced by another cut. Warehouse B
holds only the new cut. Every derived table, `summary`, `report` and a
study re-run must answer in A exactly as in B; a kill -9 before or after the
replace's COMMIT leaves the old trace with its results or the new one
without stale ones.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import duckdb
import pytest

from conftest import run_cli, trace_path

pytestmark = pytest.mark.slow

# (table, how its rows for trace 't' are found)
DERIVED = {
    "estimates": "trace = 't'",
    "estimate_accuracy": "trace = 't'",
    "estimate_grid": "trace = 't'",
    "characterize_summary": "trace = 't'",
    "characterize_hist": "trace = 't'",
    "characterize_cdf": "trace = 't'",
    "characterize_quarters": "trace = 't'",
    "characterize_mualem": "trace = 't'",
    "characterize_keys": "trace = 't'",
    "characterize_notes": "trace = 't'",
    "template_sets": "trace = 't'",
    "runs": "trace = 't'",
    "run_metrics": "run_id IN (SELECT run_id FROM runs WHERE trace = 't')",
    "node_runs": "run_id IN (SELECT run_id FROM runs WHERE trace = 't')",
    "sim_jobs": "run_id IN (SELECT run_id FROM runs WHERE trace = 't')",
}


def _cut(out: Path, first: int, n: int) -> Path:
    """KTH-SP2's header and job lines first .. first + n - 1 (a real trace, cut)."""
    lines, jobs = [], 0
    with gzip.open(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"), "rt") as f:
        for line in f:
            if line.startswith(";"):
                lines.append(line)
                continue
            jobs += 1
            if first <= jobs < first + n:
                lines.append(line)
            elif jobs >= first + n:
                break
    out.write_text("".join(lines))
    return out


def _ok(*args, wh: Path, env: dict | None = None) -> str:
    return run_cli(*args, warehouse=wh, check=True, env=env).stdout


def _results(wh: Path) -> None:
    """Every kind of result for trace t."""
    _ok("summary", "t", "--json", wh=wh)
    _ok("characterize", "t", wh=wh)
    _ok("estimate", "t", "--grid", "tang", wh=wh)
    _ok("search-templates", "t", "--name", "s1", "--generations", "2", "--population", "4", wh=wh)
    _ok("estimate", "t", "--scheme", "smith:set=s1", wh=wh)
    _ok("simulate", "t", "--backfill", "conservative", "--estimate", "smith:set=s1", "--split", "month", wh=wh)
    _ok("simulate", "t", "--backfill", "conservative", "--nodes-aware", "--node-size", "4", wh=wh)  # a node-aware run


def _derived(wh: Path) -> dict[str, list]:
    """Every derived table's rows for t, without run ids and times (which differ by warehouse)."""
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    out = {}
    try:
        for table, where in DERIVED.items():
            if table == "sim_jobs":  # a view over the run files (pipeline/sim_results.py): read them
                files = sorted((wh / "parquet" / "sim_jobs").glob("*.parquet"))
                known = {r for (r,) in con.execute("SELECT run_id FROM runs").fetchall()}
                out[table] = sorted(f.stem for f in files if f.stem in known)
                continue
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "AND column_name NOT IN ('computed_at', 'created_at', 'seconds', 'load_s', 'simulate_s', 'write_s', "
                "'train_error')", [table]).fetchall()]
            listed = ", ".join(f'"{c}"' for c in cols)
            rows = con.execute(f"SELECT {listed} FROM {table} WHERE {where}").fetchall()
            out[table] = sorted(repr(tuple(_rounded(v) for v in r)) for r in rows)
    finally:
        con.close()
    return out


def _rounded(v):
    """Floats to 10 significant digits: DuckDB's parallel sums may differ in the last bits."""
    return float(f"{v:.10g}") if isinstance(v, float) else v


def _summary(wh: Path) -> dict:
    s = json.loads(_ok("summary", "t", "--json", wh=wh))
    return _without(s, {"seconds", "timings", "warehouse", "computed_at", "created_at"})


def _without(v, keys):
    if isinstance(v, dict):
        return {k: _without(x, keys) for k, x in v.items() if k not in keys and not k.endswith("_s")}
    if isinstance(v, list):
        return [_without(x, keys) for x in v]
    return v


@pytest.fixture(scope="module")
def cuts(tmp_path_factory):
    root = tmp_path_factory.mktemp("replace")
    return _cut(root / "old.swf", 1, 3000), _cut(root / "new.swf", 2001, 1500)


@pytest.fixture(scope="module")
def replaced(tmp_path_factory, cuts):
    """A: old content with every result, then --replace; B: the new content only."""
    old, new = cuts
    root = tmp_path_factory.mktemp("replaced")
    a, b = root / "a", root / "b"
    _ok("ingest", str(old), "--name", "t", wh=a)
    _results(a)
    before = _derived(a)
    old_runs = [r for (r,) in duckdb.connect(str(a / "walltime.duckdb"), read_only=True).execute(
        "SELECT run_id FROM runs").fetchall()]
    _ok("ingest", str(new), "--name", "t", "--replace", wh=a)
    _ok("ingest", str(new), "--name", "t", wh=b)
    return a, b, before, old_runs


def test_replace_removes_every_result_of_the_old_content(replaced):
    a, b, before, old_runs = replaced
    assert all(before[t] for t in DERIVED if t != "characterize_notes"), [t for t in DERIVED if not before[t]]
    after = _derived(a)
    assert after == _derived(b)  # B computed nothing yet: every table empty for t
    assert all(not rows for rows in after.values()), {t: len(r) for t, r in after.items() if r}
    # the old runs' files and the estimates mirror went with them: the warehouse stays small
    assert old_runs and not [r for r in old_runs if (a / "parquet" / "sim_jobs" / f"{r}.parquet").exists()]
    assert not (a / "parquet" / "estimates" / "t.parquet").exists()


def test_sql_summary_and_report_answer_as_a_fresh_warehouse(replaced, tmp_path):
    a, b, _, _ = replaced
    assert _summary(a) == _summary(b)
    _results(a)
    _results(b)
    assert _derived(a) == _derived(b)
    n = int(_ok("sql", "SELECT count(*) FROM estimates WHERE trace = 't' AND scheme = 'request'", "--csv",
                wh=a).split()[-1])
    assert n == 1500  # one estimate per job of the new content, none of the old
    pages = []
    for wh in (a, b):
        out = tmp_path / f"{wh.name}.html"
        _ok("report", "t", "--out", str(out), wh=wh)
        pages.append(re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "(when)", out.read_text()))  # the page's build time
    assert pages[0] == pages[1]


def test_study_rerun_on_changed_file_recomputes(tmp_path, cuts):
    old, new = cuts
    wh, fresh = tmp_path / "wh", tmp_path / "fresh"
    trace = tmp_path / "t.swf"
    study = tmp_path / "s.toml"
    study.write_text(
        '[study]\nname = "s"\n[[traces]]\npath = "t.swf"\nname = "t"\n'
        '[estimates]\nschemes = ["request", "ave2"]\n'
        '[[simulations]]\ntraces = ["t"]\npolicy = "fcfs"\nbackfill = "easy"\nestimate = ["request", "ave2"]\n')
    trace.write_bytes(old.read_bytes())
    _ok("run", str(study), wh=wh)
    trace.write_bytes(new.read_bytes())
    second = json.loads(_ok("run", str(study), "--json", wh=wh))
    runs = {(s["stage"], s["action"]) for s in second["steps"]}
    assert ("characterize", "run") in runs and ("estimate", "run") in runs and ("simulate", "run") in runs
    assert ("estimate", "skip") not in runs and ("simulate", "skip") not in runs
    _ok("run", str(study), wh=fresh)
    assert _derived(wh) == _derived(fresh)


@pytest.mark.parametrize("point, state", [("after-jobs-file", "old"), ("after-commit", "new")])
def test_kill_during_replace(tmp_path, cuts, point, state):
    """A kill before COMMIT leaves the old trace with its results; after COMMIT
    (before the old run files are deleted) the new trace without stale ones."""
    old, new = cuts
    wh = tmp_path / "wh"
    _ok("ingest", str(old), "--name", "t", wh=wh)
    _ok("summary", "t", wh=wh)
    before = _derived(wh)
    proc = run_cli("ingest", str(new), "--name", "t", "--replace", warehouse=wh,
                   env={"WALLTIME_TEST_KILL_AT": point})
    assert proc.returncode == -9, proc.stderr
    jobs = int(_ok("sql", "SELECT count(*) FROM jobs WHERE trace = 't'", "--csv", wh=wh).split()[-1])
    if state == "old":
        assert jobs == 3000 and _derived(wh) == before
    else:
        assert jobs == 1500 and all(not rows for rows in _derived(wh).values())
        n = int(_ok("sql", "SELECT count(*) FROM sim_jobs", "--csv", wh=wh).split()[-1])
        assert n == 0  # the old run's file may still be on disk until the next writer; no view shows it
    _ok("summary", "t", wh=wh)  # and the warehouse works on


def test_migration_forgets_results_an_older_version_left_stale(tmp_path, cuts):
    """A warehouse replaced by an older walltime kept the old results; the
    migration removes them (sql/200_forget_stale_results.sql)."""
    old, new = cuts
    wh = tmp_path / "wh"
    _ok("ingest", str(old), "--name", "t", wh=wh)
    _results(wh)
    con = duckdb.connect(str(wh / "walltime.duckdb"))
    try:  # what an older version left: new content, old results
        con.execute("UPDATE traces SET sha256 = 'x' || sha256, ingested_at = now() + INTERVAL 1 SECOND")
        con.execute("DELETE FROM schema_migrations WHERE version = 200")
    finally:
        con.close()
    _ok("traces", wh=wh)  # a reader does not migrate
    _ok("characterize", "t", wh=wh)  # a writer does
    left = _derived(wh)
    assert all(not rows for t, rows in left.items() if not t.startswith("characterize")), left
