"""The learned scheme (pipeline/estimates/learned.py): features and walk-forward
predictions against the plain-Python twin (tests/naive_learned.py) job by job,
on random workloads and on a cut of a real trace; no leakage (a trace cut at
60% gives every common job the same estimate); bad specs."""

from __future__ import annotations

import gzip
import math

import numpy as np
import polars as pl
import pytest
from conftest import run_cli, trace_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reliability import one_line_error

import naive_learned as NL
from pipeline.estimates import load_jobs
from pipeline.estimates import learned as L
from pipeline.estimates.compute import compute
from pipeline.ingest import ingest
from pipeline.schemes import parse
from pipeline.warehouse import Warehouse

SCHEMA = {"job_id": pl.Int64, "submit": pl.Int64, "run": pl.Int64, "req": pl.Int64, "end": pl.Int64,
          "nodes": pl.Int64, "procs": pl.Int64, "user_id": pl.Int64, "group_id": pl.Int64, "exe_id": pl.Int64,
          "queue_id": pl.Int64, "partition_id": pl.Int64}


@st.composite
def workloads(draw, max_jobs=40):
    n = draw(st.integers(1, max_jobs))
    maybe = lambda s: st.one_of(st.none(), s)  # noqa: E731
    jobs = []
    for i in range(n):
        submit = draw(st.integers(0, 300)) * 60
        wait = draw(maybe(st.integers(0, 30)))
        run = draw(maybe(st.integers(0, 40)))
        req = draw(maybe(st.integers(1, 50)))
        row = {"job_id": 1000 + i, "submit": submit, "run": None if run is None else run * 60,
               "req": None if req is None else req * 60,
               "end": None if wait is None or run is None else submit + (wait + run) * 60,
               "nodes": draw(maybe(st.integers(1, 9))), "procs": draw(maybe(st.integers(0, 64)))}
        for col in ("user_id", "group_id", "exe_id", "queue_id", "partition_id"):
            row[col] = draw(maybe(st.integers(1, 3)))
        jobs.append(row)
    return jobs


def same(a, b) -> bool:
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        return (a is None or (isinstance(a, float) and math.isnan(a))) and (
            b is None or (isinstance(b, float) and math.isnan(b)))
    return float(a) == float(b)


def assert_features(jobs: list[dict]) -> None:
    frame, _ = L.features(pl.DataFrame(jobs, schema={**SCHEMA, **{k: v for k, v in
                                                                 pl.DataFrame(jobs).schema.items()
                                                                 if k not in SCHEMA}}))
    want = NL.features(jobs)
    assert frame["job_id"].to_list() == [j["job_id"] for j in jobs]  # input order
    for row in frame.to_dicts():
        for f in L.FEATURES:
            assert same(row[f], want[row["job_id"]][f]), (row["job_id"], f, row[f], want[row["job_id"]][f])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads())
def test_features_match_naive_on_random_workloads(jobs):
    assert_features(jobs)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.integers(1, 12))
def test_features_by_groups_of_users_match_naive(jobs, group_jobs):
    """The history features built a few users at a time (learned.GROUP_JOBS jobs a pass, issue 43:
    the 11M-job peak) are the twin's."""
    keep, L.GROUP_JOBS = L.GROUP_JOBS, group_jobs
    try:
        assert_features(jobs)
    finally:
        L.GROUP_JOBS = keep


def test_features_hand_checked():
    """User 1: job 1 runs [0, 100), job 2 [50, 250) (waited 50), both requested
    200 s. At job 3's submission (t=120) job 1 has ended (history) and job 2
    is running: last run 100 s, ratio 0.5, running 1, 20 s since the last end."""
    jobs = [{"job_id": 1, "submit": 0, "run": 100, "req": 200, "end": 100},
            {"job_id": 2, "submit": 0, "run": 200, "req": 200, "end": 250},
            {"job_id": 3, "submit": 120, "run": 10, "req": 400, "end": 130}]
    for j in jobs:
        j.update(user_id=1, group_id=7, exe_id=None, queue_id=1, partition_id=1, nodes=4)
    frame, vocab = L.features(pl.DataFrame(jobs, schema=SCHEMA))
    r = frame.row(2, named=True)
    assert (r["last_run_1"], r["last_ratio_1"], r["last_run_2"], r["running"], r["since_last"]) == \
        (100.0, 0.5, None, 1.0, 20.0)
    assert (r["user"], r["req"], r["hour"], r["weekday"]) == (0.0, 400.0, 0.0, 3.0)  # 1970-01-01: Thursday
    assert vocab["account"] == ["7"] and r["job_name"] is None


