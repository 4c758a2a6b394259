"""``learned`` inside the replay (``--history simulated``): the Numba loop
(pipeline/simulate/_learned.learned_sim: trees as flat arrays, features from
the replay's state) against the naive twin (naive_sim.simulate_learned:
features rebuilt from the twin's own replay, LightGBM's ``booster.predict``
per arrival), start by start and estimate by estimate: hypothesis workloads
and the first 3,000 jobs of KTH-SP2 with models trained walk-forward on the log."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive_sim
from kernel_checks import assert_same
from pipeline.estimates import learned as L
from pipeline.estimates.learned_trees import Forest
from pipeline.simulate import _learned as K
from pipeline.simulate import kernel
from test_learned_trees import kth_jobs  # noqa: F401  (a fixture)

CODES = {"none": 0, "easy": 1, "easy-sjbf": kernel.EASY_SJBF}


def both(w, capacity, policy, backfill, ju, xs, model, boosters, forest):
    args = (w["submit"], w["run"], w["nodes"], w["req"], capacity, kernel.POLICIES[policy], CODES[backfill],
            kernel.OVERRUNS["request"])
    jp = np.nan_to_num(xs[:, 6], nan=0.0)
    fast = K.learned_sim(*args, ju, max(1, int(ju.max()) + 1), xs, model, jp, forest)
    slow = naive_sim.simulate_learned(w["submit"], w["job_id"], w["run"], w["nodes"], w["req"], capacity,
                                      kernel.POLICIES[policy], CODES[backfill], kernel.OVERRUNS["request"],
                                      ju, xs, model, boosters)
    return fast, slow


@functools.cache
def toy_models():
    """Two boosters on made-up rows whose label leans on the dynamic features
    (last run, running, mean run, procs ratio), so the replay's state matters."""
    rng = np.random.default_rng(7)
    n = 3000
    x = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 3, n), rng.integers(0, 2, n), rng.integers(0, 2, n),
                         rng.integers(0, 5, n), rng.integers(60, 3600, n), rng.integers(1, 9, n),
                         rng.integers(1, 9, n), np.zeros(n), rng.integers(0, 24, n), rng.integers(0, 7, n),
                         *(rng.integers(0, 3600, n) for _ in range(3)), *(rng.random(n) for _ in range(3)),
                         rng.integers(0, 5, n), rng.integers(0, 10**5, n), rng.integers(0, 3600, n),
                         rng.random(n) * 3, rng.integers(0, 40, n)]).astype(np.float64)
    x[rng.random(x.shape) < 0.15] = np.nan
    run = np.nan_to_num(x[:, 11], nan=600.0) * 0.5 + np.nan_to_num(x[:, 17], nan=0) * 300 + rng.integers(0, 200, n)
    models = [L.train(x, run, "quantile", 0.6, 1.0, 20, threads=1),
              L.train(x[:1500], run[:1500], "eloss", 0.5, 4.0, 20, threads=1)]
    forest = Forest()
    for b, init in models:
        forest.add(b, init)
    return models, forest.arrays()


