"""`walltime characterize`: the SQL statistics against the naive twin, hand-checked
numbers, missing fields, re-runs and the CLI."""

from __future__ import annotations

import itertools
import json
import statistics
from datetime import datetime, timezone
from fractions import Fraction

import pytest
from conftest import run_cli, trace_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive_characterize import Job, assert_same, read_swf, write_swf
from naive_characterize import characterize as naive

from pipeline.characterize import characterize
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse


def ts(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp())


# -- a tiny hand-made trace ----------------------------------------------------------

START = ts("2020-01-01T00:00:00")
FEB, END_MARCH, MAY = ts("2020-02-15T12:00:00"), ts("2020-03-31T23:30:00"), ts("2020-05-10T08:00:00")
# (run, req, status, user, group, submit); R by hand in the comments.
TINY = [
    (0, 1000, 0, 1, 7, FEB),        # a  R=0      zero job, 0% peak, killed
    (5, 1000, 1, 1, 7, FEB),        # b  R=0.005  0% peak
    (10, 1000, 1, 1, 7, FEB),       # c  R=0.01   not 0% peak (exactly 1%)
    (199, 1000, 1, 1, 7, FEB),      # d  R=0.199
    (200, 1000, 1, 1, 7, FEB),      # e  R=0.2    not < 0.2
    (500, 1000, 1, 1, 7, END_MARCH),  # f R=0.5   Q1 in UTC but Q2 in Stockholm (01:30 on 1 April)
    (800, 1000, 1, 1, 7, MAY),      # g  R=0.8    not > 0.8
    (801, 1000, 1, 1, 7, MAY),      # h  R=0.801
    (990, 1000, 0, 1, 7, MAY),      # i  R=0.99   100% peak, killed
    (1030, 1000, 0, 1, 7, MAY),     # j  R=1      ran past the request: capped
    (7000, 7200, 1, 2, 7, MAY),     # k  R=35/36  request exactly 2 h
    (100, 7201, 1, 2, -1, MAY),     # l  R=100/7201, no group
    (50, -1, 1, 2, 7, MAY),         # m  no request: ran, no R
    (-1, 1000, 1, 2, 7, MAY),       # n  no run time: not counted as ran
]
TINY_R = [Fraction(0), Fraction(5, 1000), Fraction(10, 1000), Fraction(199, 1000), Fraction(200, 1000),
          Fraction(1, 2), Fraction(8, 10), Fraction(801, 1000), Fraction(99, 100), Fraction(1),
          Fraction(35, 36), Fraction(100, 7201)]


def tiny_jobs() -> list[Job]:
    return [Job(submit=s, run=r, req=q, status=st_, user=u, group=g) for r, q, st_, u, g, s in TINY]


