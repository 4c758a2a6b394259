"""Forecasts with running jobs re-predicted at the forecast instant
(kernel.simulate_forecast_running, pipeline/simulate/conditional.py):

- the kernel with a conditional table equals its naive twin
  (naive_sim.simulate_forecast with ``cond``) job by job, for none / EASY /
  conservative under every policy, on hypothesis workloads and a real trace;
- the table's pairs are the running jobs of each instant and its values
  equal the naive predictors asked at that instant with the job's age
  (tests/naive_predictors.conditional);
- property: nothing submitted later, and no job still running (its actual
  end), changes a forecast.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from conftest import trace_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive_predictors as NP
import naive_sim
from test_predictors_twin import template_sets
from kernel_checks import OUTPUTS
from pipeline.estimates.templates import CHARACTERISTICS, Template, parse_set, resolve
from pipeline.schemes import parse
from pipeline.simulate import kernel
from pipeline.simulate.conditional import Table, forecast_inputs, running_pairs

SCHEMA = {"job_id": pl.Int64, "submit": pl.Int64, "run": pl.Int64, "req": pl.Int64, "end": pl.Int64,
          "nodes": pl.Int64, **{c: pl.Int64 for c in CHARACTERISTICS.values()}}
SPECS = ["smith:set=example", "gibbons", "downey:stat=median,key=queue", "downey:stat=mean,key=user"]
RT_SET = (Template(("u",), None, 64, None, False), Template(("q",), None, 128, 4, True), Template((), None, 64, 8,
                                                                                                   False))
BACKFILLS = [("fcfs", "none"), ("lwf", "none"), ("sjf", "none"), ("wfp", "none"), ("fcfs", "easy"),
             ("lwf", "easy"), ("wfp", "easy"), ("fcfs", "conservative"), ("lwf", "conservative")]


@st.composite
def workloads(draw, max_jobs=16):
    """Jobs with the predictors' columns; runs long enough (x 60 s) for running-time ranges."""
    capacity = draw(st.integers(1, 5))
    n = draw(st.integers(1, max_jobs))
    rows = []
    for i in range(n):
        run = draw(st.integers(0, 12)) * 60
        row = {"job_id": 100 + i, "submit": draw(st.integers(0, 30)) * 60, "run": run,
               "req": max(60, run + draw(st.integers(-2, 8)) * 60), "end": None,
               "nodes": draw(st.integers(1, capacity))}
        for col in CHARACTERISTICS.values():
            row[col] = draw(st.one_of(st.none(), st.integers(1, 2)))
        rows.append(row)
    rows.sort(key=lambda r: (r["submit"], r["job_id"]))
    return pl.DataFrame(rows, schema=SCHEMA), capacity


def sim_args(frame, capacity, policy, backfill, overrun="request"):
    a = {c: np.ascontiguousarray(frame[c].to_numpy().astype(np.int64)) for c in ("submit", "job_id", "run", "nodes")}
    req = np.ascontiguousarray(frame["req"].to_numpy().astype(np.int64))
    return (a["submit"], a["job_id"], a["run"], a["nodes"], req, req, req, capacity, kernel.POLICIES[policy],
            kernel.BACKFILLS[backfill], kernel.OVERRUNS[overrun])


def forecast(frame, capacity, policy, backfill, spec, templates=None):
    """(kernel outputs, naive outputs, fc_run, table) of the whole pipeline."""
    args = sim_args(frame, capacity, policy, backfill)
    start = kernel.simulate(*args, False)[0]
    fc, table = forecast_inputs(frame, start, parse(spec), templates)
    return kernel.simulate_forecast_running(*args, fc, *table.args()), args, fc, table, start


def assert_equal(fast, slow):
    for name, a, b in zip(OUTPUTS, fast, slow):
        bad = np.flatnonzero(a != b)
        assert bad.size == 0, f"{name} differs at {bad[:10].tolist()}: kernel {a[bad[:10]]} naive {b[bad[:10]]}"


@pytest.mark.slow
@pytest.mark.parametrize("policy,backfill", BACKFILLS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), spec=st.sampled_from(SPECS + ["rt"]))
def test_kernel_with_table_matches_naive_twin(policy, backfill, case, spec):
    frame, capacity = case
    templates = RT_SET if spec == "rt" else None
    fast, args, fc, table, _ = forecast(frame, capacity, policy, backfill,
                                        "smith:set=example" if spec == "rt" else spec, templates)
    assert_equal(fast, naive_sim.simulate_forecast(*args, fc, table.as_dict()))


