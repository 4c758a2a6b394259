"""`sacct --json` / `--yaml` dumps (issue 25): read, not refused with "header lacks JobID".

The dumps in tests/data/slurm/ (json-lab-*) are real: one `sacct --json`,
one `--yaml` and one `--parsable2` text dump of the same 40 job ids, taken
within a second of each other from the Slurm 22.05.8 lab (README there).
json-live-* hold a RUNNING and a SUSPENDED job. Shown here: the JSON and the
text dump give the same jobs column by column
(two documented differences, both Slurm's); YAML gives the JSON's jobs; the
windowed reader equals its naive twin (tests/naive_sacct_json.py) job by job,
and equals itself parsed whole and in tiny windows; bad input is one line
naming the file, line and record, exit 1, warehouse unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import polars as pl
import pytest

import naive_sacct_json
from conftest import run_cli
from test_reliability import one_line_error

DATA = Path(__file__).parent / "data" / "slurm"
JSON_DUMP = DATA / "json-lab-sacct.json"
YAML_DUMP = DATA / "json-lab-sacct.yaml"
TEXT_DUMP = DATA / "json-lab-sacct-us.txt"


def jobs_of(wh: Path, trace: str) -> pl.DataFrame:
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    try:
        return pl.from_arrow(con.sql(f"SELECT * EXCLUDE (trace, line) FROM jobs WHERE trace = '{trace}' "
                                     "ORDER BY job_id").to_arrow_table())
    finally:
        con.close()


def ingest(wh: Path, *args: str) -> dict:
    p = run_cli("ingest", *args, "--tz", "UTC", "--json", warehouse=wh, check=True)
    return json.loads(p.stdout)["traces"][0]


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Path:
    """One warehouse with the three dumps of the same jobs."""
    wh = tmp_path_factory.mktemp("json") / "wh"
    ingest(wh, str(JSON_DUMP), "--name", "j")  # the default --format swf: told by the first bytes
    ingest(wh, str(YAML_DUMP), "--name", "y", "--format", "sacct")  # sacct: told likewise
    ingest(wh, str(TEXT_DUMP), "--name", "t", "--format", "sacct", "--delimiter", "US")
    return wh


def test_json_and_text_dumps_of_the_same_jobs_store_the_same_jobs(lab):
    j, t = jobs_of(lab, "j"), jobs_of(lab, "t")
    assert j.height == t.height == 41  # 46 records: 5 earlier attempts of requeued jobs 21, 22, 23, 32
    assert j.columns == t.columns
    differ = {}
    for c in j.columns:
        rows = [(s, a, b) for s, a, b in zip(t["slurm_id"], j[c], t[c]) if a != b]
        if rows:
            differ[c] = rows
    # 22.05's JSON has no submit_line (data_parser 0.0.39, Slurm 23.02, added it): the `-p` list the text
    # dump's SubmitLine gives (req_partitions) is NULL from JSON
    lists = differ.pop("req_partitions")
    assert all(a is None and b for _, a, b in lists) and len(lists) == j.height
    # ... and so is the `-N` maximum (max_nodes): jobs 9 and 18 (pend_wide) were `sbatch -N4 --exclusive`
    assert differ.pop("max_nodes") == [("9", None, 4), ("18", None, 4)]
    # Slurm's own two differences (docs/ingest.md): JSON names who cancelled in kill_request_user
    # ("root"), the text appends the uid to State; and 22.05's JSON prints exit_code 0 for job 30,
    # whose batch script ran `exit 2` (the text dump: 2:0)
    assert differ == {
        "state": [("18", "CANCELLED", "CANCELLED by 0"), ("38_[0-5]", "CANCELLED", "CANCELLED by 0")],
        "exit_code": [("30", "0:0", "2:0")],
    }
    # the structure the issue names: arrays (expanded tasks and a pending remainder), het components
    assert set(j.filter(pl.col("array_job_id") == 34)["slurm_id"]) == {"34_0", "34_1", "34_2", "34_3"}
    assert j.filter(pl.col("slurm_id") == "35_[0-5]")["array_task_id"].to_list() == [None]
    het = j.filter(pl.col("het_job_id") == 40).sort("het_offset")
    assert het["slurm_id"].to_list() == ["40+0", "40+1"] and het["procs"].to_list() == [1, 2]


def test_yaml_dump_stores_the_json_dumps_jobs(lab):
    assert jobs_of(lab, "y").equals(jobs_of(lab, "j"))


def test_counts_match_the_text_dump_and_name_the_earlier_attempts(tmp_path):
    j = ingest(tmp_path / "a", str(JSON_DUMP))
    t = ingest(tmp_path / "b", str(TEXT_DUMP), "--format", "sacct", "--delimiter", "US")
    assert j["counts"]["earlier_attempts"] == 5
    assert j["counts"]["requeued_jobs"] == 4
    for k in ("steps_skipped", "never_started", "no_limit", "backfill_year", "running_at_dump", "array_tasks",
              "het_components"):
        assert j["counts"][k] == t["counts"][k], k


def test_reader_equals_its_naive_twin_job_by_job(lab):
    twin = naive_sacct_json.jobs(JSON_DUMP)
    got = jobs_of(lab, "j")
    assert sorted(got["slurm_id"]) == sorted(twin)
    for row in got.iter_rows(named=True):
        want = twin[row["slurm_id"]]
        for k, v in want.items():
            assert row[k] == pytest.approx(v) if isinstance(v, float) else row[k] == v, (row["slurm_id"], k)


def test_nodes_size_equals_the_twin(tmp_path):
    twin = naive_sacct_json.jobs(JSON_DUMP, size="nodes")
    ingest(tmp_path / "wh", str(JSON_DUMP), "--size", "nodes")
    got = jobs_of(tmp_path / "wh", "json-lab-sacct")
    assert {r["slurm_id"]: r["procs"] for r in got.iter_rows(named=True)} == {s: v["procs"] for s, v in twin.items()}


def test_windows_and_whole_document_give_the_same_jobs(monkeypatch):
    from pipeline.ingest import sacct_json

    data = JSON_DUMP.read_bytes()
    whole = sacct_json.parse(data, "x", "UTC")
    monkeypatch.setattr(sacct_json, "WINDOW", 2000)  # smaller than one record: every window grows to fit
    tiny = sacct_json.parse(data, "x", "UTC")
    compact = json.dumps(json.loads(data), separators=(",", ":")).encode()  # as `jq -c` prints it: one line
    one_line = sacct_json.parse(compact, "x", "UTC")
    assert tiny.jobs.equals(whole.jobs) and one_line.jobs.equals(whole.jobs)
    assert whole.jobs.height == 41 and whole.lines == len(data.splitlines())
    assert tiny.counts == whole.counts == one_line.counts


def test_a_json_dump_given_as_sacct_is_read_not_refused_for_its_header(tmp_path):
    p = run_cli("ingest", str(JSON_DUMP), "--format", "sacct", "--tz", "UTC", warehouse=tmp_path / "wh")
    assert p.returncode == 0, p.stderr
    assert "lacks JobID" not in p.stderr and "loaded as trace 'json-lab-sacct': 41 jobs" in p.stdout
    assert "(69 job steps skipped; 6 never started" in p.stdout
    assert "; 5 earlier attempts of 4 requeued jobs kept in job_attempts; each job is its last attempt;" in p.stdout


def refused(tmp_path, path: Path, *needles, args=()) -> None:
    wh = tmp_path / "wh"
    ingest(wh, str(TEXT_DUMP), "--format", "sacct", "--delimiter", "US")
    before = (wh / "walltime.duckdb").read_bytes()
    p = run_cli("ingest", str(path), "--tz", "UTC", *args, warehouse=wh)
    one_line_error(p, *needles)
    assert p.stdout == ""
    assert (wh / "walltime.duckdb").read_bytes() == before


def test_a_truncated_dump_is_one_line_naming_the_record(tmp_path):
    raw = JSON_DUMP.read_bytes()
    cut = raw.index(b'"job_id": 22') + 5  # inside the 4th record (32's two attempts, 23, 22, ...)
    bad = tmp_path / "cut.json"
    bad.write_bytes(raw[:cut])
    line = raw[:cut].count(b"\n") + 1
    refused(tmp_path, bad, f'cut.json:{line}: the JSON ends inside record 4 of "jobs"', "truncated file")


def test_json_that_is_not_sacct_is_one_line(tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"meta": json.loads(JSON_DUMP.read_bytes())["meta"], "items": []}))
    refused(tmp_path, other, 'other.json:1: no "jobs" array; expected `sacct --json`')


def test_a_record_that_is_not_a_job_names_its_line_and_record(tmp_path):
    raw = JSON_DUMP.read_text()
    doc = json.loads(raw)
    k = raw.index('"time": {', raw.rindex('\n    {', 0, raw.index('"job_id": 22')))  # record 4's time object
    bad = tmp_path / "nojob.json"
    bad.write_text(raw[:k] + '"tiem": {' + raw[k + len('"time": {'):])
    line = raw[:raw.rindex("\n    {", 0, k)].count("\n") + 2
    assert doc["jobs"][3]["job_id"] == 22
    refused(tmp_path, bad, f"nojob.json:{line}: record 4 of \"jobs\" (job 22) is not a sacct job object",
            "field time missing")


def test_a_value_out_of_range_names_the_field(tmp_path):
    raw = JSON_DUMP.read_text()
    k = raw.index('"submission": ', raw.rindex('\n    {', 0, raw.index('"job_id": 22')))  # record 4's
    end = raw.index(",", k)
    bad = tmp_path / "far.json"
    bad.write_text(raw[:k] + '"submission": 99999999999' + raw[end:])
    refused(tmp_path, bad, "far.json:", "record 4 (job 22): time.submission is 99999999999, expected a time "
                                        "within 200 years of 1970")


def test_a_truncated_yaml_dump_is_one_line(tmp_path):
    raw = YAML_DUMP.read_bytes()
    bad = tmp_path / "cut.yaml"
    bad.write_bytes(raw[:len(raw) // 2].rsplit(b": ", 1)[0])
    refused(tmp_path, bad, "cut.yaml:", "expected `sacct --yaml` output")


def test_delimiter_with_a_json_dump_is_refused(tmp_path):
    refused(tmp_path, JSON_DUMP, "--delimiter US:", "drop --delimiter", args=("--format", "sacct", "--delimiter", "US"))


def test_jobs_running_or_suspended_at_the_dump_are_censored_as_in_the_text_dump(tmp_path):
    """json-live-*: 47 RUNNING and 48 SUSPENDED when sacct ran (end 0 in JSON, Unknown in text)."""
    wh = tmp_path / "wh"
    j = ingest(wh, str(DATA / "json-live-sacct.json"))
    t = ingest(wh, str(DATA / "json-live-sacct-us.txt"), "--format", "sacct", "--delimiter", "US")
    assert j["counts"]["running_at_dump"] == t["counts"]["running_at_dump"] == 2
    assert any("2 jobs still running or suspended at the dump (47, 48)" in n for n in j["notes"])
    a, b = jobs_of(wh, "json-live-sacct"), jobs_of(wh, "json-live-sacct-us")
    assert a["req_partitions"].null_count() == a.height and b["req_partitions"].null_count() == 0  # 22.05 JSON
    assert a.drop("req_partitions").equals(b.drop("req_partitions"))
    live = a.filter(pl.col("slurm_id").is_in(["47", "48"]))
    assert live["run"].to_list() == [None, None] and live["wait"].null_count() == 0
    assert live["state"].to_list() == ["RUNNING", "SUSPENDED"] and live["status"].to_list() == [None, None]


def test_json_and_the_duplicates_text_dump_store_the_same_jobs_attempts_and_eligible(tmp_path):
    """sacct-lab.json and attempts-sacct-D.txt are the same 13 jobs of a real Slurm
    (requeued, preempted, node-failed attempts; held, --begin and dependent jobs):
    the same jobs (Eligible rule included) and the same rows of job_attempts."""
    wh = tmp_path / "wh"
    ingest(wh, str(DATA / "sacct-lab.json"), "--name", "j")
    ingest(wh, str(DATA / "attempts-sacct-D.txt"), "--name", "t", "--format", "sacct", "--tz", "UTC")
    j, t = jobs_of(wh, "j"), jobs_of(wh, "t")
    assert j.height == t.height == 13
    for c in ("slurm_id", "submit", "eligible", "wait", "run", "req", "procs", "cores", "node_count", "gpus", "status"):
        assert j[c].to_list() == t[c].to_list(), c
    assert j.filter(pl.col("slurm_id") == "26")["wait"].item() == 0  # held: Start = Eligible
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    try:
        rows = {tr: con.execute("SELECT job_id, slurm_id, attempt, submit_ts, eligible_ts, start_ts, end_ts, run, "
                                "cpus, nodes, gpus, split_part(state, ' ', 1) FROM job_attempts WHERE trace = ? "
                                "ORDER BY slurm_id, attempt", [tr]).fetchall() for tr in ("j", "t")}
    finally:
        con.close()
    assert len(rows["j"]) == 5 and rows["j"] == rows["t"]
