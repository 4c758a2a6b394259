"""The metrics computed beside the loop (pipeline.metrics.compute_metrics,
NumPy) and their SQL definition (sql/metrics_run.sql) against the plain-Python
twin (tests/naive_metrics.py) on random run results, including ties, zero
runtimes and unpredicted jobs."""

from __future__ import annotations

import itertools
import math
from datetime import datetime, timezone

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from naive_metrics import run_metrics
from pipeline import metrics, sqlfiles
from pipeline.warehouse import migrate

_ids = itertools.count()


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    migrate(c)
    # runs keep their jobs in Parquet files now; the SQL definition reads a sim_jobs relation
    c.execute("CREATE TEMP TABLE sim_jobs AS SELECT * FROM sim_jobs_legacy LIMIT 0")
    yield c
    c.close()


job = st.fixed_dictionaries({
    "month": st.sampled_from(["2000-01", "2000-02", "2000-03"]),
    "submit": st.integers(0, 200),
    "wait": st.integers(0, 300),
    "run": st.sampled_from([0, 1, 5, 10, 11]) | st.integers(0, 500),
    "nodes": st.integers(1, 8),
    "backfilled": st.booleans(),
    "predicted_delta": st.none() | st.integers(-100, 400),
    "score": st.sampled_from([0.0]) | st.floats(0, 1e6, allow_nan=False),  # the kernel's: not the Eq. 4 weight
    "req": st.sampled_from([0, 1]) | st.integers(1, 900),
})


def store_jobs(con, jobs, capacity, split, policy="fcfs"):
    run_id = f"r{next(_ids)}"
    con.execute(
        "INSERT INTO runs (run_id, trace, config, code_version, input_sha256, policy, backfill, estimate, "
        "adjust, overrun, split, load_factor, capacity, drop_oversized, predict_wait, jobs_in_trace, "
        "jobs_simulated, left_out_no_run, left_out_no_size, dropped_oversized, no_request, no_estimate, "
        "segments, created_at) VALUES (?, 't', '{}', 'v', 'x', ?, 'easy', 'request', 'regular', "
        "'request', ?, 1.0, ?, false, false, ?, ?, 0, 0, 0, 0, 0, 1, ?)",
        [run_id, policy, split, capacity, len(jobs), len(jobs), datetime.now(timezone.utc)],
    )
    n = len(jobs)
    submit = np.array([j["submit"] for j in jobs], np.int64)
    run = np.array([j["run"] for j in jobs], np.int64)
    start = submit + np.array([j["wait"] for j in jobs], np.int64)
    pred = np.array([-1 if j["predicted_start"] is None else j["predicted_start"] for j in jobs], np.int64)
    table = pa.table({
        "run_id": [run_id] * n, "job_id": np.arange(n, dtype=np.int64), "month": [j["month"] for j in jobs],
        "submit": submit, "run": run, "nodes": np.array([j["nodes"] for j in jobs], np.int64),
        "req": np.array([j.get("req", j["run"] + 1) for j in jobs], np.int64), "est_wait": run, "est_run": run, "start": start, "end": start + run,
        "wait": start - submit, "backfilled": [j["backfilled"] for j in jobs],
        "predicted_start": pa.array(pred, mask=pred < 0), "score": [j["score"] for j in jobs],
        "first_bound": pa.array(np.full(n, -1, np.int64), mask=np.ones(n, bool)),
    })
    con.register("new_sim_jobs", table)
    con.execute(sqlfiles.load("simulate_insert_jobs"))
    con.unregister("new_sim_jobs")
    metrics.compute_run_metrics(con, run_id)
    return run_id


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.lists(job, min_size=1, max_size=25), capacity=st.integers(8, 40), split=st.booleans(),
       policy=st.sampled_from(["fcfs", "wfp", "sjf"]))
def test_sql_metrics_match_naive_twin(con, raw, capacity, split, policy):
    jobs = []
    for j in raw:
        start = j["submit"] + j["wait"]
        jobs.append({**j, "start": start,
                     "predicted_start": None if j["predicted_delta"] is None else max(0, start + j["predicted_delta"])})
    run_id = store_jobs(con, jobs, capacity, "month" if split else None, policy)
    whole, months = metrics.read_run_metrics(con, run_id)
    want = run_metrics(jobs, capacity, by_month=split, policy=policy)
    got = {"all": whole, **{m["month"]: m for m in months}}
    assert set(got) == set(want)
    for month, expected in want.items():
        for name, value in expected.items():
            assert close(got[month][name], value), (month, name, got[month][name], value)
    beside = {r["month"]: r for r in numpy_metrics(jobs, capacity, split, policy)}
    assert list(beside) == ["all", *sorted(m for m in want if m != "all")]
    for month, expected in want.items():
        assert set(beside[month]) == {"month", *metrics.METRIC_NAMES}
        for name in metrics.METRIC_NAMES:
            assert close(beside[month][name], got[month][name]), ("numpy", month, name, beside[month][name])


