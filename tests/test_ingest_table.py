"""`ingest --format table`: the NREL Eagle sample through --preset eagle, the
same through --column and --mapping, other containers, and bad input."""

from __future__ import annotations

import gzip
from datetime import datetime
from zoneinfo import ZoneInfo

import polars as pl
import pytest

from conftest import run_cli, trace_path
from pipeline.errors import WalltimeError
from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions
from pipeline.ingest.table import PRESETS
from pipeline.warehouse import Warehouse

EAGLE = "NREL-Eagle-sample-1000.csv.gz"
COLS = ("job_id", "slurm_id", "array_job_id", "submit", "wait", "run", "procs", "req", "status", "state", "user", "account",
        "partition", "qos", "job_name", "gpus")


def load(tmp_path, path, name="t", cols=COLS, **opts):
    """(ingest result, the stored jobs' ``cols`` as dicts, the trace's unix_start_time) of ``path``."""
    wh = Warehouse(tmp_path / "wh")
    [res] = ingest([path], wh, name=name, options=IngestOptions(format="table", **opts))
    con = wh.reader()
    try:
        listed = ", ".join(f'"{c}"' for c in cols)
        rows = con.execute(f"SELECT {listed} FROM jobs WHERE trace = ? ORDER BY job_id", [name]).fetchall()
        (start,), = con.execute("SELECT unix_start_time FROM traces WHERE trace = ?", [name]).fetchall()
    finally:
        con.close()
    return res, [dict(zip(cols, r)) for r in rows], start


def eagle_rows():
    return pl.read_csv(gzip.open(trace_path(EAGLE)), infer_schema_length=0)


def test_eagle_preset_row_by_row(tmp_path):
    res, jobs, start = load(tmp_path, trace_path(EAGLE), preset="eagle", tz="America/Denver")
    src = eagle_rows()
    assert res.jobs == src.height == len(jobs) == 1000
    assert src.height - src["job_id"].n_unique() == 451  # one id carries 452 array tasks
    assert res.counts["shared_job_ids"] == 452 == sum(j["array_job_id"] is not None for j in jobs)
    zone = ZoneInfo("America/Denver")

    def epoch(s):
        return int(datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=zone).timestamp())

    # every source row is one job; match them by (id, submit, start, end, name)
    want = sorted((r["job_id"], epoch(r["submit_time"]) - start, epoch(r["start_time"]) - epoch(r["submit_time"]),
                   epoch(r["end_time"]) - epoch(r["start_time"]), int(r["processors_req"]),
                   int(float(r["wallclock_req"])), r["user"], r["account"], r["partition"], r["qos"], r["name"],
                   r["state"]) for r in src.iter_rows(named=True))
    got = sorted((j["slurm_id"], j["submit"], j["wait"], j["run"], j["procs"], j["req"], j["user"], j["account"],
                  j["partition"], j["qos"], j["job_name"], j["state"]) for j in jobs)
    assert got == want
    assert [j["job_id"] for j in jobs] == list(range(1, 1001))
    assert all(a["submit"] <= b["submit"] for a, b in zip(jobs, jobs[1:]))
    assert {j["status"] for j in jobs if j["state"] == "COMPLETED"} == {1}


def test_column_and_mapping_equal_the_preset(tmp_path):
    _, by_preset, _ = load(tmp_path / "a", trace_path(EAGLE), preset="eagle", tz="America/Denver")
    cols = [f"{k}={v}" for k, v in PRESETS["eagle"].items()]
    _, by_column, _ = load(tmp_path / "b", trace_path(EAGLE), columns=cols, tz="America/Denver")
    toml = tmp_path / "eagle.toml"
    toml.write_text("[columns]\n" + "".join(f'{k} = "{v}"\n' for k, v in PRESETS["eagle"].items()))
    _, by_mapping, _ = load(tmp_path / "c", trace_path(EAGLE), mapping=str(toml), tz="America/Denver")
    assert by_preset == by_column == by_mapping


@pytest.mark.parametrize("kind", ["parquet", "jsonl"])
def test_parquet_and_json_lines_with_slurm_strings(tmp_path, kind):
    df = pl.DataFrame({
        "id": ["7", "8_1", "9"], "who": ["ann", "bob", "ann"], "queue": ["gpu", "cpu", "cpu"],
        "sub": [1_700_000_000, 1_700_000_060, 1_700_000_100],         # epoch seconds
        "waited": ["00:01:00", "0", "1-00:00:00"],                      # Slurm strings and seconds
        "ran": [30, 45, 10], "limit": ["01:00:00", "UNLIMITED", "30"], "cpus": [4, 1, 2],
        "tres": [2, 0, 0],
    })
    f = tmp_path / f"jobs.{kind}"
    if kind == "parquet":
        df.write_parquet(f)
    else:
        df.write_ndjson(f)
    res, jobs, start = load(tmp_path, f, tz="UTC", columns=[
        "job_id=id", "user=who", "partition=queue", "submit=sub", "wait=waited", "run=ran", "req=limit",
        "procs=cpus", "gpus=tres"])
    assert start == 1_700_000_000 and res.counts["no_limit"] == 1
    assert [(j["slurm_id"], j["submit"], j["wait"], j["run"], j["req"], j["procs"], j["gpus"]) for j in jobs] == [
        ("7", 0, 60, 30, 3600, 4, 2), ("8_1", 60, 0, 45, None, 1, 0), ("9", 100, 86400, 10, 30, 2, 0)]  # plain numbers are seconds


def test_mapping_errors(tmp_path):
    f = trace_path(EAGLE)
    with pytest.raises(WalltimeError, match=r"--column submit=submit_tim: the file has no column 'submit_tim'"):
        load(tmp_path, f, columns=["submit=submit_tim", "start=start_time", "end=end_time", "procs=processors_req"])
    with pytest.raises(WalltimeError, match="the mapping lacks start or wait"):
        load(tmp_path, f, columns=["submit=submit_time", "end=end_time", "procs=processors_req"])
    with pytest.raises(WalltimeError, match="--column sumbit: unknown name"):
        load(tmp_path, f, columns=["sumbit=submit_time"])
    with pytest.raises(WalltimeError, match="needs a column mapping"):
        load(tmp_path, f)
    with pytest.raises(WalltimeError, match="--preset slurm: unknown"):
        load(tmp_path, f, preset="slurm")


def test_bad_value_names_line_and_column(tmp_path):
    text = gzip.open(trace_path(EAGLE)).read().decode().splitlines()
    cells = text[5].split(",")
    cells[10] = "yesterday"  # submit_time
    text[5] = ",".join(cells)
    f = tmp_path / "eagle-bad.csv"
    f.write_text("\n".join(text) + "\n")
    wh = tmp_path / "wh"
    p = run_cli("ingest", "--format", "table", "--preset", "eagle", "--tz", "America/Denver", str(f), warehouse=wh)
    assert p.returncode == 1
    assert p.stderr.strip() == (f'error: {f}:6: column submit_time (submit) is "yesterday", expected a time '
                                "(epoch seconds or YYYY-MM-DD HH:MM:SS)")
    assert not (wh / "walltime.duckdb").exists() or "eagle-bad" not in run_cli("traces", warehouse=wh).stdout
    p = run_cli("ingest", "--format", "table", "--preset", "eagle", "--tz", "America/Denver", "--lenient", str(f),
                warehouse=wh, check=True)
    assert "999 jobs, 1 bad line kept in rejects" in p.stdout
