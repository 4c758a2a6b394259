"""A node-aware run's per-job node data (sim_nodes) lives in
parquet/sim_nodes/<run_id>.parquet, not in the DuckDB file (issue 11, like
sim_jobs): readers see only committed runs, a writer killed -9 between the
files and the commit leaves the warehouse as it was (the next writer deletes
the files), and a warehouse from before migration 160 (rows in a sim_nodes
table) upgrades without losing or doubling a row."""

from __future__ import annotations

import duckdb
import pytest

from conftest import run_cli, ingested_warehouse
from pipeline import sim_results, sqlfiles
from pipeline.simulate import make_config, simulate
from pipeline.warehouse import Warehouse
from simulate_checks import q

KTH = "KTH-SP2-1996-2.1-cln"
NODES = "SELECT run_id, job_id, node_count, node_ranges, t_node, t_node_strict, plan_changes, pinned_at " \
        "FROM sim_nodes ORDER BY run_id, job_id"
TNODE = "SELECT * FROM report_node_tnode ORDER BY run_id"


def _cfg(pin="1h", backfill="none"):
    return make_config(policy="fcfs", backfill=backfill, estimate="request", capacity=200, nodes_aware=True,
                       node_size=2, pin_interval=pin)


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return ingested_warehouse(tmp_path_factory, "nodefiles", KTH)


def test_node_data_is_a_file_and_not_in_the_database(wh):
    res = simulate(wh, KTH, _cfg())
    path = sim_results.run_file(wh.root, res.run_id, "sim_nodes")
    assert path.exists()
    (n,), = q(wh, "SELECT count(*) FROM sim_nodes WHERE run_id = ?", [res.run_id])
    assert n == res.counts["jobs_simulated"] > 28000
    assert q(wh, "SELECT count(*) FROM sim_nodes_legacy") == [(0,)]
    assert q(wh, "SELECT count(*) FROM node_runs WHERE run_id = ?", [res.run_id]) == [(1,)]
    (in_file,), = q(wh, f"SELECT count(*) FROM read_parquet('{path}')")
    assert in_file == n
    # every job of the run has its node row, and the report view joins them
    (joined,), = q(wh, "SELECT count(*) FROM sim_jobs j JOIN sim_nodes s USING (run_id, job_id) WHERE run_id = ?",
                   [res.run_id])
    assert joined == n
    (jobs,), = q(wh, "SELECT jobs FROM report_node_tnode WHERE run_id = ?", [res.run_id])
    assert jobs == n
    # user SQL (locked down) may read the view
    proc = run_cli("sql", f"SELECT count(*) AS n FROM sim_nodes WHERE run_id = '{res.run_id}'", "--json",
                   warehouse=wh.root)
    assert proc.returncode == 0 and f'"n": {n}' in proc.stdout, proc.stderr


def test_a_kill_between_the_files_and_the_commit_leaves_the_warehouse_as_it_was(wh):
    """kill -9 right after the sim_nodes file (the 2nd run file) is in place, before the commit."""
    before = (q(wh, NODES), q(wh, "SELECT run_id FROM runs ORDER BY run_id"), q(wh, "SELECT * FROM node_runs"))
    args = ["simulate", KTH, "--capacity", "200", "--backfill", "none", "--nodes-aware", "--node-size", "2",
            "--pin-interval", "2h"]
    proc = run_cli(*args, warehouse=wh.root, env={"WALLTIME_TEST_KILL_AT": "after-run-file:2"})
    assert proc.returncode == -9, proc.stderr
    orphans = [p for p in sim_results.results_dir(wh.root, "sim_nodes").glob("*.parquet")
               if p.stem not in {r for (r,) in before[1]}]
    assert len(orphans) == 1  # the killed run's file, never committed
    after = (q(wh, NODES), q(wh, "SELECT run_id FROM runs ORDER BY run_id"), q(wh, "SELECT * FROM node_runs"))
    assert after == before
    # the next writer removes the orphan and the run then stores normally
    res = simulate(wh, KTH, _cfg("2h"))
    assert not res.reused
    assert q(wh, "SELECT count(*) FROM sim_nodes WHERE run_id = ?", [res.run_id]) == [(res.counts["jobs_simulated"],)]
    left = {p.stem for p in sim_results.results_dir(wh.root, "sim_nodes").glob("*.parquet")}
    assert left == {r for (r,) in q(wh, "SELECT run_id FROM node_runs")}


def test_a_forced_rerun_replaces_the_file_without_doubling(wh):
    res = simulate(wh, KTH, _cfg())
    want = q(wh, "SELECT * FROM sim_nodes WHERE run_id = ? ORDER BY job_id", [res.run_id])
    again = simulate(wh, KTH, _cfg(), force=True)
    assert again.run_id == res.run_id and not again.reused
    assert q(wh, "SELECT * FROM sim_nodes WHERE run_id = ? ORDER BY job_id", [res.run_id]) == want


def test_old_warehouse_upgrades_by_migration(wh, tmp_path):
    """A warehouse written before migration 160 (node rows in a sim_nodes table)
    is migrated by the next writer: readers and the report views see the same
    rows before and after, the rows move out to a file, the table is left empty."""
    res = simulate(wh, KTH, _cfg())
    old = Warehouse(tmp_path / "old")
    old.root.mkdir()
    con = duckdb.connect(str(old.db_path))
    con.execute("CREATE TABLE schema_migrations(version INTEGER PRIMARY KEY, name VARCHAR, "
                "applied_at TIMESTAMPTZ DEFAULT now())")
    for version, name, text in sqlfiles.migrations():
        if version < 160:
            sim_results.bind_for_migrations(con)  # as the warehouse does (views over sim_jobs)
            con.execute(text)
            con.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)", [version, name])
    sim_results.unbind_after_migrations(con)
    con.execute(f"ATTACH '{wh.db_path}' AS new (READ_ONLY)")
    for table in ("traces", "jobs", "runs", "run_metrics", "node_runs"):
        cols = ", ".join(f'"{d[0]}"' for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description)
        where = " WHERE run_id = ?" if table not in ("traces", "jobs") else ""
        con.execute(f"INSERT INTO {table} SELECT {cols} FROM new.{table}{where}", [res.run_id] if where else [])
    con.execute(f"INSERT INTO sim_nodes BY NAME SELECT * FROM read_parquet('"
                f"{sim_results.run_file(wh.root, res.run_id, 'sim_nodes')}')")
    con.execute("DETACH new")
    con.close()
    jobs_file = sim_results.run_file(old.root, res.run_id)
    jobs_file.parent.mkdir(parents=True)
    jobs_file.write_bytes(sim_results.run_file(wh.root, res.run_id).read_bytes())
    want, want_tnode = q(old, NODES), q(old, TNODE)
    assert len(want) > 28000 and len(want_tnode) == 1
    assert not sim_results.results_dir(old.root, "sim_nodes").exists()

    with old.writer() as con:  # migration 160: the table is renamed, the view shows its rows
        assert con.execute(NODES).fetchall() == want
    assert q(old, NODES) == want and q(old, TNODE) == want_tnode
    again = simulate(old, KTH, _cfg())  # the first writer moves the rows out to a file
    assert again.reused and again.run_id == res.run_id
    assert q(old, NODES) == want and q(old, TNODE) == want_tnode
    assert q(old, "SELECT count(*) FROM sim_nodes_legacy") == [(0,)]
    assert sim_results.run_file(old.root, res.run_id, "sim_nodes").exists()
