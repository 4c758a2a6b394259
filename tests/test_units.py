"""Cores, nodes and GPUs kept apart (issues 23 and 25): ``jobs.cores`` and
``jobs.node_count`` beside the replay's size ``jobs.nodes``, checked job by
job against the logs themselves (the Eagle CSV, the lab's sacct dump); the
summary's hours against a second path (Polars over the CSV, SQL over
``jobs``) and its sentences against the unit of the trace's kind."""

from __future__ import annotations

import csv
import gzip
import json

import duckdb
import polars as pl
import pyarrow.parquet as pq
import pytest

from conftest import run_cli, trace_path
from simulate_checks import q as _q
from pipeline import jobs_files
from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions
from pipeline.summary import read
from pipeline.summary.words import sentences, unit_hours
from pipeline.warehouse import Warehouse

EAGLE = "NREL-Eagle-sample-1000.csv.gz"
LAB = "slurm-lab-sacct.txt"


@pytest.fixture(scope="module")
def eagle(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("units") / "wh")
    ingest([trace_path(EAGLE)], wh, name="eagle", options=IngestOptions(format="table", preset="eagle",
                                                                         tz="America/Denver"))
    return wh


def _lab(tmp_path, size):
    wh = Warehouse(tmp_path / f"wh-{size}")
    ingest([trace_path(LAB)], wh, name="lab", options=IngestOptions(
        format="sacct", tz="UTC", size=size, slurm_conf=str(trace_path("slurm-lab.conf"))))
    return wh


def test_eagle_job_532918_has_360_nodes_and_12960_cores(eagle):
    (got,) = _q(eagle, "SELECT nodes, cores, node_count FROM jobs WHERE slurm_id = '532918'")
    assert got == (12960, 12960, 360)  # the replay's size stays cores (--size cpus)
    # every row: cores = processors_req, node_count = nodes_req (rows in file order = line order)
    src = pl.read_csv(gzip.open(trace_path(EAGLE)), infer_schema_length=0)
    stored = _q(eagle, "SELECT slurm_id, cores, node_count, gpus FROM jobs ORDER BY line")
    assert len(stored) == src.height == 1000
    want = [(r["job_id"], int(r["processors_req"]), int(r["nodes_req"]), int(r["gpus_req"]))
            for r in src.iter_rows(named=True)]
    assert sorted(stored) == sorted(want)
    assert sum(c != n for _, c, n, _ in stored) > 100  # not the same number twice


@pytest.mark.parametrize("size", ["cpus", "nodes"])
def test_lab_sacct_keeps_nnodes_and_ncpus(tmp_path, size):
    wh = _lab(tmp_path, size)
    (got,) = _q(wh, "SELECT nodes, cores, node_count FROM jobs WHERE slurm_id = '39'")  # sbatch -N4 --exclusive
    assert got == ((16 if size == "cpus" else 4), 16, 4)
    # every job line of the dump (no step: JobID without a dot), read with the csv module
    with open(trace_path(LAB), newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="|") if "." not in r["JobID"]]
    want = {r["JobID"]: (int(r["NCPUS"]), int(r["NNodes"])) for r in rows}
    stored = {sid: (c, n) for sid, c, n in _q(wh, "SELECT slurm_id, cores, node_count FROM jobs")}
    assert stored == want and len(stored) == 96
    assert any(c != n for c, n in stored.values())


