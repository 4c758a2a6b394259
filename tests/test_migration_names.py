"""Migrations 060/061 upgrade a warehouse made before them: the string
columns appear, filled with the SWF ids as text, and the new stages work."""

from __future__ import annotations

import duckdb

from conftest import run_cli, trace_path
from ingest_support import back_to_pre_190
from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions
from pipeline.warehouse import Warehouse

NEW_JOB_COLUMNS = ("user", "group_name", "account", "partition", "qos", "job_name", "slurm_id", "array_job_id",
                   "array_task_id", "het_job_id", "het_offset", "gpus", "state", "exit_code")
NEW_TRACE_COLUMNS = ("size_unit", "steps_skipped", "never_started", "no_limit", "capacity_source")


def make_old(wh: Warehouse) -> None:
    """Take a fresh warehouse back to the schema before 060: jobs a table again
    (before 190), then drop what 060/061 add."""
    back_to_pre_190(wh.root)
    con = duckdb.connect(str(wh.db_path))
    try:
        for c in NEW_JOB_COLUMNS:
            con.execute(f'ALTER TABLE jobs DROP COLUMN "{c}"')
        for c in NEW_TRACE_COLUMNS:
            con.execute(f"ALTER TABLE traces DROP COLUMN {c}")
        con.execute("DROP TABLE trace_partitions")
        con.execute("DROP VIEW report_partitions")
        con.execute("DROP VIEW report_accounts")
        con.execute("DELETE FROM schema_migrations WHERE version IN (60, 61)")
    finally:
        con.close()


def test_old_warehouse_upgrades_in_place(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    ingest([trace_path("KTH-SP2-1996-2.1-cln.swf.gz")], wh, name="kth")
    make_old(wh)
    con = duckdb.connect(str(wh.db_path), read_only=True)
    assert "user" not in [d[0] for d in con.execute("SELECT * FROM jobs LIMIT 0").description]
    con.close()
    with wh.writer():  # opening for writing applies the missing migrations
        pass
    con = wh.reader()
    try:
        rows = con.execute('SELECT count(*), count(*) FILTER ("user" = CAST(user_id AS VARCHAR)), '
                           "count(*) FILTER (account IS NOT DISTINCT FROM CAST(group_id AS VARCHAR)), "
                           'count(*) FILTER ("partition" IS NOT DISTINCT FROM CAST(partition_id AS VARCHAR)), '
                           "count(*) FILTER (job_name IS NOT DISTINCT FROM CAST(exe_id AS VARCHAR)), "
                           'count("user") FROM jobs WHERE trace = ?', ["kth"]).fetchone()
        versions = {v for (v,) in con.execute("SELECT version FROM schema_migrations").fetchall()}
    finally:
        con.close()
    n = rows[0]
    assert n == 28476 and rows[1] == rows[5] > 0  # every known user id, as text
    assert rows[2] == rows[3] == rows[4] == n
    assert {60, 61} <= versions
    # the upgraded warehouse takes a sacct trace and shows partitions
    ingest([trace_path("slurm-lab-sacct-X.txt")], wh, name="lab",
           options=IngestOptions(format="sacct", tz="UTC", capacity=["16"]))
    p = run_cli("traces", warehouse=wh.root, check=True)
    assert "long, short, unlim" in p.stdout
