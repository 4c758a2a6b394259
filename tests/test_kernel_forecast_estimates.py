"""kernel.simulate_forecast: the scheduler runs on its estimates (e.g. the
requests) while the wait forecast simulates it with each job lasting a
predictor's run time, Smith, Taylor & Foster's set-up. Properties on
generated workloads and a real trace."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import trace_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive_sim
from kernel_checks import check_invariants
from kernel_inputs import trace_arrays
from pipeline.simulate import kernel


@st.composite
def cases(draw, max_jobs=16):
    capacity = draw(st.integers(1, 8))
    n = draw(st.integers(1, max_jobs))
    rows = []
    for i in range(n):
        run = draw(st.integers(0, 30))
        req = draw(st.integers(max(run, 1), 60))
        rows.append((draw(st.integers(0, 60)), i, run, draw(st.integers(1, capacity)), req,
                     draw(st.integers(0, 60))))
    rows.sort()
    a = np.array(rows, dtype=np.int64)
    w = {"submit": a[:, 0], "job_id": a[:, 1], "run": a[:, 2], "nodes": a[:, 3], "req": a[:, 4], "fc": a[:, 5]}
    return w, capacity


def run(w, capacity, policy, backfill, overrun, fc_run):
    args = (w["submit"], w["job_id"], w["run"], w["nodes"], w["req"], w["req"], w["req"], capacity,
            kernel.POLICIES[policy], kernel.BACKFILLS[backfill], kernel.OVERRUNS[overrun])
    return kernel.simulate_forecast(*args, fc_run), kernel.simulate(*args, True)


POLICY = st.sampled_from(["fcfs", "lwf", "sjf"])
BACKFILL = st.sampled_from(["none", "easy", "conservative"])
OVERRUN = st.sampled_from(["request", "double"])


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), POLICY, BACKFILL, OVERRUN)
def test_forecast_estimates_never_change_the_schedule(case, policy, backfill, overrun):
    w, capacity = case
    got, base = run(w, capacity, policy, backfill, overrun, w["fc"])
    for name, a, b in zip(("start", "backfilled", "predicted", "score", "first_bound"), got, base):
        if name != "predicted":
            assert (a == b).all(), name
    # the schedule's invariants (the forecast's own are checked below)
    check_invariants({**w, "est": w["req"]}, capacity, (*got[:2], base[2], *got[3:]), backfill, policy, w["req"])
    assert (got[2] >= w["submit"]).all(), "a forecast start is never before submission"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), POLICY, st.sampled_from(["none", "easy"]), OVERRUN)
def test_forecast_with_the_schedulers_own_estimates_is_the_usual_forecast(case, policy, backfill, overrun):
    w, capacity = case
    got, base = run(w, capacity, policy, backfill, overrun, w["req"])
    assert (got[2] == base[2]).all()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), OVERRUN)
def test_fcfs_forecast_with_actual_run_times_is_exact(case, overrun):
    """Smith Section 3: with actual run times FCFS forecasts have no error,
    whatever the scheduler's own estimates."""
    w, capacity = case
    got, _ = run(w, capacity, "fcfs", "none", overrun, w["run"])
    assert (got[2] == got[0]).all()


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_conservative_forecast_is_exact_when_everything_is_exact(case):
    """Scheduler and forecast both on actual run times (>= 1 s): conservative
    backfilling starts every job at the reservation the forecast gives it."""
    w, capacity = case
    w = {**w, "run": np.maximum(w["run"], 1)}
    w["req"] = w["run"]
    got, _ = run(w, capacity, "fcfs", "conservative", "request", w["run"])
    assert (got[2] == got[0]).all()


@pytest.mark.slow
def test_real_trace_fcfs_forecast_with_actual_run_times_is_exact(tmp_path):
    w, capacity = trace_arrays(trace_path("SDSC-Par-1996-3.1-cln.swf.gz"), tmp_path / "wh")
    n = 8000
    w = {k: v[:n] for k, v in w.items()}
    got, _ = run(w, capacity, "fcfs", "none", "request", w["run"])
    assert (got[2] == got[0]).all()
    got, base = run(w, capacity, "lwf", "conservative", "request", w["run"])
    assert (got[0] == base[0]).all() and (got[2] >= w["submit"]).all()


# ------------------------------------------------- conservative: the forecast simulates the scheduler