def test_summary_hours_and_their_unit(eagle, tmp_path):
    """Eagle (a table of a Slurm log): CPU-hours and node-hours; the numbers
    again by Polars over the jobs, the sentence in the unit of its kind."""
    jobs = pl.DataFrame(_q(eagle, "SELECT cores, node_count, nodes, req, run FROM jobs"),
                        schema=["cores", "node_count", "nodes", "req", "run"], orient="row")
    con = eagle.reader()
    try:
        s = read(con, "eagle")
    finally:
        con.close()
    ok = jobs.filter((pl.col("req") > 0) & (pl.col("run") >= 0) & (pl.col("nodes") > 0))
    used = pl.min_horizontal("run", "req")
    req_core = ok.select((pl.col("cores") * pl.col("req")).sum()).item() / 3600
    unused_core = ok.select((pl.col("cores") * (pl.col("req") - used)).sum()).item() / 3600
    req_node = ok.select((pl.col("node_count") * pl.col("req")).sum()).item() / 3600
    w = s.wrong
    assert w["req_core_h"] == pytest.approx(req_core) and w["unused_core_h"] == pytest.approx(unused_core)
    assert w["req_node_h"] == pytest.approx(req_node) and req_node < req_core / 10  # 36 cores per Eagle node
    assert s.hours_unit == "CPU-hours"  # NCPUS counts hardware threads: CPUs, not cores
    text = "\n".join(sentences(s))
    assert f"Requested but not used: {unit_hours(unused_core)}, " in text
    assert f"of the {unit_hours(req_core)} requested" in text
    assert f"{unit_hours(req_node, 'node-hours')} requested" in text
    assert "processor-hours" not in text

    # an SWF trace counts processors: processor-hours, and no node-hours sentence
    swf = Warehouse(tmp_path / "swf")
    from report_support import write_tiny

    ingest([write_tiny(tmp_path)], swf)
    con = swf.reader()
    try:
        t = read(con, "tiny")
        (cores, nulls), = con.execute(  # fetchall: the guarded connection wants every result read
"SELECT sum(cores * req) / 3600.0, count(node_count) FROM jobs "
                                      "WHERE req > 0 AND run >= 0 AND nodes > 0").fetchall()
    finally:
        con.close()
    text = "\n".join(sentences(t))
    assert t.wrong["req_core_h"] == pytest.approx(cores) and nulls == 0
    assert f"of the {unit_hours(cores, 'processor-hours')} requested" in text
    assert "CPU-hours" not in text and "node-hours" not in text and "GPU-hours" not in text


def _eagle_gpu_hours() -> dict:
    """The Eagle sample has gpus_req. GPU-hours from the CSV by Polars:
    gpus_req x wallclock_req (requested) and x min(end_time - start_time,
    wallclock_req) (used: the run as R counts it, so that requested and used
    compare and the partitions add up to summary_r's totals)."""
    src = pl.read_csv(gzip.open(trace_path(EAGLE)), infer_schema_length=0)
    fmt = "%Y-%m-%d %H:%M:%S"
    g = (src.with_columns(pl.col("gpus_req").cast(pl.Int64), pl.col("wallclock_req").cast(pl.Float64),
                          pl.col("start_time").str.strptime(pl.Datetime, fmt),
                          pl.col("end_time").str.strptime(pl.Datetime, fmt))
         .filter(pl.col("gpus_req") > 0)
         .group_by("partition")
         .agg(pl.len().alias("jobs"), (pl.col("gpus_req") * pl.col("wallclock_req")).sum().alias("req_s"),
              (pl.col("gpus_req") * pl.min_horizontal((pl.col("end_time") - pl.col("start_time")).dt.total_seconds(),
                                                      pl.col("wallclock_req"))).sum()
              .alias("used_s")))
    want = {r["partition"]: (r["jobs"], r["req_s"] / 3600, r["used_s"] / 3600) for r in g.iter_rows(named=True)}
    assert want, "the Eagle sample has jobs with GPUs"
    return want


def test_gpu_hours_per_partition(eagle):
    want = _eagle_gpu_hours()
    con = eagle.reader()
    try:
        s = read(con, "eagle")
    finally:
        con.close()
    got = {r["partition"]: (r["gpu_jobs"], r["req_gpu_h"], r["used_gpu_h"]) for r in s.gpus}
    assert got.keys() == want.keys()
    for p, (jobs, req, used) in want.items():
        assert got[p][0] == jobs and got[p][1] == pytest.approx(req) and got[p][2] == pytest.approx(used)
    text = "\n".join(sentences(s))
    for p, (jobs, req, used) in want.items():
        assert f"{p}: {unit_hours(req, 'GPU-hours')} requested, {unit_hours(used, 'GPU-hours')} used" in text