def numpy_metrics(jobs, capacity, split, policy):
    """pipeline.metrics.compute_metrics on the jobs' arrays, months in shuffled code order."""
    months = sorted({j["month"] for j in jobs}, reverse=True)
    col = lambda k, dt=np.int64: np.array([j[k] for j in jobs], dt)  # noqa: E731
    pred = np.array([-1 if j["predicted_start"] is None else j["predicted_start"] for j in jobs], np.int64)
    return metrics.compute_metrics(
        col("submit"), col("run"), col("nodes"), col("start"), col("backfilled", np.bool_), pred,
        metrics.eq4_weight(policy, col("submit"), col("start"), col("req"), col("nodes")),
        np.array([months.index(j["month"]) for j in jobs], np.int64), months,
        capacity, split)


def test_metric_names_are_the_stored_columns(con):
    run_id = store_jobs(con, [{"month": "2000-01", "submit": 0, "wait": 5, "run": 20, "nodes": 2,
                               "backfilled": False, "predicted_start": None, "score": 5.0, "start": 5}], 4, None)
    whole, _ = metrics.read_run_metrics(con, run_id)
    assert tuple(whole) == metrics.METRIC_NAMES
    # one job: wait 5, response 25, bounded slowdown 25/20, utilization 2*20/(4*25)
    assert whole["mean_response"] == 25 and whole["mean_bounded_slowdown"] == 1.25
    assert whole["utilization"] == pytest.approx(0.4) and whole["peak_nodes"] == 2


def test_wfp_weighted_wait_uses_the_request_not_the_run_score(con):
    """Tang Eq. 4/5 as printed: P = (wait / t_req)^3 x nodes, whatever the kernel's score.
    Job a: wait 100, req 100 -> P = 1; job b: wait 200, req 100, 2 nodes -> P = 16.
    Weighted wait = (100 + 200 * 16) / 17; the scores (1e6 vs 0) would give 100."""
    base = {"month": "2000-01", "backfilled": False, "predicted_start": None, "run": 50}
    jobs = [{**base, "submit": 0, "wait": 100, "start": 100, "nodes": 1, "req": 100, "score": 1e6},
            {**base, "submit": 0, "wait": 200, "start": 200, "nodes": 2, "req": 100, "score": 0.0}]
    whole, _ = metrics.read_run_metrics(con, store_jobs(con, jobs, 4, None, "wfp"))
    assert whole["weighted_wait"] == pytest.approx((100 + 200 * 16) / 17)
    whole, _ = metrics.read_run_metrics(con, store_jobs(con, jobs, 4, None, "fcfs"))
    assert whole["weighted_wait"] == pytest.approx((100 * 100 + 200 * 200) / 300)


def test_migration_110_recomputes_stored_weighted_waits(con):
    """A run stored with the old weight (the kernel's score) gets Eq. 5's t_req weight."""
    base = {"month": "2000-01", "backfilled": False, "predicted_start": None, "run": 50}
    jobs = [{**base, "submit": 0, "wait": 100, "start": 100, "nodes": 1, "req": 100, "score": 1e6},
            {**base, "submit": 0, "wait": 200, "start": 200, "nodes": 2, "req": 100, "score": 0.0}]
    run_id = store_jobs(con, jobs, 4, "month", "wfp")
    con.execute("UPDATE run_metrics SET weighted_wait = -1 WHERE run_id = ?", [run_id])
    # migration 110 runs before the first writer moves sim_jobs_legacy's rows out to files
    con.execute("INSERT INTO sim_jobs_legacy SELECT * FROM sim_jobs WHERE run_id = ?", [run_id])
    from pipeline import sqlfiles
    text = next(t for v, n, t in sqlfiles.migrations() if v == 110)
    con.execute(text)
    rows = dict(con.execute("SELECT month, weighted_wait FROM run_metrics WHERE run_id = ?", [run_id]).fetchall())
    assert rows == {"all": pytest.approx((100 + 3200) / 17), "2000-01": pytest.approx((100 + 3200) / 17)}