@st.composite
def cases_est(draw, max_jobs=14):
    """As `cases`, with est_wait / est_run that may differ (selective adjustment)."""
    w, capacity = draw(cases(max_jobs))
    n = len(w["submit"])
    w["est_wait"] = np.array([draw(st.integers(0, 60)) for _ in range(n)], dtype=np.int64)
    w["est_run"] = np.array([draw(st.integers(0, 60)) for _ in range(n)], dtype=np.int64)
    return w, capacity


def _fast_and_naive(w, capacity, policy, overrun, est_wait, est_run):
    args = (w["submit"], w["job_id"], w["run"], w["nodes"], est_wait, est_run, w["req"], capacity,
            kernel.POLICIES[policy], kernel.BACKFILLS["conservative"], kernel.OVERRUNS[overrun], w["fc"])
    return kernel.simulate_forecast(*args), naive_sim.simulate_forecast(*args)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases_est(), POLICY, OVERRUN, st.booleans())
def test_conservative_forecast_matches_naive_twin(case, policy, overrun, selective):
    w, capacity = case
    est_wait, est_run = (w["est_wait"], w["est_run"]) if selective else (w["req"], w["req"])
    fast, slow = _fast_and_naive(w, capacity, policy, overrun, est_wait, est_run)
    for name, a, b in zip(("start", "backfilled", "predicted", "score", "first_bound"), fast, slow):
        assert np.array_equal(a, b), (name, a, b)


def _prefix_starts(w, capacity, run):
    """Start of each job in the schedule of the jobs submitted up to it
    (nothing later exists): what a perfect forecast made at its submission
    would say, when every job lasts `run`."""
    out = np.empty(len(w["submit"]), np.int64)
    for j in range(len(out)):
        k = int(np.searchsorted(w["submit"], w["submit"][j], side="right"))
        args = (w["submit"][:k], w["job_id"][:k], run[:k], w["nodes"][:k], w["req"][:k], w["req"][:k],
                w["req"][:k], capacity, 0, kernel.BACKFILLS["conservative"], 0, False)
        out[j] = kernel.simulate(*args)[0][j]
    return out


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_conservative_forecast_with_actual_run_times_is_the_schedule_without_later_arrivals(case):
    """Smith Section 3: with actual run times the only forecast error is
    what later arrivals do; the forecast is the job's start in the schedule
    of the jobs submitted up to it (compression included)."""
    w, capacity = case
    got, _ = run(w, capacity, "fcfs", "conservative", "request", w["run"])
    assert np.array_equal(got[2], _prefix_starts(w, capacity, w["run"]))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases_est(), OVERRUN)
def test_conservative_forecast_knows_overruns_from_actual_run_times(case, overrun):
    """Jobs that run past their estimate (not their request): the forecast
    applies the overrun rule as the scheduler does, so actual run times still
    give the schedule of the jobs submitted so far."""
    w, capacity = case
    est = np.minimum(w["est_run"], w["req"])
    args = (w["submit"], w["job_id"], w["run"], w["nodes"], est, est, w["req"], capacity, 0,
            kernel.BACKFILLS["conservative"], kernel.OVERRUNS[overrun])
    pred = kernel.simulate_forecast(*args, w["run"])[2]
    for j in range(len(pred)):
        k = int(np.searchsorted(w["submit"], w["submit"][j], side="right"))
        assert pred[j] == kernel.simulate(*(a[:k] for a in args[:7]), *args[7:], False)[0][j]


@pytest.mark.slow
def test_real_trace_conservative_forecast_matches_naive_twin(tmp_path):
    w, capacity = trace_arrays(trace_path("SDSC-Par-1996-3.1-cln.swf.gz"), tmp_path / "wh")
    n = 250
    w = {k: v[:n] for k, v in w.items()}
    # a predictor-like forecast: half the actual run time, at least a minute
    w["fc"] = np.maximum(w["run"] // 2, 60)
    fast, slow = _fast_and_naive(w, capacity, "fcfs", "request", w["req"], w["req"])
    for name, a, b in zip(("start", "backfilled", "predicted", "score", "first_bound"), fast, slow):
        assert np.array_equal(a, b), name
    assert (fast[2] >= w["submit"]).all()


@pytest.mark.slow
def test_real_trace_conservative_forecast_with_actual_run_times(tmp_path):
    w, capacity = trace_arrays(trace_path("CTC-SP2-1996-3.1-cln.swf.gz"), tmp_path / "wh")
    n = 600
    w = {k: v[:n] for k, v in w.items()}
    w["run"] = np.minimum(w["run"], w["req"])  # a forecast job never outlives its request
    got, _ = run(w, capacity, "fcfs", "conservative", "request", w["run"])
    assert np.array_equal(got[2], _prefix_starts(w, capacity, w["run"]))
