"""Per-run result files (pipeline/sim_results.py, issue 11): a run's jobs live
in parquet/sim_jobs/<run_id>.parquet, not in the DuckDB file; readers see only
committed runs; an old warehouse (jobs in a sim_jobs table) upgrades by
migration without losing or doubling a row."""

from __future__ import annotations

import duckdb
import pytest

from conftest import ingested_warehouse
from pipeline import sim_results, sqlfiles
from pipeline.simulate import make_config, simulate
from pipeline.warehouse import Warehouse
from simulate_checks import q

KTH = "KTH-SP2-1996-2.1-cln"
JOBS = "SELECT run_id, job_id, month, submit, start, \"end\", wait, backfilled, predicted_start, score, first_bound " \
       "FROM sim_jobs ORDER BY run_id, job_id"


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return ingested_warehouse(tmp_path_factory, "results", KTH)


def test_run_jobs_are_a_file_and_not_in_the_database(wh):
    res = simulate(wh, KTH, make_config(policy="fcfs", backfill="easy", estimate="request"))
    path = sim_results.run_file(wh.root, res.run_id)
    assert path.exists()
    (n,), = q(wh, "SELECT count(*) FROM sim_jobs WHERE run_id = ?", [res.run_id])
    assert n == res.counts["jobs_simulated"] > 28000
    (legacy,), = q(wh, "SELECT count(*) FROM sim_jobs_legacy")
    assert legacy == 0
    (in_file,), = q(wh, f"SELECT count(*) FROM read_parquet('{path}')")
    assert in_file == n


def test_uncommitted_run_file_is_invisible_and_the_next_writer_removes_it(wh):
    """What a writer killed between the worker's rename and the commit leaves."""
    res = simulate(wh, KTH, make_config(policy="fcfs", backfill="none", estimate="request"))
    src = sim_results.run_file(wh.root, res.run_id)
    orphan = sim_results.run_file(wh.root, "0123456789abcdef")
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * REPLACE ('0123456789abcdef' AS run_id) FROM read_parquet('{src}')) "
                f"TO '{orphan}' (FORMAT parquet)")
    con.close()
    stray = orphan.with_name(f".tmp-{'0' * 32}-x.parquet.part")
    stray.write_bytes(b"half a file")
    before = q(wh, JOBS)
    assert q(wh, "SELECT count(*) FROM sim_jobs WHERE run_id = '0123456789abcdef'") == [(0,)]
    simulate(wh, KTH, make_config(policy="sjf", backfill="none", estimate="request"))
    assert not orphan.exists() and not stray.exists()
    after = q(wh, JOBS)
    earlier = {r[0] for r in before}
    assert [r for r in after if r[0] in earlier] == before


def test_old_warehouse_upgrades_by_migration(wh, tmp_path):
    """A warehouse written before migration 070 (jobs in a sim_jobs table) is
    migrated by the next writer: readers see the same rows before and after,
    the rows move out to files, the table is left empty."""
    res = simulate(wh, KTH, make_config(policy="wfp", backfill="easy", estimate="request"))
    old = Warehouse(tmp_path / "old")
    old.root.mkdir()
    con = duckdb.connect(str(old.db_path))
    con.execute("CREATE TABLE schema_migrations(version INTEGER PRIMARY KEY, name VARCHAR, "
                "applied_at TIMESTAMPTZ DEFAULT now())")
    for version, name, text in sqlfiles.migrations():
        if version < 70:
            con.execute(text)
            con.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)", [version, name])
    con.execute(f"ATTACH '{wh.db_path}' AS new (READ_ONLY)")
    for table, where in (("traces", ""), ("jobs", ""), ("estimates", ""), ("runs", " WHERE run_id = ?"),
                         ("run_metrics", " WHERE run_id = ?")):
        # the old schema's columns only: later migrations (e.g. 120's traces.has_times) add more
        cols = ", ".join(f'"{d[0]}"' for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description)
        con.execute(f"INSERT INTO {table} SELECT {cols} FROM new.{table}{where}",
                    [res.run_id] if where else [])
    con.execute(f"INSERT INTO sim_jobs BY NAME SELECT * EXCLUDE (preemptions), start + run AS \"end\", "
                f"start - submit AS wait "
                f"FROM read_parquet('{sim_results.run_file(wh.root, res.run_id)}')")
    con.execute("DETACH new")
    con.close()
    runs = [r for (r,) in q(old, "SELECT run_id FROM runs")]
    want = q(old, JOBS)
    assert len(want) > 28000 * len(runs) / 2 and not (old.root / "parquet" / "sim_jobs").exists()

    with old.writer() as con:  # migration 070: the table is renamed, the view shows its rows
        assert con.execute(JOBS).fetchall() == want
    assert q(old, JOBS) == want
    again = simulate(old, KTH, make_config(policy="wfp", backfill="easy", estimate="request"))
    assert again.reused and again.run_id == res.run_id
    assert q(old, JOBS) == want
    assert q(old, "SELECT count(*) FROM sim_jobs_legacy") == [(0,)]
    assert all(sim_results.run_file(old.root, r).exists() for r in runs)


LEGACY = ("CREATE TABLE sim_jobs_legacy(run_id VARCHAR, job_id BIGINT, month VARCHAR, submit BIGINT, run BIGINT, "
          "nodes BIGINT, req BIGINT, est_wait BIGINT, est_run BIGINT, start BIGINT, \"end\" BIGINT, wait BIGINT, "
          "backfilled BOOLEAN, predicted_start BIGINT, score DOUBLE, first_bound BIGINT)")


def test_files_written_before_a_column_was_added_read_it_as_null(wh, tmp_path):
    """``preemptions`` (a later column, sim_results.OPTIONAL) is NULL in a run that models no preemption, and a
    run file written before the column existed still reads, the column NULL, whether or not another file has it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    res = simulate(wh, KTH, make_config(policy="fcfs", backfill="easy", estimate="request"))
    n = res.counts["jobs_simulated"]
    assert q(wh, "SELECT count(*), count(preemptions) FROM sim_jobs WHERE run_id = ?", [res.run_id]) == [(n, 0)]
    (want,), = q(wh, "SELECT sum(start) FROM sim_jobs WHERE run_id = ?", [res.run_id])
    files = sim_results.results_dir(tmp_path)
    files.mkdir(parents=True)
    old = pq.read_table(sim_results.run_file(wh.root, res.run_id)).drop(["preemptions"])
    pq.write_table(old, files / f"{res.run_id}.parquet")
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE runs(run_id VARCHAR)")
        con.execute("INSERT INTO runs VALUES (?)", [res.run_id])
        con.execute(LEGACY)
        sim_results.attach(con, tmp_path)  # every file older than the column
        assert con.execute("SELECT count(*), count(preemptions), sum(start) FROM sim_jobs").fetchone() == (
            n, 0, want)
        new = old.set_column(0, "run_id", pa.array(["new"] * n)).append_column("preemptions", pa.array([2] * n))
        pq.write_table(new, files / "new.parquet")
        con.execute("INSERT INTO runs VALUES ('new')")
        sim_results.attach(con, tmp_path)  # one file has it, one does not
        assert con.execute("SELECT run_id, count(preemptions), sum(preemptions) FROM sim_jobs GROUP BY run_id "
                           "ORDER BY run_id").fetchall() == sorted([(res.run_id, 0, None), ("new", n, 2 * n)])
    finally:
        con.close()
