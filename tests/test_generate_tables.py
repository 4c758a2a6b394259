"""`walltime generate --shape eagle|fdata`: tables in the datasets' columns at any size (issue 43, item 2).

Shown here: the files load through `ingest --format table --preset eagle|fdata`; the
distributions are the ones docs/generate.md claims, each checked against a computation
that does not use the generator's code (the Eagle sample read with the csv module; the
F-DATA model's shares and its R mixture's CDF written out from the stated numbers); the
embedded Eagle bank is the sample's; the same seed gives the same bytes; bad options are
one line, exit 1, nothing written.
"""

from __future__ import annotations

import csv
import gzip
import json
import math

import numpy as np
import polars as pl
import pytest
from scipy.special import betainc

from conftest import run_cli, trace_path
from pipeline.errors import WalltimeError
from pipeline.generate import tables as gt

SAMPLE = "NREL-Eagle-sample-1000.csv.gz"


def sample_rows() -> list[dict]:
    with gzip.open(trace_path(SAMPLE), "rt", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def eagle(tmp_path_factory):
    out = tmp_path_factory.mktemp("eagle") / "eagle.parquet"
    doc = gt.generate_table_file(out, "eagle", 200_000, seed=3)
    return out, pl.read_parquet(out), doc


@pytest.fixture(scope="module")
def fdata(tmp_path_factory):
    out = tmp_path_factory.mktemp("fdata") / "fdata.parquet"
    doc = gt.generate_table_file(out, "fdata", 200_000, seed=5)
    return out, pl.read_parquet(out), doc


def test_the_embedded_eagle_bank_is_the_samples():
    rows = sample_rows()
    kinds: dict[tuple, int] = {}
    for r in rows:
        k = (r["partition"], r["qos"], float(r["wallclock_req"]), int(r["nodes_req"]), int(r["processors_req"]),
             int(r["gpus_req"]), float(r["mem_req"]))
        kinds[k] = kinds.get(k, 0) + 1
    from pipeline.generate import eagle_bank

    assert {r[:7]: r[7] for r in eagle_bank.ROWS} == kinds
    ratios = sorted(float(r["run_time"]) / float(r["wallclock_req"]) for r in rows)
    assert np.allclose(eagle_bank.RATIOS, ratios, atol=1e-6)
    assert len(eagle_bank.WAITS) == len(rows) and min(eagle_bank.WAITS) >= 0


def test_the_eagle_table_has_the_samples_columns_and_types(eagle):
    _, df, _ = eagle
    with gzip.open(trace_path(SAMPLE), "rt") as fh:
        header = fh.readline().strip().split(",")
    assert df.columns == header
    assert df.schema["wallclock_req"] == pl.Float64 and df.schema["processors_req"] == pl.Int64
    assert df.schema["submit_time"] == pl.Datetime("us")


def test_eagle_partition_shares_are_the_samples(eagle):
    _, df, _ = eagle
    rows = sample_rows()
    want = {}
    for r in rows:
        want[r["partition"]] = want.get(r["partition"], 0) + 1 / len(rows)
    got = {p: c / df.height for p, c in df["partition"].value_counts().iter_rows()}
    assert set(got) <= set(want)
    for p, share in want.items():
        assert abs(got.get(p, 0.0) - share) < 0.03, (p, got.get(p), share)


def test_eagle_requests_are_the_samples_values_in_its_shares(eagle):
    _, df, _ = eagle
    rows = sample_rows()
    values = [float(r["wallclock_req"]) for r in rows]
    assert set(df["wallclock_req"].unique().to_list()) <= set(values)
    for v in (1800.0, 42000.0, 172800.0):  # the three requests of 88% of the sample's rows
        assert abs(float((df["wallclock_req"] == v).mean()) - values.count(v) / len(values)) < 0.04, v


def test_eagle_run_request_ratio_quantiles_are_the_samples(eagle):
    _, df, _ = eagle
    rows = sample_rows()
    ratios = np.array([float(r["run_time"]) / float(r["wallclock_req"]) for r in rows])
    got = (df["run_time"] / df["wallclock_req"]).to_numpy()
    for q in (0.1, 0.25, 0.5, 0.75, 0.9):
        assert abs(np.quantile(got, q) - np.quantile(ratios, q)) < 0.02, q
    # TIMEOUT exactly where the run reaches the request, about as often as in the sample
    timeout = df["state"] == "TIMEOUT"
    assert (timeout == (df["run_time"] >= df["wallclock_req"])).all()
    assert abs(float(timeout.mean()) - sum(r["state"] == "TIMEOUT" for r in rows) / len(rows)) < 0.01


def test_eagle_times_are_consistent_and_arrays_share_id_and_submit(eagle):
    _, df, doc = eagle
    assert (df["start_time"] >= df["submit_time"]).all()
    assert ((df["end_time"] - df["start_time"]).dt.total_seconds() == df["run_time"].cast(pl.Int64)).all()
    assert df["submit_time"].is_sorted()
    shared = df.group_by("job_id").agg(pl.len(), pl.col("submit_time").n_unique().alias("submits"))
    assert shared["submits"].max() == 1 and shared["len"].max() > 1
    assert doc["job_ids"] == shared.height and doc["users"] == df["user"].n_unique()


def test_the_eagle_table_ingests_through_the_preset(tmp_path):
    out = tmp_path / "e.csv.gz"
    doc = json.loads(run_cli("generate", "--shape", "eagle", "--jobs", "20000", "--seed", "1", "--out", str(out),
                             "--json", check=True).stdout)
    wh = tmp_path / "wh"
    run_cli("ingest", str(out), "--format", "table", "--preset", "eagle", "--tz", doc["timezone"], "--capacity",
            str(doc["capacity"]), "--name", "e", warehouse=wh, check=True)
    sql = ("SELECT count(*), count(DISTINCT user), count(DISTINCT partition), sum(req), sum(run), "
           "count(DISTINCT array_job_id) FROM jobs WHERE trace = 'e'")
    got = json.loads(run_cli("sql", sql, "--json", warehouse=wh, check=True).stdout)
    row = list(got[0].values()) if isinstance(got, list) else list(got["rows"][0].values())
    with gzip.open(out, "rt") as fh:
        rows = list(csv.DictReader(fh))
    assert row[0] == 20_000 == len(rows)
    assert row[1] == len({r["user"] for r in rows}) == doc["users"]
    assert row[2] == len({r["partition"] for r in rows})
    assert row[3] == sum(int(float(r["wallclock_req"])) for r in rows)
    assert row[4] == sum(int(float(r["run_time"])) for r in rows)


def test_the_fdata_table_ingests_through_the_preset(tmp_path):
    out = tmp_path / "f.parquet"
    gt.generate_table_file(out, "fdata", 20_000, seed=2)
    wh = tmp_path / "wh"
    run_cli("ingest", str(out), "--format", "table", "--preset", "fdata", "--tz", "Asia/Tokyo", "--name", "f",
            warehouse=wh, check=True)
    df = pl.read_parquet(out)
    got = json.loads(run_cli("sql", "SELECT count(*) AS n, sum(req) AS req, sum(run) AS run, sum(procs) AS procs, "
                             "count(*) FILTER (status = 0) AS failed, min(wait) AS w FROM jobs WHERE trace = 'f'",
                             "--json", warehouse=wh, check=True).stdout)
    row = got[0] if isinstance(got, list) else got["rows"][0]
    assert row["n"] == 20_000 and row["req"] == int(df["elpl"].sum()) and row["run"] == int(df["duration"].sum())
    assert row["procs"] == int(df["cnumat"].sum()) and row["w"] >= 0
    assert row["failed"] == int((df["exit state"] == "failed").sum())


def test_fdata_shares_are_the_stated_models(fdata):
    _, df, _ = fdata
    nodes = {1: 0.60, 2: 0.05, 4: 0.07, 8: 0.05, 12: 0.02, 16: 0.05, 32: 0.035, 48: 0.015, 64: 0.03, 128: 0.025,
             256: 0.02}  # docs/generate.md, written out again
    total = sum(gt.FDATA_NODES.values())
    for n, share in nodes.items():
        assert abs(float((df["nnumr"] == n).mean()) - share / total) < 0.03, n
    assert (df["cnumat"] == df["nnuma"] * 48).all() and (df["cnumr"] <= df["cnumat"]).all()
    elpl = {600: 0.08, 1800: 0.12, 3600: 0.25, 7200: 0.12, 86400: 0.17}
    for v, share in elpl.items():
        assert abs(float((df["elpl"] == v).mean()) - share) < 0.03, v
    assert df["adt"][0].endswith("+09") and len(df["adt"][0]) == len("2021-03-01 10:28:01+09")


def test_fdata_run_request_ratio_follows_the_stated_mixture(fdata):
    _, df, _ = fdata
    r = (df["duration"] / df["elpl"]).to_numpy()

    def cdf(x: float) -> float:  # 5% U(0, 0.005), 6% at 1, 89% Beta(0.8, 2)
        return 0.05 * min(x / 0.005, 1.0) + 0.06 * (x >= 1.0) + 0.89 * betainc(0.8, 2.0, min(x, 1.0))

    for x in (0.004, 0.05, 0.2, 0.4, 0.6, 0.9):
        assert abs(float(np.mean(r <= x)) - cdf(x)) < 0.03, x
    assert abs(float(np.mean(r >= 1.0)) - 0.06) < 0.01
    assert math.isclose(float(np.mean(r < 0.5)), cdf(0.5), abs_tol=0.03)


@pytest.mark.parametrize("name", ["e.parquet", "e.csv.gz"])
def test_same_seed_same_bytes(tmp_path, name):
    a, b, c = tmp_path / "a" / name, tmp_path / "b" / name, tmp_path / "c" / name
    for p in (a, b, c):
        p.parent.mkdir()
    gt.generate_table_file(a, "eagle", 5000, seed=7)
    gt.generate_table_file(b, "eagle", 5000, seed=7)
    gt.generate_table_file(c, "eagle", 5000, seed=8)
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()


@pytest.mark.parametrize("args,option", [
    (["--shape", "pm100"], "--shape"),
    (["--shape", "eagle", "--jobs", "0"], "--jobs"),
    (["--shape", "eagle", "--jobs", "60000000"], "--jobs"),
    (["--shape", "fdata", "--load", "0"], "--load"),
    (["--shape", "eagle", "--capacity", "0"], "--capacity"),
    (["--shape", "eagle", "--timezone", "Mars/Olympus"], "--timezone"),
    (["--shape", "eagle", "--waits", "none"], "--waits"),
    (["--shape", "eagle", "--start", "yesterday"], "--start"),
])
def test_bad_options_one_line_exit_1(tmp_path, args, option):
    out = tmp_path / "t.parquet"
    proc = run_cli("generate", "--out", str(out), *args)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and option in lines[0], proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_table_shape_needs_a_table_file_name(tmp_path):
    with pytest.raises(WalltimeError, match=r"^--out .*w\.swf: --shape eagle writes \.parquet, \.csv, \.csv\.gz"):
        gt.generate_table_file(tmp_path / "w.swf", "eagle", 100)
    assert list(tmp_path.iterdir()) == []