def test_gaussier_features_hand_checked():
    """Gaussier et al.'s user features. User 1: job 1 (8 processors) runs
    [0, 100), job 2 (2 processors) [50, 250). At job 3's submission (t=120,
    4 processors) the history is job 1 only: mean runtime 100 s, processors 4 /
    8 = 0.5; job 2 runs: 2 processors running. Job 4 (t=300, 6 processors):
    history jobs 1 and 2 (mean runtime 150 s, mean size 5: ratio 1.2); job 3
    waits until 390: none running."""
    jobs = [{"job_id": 1, "submit": 0, "run": 100, "req": 200, "end": 100, "procs": 8},
            {"job_id": 2, "submit": 0, "run": 200, "req": 200, "end": 250, "procs": 2},
            {"job_id": 3, "submit": 120, "run": 10, "req": 400, "end": 400, "procs": 4},
            {"job_id": 4, "submit": 300, "run": 10, "req": 400, "end": 310, "procs": 6}]
    for j in jobs:
        j.update(user_id=1, group_id=7, exe_id=None, queue_id=1, partition_id=1, nodes=j["procs"])
    frame, _ = L.features(pl.DataFrame(jobs, schema=SCHEMA))
    rows = frame.rows(named=True)
    got = [(r["user_mean_run"], r["procs_ratio"], r["running_procs"]) for r in rows]
    assert got == [(None, None, 0.0), (None, None, 0.0), (100.0, 0.5, 2.0), (150.0, 1.2, 0.0)]
    assert_features(jobs)


def test_hour_and_weekday_in_the_traces_zone():
    """SDSC-SP2's zone, US/Pacific: epoch 899,280,000 is 1998-07-01 08:00 UTC,
    01:00 in Pacific daylight time, a Wednesday (2); in winter (epoch
    915,184,800 = 1999-01-01 10:00 UTC) 02:00 Pacific standard time, a Friday (4).
    Without a zone: the UTC hour, as before."""
    jobs = [{"job_id": 1, "submit": 0, "run": 100, "req": 200, "end": 100, "submit_epoch": 899_280_000},
            {"job_id": 2, "submit": 10, "run": 100, "req": 200, "end": 120, "submit_epoch": 915_184_800}]
    for j in jobs:
        j.update(user_id=1, group_id=7, exe_id=None, queue_id=1, partition_id=1, nodes=1, procs=1)
    schema = {**SCHEMA, "submit_epoch": pl.Int64, "tz": pl.Utf8}
    local, _ = L.features(pl.DataFrame([j | {"tz": "US/Pacific"} for j in jobs], schema=schema))
    assert local.select("hour", "weekday").rows() == [(1.0, 2.0), (2.0, 4.0)]
    utc, _ = L.features(pl.DataFrame([j | {"tz": None} for j in jobs], schema=schema))
    assert utc.select("hour", "weekday").rows() == [(8.0, 2.0), (10.0, 4.0)]
    assert_features([j | {"tz": "US/Pacific"} for j in jobs])


# -- real traces --------------------------------------------------------------------

@pytest.fixture(scope="module")
def sp2(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("sp2") / "wh")
    ingest([trace_path("SDSC-SP2-1998-4.2-cln.swf.gz")], wh, lenient=False)
    con = wh.reader()
    jobs = load_jobs(con, "SDSC-SP2-1998-4.2-cln")
    con.close()
    return jobs


@pytest.mark.slow
def test_features_match_naive_on_real_trace(sp2):
    assert_features(sp2.head(1500).to_dicts())