@pytest.fixture
def tiny(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    path = write_swf(tmp_path / "tiny.swf", tiny_jobs(), unix_start=START, tz="Europe/Stockholm")
    ingest([path], wh)
    return wh


def test_tiny_trace_hand_checked(tiny):
    doc = characterize("tiny", tiny)
    assert (doc["jobs"], doc["jobs_ran"], doc["jobs_r"]) == (14, 13, 12)
    r = doc["r"]
    assert r["mean_r"] == pytest.approx(float(sum(TINY_R) / 12), rel=1e-12)
    assert r["std_r"] == pytest.approx(statistics.stdev([float(x) for x in TINY_R]), rel=1e-9)
    assert r["share_lt_0_2"] == pytest.approx(5 / 12)   # a b c d l
    assert r["share_lt_0_5"] == pytest.approx(6 / 12)   # + e
    assert r["share_gt_0_8"] == pytest.approx(4 / 12)   # h i j k
    assert r["share_ge_0_99"] == pytest.approx(2 / 12)  # i j
    assert {h["bin"]: h["jobs"] for h in doc["histogram"] if h["jobs"]} == {0: 4, 3: 1, 4: 1, 10: 1, 16: 2, 19: 3}
    assert len(doc["histogram"]) == 20 and doc["histogram"][19]["hi"] == 1.0
    cdf = {round(c["x"], 2): c["share_le"] for c in doc["cdf"]}
    assert len(cdf) == 101
    assert cdf[0.0] == pytest.approx(1 / 12)            # a
    assert cdf[0.01] == pytest.approx(3 / 12)           # a b c (R = 0.01 counts: <=)
    assert cdf[0.2] == pytest.approx(6 / 12)
    assert cdf[0.8] == pytest.approx(8 / 12)
    assert cdf[0.99] == pytest.approx(11 / 12)
    assert cdf[1.0] == 1.0
    q = {x["quarter"]: x for x in doc["quarters"]}
    assert sorted(q) == ["2020-Q1", "2020-Q2"]          # f lands in Q2: Stockholm time
    assert q["2020-Q1"]["jobs"] == 5
    assert q["2020-Q1"]["mean_r"] == pytest.approx(float(sum(TINY_R[:5]) / 5))
    assert q["2020-Q2"]["jobs"] == 7
    mf = {m["row"]: (m["number"], m["pct"]) for m in doc["mualem_feitelson"]}
    assert mf["total_jobs"] == (13, 100.0)
    assert mf["killed_jobs"][0] == 3                    # a i j
    assert mf["peak_100"][0] == 2                       # i j
    assert mf["peak_100_killed"] == (2, 100.0)
    assert mf["peak_0"][0] == 2                         # a b
    assert mf["zero_jobs"][0] == 1                      # a
    assert mf["under_90s_jobs"][0] == 4                 # a b c m
    assert mf["under_2h_req_jobs"][0] == 11             # a..k
    assert mf["under_90s_jobs"][1] == pytest.approx(400 / 13)
    keys = {k["key_type"]: k for k in doc["key_spread"]}
    as_float = [float(x) for x in TINY_R]
    assert (keys["all"]["groups"], keys["all"]["jobs"]) == (1, 12)
    assert keys["all"]["avg_std_r"] == pytest.approx(statistics.stdev(as_float))
    assert (keys["project"]["groups"], keys["project"]["jobs"]) == (1, 11)   # group 7: a..k
    assert keys["project"]["avg_std_r"] == pytest.approx(statistics.stdev(as_float[:11]))
    for k in ("user", "user_project", "user_project_req"):                    # user 1: a..j; user 2 too small
        assert (keys[k]["groups"], keys[k]["jobs"]) == (1, 10), k
        assert keys[k]["avg_std_r"] == pytest.approx(statistics.stdev(as_float[:10])), k
    assert doc["unavailable"] == []
    assert_same(doc, naive(tiny_jobs(), "Europe/Stockholm"))


def test_rerun_replaces_the_trace_rows(tiny, tmp_path):
    first = characterize("tiny", tiny)
    again = characterize("tiny", tiny)
    assert {k: v for k, v in again.items() if k != "computed_at"} == \
           {k: v for k, v in first.items() if k != "computed_at"}
    # new content under the same name: only the new rows remain
    jobs = tiny_jobs()[:3]
    ingest([write_swf(tmp_path / "tiny.swf", jobs, unix_start=START)], tiny, replace=True)
    doc = characterize("tiny", tiny)
    assert doc["jobs"] == 3
    con = tiny.reader()
    try:
        for table in ("characterize_summary", "characterize_hist", "characterize_cdf", "characterize_quarters",
                      "characterize_mualem", "characterize_keys"):
            n = con.execute(f"SELECT count(*) FROM {table} WHERE trace = 'tiny'").fetchone()[0]
            assert n == {"characterize_summary": 1, "characterize_hist": 20, "characterize_cdf": 101,
                         "characterize_quarters": 1, "characterize_mualem": 8, "characterize_keys": 5}[table]
    finally:
        con.close()
    assert_same(doc, naive(jobs, "UTC"))


# -- random workloads against the twin ------------------------------------------------

REQS = [-1, 0, 1, 59, 60, 100, 3600, 7199, 7200, 7201]


@st.composite
def job(draw):
    req = draw(st.sampled_from(REQS))
    base = max(req, 1)
    run = draw(st.one_of(
        st.integers(-1, 3 * base),
        st.sampled_from([-1, 0, 1, 89, 90, base - 1, base, base + 1, base // 5, base // 2, 4 * base // 5,
                         99 * base // 100, (99 * base + 99) // 100, base // 100, base // 20, 19 * base // 20]),
    ))
    return Job(
        submit=1_000_000_000 + draw(st.integers(0, 60_000_000)),  # about two years of quarters
        run=max(run, -1), req=req,
        status=draw(st.sampled_from([-1, 0, 1, 5])),
        user=draw(st.sampled_from([-1, 1, 2, 3])),
        group=draw(st.sampled_from([-1, 1, 2])),
    )


@st.composite
def workload(draw):
    jobs = draw(st.lists(job(), min_size=1, max_size=70))
    # sometimes a trace that lacks a whole field, as real ones do
    drop = draw(st.sampled_from([None, None, "req", "user", "group", "status"]))
    if drop:
        for j in jobs:
            setattr(j, drop, -1)
    tz = draw(st.sampled_from([None, "Europe/Stockholm", "America/Los_Angeles"]))
    return jobs, tz


@pytest.fixture(scope="module")
def shared_wh(tmp_path_factory):
    return Warehouse(tmp_path_factory.mktemp("random") / "wh"), tmp_path_factory.mktemp("swf")


_names = itertools.count()


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(workload())
def test_random_workloads_match_naive_twin(shared_wh, data):
    wh, folder = shared_wh
    jobs, tz = data
    name = f"rand{next(_names)}"
    path = write_swf(folder / f"{name}.swf", jobs, unix_start=1_000_000_000, tz=tz)
    [res] = ingest([path], wh)
    name = res.same_as or res.trace  # identical content was loaded before under another name
    assert_same(characterize(name, wh), naive(jobs, tz or "UTC"), where=f"{name}: ")


# -- real traces against the twin -----------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("file", ["KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz"])
def test_real_trace_matches_naive_twin(tmp_path, file):
    path = trace_path(file)
    wh = Warehouse(tmp_path / "wh")
    [res] = ingest([path], wh)
    doc = characterize(res.trace, wh)
    jobs, tz = read_swf(path)
    assert_same(doc, naive(jobs, tz), where=f"{file}: ")
    assert doc["unavailable"] == []


# -- missing fields -------------------------------------------------------------------

def test_trace_without_requests_users_groups_or_status(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    jobs = [Job(submit=1_000_000 + 60 * i, run=30 * i, req=-1, status=-1, user=-1, group=-1) for i in range(30)]
    ingest([write_swf(tmp_path / "bare.swf", jobs)], wh)
    doc = characterize("bare", wh)
    assert doc["jobs_r"] == 0 and doc["histogram"] == [] and doc["quarters"] == [] and doc["key_spread"] == []
    assert all(v is None for v in doc["r"].values())
    mf = {m["row"]: m["number"] for m in doc["mualem_feitelson"]}
    assert mf == {"total_jobs": 30, "killed_jobs": None, "peak_100": None, "peak_100_killed": None,
                  "peak_0": None, "zero_jobs": 1, "under_90s_jobs": 3, "under_2h_req_jobs": None}
    text = " ".join(u["statistic"] + ": " + u["reason"] for u in doc["unavailable"])
    assert "requested time" in text and "status" in text
    assert_same(doc, naive(jobs))


def test_trace_without_groups_keeps_user_keys(tmp_path):
    """Like CTC-SP2: group -1 throughout."""
    wh = Warehouse(tmp_path / "wh")
    jobs = [Job(submit=1_000_000 + 60 * i, run=7 * i, req=100 + i % 3, user=1 + i % 2) for i in range(40)]
    ingest([write_swf(tmp_path / "nogroup.swf", jobs)], wh)
    doc = characterize("nogroup", wh)
    keys = {k["key_type"]: k["groups"] for k in doc["key_spread"]}
    assert keys == {"all": 1, "project": None, "user": 2, "user_project": None, "user_project_req": None}
    [note] = doc["unavailable"]
    assert "project" in note["statistic"] and "field 13" in note["reason"]
    assert_same(doc, naive(jobs))


@pytest.mark.slow
@pytest.mark.parametrize("file", ["NASA-iPSC-1993-3.1-cln.swf.gz", "lublin_256.swf.gz"])
def test_real_traces_without_requests(tmp_path, file):
    """The CLI exits 0, prints what it can, and names what it cannot."""
    path = trace_path(file)
    wh = tmp_path / "wh"
    run_cli("ingest", str(path), warehouse=wh, check=True)
    trace = file.removesuffix(".swf.gz")
    proc = run_cli("characterize", trace, warehouse=wh)
    assert proc.returncode == 0, proc.stderr
    assert "cannot compute R distribution" in proc.stdout and "<90sec jobs" in proc.stdout
    doc = json.loads(run_cli("characterize", trace, "--json", warehouse=wh, check=True).stdout)
    assert doc["jobs_r"] == 0 and doc["unavailable"]
    jobs, tz = read_swf(path)
    assert_same(doc, naive(jobs, tz))


# -- the CLI --------------------------------------------------------------------------

def test_cli_json_shape(tmp_path):
    path = write_swf(tmp_path / "tiny.swf", tiny_jobs(), unix_start=START, tz="Europe/Stockholm")
    wh = tmp_path / "wh"
    run_cli("ingest", str(path), warehouse=wh, check=True)
    proc = run_cli("characterize", "tiny", "--json", warehouse=wh, check=True)
    doc = json.loads(proc.stdout)  # exactly one JSON document
    assert set(doc) == {"trace", "jobs", "jobs_ran", "jobs_r", "r", "histogram", "cdf", "quarters",
                        "mualem_feitelson", "key_spread", "unavailable", "partitions", "lost_attempts", "computed_at"}
    assert doc["lost_attempts"] is None  # an SWF trace has no requeued attempts (sacct --duplicates: issue 25)
    assert set(doc["r"]) == {"mean_r", "std_r", "share_lt_0_2", "share_lt_0_5", "share_gt_0_8", "share_ge_0_99"}
    assert set(doc["histogram"][0]) == {"bin", "lo", "hi", "jobs", "share"}
    assert set(doc["cdf"][0]) == {"x", "share_le"}
    assert set(doc["quarters"][0]) == {"quarter", "jobs", "mean_r", "std_r"}
    assert [m["row"] for m in doc["mualem_feitelson"]] == [
        "total_jobs", "killed_jobs", "peak_100", "peak_100_killed", "peak_0", "zero_jobs",
        "under_90s_jobs", "under_2h_req_jobs"]
    assert set(doc["mualem_feitelson"][0]) == {"row", "label", "number", "pct", "of"}
    assert [k["key_type"] for k in doc["key_spread"]] == ["all", "project", "user", "user_project", "user_project_req"]
    assert set(doc["key_spread"][0]) == {"key_type", "groups", "jobs", "avg_std_r"}
    assert_same(doc, naive(tiny_jobs(), "Europe/Stockholm"))
    human = run_cli("characterize", "tiny", warehouse=wh, check=True).stdout
    assert "Mu'alem & Feitelson Table 2" in human and "user_project_req" in human and "2020-Q2" in human


def test_cli_unknown_trace_is_one_line_exit_1(tmp_path):
    path = write_swf(tmp_path / "tiny.swf", tiny_jobs(), unix_start=START)
    wh = tmp_path / "wh"
    run_cli("ingest", str(path), warehouse=wh, check=True)
    before = (wh / "walltime.duckdb").stat().st_mtime_ns
    proc = run_cli("characterize", "nosuch", warehouse=wh)
    assert proc.returncode == 1
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and '"nosuch"' in lines[0] and "tiny" in lines[0]
    assert (wh / "walltime.duckdb").stat().st_mtime_ns == before
    proc = run_cli("characterize", "tiny", warehouse=tmp_path / "empty")
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