def test_characterize_gpu_hours_per_partition(eagle):
    want = _eagle_gpu_hours()
    doc = json.loads(run_cli("characterize", "eagle", "--json", warehouse=eagle.root, check=True).stdout)
    got = {p["partition"]: (p["gpu_jobs"], p["req_gpu_h"], p["used_gpu_h"]) for p in doc["partitions"]
           if p["gpu_jobs"]}
    assert got.keys() == want.keys()
    for p, (jobs, req, used) in want.items():
        assert got[p][0] == jobs and got[p][1] == pytest.approx(req) and got[p][2] == pytest.approx(used)
    # a partition without GPUs has none, not zero
    assert all(p["req_gpu_h"] is None for p in doc["partitions"] if p["partition"] not in want)
    text = run_cli("characterize", "eagle", warehouse=eagle.root, check=True).stdout
    req, used = sum(w[1] for w in want.values()), sum(w[2] for w in want.values())
    assert (f"requested {req:,.1f} GPU-hours and used {used:,.1f}, {100 * used / req:.1f}% of the request."
            in " ".join(text.split()))


def test_old_warehouse_files_get_the_new_columns(tmp_path):
    """A warehouse from before migration 240: its jobs files lack cores and
    node_count. Rebuilt as it was (the columns dropped from the files and the
    legacy table, the migration unrecorded); the next writer adds them
    (cores = the size for --size cpus, node_count NULL) and the view shows them."""
    wh = _lab(tmp_path, "cpus")
    before = _q(wh, "SELECT slurm_id, nodes, cores FROM jobs ORDER BY job_id")
    con = duckdb.connect(str(wh.db_path))
    try:
        (token, parts), = con.execute("SELECT token, parts FROM jobs_files WHERE trace = 'lab'").fetchall()
        for k in range(parts):
            path = jobs_files.part_path(wh.root, "lab", token, k)
            pq.write_table(pq.read_table(path).drop_columns(["cores", "node_count"]), path)
        con.execute("CREATE OR REPLACE VIEW jobs AS SELECT * FROM jobs_legacy")
        con.execute("ALTER TABLE jobs_legacy DROP COLUMN cores")
        con.execute("ALTER TABLE jobs_legacy DROP COLUMN node_count")
        con.execute("DELETE FROM schema_migrations WHERE version = 240")
    finally:
        con.close()

    with wh.lock():  # the first writer: migration 240, then the files rewritten
        pass
    after = _q(wh, "SELECT slurm_id, nodes, cores, node_count FROM jobs ORDER BY job_id")
    assert [(a, b, c) for a, b, c, _ in after] == before and all(n is None for *_, n in after)
    (token2,), = _q(wh, "SELECT token FROM jobs_files WHERE trace = 'lab'")
    assert token2 != token and {"cores", "node_count"} <= set(
        pq.read_schema(jobs_files.part_path(wh.root, "lab", token2, 0)).names)
    assert not jobs_files.part_path(wh.root, "lab", token, 0).exists()


@pytest.mark.slow
def test_parquet_export_keeps_cores_and_nodes(tmp_path):
    """`export --format parquet` carries cores and node_count; `--preset walltime`
    reads node_count back, and a `--size nodes` trace comes back whole with
    `--column procs=cores --size nodes` (docs/ingest.md)."""
    wh = _lab(tmp_path, "nodes")
    out = tmp_path / "lab.parquet"
    run_cli("export", "lab", "--format", "parquet", "--out", str(out), warehouse=wh.root, check=True)
    run_cli("ingest", "--format", "table", "--preset", "walltime", "--column", "procs=cores", "--size", "nodes",
            "--tz", "UTC", "--name", "back", str(out), warehouse=wh.root, check=True)
    cols = "job_id, slurm_id, procs, nodes, cores, node_count"
    a, b = (_q(wh, f"SELECT {cols} FROM jobs WHERE trace = ? ORDER BY job_id", [t]) for t in ("lab", "back"))
    assert a == b and len(a) == 96 and any(r[3] != r[4] for r in a)  # nodes (the size) 4, cores 16 for job 39
