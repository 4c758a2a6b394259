"""`walltime generate`: reproducible bytes, valid SWF that ingests, realistic statistics."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from zoneinfo import ZoneInfo

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli
from pipeline.errors import WalltimeError
from pipeline.generate import generate, generate_file, offered_load, swf_header, unix_start_of, write_swf
from pipeline.generate.arrivals import burst_starts
from pipeline.generate.model import REQUEST_MENU, Model
from pipeline.ingest import swf

N = 30_000
CAP = 256


@pytest.fixture(scope="module")
def df() -> pl.DataFrame:
    return generate(N, seed=11, capacity=CAP, load=0.7)


def with_r(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns((pl.col("run") / pl.col("req")).alias("r"))


# -- reproducibility ----------------------------------------------------------

@pytest.mark.parametrize("suffix", [".swf", ".swf.gz"])
def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path, suffix):
    paths = [tmp_path / f"{name}{suffix}" for name in ("a", "b", "c")]
    for path, seed in zip(paths, (5, 5, 6)):
        generate_file(path, 3000, seed, 64, 0.8)
    a, b, c = (p.read_bytes() for p in paths)
    assert a == b
    assert a != c


def test_same_seed_other_load_same_jobs_rescaled_arrivals():
    lo = generate(5000, seed=2, capacity=128, load=0.4)
    hi = generate(5000, seed=2, capacity=128, load=0.8)
    cols = ["run", "procs", "req", "status", "user_id", "group_id", "exe_id"]
    assert lo.select(cols).sort(cols).equals(hi.select(cols).sort(cols))
    ratio = lo["submit"].max() / hi["submit"].max()
    assert 1.9 < ratio < 2.1


# -- SWF validity -------------------------------------------------------------

def test_frame_is_well_formed(df):
    assert df.height == N
    assert df.columns == [c for c, _, _ in swf.FIELDS]
    assert df["job_id"].to_list() == list(range(1, N + 1))
    assert df["submit"].is_sorted() and df["submit"].min() == 0
    assert df["procs"].min() >= 1 and df["procs"].max() <= CAP
    assert (df["req_procs"] == df["procs"]).all()
    assert df["run"].min() >= 1 and (df["run"] <= df["req"]).all()
    assert set(df["req"].unique().to_list()) <= set(REQUEST_MENU.tolist())
    assert set(df["status"].unique().to_list()) <= {0, 1}
    assert df["wait"].min() >= 0


def test_waits_none_leaves_minus_one():
    df = generate(500, seed=1, capacity=32, load=0.7, waits="none")
    assert (df["wait"] == -1).all()
    assert df.drop("wait").equals(generate(500, seed=1, capacity=32, load=0.7).drop("wait"))


def test_header_has_every_standard_field_and_parses(df, tmp_path):
    header = swf_header(df, seed=11, capacity=CAP, load=0.7)
    path = tmp_path / "w.swf"
    write_swf(df, header, path)
    parsed = swf.parse(path.read_bytes())
    keys = {k for _, k, _ in parsed.header_lines if k}
    for key in ("Version", "Computer", "Installation", "Acknowledge", "Information", "Conversion", "MaxJobs",
                "MaxRecords", "Preemption", "UnixStartTime", "TimeZone", "TimeZoneString", "StartTime",
                "EndTime", "MaxNodes", "MaxProcs", "Note"):
        assert key in keys, key
    h = parsed.header
    assert h["max_procs"] == CAP and h["max_nodes"] == CAP
    assert h["max_jobs"] == N and h["max_records"] == N
    assert h["unix_start_time"] == unix_start_of("2025-01-06", "Europe/Stockholm")
    assert h["time_zone_string"] == "Europe/Stockholm" and h["time_zone"] == 3600
    assert not parsed.bad
    assert parsed.jobs.height == N
    # -1 comes back as null; everything else is what we generated
    assert parsed.jobs["run"].to_list() == df["run"].to_list()
    assert parsed.jobs["req"].to_list() == df["req"].to_list()


def test_cli_output_ingests_with_zero_rejects(tmp_path, wh_dir):
    out = tmp_path / "synthetic.swf.gz"
    gen = run_cli("generate", "--jobs", "4000", "--seed", "9", "--capacity", "100", "--load", "0.8",
                  "--timezone", "US/Pacific", "--out", str(out), "--json", check=True)
    summary = json.loads(gen.stdout)
    for key in ("path", "jobs", "span_s", "offered_load", "sha256"):
        assert key in summary
    assert summary["jobs"] == 4000 and summary["path"] == str(out)
    assert abs(summary["offered_load"] - 0.8) < 0.03
    with gzip.open(out, "rb") as fh:
        assert fh.read().startswith(b"; Version: 2.2\n")

    ing = run_cli("ingest", str(out), "--json", warehouse=wh_dir, check=True)
    result = json.loads(ing.stdout)["traces"][0]
    assert result["status"] == "loaded" and result["jobs"] == 4000 and result["rejected"] == 0
    assert result["sha256"] == summary["sha256"]
    q = run_cli("sql", "select capacity, unix_start_time, time_zone_string, tz, rejected, jobs from traces",
                "--json", warehouse=wh_dir, check=True)
    doc = json.loads(q.stdout)
    row = doc[0]
    assert row["capacity"] == 100
    assert row["unix_start_time"] == unix_start_of("2025-01-06", "US/Pacific")
    assert row["time_zone_string"] == "US/Pacific" and row["tz"] == "US/Pacific"
    assert row["rejected"] == 0 and row["jobs"] == 4000


def test_cli_human_output(tmp_path):
    out = tmp_path / "w.swf"
    proc = run_cli("generate", "--jobs", "500", "--out", str(out), check=True)
    assert proc.stdout.startswith(f"{out}: 500 jobs over ")
    assert out.exists()


BAD = [
    (["--jobs", "0"], "--jobs"),
    (["--jobs", "-5"], "--jobs"),
    (["--load", "0"], "--load"),
    (["--load", "-0.5"], "--load"),
    (["--load", "nan"], "--load"),
    (["--capacity", "0"], "--capacity"),
    (["--seed", "-1"], "--seed"),
    (["--timezone", "Mars/Olympus"], "--timezone"),
    (["--timezone", "localtime"], "--timezone"),
    (["--start", "next tuesday"], "--start"),
    (["--waits", "sjf"], "--waits"),
    (["--load", "0.000001", "--capacity", "1"], "--load"),
]


@pytest.mark.parametrize("args, option", BAD)
def test_bad_options_refused_before_writing(tmp_path, args, option):
    kw = {"jobs": 100, "seed": 0, "capacity": 8, "load": 0.5, "start": "2025-01-06", "tz": "UTC", "waits": "easy"}
    names = {"--jobs": "jobs", "--seed": "seed", "--capacity": "capacity", "--load": "load",
             "--start": "start", "--timezone": "tz", "--waits": "waits"}
    for flag, value in zip(args[::2], args[1::2]):
        kind = type(kw[names[flag]])
        kw[names[flag]] = float(value) if kind is float else int(value) if kind is int else value
    out = tmp_path / "w.swf"
    with pytest.raises(WalltimeError, match=f"^{option}: ") as err:
        generate_file(out, **kw)
    assert "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, option", [BAD[0], BAD[3], BAD[5], BAD[7], (["--jobs", "many"], "--jobs")])
def test_bad_options_one_line_exit_1(tmp_path, args, option):
    out = tmp_path / "w.swf"
    proc = run_cli("generate", "--out", str(out), *args)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and option in lines[0], proc.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("target", ["missing-dir/w.swf", "."])
def test_unwritable_out_one_line_exit_1(tmp_path, target):
    proc = run_cli("generate", "--jobs", "10", "--out", str(tmp_path / target))
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--out" in lines[0], proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_directory_that_refuses_files_is_refused(tmp_path):
    # /proc refuses new files even for root, unlike a chmod-ed directory
    with pytest.raises(WalltimeError, match="^--out: cannot write /proc/walltime-test.swf"):
        generate_file("/proc/walltime-test.swf", 10, 0, 8, 0.5)
    a_file = tmp_path / "plain-file"
    a_file.write_text("x")
    with pytest.raises(WalltimeError, match="--out"):
        generate_file(a_file / "w.swf", 10, 0, 8, 0.5)


# -- statistics -----------------------------------------------------------------

@pytest.mark.parametrize("load", [0.3, 0.7, 0.95])
def test_offered_load_close_to_target(load):
    df = generate(20_000, seed=4, capacity=128, load=load)
    assert offered_load(df, 128) == pytest.approx(load, rel=0.02)


def test_daily_and_weekly_cycles(df):
    local = pl.from_epoch(pl.col("submit") + unix_start_of("2025-01-06", "Europe/Stockholm"), time_unit="s") \
        .dt.replace_time_zone("UTC").dt.convert_time_zone("Europe/Stockholm")
    t = df.select(local.dt.hour().alias("hour"), local.dt.weekday().alias("dow"))
    work = t.filter(pl.col("hour").is_between(9, 16)).height / 8
    night = t.filter(pl.col("hour").is_between(0, 5)).height / 6
    assert work > 2.5 * night
    weekday = t.filter(pl.col("dow") <= 5).height / 5
    weekend = t.filter(pl.col("dow") >= 6).height / 2
    assert weekday > 1.4 * weekend


def test_estimate_accuracy_like_real_traces(df):
    d = with_r(df)
    below_half = (d["r"] < 0.5).mean()
    assert 0.45 <= below_half <= 0.8  # KTH 0.54, CTC 0.65, SDSC-SP2 0.72
    assert 0.3 <= d["r"].mean() <= 0.55
    killed = ((d["status"] == 0) & (d["run"] == d["req"])).mean()
    assert 0.04 <= killed <= 0.2
    short = (d["run"] < 90).mean()
    assert 0.15 <= short <= 0.45  # M&F Table 2: 21-33% of jobs under 90 s


def test_users_repeat_themselves(df):
    d = with_r(df)
    per_user = d.group_by("user_id").agg(pl.col("r").std().alias("sd"), pl.len().alias("n")).filter(pl.col("n") >= 10)
    weighted = float((per_user["sd"] * per_user["n"]).sum() / per_user["n"].sum())
    assert weighted < 0.92 * d["r"].std()
    # Tang's triple key (user, project, request) groups repeated jobs far more tightly
    per_key = d.group_by("user_id", "group_id", "req").agg(pl.col("r").std().alias("sd"), pl.len().alias("n")) \
        .filter(pl.col("n") >= 10)
    assert per_key["n"].sum() > 0.8 * d.height
    assert float((per_key["sd"] * per_key["n"]).sum() / per_key["n"].sum()) < 0.8 * d["r"].std()
    # a user's next job usually asks for the same time as their previous one
    same = d.sort("user_id", "job_id").select(
        ((pl.col("req") == pl.col("req").shift(1)) & (pl.col("user_id") == pl.col("user_id").shift(1))).mean()
    ).item()
    assert same > 0.5
    users, groups = d["user_id"].n_unique(), d["group_id"].n_unique()
    assert 50 <= users <= 1000 and 2 <= groups < users
    assert (d.group_by("user_id").agg(pl.col("group_id").n_unique())["group_id"] > 1).any()


def test_sizes_many_serial_power_of_two_bias(df):
    procs = df["procs"]
    assert 0.2 <= (procs == 1).mean() <= 0.4
    parallel = procs.filter(procs > 1)
    pow2 = ((parallel & (parallel - 1)) == 0).mean()
    assert pow2 > 0.6
    # wider jobs run longer (Lublin-Feitelson correlation)
    d = df.with_columns(wide=pl.col("procs") >= 16)
    med = d.group_by("wide").agg(pl.col("run").median()).sort("wide")["run"].to_list()
    assert med[1] > med[0]


def test_capacity_one_and_single_job():
    one = generate(300, seed=1, capacity=1, load=0.5)
    assert (one["procs"] == 1).all()
    assert offered_load(one, 1) == pytest.approx(0.5, rel=0.1)
    single = generate(1, seed=1, capacity=8, load=0.5)
    assert single.height == 1 and single["submit"][0] == 0


@settings(max_examples=25, deadline=None)
@given(jobs=st.integers(1, 400), seed=st.integers(0, 2**32), capacity=st.integers(1, 5000),
       load=st.floats(0.05, 3.0))
def test_invariants_hold_for_any_options(jobs, seed, capacity, load):
    df = generate(jobs, seed=seed, capacity=capacity, load=load)
    assert df.height == jobs
    assert df["job_id"].to_list() == list(range(1, jobs + 1))
    assert df["submit"].is_sorted() and df["submit"].min() == 0
    assert 1 <= df["procs"].min() and df["procs"].max() <= capacity
    assert (df["run"] >= 1).all() and (df["run"] <= df["req"]).all()
    assert not ((df["run"] == df["req"]) & (df["status"] == 1)).any()  # a job at its limit was killed


# -- the arrival clock against a plain hour-by-hour walk ------------------------

def naive_burst_start(unit: float, span: float, unix_start: int, tz: str, m: Model) -> float:
    """Walk hour by hour (local clock via zoneinfo) until the integrated rate reaches unit * total."""
    zone = ZoneInfo(tz)

    def rate(k: int) -> float:
        local = dt.datetime.fromtimestamp(unix_start + 3600 * k + 1800, zone)
        return m.hourly[local.hour] * (m.weekend_factor if local.isoweekday() >= 6 else 1.0)

    full = int(span // 3600)
    total = sum(rate(k) * 3600 for k in range(full)) + rate(full) * (span - 3600 * full)
    target, acc, k = unit * total, 0.0, 0
    while acc + rate(k) * 3600 < target:
        acc += rate(k) * 3600
        k += 1
    return 3600 * k + (target - acc) / rate(k)


@pytest.mark.parametrize("tz, start", [("Europe/Stockholm", "2025-03-24"), ("US/Pacific", "2025-10-27T13:30"),
                                       ("UTC", "2024-12-30")])
def test_arrival_clock_matches_naive_walk_across_dst(tz, start):
    m = Model()
    unix_start = unix_start_of(start, tz)
    span = 21 * 86400 + 4321.0
    unit = np.sort(np.random.default_rng(0).random(60))
    fast = burst_starts(unit, span, unix_start, tz, m)
    slow = [naive_burst_start(u, span, unix_start, tz, m) for u in unit]
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-3)


def test_waits_match_the_projects_simulator(tmp_path, wh_dir):
    """The generated field 3 is what `walltime simulate --policy fcfs --backfill easy
    --estimate request` computes, job by job (two independent implementations)."""
    out = tmp_path / "site.swf"
    run_cli("generate", "--jobs", "3000", "--seed", "4", "--capacity", "64", "--load", "0.85",
            "--out", str(out), check=True)
    run_cli("ingest", str(out), warehouse=wh_dir, check=True)
    run_cli("simulate", "site", "--policy", "fcfs", "--backfill", "easy", "--estimate", "request",
            warehouse=wh_dir, check=True)
    q = run_cli("sql", "select count(*) as n, count(*) filter (where s.start - j.submit = j.wait) as same, "
                "count(*) filter (where j.wait > 0) as waited "
                "from sim_jobs s join jobs j on j.trace = 'site' and j.job_id = s.job_id",
                "--json", warehouse=wh_dir, check=True)
    row = json.loads(q.stdout)[0]
    assert row["n"] == 3000 and row["same"] == 3000 and row["waited"] > 300
