"""kernel.simulate_forecast against its naive twin (tests/naive_sim.simulate_forecast)
job by job, for none and EASY under every policy, regular and selective
adjustment, both overrun rules: the forecast durations (fc_run) differ from
the scheduler's estimates, run times overrun them, estimates can be zero.

The workloads submit many jobs while the head is blocked, so the `none`
forecast's continuation (a forecast resumed from the previous one when
nothing ended or overran in between) is exercised, as is the skip of
forecasts whose jobs start at once.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive_sim
from kernel_checks import OUTPUTS
from pipeline.simulate import kernel


@st.composite
def workloads(draw, max_jobs=18):
    capacity = draw(st.integers(1, 6))
    n = draw(st.integers(1, max_jobs))
    rows = []
    for i in range(n):
        run = draw(st.integers(0, 15))
        est = draw(st.sampled_from([run, run + draw(st.integers(1, 10)), max(0, run - draw(st.integers(1, 6))), 0]))
        req = max(1, run + draw(st.integers(-4, 10)))
        fc = draw(st.integers(0, 20))
        rows.append((draw(st.integers(0, 40)), i, run, draw(st.integers(1, capacity)), est, req, fc))
    rows.sort()
    a = np.array(rows, dtype=np.int64)
    return {k: a[:, c] for c, k in enumerate(("submit", "job_id", "run", "nodes", "est", "req", "fc"))}, capacity


@pytest.mark.parametrize("backfill", ["none", "easy"])
@pytest.mark.parametrize("policy", ["fcfs", "sjf", "lwf", "wfp"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), adjust=st.sampled_from(["regular", "selective"]),
       overrun=st.sampled_from(["request", "double"]))
def test_forecast_matches_naive_twin(policy, backfill, case, adjust, overrun):
    w, capacity = case
    est_run = w["est"] if adjust == "regular" else w["req"]
    args = (w["submit"], w["job_id"], w["run"], w["nodes"], w["est"], est_run, w["req"], capacity,
            kernel.POLICIES[policy], kernel.BACKFILLS[backfill], kernel.OVERRUNS[overrun])
    for fast, slow in ((kernel.simulate_forecast(*args, w["fc"]), naive_sim.simulate_forecast(*args, w["fc"])),
                       (kernel.simulate(*args, True), naive_sim.simulate(*args, True))):
        for name, a, b in zip(OUTPUTS, fast, slow):
            bad = np.flatnonzero(a != b)
            assert bad.size == 0, f"{name} differs at {bad[:10].tolist()}: kernel {a[bad[:10]]} naive {b[bad[:10]]}"
