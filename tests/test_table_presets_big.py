"""`ingest --format table --preset fdata|pm100`: a few hand-made rows in each
dataset's published schema (every published column, with its published type),
read into a warehouse and checked against values computed by hand; a file
without a column the preset reads, or with one of another type, is refused in
one line naming the file and the column, and the warehouse stays as it was.

Schemas: F-DATA, docs/feature_list.csv of https://github.com/francescoantici/F-DATA
(https://doi.org/10.5281/zenodo.11467483); PM100, documentation/job_features.md of
https://github.com/francescoantici/PM100-data (https://doi.org/10.5281/zenodo.8129257),
with the Parquet types of the published file (timestamps in UTC, int64, text).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import run_cli
from test_ingest_table import load as load_table

JST = timezone(timedelta(hours=9))
UTC = timezone.utc
COLS = ("slurm_id", "submit", "wait", "run", "req", "procs", "req_procs", "cores", "node_count", "gpus", "req_gpus",
        "user", "group_name", "account", "partition", "qos", "job_name", "state", "status", "month")

# --- F-DATA: the 45 published columns, in order, with their types (feature_list.md: object, int64, float64,
# uint64; the times are text with their UTC offset, as PostgreSQL prints a timestamptz) -----------------------
FDATA_TYPES = {
    "jid": pa.string(), "usr": pa.string(), "jnam": pa.string(), "cnumr": pa.int64(), "cnumat": pa.int64(),
    "cnumut": pa.int64(), "nnumr": pa.int64(), "adt": pa.string(), "qdt": pa.string(), "schedsdt": pa.string(),
    "deldt": pa.string(), "ec": pa.int64(), "elpl": pa.float64(), "sdt": pa.string(), "edt": pa.string(),
    "nnuma": pa.int64(), "idle_time_ave": pa.float64(), "nnumu": pa.int64(), "perf1": pa.float64(),
    "perf2": pa.float64(), "perf3": pa.float64(), "perf4": pa.float64(), "perf5": pa.float64(),
    "perf6": pa.float64(), "mszl": pa.float64(), "pri": pa.int64(), "econ": pa.float64(), "avgpcon": pa.float64(),
    "minpcon": pa.float64(), "maxpcon": pa.float64(), "msza": pa.uint64(), "mmszu": pa.float64(),
    "uctmut": pa.float64(), "sctmut": pa.float64(), "usctmut": pa.float64(), "jobenv_req": pa.string(),
    "freq_req": pa.int64(), "freq_alloc": pa.int64(), "flops": pa.float64(), "mbwidth": pa.float64(),
    "opint": pa.float64(), "pclass": pa.string(), "embedding": pa.list_(pa.float32()), "exit state": pa.string(),
    "duration": pa.float64(),
}
# the rows: (jid, usr, jnam, cnumr, cnumat, nnumr, nnuma, adt, sdt, edt, elpl, duration, exit state, ec)
FDATA_ROWS = [
    ("jid_0", "usr_0", "jnam_0", 48, 48, 1, 1, "2021-04-01 10:28:01+09", "2021-04-01 10:28:05+09",
     "2021-04-01 11:28:05+09", 7200.0, 3600.0, "completed", 0),
    # submitted first: the trace's start; killed at its elapse limit (a day), so failed
    ("jid_1", "usr_1", "jnam_1", 192, 192, 4, 4, "2021-04-01 09:00:00+09", "2021-04-01 12:00:00+09",
     "2021-04-02 12:00:00+09", 86400.0, 86400.0, "failed", 137),
    # 08:30 in Tokyo on 1 May is 23:30 UTC on 30 April: month 2021-05 in Asia/Tokyo
    ("jid_2", "usr_0", "jnam_2", 4, 48, 1, 1, "2021-05-01 08:30:00+09", "2021-05-01 08:30:10+09",
     "2021-05-01 08:30:40+09", 60.0, 30.0, "completed", 0),
]


def jst(text: str) -> int:
    return int(datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=JST).timestamp())


def fdata_table(rows=FDATA_ROWS, types=FDATA_TYPES, drop=()) -> pa.Table:
    n = len(rows)
    cols = {name: [None] * n for name in types}
    for i, r in enumerate(rows):
        (cols["jid"][i], cols["usr"][i], cols["jnam"][i], cols["cnumr"][i], cols["cnumat"][i], cols["nnumr"][i],
         cols["nnuma"][i], cols["adt"][i], cols["sdt"][i], cols["edt"][i], cols["elpl"][i], cols["duration"][i],
         cols["exit state"][i], cols["ec"][i]) = r
        cols["qdt"][i] = cols["schedsdt"][i] = r[7]
        cols["cnumut"][i], cols["nnumu"][i] = r[4], r[6]
        cols["pri"][i], cols["freq_req"][i], cols["freq_alloc"][i], cols["msza"][i] = 0, 2000, 2000, 2**64 - 1
        cols["mszl"][i] = float(2**64 - 1)  # "no limit", as most jobs in the dataset
        cols["jobenv_req"][i], cols["pclass"][i] = "jobenv_req_0", "memory-bound"
        cols["embedding"][i] = [0.25, -0.5, 0.125]  # (384 numbers in the dataset)
        for k in ("idle_time_ave", "perf1", "perf2", "perf3", "perf4", "perf5", "perf6", "econ", "avgpcon",
                  "minpcon", "maxpcon", "mmszu", "uctmut", "sctmut", "usctmut", "flops", "mbwidth", "opint"):
            cols[k][i] = 1.5
    return pa.table({k: pa.array(v, type=types[k]) for k, v in cols.items() if k not in drop})


# --- PM100: the published columns (job_features.md) with the published file's types --------------------------
TS = pa.timestamp("us", tz="UTC")
PM100_TYPES = {
    "cores_alloc_layout": pa.string(), "cores_allocated": pa.string(), "cores_per_task": pa.int64(),
    "derived_ec": pa.string(), "eligible_time": TS, "end_time": TS, "group_id": pa.int64(), "job_id": pa.int64(),
    "job_state": pa.string(), "nodes": pa.string(), "num_cores_req": pa.int64(), "num_cores_alloc": pa.int64(),
    "num_gpus_req": pa.int64(), "num_gpus_alloc": pa.int64(), "num_nodes_req": pa.int64(),
    "num_nodes_alloc": pa.int64(), "mem_req": pa.int64(), "mem_alloc": pa.int64(), "num_tasks": pa.int64(),
    "partition": pa.string(), "priority": pa.int64(), "qos": pa.string(), "req_nodes": pa.string(),
    "run_time": pa.int64(), "shared": pa.string(), "start_time": TS, "state_reason": pa.string(),
    "submit_time": TS, "threads_per_core": pa.int64(), "time_limit": pa.int64(), "user_id": pa.int64(),
    "node_power_consumption": pa.list_(pa.int64()), "cpu_power_consumption": pa.list_(pa.int64()),
    "mem_power_consumption": pa.list_(pa.int64()),
}
INFINITE = 0xFFFFFFFF  # Slurm's INFINITE time_limit
# (job_id, user_id, group_id, partition, qos, submit, start, end, run_time, time_limit (minutes),
#  cores req, cores alloc, nodes req, nodes alloc, gpus req, gpus alloc, job_state)
PM100_ROWS = [
    # the published file's first job
    (2913594, 310, 25200, "1", "1", "2020-05-31 22:09:29", "2020-05-31 22:09:30", "2020-05-31 22:21:33", 723, 270,
     256, 2048, 16, 16, 64, 64, "CANCELLED"),
    (4063066, 12, 25200, "2", "0", "2020-05-31 22:22:08", "2020-05-31 22:22:08", "2020-05-31 22:41:25", 1157, 30,
     4, 128, 1, 1, 1, 1, "COMPLETED"),
    (100, 12, 25201, "2", "0", "2020-06-01 00:00:00", "2020-06-01 01:00:00", "2020-06-02 01:00:05", 86405, 1440,
     32, 32, 1, 1, 0, 0, "TIMEOUT"),
    (101, 7, 25201, "1", "2", "2020-06-01 12:00:00", "2020-06-01 12:00:10", "2020-06-01 12:10:10", 600, INFINITE,
     128, 128, 1, 1, 4, 4, "OUT_OF_MEMORY"),
]


def utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)


def pm100_table(rows=PM100_ROWS, types=PM100_TYPES, drop=()) -> pa.Table:
    n = len(rows)
    cols = {name: [None] * n for name in types}
    for i, r in enumerate(rows):
        (cols["job_id"][i], cols["user_id"][i], cols["group_id"][i], cols["partition"][i], cols["qos"][i], sub,
         start, end, cols["run_time"][i], cols["time_limit"][i], cols["num_cores_req"][i],
         cols["num_cores_alloc"][i], cols["num_nodes_req"][i], cols["num_nodes_alloc"][i], cols["num_gpus_req"][i],
         cols["num_gpus_alloc"][i], cols["job_state"][i]) = r
        cols["submit_time"][i] = cols["eligible_time"][i] = utc(sub)
        cols["start_time"][i], cols["end_time"][i] = utc(start), utc(end)
        cols["cores_alloc_layout"][i], cols["cores_allocated"][i] = "{900: [0, 1, 2, 3]}", "{900: 128}"
        cols["cores_per_task"][i], cols["num_tasks"][i], cols["priority"][i] = 4, 1, 330603
        cols["derived_ec"][i], cols["nodes"][i] = "0:0", "[900]"
        cols["shared"][i], cols["state_reason"][i] = "0", "None"
        cols["mem_req"][i], cols["mem_alloc"][i] = 475, 3800
        for k in ("node_power_consumption", "cpu_power_consumption", "mem_power_consumption"):
            cols[k][i] = [7970, 8450]
    return pa.table({k: pa.array(v, type=types[k]) for k, v in cols.items() if k not in drop})


def load(tmp_path: Path, table: pa.Table, preset: str, tz: str, name: str):
    f = tmp_path / f"{name}.parquet"
    pq.write_table(table, f)
    return load_table(tmp_path, f, name=name, cols=COLS, preset=preset, tz=tz)


def test_fdata_preset_by_hand(tmp_path):
    res, jobs, start = load(tmp_path, fdata_table(), "fdata", "Asia/Tokyo", "21_04")
    assert res.jobs == 3 and not res.rejected
    assert start == jst("2021-04-01 09:00:00")  # jid_1, submitted first
    want = {  # the offset times read as instants: wait = sdt - adt, run = edt - sdt; elpl and duration seconds
        "jid_1": dict(submit=0, wait=3 * 3600, run=86400, req=86400, procs=192, req_procs=192, cores=192,
                      node_count=4, user="usr_1", job_name="jnam_1", state="FAILED", status=0, month="2021-04"),
        "jid_0": dict(submit=jst("2021-04-01 10:28:01") - start, wait=4, run=3600, req=7200, procs=48, req_procs=48,
                      cores=48, node_count=1, user="usr_0", job_name="jnam_0", state="COMPLETED", status=1,
                      month="2021-04"),
        "jid_2": dict(submit=jst("2021-05-01 08:30:00") - start, wait=10, run=30, req=60, procs=48, req_procs=4,
                      cores=48, node_count=1, user="usr_0", job_name="jnam_2", state="COMPLETED", status=1,
                      month="2021-05"),
    }
    assert [j["slurm_id"] for j in jobs] == ["jid_1", "jid_0", "jid_2"]  # renumbered in submission order
    assert want["jid_0"]["submit"] == 5281 and want["jid_2"]["submit"] == 30 * 86400 - 1800
    for j in jobs:
        got = {k: j[k] for k in want[j["slurm_id"]]}
        assert got == want[j["slurm_id"]], j["slurm_id"]
        assert j["gpus"] is j["req_gpus"] is j["group_name"] is j["account"] is j["partition"] is j["qos"] is None


def test_pm100_preset_by_hand(tmp_path):
    res, jobs, start = load(tmp_path, pm100_table(), "pm100", "Europe/Rome", "pm100")
    assert res.jobs == 4 and not res.rejected and res.counts["no_limit"] == 1
    t0 = int(utc("2020-05-31 22:09:29").timestamp())
    assert start == t0
    by_id = {j["slurm_id"]: j for j in jobs}
    assert [j["slurm_id"] for j in jobs] == ["2913594", "4063066", "100", "101"]
    for r in PM100_ROWS:
        (job_id, user, group, part, qos, sub, st, end, _, limit, c_req, c_alloc, n_req, n_alloc, g_req, g_alloc,
         state) = r
        s, b, e = (int(utc(x).timestamp()) for x in (sub, st, end))
        j = by_id[str(job_id)]
        assert {k: j[k] for k in ("submit", "wait", "run", "req")} == {
            "submit": s - t0, "wait": b - s, "run": e - b,
            "req": None if limit == INFINITE else limit * 60}, job_id  # time_limit is minutes
        assert (j["procs"], j["req_procs"], j["cores"], j["node_count"], j["gpus"], j["req_gpus"]) == (
            c_alloc, c_req, c_alloc, n_alloc, g_alloc, g_req)
        assert (j["user"], j["group_name"], j["partition"], j["qos"], j["state"]) == (
            str(user), str(group), part, qos, state)
    assert [j["req"] for j in jobs] == [16200, 1800, 86400, None]
    assert [j["status"] for j in jobs] == [5, 1, 0, 0]  # CANCELLED, COMPLETED, TIMEOUT, OUT_OF_MEMORY
    assert [j["month"] for j in jobs] == ["2020-06", "2020-06", "2020-06", "2020-06"]  # 00:09 on 1 June in Rome


BAD = {
    # (preset, tz, good table, missing: (column, message), mistyped: (column, type, message))
    "fdata": ("Asia/Tokyo", fdata_table, FDATA_TYPES,
              ("elpl", "--preset fdata: the file has no column 'elpl', read as req"),
              ("adt", pa.int64(), "--preset fdata: column 'adt' (submit) is Int64, expected a timestamp column "
                                  "(or timestamp text) as the dataset publishes it")),
    "pm100": ("Europe/Rome", pm100_table, PM100_TYPES,
              ("num_nodes_alloc", "--preset pm100: the file has no column 'num_nodes_alloc', read as nodes"),
              ("time_limit", pa.string(), "--preset pm100: column 'time_limit' (req) is String, expected an "
                                          "integer column as the dataset publishes it")),
}


def snapshot(wh: Path) -> dict:
    """Every file of the warehouse with its content's hash (the lock file holds only the last writer's pid)."""
    return {str(p.relative_to(wh)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(wh.rglob("*")) if p.is_file() and p.name != ".writer.lock"}


@pytest.mark.parametrize("preset", sorted(BAD))
def test_missing_or_mistyped_column_is_one_line_and_changes_nothing(tmp_path, preset):
    tz, make, types, (gone, gone_msg), (col, dtype, typed_msg) = BAD[preset]
    wh = tmp_path / "wh"
    good = tmp_path / "good.parquet"
    pq.write_table(make(), good)
    run_cli("ingest", str(good), "--format", "table", "--preset", preset, "--tz", tz, warehouse=wh, check=True)
    before, traces = snapshot(wh), run_cli("traces", "--json", warehouse=wh, check=True).stdout

    missing = tmp_path / "missing.parquet"
    pq.write_table(make(drop=(gone,)), missing)
    casts = {"adt": lambda v: [jst(x) for x in v], "time_limit": lambda v: [str(x) for x in v]}
    table = make()
    mistyped = tmp_path / "mistyped.parquet"
    pq.write_table(table.set_column(table.schema.get_field_index(col), col,
                                    pa.array(casts[col](table[col].to_pylist()), type=dtype)), mistyped)
    for f, msg in ((missing, gone_msg), (mistyped, typed_msg)):
        p = run_cli("ingest", str(f), "--format", "table", "--preset", preset, "--tz", tz, warehouse=wh)
        assert p.returncode == 1
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {f}: {msg}"), p.stderr
        assert snapshot(wh) == before
        assert run_cli("traces", "--json", warehouse=wh, check=True).stdout == traces