@pytest.mark.parametrize("policy,backfill", [("fcfs", "none"), ("fcfs", "easy"), ("fcfs", "conservative")])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), data=st.data())
def test_kernel_with_any_values_matches_naive_twin(policy, backfill, case, data):
    """Arbitrary values for the running pairs (above and below the ages), so the
    kernel's use of the table does not rest on what the predictors happen to say."""
    frame, capacity = case
    args = sim_args(frame, capacity, policy, backfill)
    start = kernel.simulate(*args, False)[0]
    ctime, coff, _, job, _ = running_pairs(args[0], start, args[2])
    cval = np.array([data.draw(st.integers(0, 900)) for _ in job], np.int64)
    fc = np.array([data.draw(st.integers(0, 900)) for _ in args[0]], np.int64)
    table = Table(ctime, coff, job, cval)
    fast = kernel.simulate_forecast_running(*args, fc, *table.args())
    assert_equal(fast, naive_sim.simulate_forecast(*args, fc, table.as_dict()))


def naive_value(rows, start, spec, templates, j, t):
    s = parse(spec)
    v = NP.conditional(rows, s, templates, rows[j], t, t - int(start[j]))
    if v is None:
        v = rows[j]["req"]
    return v


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), spec=st.sampled_from(SPECS + ["rt", "drawn"]),
       alg=st.sampled_from([("fcfs", "none"), ("fcfs", "conservative")]), drawn=template_sets())
def test_table_is_the_naive_predictors_at_each_instant(case, spec, alg, drawn):
    frame, capacity = case
    templates = RT_SET if spec == "rt" else drawn if spec == "drawn" else None
    spec = "smith:set=example" if spec in ("rt", "drawn") else spec
    _, args, fc, table, start = forecast(frame, capacity, *alg, spec, templates)
    if templates is None and spec.startswith("smith"):
        templates = resolve(parse(spec)["set"])
    rows = frame.with_columns(pl.Series("end", start + frame["run"].to_numpy())).to_dicts()
    got = table.as_dict()
    want = {}
    for t in sorted(set(args[0].tolist())):
        for j in NP.running_at(rows, start, t):
            want[(t, j)] = naive_value(rows, start, spec, templates, j, t)
    assert got.keys() == want.keys()
    bad = [(k, want[k], got[k]) for k in want if got[k] != min(math.ceil(want[k] - 1e-9), 2 ** 40)
           and not math.isclose(got[k], math.ceil(want[k]), abs_tol=1)]
    assert not bad, bad[:5]
    # at submission: the predictor on the simulated history
    for j, r in enumerate(rows):
        w = NP.conditional(rows, parse(spec), templates, r, r["submit"], 0)
        w = r["req"] if w is None else w
        assert abs(fc[j] - math.ceil(w)) <= 1, (j, fc[j], w)


@pytest.mark.parametrize("policy,backfill", [("fcfs", "none"), ("lwf", "none"), ("fcfs", "easy"),
                                             ("fcfs", "conservative")])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), spec=st.sampled_from(SPECS + ["rt"]), data=st.data())
def test_later_or_still_running_jobs_never_change_a_forecast(policy, backfill, case, spec, data):
    """Pick an instant T. Change every job submitted after T (run, size,
    request, characteristics), the actual run of every job still running at
    T (it still ends after T) and of every job still waiting at T or starting
    at T and ending after it: no forecast made at or before T moves. (A job
    that starts at T with a run of 0 has ended by T; it is left as it is.)"""
    frame, capacity = case
    templates = RT_SET if spec == "rt" else None
    spec = "smith:set=example" if spec == "rt" else spec
    fast, args, _, _, start = forecast(frame, capacity, policy, backfill, spec, templates)
    submit = frame["submit"].to_numpy()
    T = data.draw(st.sampled_from(sorted(set(submit.tolist()))))
    rows = frame.to_dicts()
    for i, r in enumerate(rows):
        if r["submit"] > T:
            r["run"] = data.draw(st.integers(0, 12)) * 60
            r["req"] = max(60, r["run"] + data.draw(st.integers(-2, 8)) * 60)
            r["nodes"] = data.draw(st.integers(1, capacity))
            r["user_id"] = data.draw(st.integers(1, 3))
        elif start[i] < T < start[i] + r["run"]:  # still running at T: it still ends after T
            r["run"] = data.draw(st.integers(T - int(start[i]) + 1, T - int(start[i]) + 900))
        elif start[i] > T:  # waiting at T: its run time is not known yet either
            r["run"] = data.draw(st.integers(0, 900))
        elif start[i] == T and r["run"] > 0:  # starts at T, ends after T: unknown at T
            r["run"] = data.draw(st.integers(1, 900))
        # a job that starts at T with a run of 0 has ended by T (known at T): left as it is
    changed = pl.DataFrame(rows, schema=SCHEMA)
    again = forecast(changed, capacity, policy, backfill, spec, templates)[0]
    early = submit <= T
    assert np.array_equal(fast[2][early], again[2][early]), (fast[2][early], again[2][early])


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["downey:stat=median,key=queue", "smith:rt", "gibbons"])
@pytest.mark.parametrize("policy,backfill", [("fcfs", "none"), ("lwf", "none"), ("fcfs", "conservative")])
def test_real_trace_matches_naive_twin(real_sdsc, spec, policy, backfill):
    frame, capacity = real_sdsc
    templates = parse_set("(u,rt=1024) (q,rt=4096,h=32,rel) ()") if spec == "smith:rt" else None
    fast, args, fc, table, _ = forecast(frame, capacity, policy, backfill,
                                        "smith:set=example" if templates else spec, templates)
    assert table.cjob.size > 1000  # the forecasts did re-predict running jobs
    assert_equal(fast, naive_sim.simulate_forecast(*args, fc, table.as_dict()))