@st.composite
def workloads(draw):
    n = draw(st.integers(1, 30))
    capacity = draw(st.integers(1, 8))
    rows = sorted((draw(st.integers(0, 40)) * 60, i) for i in range(n))
    w = {"submit": np.array([s for s, _ in rows], np.int64), "job_id": np.arange(n, dtype=np.int64),
         "run": np.array([draw(st.integers(0, 60)) * 60 for _ in range(n)], np.int64),
         "nodes": np.array([draw(st.integers(1, capacity)) for _ in range(n)], np.int64)}
    w["req"] = np.array([max(r + draw(st.integers(-5, 40)) * 60, 60) for r in w["run"]], np.int64)
    ju = np.array([draw(st.integers(-1, 2)) for _ in range(n)], np.int64)
    xs = np.full((n, 11), np.nan)
    for k in range(n):
        xs[k, 0] = np.nan if ju[k] < 0 else ju[k]
        xs[k, 1:5] = [draw(st.one_of(st.none(), st.integers(0, 5))) or np.nan for _ in range(4)]
        xs[k, 5] = draw(st.sampled_from([float(w["req"][k]), np.nan, 0.0]))
        xs[k, 6] = draw(st.sampled_from([float(w["nodes"][k]), np.nan, 0.0, 3.0]))
        xs[k, 7] = float(w["nodes"][k])
        xs[k, 8] = 0.0
        xs[k, 9], xs[k, 10] = w["submit"][k] // 3600 % 24, 3.0
    model = np.array([draw(st.integers(-1, 1)) for _ in range(n)], np.int64)
    return w, capacity, ju, xs, model


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.sampled_from(["fcfs", "sjf"]), st.sampled_from(["none", "easy", "easy-sjbf"]))
def test_loop_matches_naive_twin(case, policy, backfill):
    w, capacity, ju, xs, model = case
    boosters, forest = toy_models()
    fast, slow = both(w, capacity, policy, backfill, ju, xs, model, boosters, forest)
    assert_same(fast[:5], slow[:5], f"{policy}/{backfill}")
    assert (fast[5] == slow[5]).all(), (fast[5], slow[5])


def test_replay_state_changes_the_estimate():
    """One user, two identical jobs: the second's features (last run, running, mean run) come
    from the first's end in the replay, so a model leaning on them predicts differently."""
    boosters, forest = toy_models()
    w = {"submit": np.array([0, 0, 5000], np.int64), "job_id": np.arange(3, dtype=np.int64),
         "run": np.array([3000, 100, 100], np.int64), "nodes": np.array([1, 1, 1], np.int64),
         "req": np.array([7200, 7200, 7200], np.int64)}
    xs = np.array([[0, 0, 0, 0, 0, 7200, 1, 1, 0, 0, 3]] * 3, np.float64)
    ju = np.zeros(3, np.int64)
    fast, slow = both(w, 2, "fcfs", "easy", ju, xs, np.zeros(3, np.int64), boosters, forest)
    assert (fast[5] == slow[5]).all()
    assert fast[5][0] == fast[5][1]  # same features at t=0: nothing ended, nothing running
    assert fast[5][2] != fast[5][0]  # at t=5000 both ended: last run 3000 s, then 100 s


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["learned:loss=quantile,q=0.5,retrain=7d,window=2000,trees=30",
                                  "learned:loss=eloss,under=4,retrain=7d,window=2000,trees=30"])
def test_real_trace_prefix_matches_naive_twin(kth_jobs, spec):
    """KTH-SP2's first 3,000 runnable jobs (100 processors), models trained walk-forward on the log."""
    import polars as pl

    from pipeline.schemes import parse

    s = parse(spec)
    jobs = kth_jobs.sort("submit", "job_id").head(3000)
    sim = jobs.filter((pl.col("run") >= 0) & (pl.col("procs") > 0))
    w = {"submit": sim["submit"].to_numpy().astype(np.int64), "job_id": sim["job_id"].to_numpy().astype(np.int64),
         "run": sim["run"].to_numpy().astype(np.int64), "nodes": sim["procs"].to_numpy().astype(np.int64)}
    req = sim["req"].fill_null(0).to_numpy().astype(np.int64)
    w["req"] = np.where(req <= 0, np.maximum(w["run"], 1), req)
    ju, nusers, xs, model, jp, forest = K.loop_inputs(jobs, s, w["job_id"])
    frame, x, models, model_of, _ = L.fit(jobs, s["q"], s["loss"], s["under"], s["retrain"], s["window"],
                                          s["trees"])
    assert (model >= 0).mean() > 0.5 and len(models) > 3
    fast, slow = both(w, 100, "fcfs", "easy-sjbf", ju, xs, model, models, forest)
    assert_same(fast[:5], slow[:5], spec)
    assert (fast[5] == slow[5]).all()
    assert (fast[5] < w["req"]).mean() > 0.3
