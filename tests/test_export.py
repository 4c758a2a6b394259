"""`walltime export`: round trips through SWF and Parquet on real traces."""

from __future__ import annotations

import pytest

from conftest import run_cli, trace_path
from pipeline.export import export
from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions
from pipeline.ingest.swf import COLUMNS
from pipeline.warehouse import Warehouse

SWF_COLS = ", ".join(f'"{c}"' for c in COLUMNS)


def jobs(wh, trace, cols):
    con = wh.reader()
    try:
        return con.execute(f"SELECT {cols} FROM jobs WHERE trace = ? ORDER BY job_id", [trace]).fetchall()
    finally:
        con.close()


def header(wh, trace):
    con = wh.reader()
    try:
        return con.execute("SELECT unix_start_time, capacity, tz FROM traces WHERE trace = ?", [trace]).fetchone()
    finally:
        con.close()


def test_swf_round_trip_same_jobs(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    ingest([trace_path("KTH-SP2-1996-2.1-cln.swf.gz")], wh, name="kth")
    out = tmp_path / "kth.swf"
    r = export(wh, "kth", "swf", out)
    assert r.jobs == 28476  # the cleaned KTH log
    ingest([out], wh, name="kth2")
    assert jobs(wh, "kth", SWF_COLS) == jobs(wh, "kth2", SWF_COLS)
    assert header(wh, "kth") == header(wh, "kth2")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("lab") / "wh")
    ingest([trace_path("slurm-lab-sacct.txt")], wh, name="lab",
           options=IngestOptions(format="sacct", tz="Europe/Berlin", slurm_conf=str(trace_path("slurm-lab.conf"))))
    return wh


def test_sacct_to_swf_keeps_submit_wait_run_size_req(lab, tmp_path):
    out = tmp_path / "lab.swf"
    export(lab, "lab", "swf", out)
    text = out.read_text()
    for line in ("; Version: 2.2", "; Computer: lab", "; MaxProcs: 16", "; TimeZoneString: Europe/Berlin",
                 "; Note: users (field 12): 1=u1 2=u3 3=u4 4=u2", "; Note: partitions (field 16): 1=short 2=long 3=unlim",
                 "; Note: 203 job steps", "slurm-lab-sacct.txt"):
        assert line in text, line
    assert "; UnixStartTime: " in text
    ingest([out], lab, name="lab-swf")
    cols = 'job_id, submit, wait, run, procs, req_procs, req, status, user_id, group_id, partition_id, "month"'
    # the wait counts from Eligible (issue 25), so the SWF's submit is Eligible where the dump has it: submit +
    # wait is still the start
    assert "; Note: submit is Slurm's Eligible where known" in text
    released = jobs(lab, "lab", cols.replace("submit,", "coalesce(eligible, submit) AS submit,", 1))
    assert released == jobs(lab, "lab-swf", cols)
    moved = [a[0] for a, b in zip(jobs(lab, "lab", cols), released) if a != b]
    rows = [r.split("|") for r in trace_path("slurm-lab-sacct.txt").read_text().splitlines()]
    c = {name: i for i, name in enumerate(rows[0])}
    later = [r[c["JobID"]] for r in rows[1:] if r and "." not in r[c["JobID"]]
             and r[c["Eligible"]] not in ("Unknown", "None") and r[c["Eligible"]] > r[c["Submit"]]]  # (ISO: text order)
    assert len(moved) == len(later) == 18 and {"21", "22", "24", "69"} <= set(later)
    assert header(lab, "lab") == header(lab, "lab-swf")


def test_sacct_to_parquet_keeps_names(lab, tmp_path):
    out = tmp_path / "lab.parquet"
    p = run_cli("export", "lab", "--format", "parquet", "--out", str(out), warehouse=lab.root, check=True)
    assert "wrote 96 jobs" in p.stdout
    ingest([out], lab, name="lab-pq", options=IngestOptions(format="table", preset="walltime", tz="Europe/Berlin"))
    cols = ('job_id, submit, wait, run, procs, req_procs, req, req_mem, status, "user", account, "partition", qos, '
            "job_name, slurm_id, array_job_id, array_task_id, het_job_id, gpus, state, month, cores, node_count")
    assert jobs(lab, "lab", cols) == jobs(lab, "lab-pq", cols)


def test_export_errors(lab, tmp_path):
    p = run_cli("export", "nope", "--out", str(tmp_path / "x.swf"), warehouse=lab.root)
    assert p.returncode == 1 and 'no trace "nope"' in p.stderr
    p = run_cli("export", "lab", "--format", "csv", "--out", str(tmp_path / "x.csv"), warehouse=lab.root)
    assert p.returncode == 1 and "--format csv: use swf, parquet or slurm-conf" in p.stderr
    p = run_cli("export", "lab", "--out", str(tmp_path / "no" / "x.swf"), warehouse=lab.root)
    assert p.returncode == 1 and "does not exist" in p.stderr