def test_features_by_groups_equal_whole_and_matrix(sp2, monkeypatch):
    """The whole SDSC-SP2 trace: the features built in passes of 2,000 jobs' users are those of one
    pass, exactly; features_matrix's matrix is matrix() of features' frame, layout included."""
    whole, vocab = L.features(sp2)
    monkeypatch.setattr(L, "GROUP_JOBS", 2000)
    parts, vocab2 = L.features(sp2)
    assert vocab == vocab2
    assert whole.equals(parts, null_equal=True)
    frame, x, vocab3 = L.features_matrix(sp2)
    assert vocab3 == vocab
    want = L.matrix(whole)
    assert x.flags["F_CONTIGUOUS"] and want.flags["F_CONTIGUOUS"] and x.shape == want.shape
    assert ((x == want) | (np.isnan(x) & np.isnan(want))).all()
    assert frame.equals(whole.select("job_id", "submit", "run", "req_s", "end"))
    assert whole["last_run_1"].null_count() < len(whole) and sp2["user_id"].n_unique() > 50


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["learned:q=0.7,retrain=3d,window=400,trees=8",
                                  "learned:loss=eloss,under=5,retrain=5d,window=600,trees=8"])
def test_walk_forward_matches_naive_on_real_trace(sp2, spec):
    """The first 1,500 SDSC-SP2 jobs (several periods): the same training rows,
    features and LightGBM settings give the same estimate, job by job."""
    jobs = sp2.head(1500)
    s = parse(spec)
    fast = {r["job_id"]: (r["est"], r["hist"]) for r in compute(jobs, s).to_dicts()}
    naive = NL.walk_forward(jobs.to_dicts(), s["q"], s["loss"], s["under"], s["retrain"], s["window"],
                            s["trees"])
    assert sum(1 for v in naive.values() if v[1] > 0) > 1000  # most jobs had a model
    for job_id, (est, hist) in naive.items():
        assert fast[job_id][1] == hist, job_id
        assert fast[job_id][0] == pytest.approx(est, rel=1e-9), job_id
    capped = [jid for jid, (est, h) in naive.items() if h and est is not None]
    assert all(fast[j][0] <= jobs.filter(pl.col("job_id") == j)["req"][0] for j in capped[:200])


def _cut(src, dst, share):
    with gzip.open(src, "rt") as f:
        lines = f.read().splitlines(keepends=True)
    head = [ln for ln in lines if ln.startswith(";")]
    body = [ln for ln in lines if ln.strip() and not ln.startswith(";")]
    dst.write_text("".join(head + body[:int(len(body) * share)]))
    return int(len(body) * share)


@pytest.mark.slow
def test_no_leakage_trace_cut_at_60_percent(tmp_path):
    """KTH-SP2 whole and cut at 60% of its jobs, through `walltime ingest` and
    `walltime estimate`: every job of the cut gets the same estimate."""
    src = trace_path("KTH-SP2-1996-2.1-cln.swf.gz")
    cut = tmp_path / "kthcut.swf"
    n = _cut(src, cut, 0.6)
    wh = tmp_path / "wh"
    spec = "learned:retrain=30d,trees=20,window=5000"
    run_cli("ingest", str(src), str(cut), warehouse=wh, check=True)
    for t in ("KTH-SP2-1996-2.1-cln", "kthcut"):
        run_cli("estimate", t, "--scheme", spec, warehouse=wh, check=True)
    con = Warehouse(wh).reader()
    rows = con.execute("SELECT a.job_id, a.est, b.est, a.hist FROM estimates a JOIN estimates b USING (job_id) "
                       "WHERE a.trace = 'KTH-SP2-1996-2.1-cln' AND b.trace = 'kthcut'").fetchall()
    con.close()
    assert len(rows) == n
    assert sum(1 for r in rows if r[3]) > n // 2  # most of the cut was predicted by a model
    assert [r for r in rows if r[1] != r[2]] == []


@pytest.mark.parametrize("spec,needle", [
    ("learned:q=1", "q=1 must be a quantile strictly between 0 and 1"),
    ("learned:q=0", "q=0 must be a quantile"),
    ("learned:q=-0.2", "q=-0.2 must be a quantile"),
    ("learned:loss=mse", "loss=mse must be one of quantile, eloss"),
    ("learned:depth=3", 'learned has no parameter "depth"'),
])
def test_bad_specs_one_line(tmp_path, spec, needle):
    wh = tmp_path / "wh"
    proc = run_cli("estimate", "x", "--scheme", spec, warehouse=wh)
    one_line_error(proc, "--scheme", needle)
    assert not wh.exists()