@pytest.fixture(scope="module")
def real_sdsc(tmp_path_factory):
    """SDSC Paragon 1996's first 400 jobs, requests = the longest run of their queue (Smith's set-up)."""
    from pipeline.estimates import load_jobs
    from pipeline.ingest import ingest
    from pipeline.warehouse import Warehouse
    wh = Warehouse(tmp_path_factory.mktemp("sdsc") / "wh")
    ingest([trace_path("SDSC-Par-1996-3.1-cln.swf.gz")], wh, lenient=False)
    con = wh.reader()
    jobs = load_jobs(con, "SDSC-Par-1996-3.1-cln")
    con.close()
    jobs = jobs.filter((pl.col("run") >= 0) & (pl.col("nodes") >= 1)).sort("submit", "job_id").head(400)
    jobs = jobs.with_columns(pl.max_horizontal(pl.col("run").max().over("queue_id"), pl.lit(1)).alias("req"))
    return jobs.select(list(SCHEMA)).cast(SCHEMA), 416


def test_gibbons_running_time_ranges_match_the_naive_rule():
    """[0, 1 min), [1, 2 min), [2, 4 min), ...: the fast lower bounds equal the
    plain loop's at and around every boundary up to 2^20 minutes."""
    from pipeline.estimates.gibbons import runtime_low
    ages = sorted({max(a + d, 0) for k in range(21) for a in (60 * 2 ** k,) for d in (-1, 0, 1)} | {0, 1, 59})
    assert runtime_low(np.array(ages)).tolist() == [NP.runtime_low(a) for a in ages]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), alg=st.sampled_from([("fcfs", "none"), ("fcfs", "easy"), ("fcfs", "conservative")]))
def test_gibbons_table_is_the_split_naive_twin(case, alg):
    """Every running pair's Gibbons value is the naive twin's (level, n, runtime)
    mean over the points that ran at least the age's range lower bound (ages
    here reach the 1, 2, 4 and 8 minute ranges)."""
    frame, capacity = case
    _, args, _, table, start = forecast(frame, capacity, *alg, "gibbons")
    rows = frame.with_columns(pl.Series("end", start + frame["run"].to_numpy())).to_dicts()
    got = table.as_dict()
    for (t, j), v in got.items():
        w = naive_value(rows, start, "gibbons", None, j, t)
        assert abs(v - math.ceil(w - 1e-9)) <= 1, ((t, j), v, w, t - int(start[j]))


@pytest.mark.slow
def test_gibbons_split_on_a_real_trace(real_sdsc):
    """SDSC Paragon 1996 (400 jobs, FCFS): Gibbons' running pairs equal the naive
    twin's (a sample of 300), pairs under 1 minute old equal the prediction
    without the split, and the split does move some older pairs."""
    from pipeline.estimates import gibbons
    from pipeline.estimates.smith import Prepared
    from pipeline.simulate.conditional import predict_rows
    frame, capacity = real_sdsc
    _, args, _, table, start = forecast(frame, capacity, "fcfs", "none", "gibbons")
    rows = frame.with_columns(pl.Series("end", start + frame["run"].to_numpy())).to_dicts()
    pairs = sorted(table.as_dict().items())
    assert len(pairs) > 1000
    rng = np.random.default_rng(13)
    for k in rng.choice(len(pairs), 300, replace=False):
        (t, j), v = pairs[k]
        w = naive_value(rows, start, "gibbons", None, j, t)
        assert abs(v - math.ceil(w - 1e-9)) <= 1, ((t, j), v, w)
    # the same pairs asked at age 0 (no split)
    sim = frame.with_columns(pl.Series("end", start + frame["run"].to_numpy()))
    ts = np.array([t for (t, _), _ in pairs])
    js = np.array([j for (_, j), _ in pairs])
    ages = ts - start[js]
    query = sim[js].with_columns(pl.Series("submit", ts), pl.lit(None, pl.Int64).alias("end"),
                                 pl.lit(None, pl.Int64).alias("run"),
                                 pl.Series("job_id", -1 - np.arange(len(js), dtype=np.int64)))
    both = pl.concat([sim, query])
    src = np.concatenate([np.arange(sim.height), js])
    zero = gibbons.predict(Prepared(both, src))[0][sim.height:]
    split = predict_rows(both, parse("gibbons"), np.concatenate([np.zeros(sim.height, np.int64), ages]), None, src)
    split = split[sim.height:]
    young = ages < 60
    assert np.array_equal(zero[young], split[young], equal_nan=True)
    assert (~np.isclose(zero[~young], split[~young], equal_nan=True)).sum() > 0