def test_canonical_spec():
    assert parse("learned").canonical == \
        "learned:loss=quantile,q=0.5,retrain=30d,trees=50,under=4,window=20000"
    assert parse("learned:q=0.9,retrain=1w").canonical == \
        "learned:loss=quantile,q=0.9,retrain=7d,trees=50,under=4,window=20000"


@pytest.mark.slow
def test_loss_moves_estimates_the_stated_way(sp2):
    """Higher q and a heavier underestimate weight give fewer underestimates
    (est < run) on SDSC-SP2's first 4,000 jobs: what the options promise."""
    jobs = sp2.head(4000)

    def under_rate(spec):
        out = compute(jobs, parse(spec)).join(jobs.select("job_id", "run"), on="job_id")
        scored = out.filter(pl.col("run").is_not_null() & (pl.col("est") > 0))
        return (scored["est"] < scored["run"]).mean()

    base = "retrain=7d,window=2000,trees=20"
    assert under_rate(f"learned:q=0.9,{base}") < under_rate(f"learned:q=0.5,{base}") \
        < under_rate(f"learned:q=0.2,{base}")
    assert under_rate(f"learned:loss=eloss,under=20,{base}") < under_rate(f"learned:loss=eloss,under=1,{base}")


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["quantile", "eloss"])
def test_models_side_by_side_equal_one_at_a_time(sp2, monkeypatch, loss):
    """walk_forward trains its periods' models two at a time with one LightGBM
    thread each (learned.train_many); the estimates are the same numbers, bit
    for bit, as one model at a time on LightGBM's 2 threads (the old way, and
    the naive twin's), on 4,000 SDSC-SP2 jobs (periods of 3 days)."""
    jobs = sp2.head(4000)
    args = (0.6, loss, 5.0, 3 * 86400, 2500, 10)
    monkeypatch.setenv("WALLTIME_LEARNED_WORKERS", "2")
    assert L.workers() == 2
    both = L.walk_forward(jobs, *args)
    monkeypatch.setenv("WALLTIME_LEARNED_WORKERS", "1")
    L._TRAINED.clear()  # trained again, not the models of the first call
    one = L.walk_forward(jobs, *args)
    assert (both["hist"] > 0).sum() > 3000 and both["hist"].n_unique() > 8  # many models
    assert both["job_id"].to_list() == one["job_id"].to_list()
    assert both["hist"].to_list() == one["hist"].to_list()
    assert both["est"].to_list() == one["est"].to_list()  # exact, not approx
    # and a single model on 1 thread equals the same model on 2 (deterministic mode)
    frame, _ = L.features(jobs)
    rows = L.training_rows(frame)[-2500:]
    x, run = L.matrix(frame)[rows], frame["run"].to_numpy()[rows].astype(float)
    (b1, i1), (b2, i2) = (L.train(x, run, loss, 0.6, 5.0, 10, threads=t) for t in (1, 2))
    assert i1 == i2 and (b1.predict(x) == b2.predict(x)).all()


def test_walk_forward_models_trained_once_per_jobs_and_settings(sp2):
    """learned.fit keeps its trained models by (settings, jobs): a second fit
    of the same jobs (the estimates stage, then the replay's trees) reuses
    them; other jobs or settings train anew; what it reuses equals a fresh fit."""
    jobs = sp2.head(3000)
    args = (0.5, "quantile", 4.0, 7 * 86400, 2000, 5)
    L._TRAINED.clear()
    a = L.fit(jobs, *args)
    assert len(a[2]) > 3
    assert L.fit(jobs, *args)[2] is a[2]
    first = jobs["job_id"][0]
    changed = jobs.with_columns(pl.when(pl.col("job_id") == first).then(pl.col("run") + 1)
                                .otherwise(pl.col("run")).alias("run"))
    assert L.fit(changed, *args)[2] is not a[2]
    assert L.fit(jobs, 0.3, *args[1:])[2] is not a[2]
    L._TRAINED.clear()
    fresh = L.fit(jobs, *args)
    assert fresh[2] is not a[2]
    assert (fresh[3] == a[3]).all()
    for (b1, i1), (b2, i2) in zip(a[2], fresh[2]):
        assert i1 == i2 and (b1.predict(a[1]) == b2.predict(a[1])).all()
