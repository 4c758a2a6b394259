"""The walk-forward boosters exported to flat arrays and evaluated in Numba
(pipeline/estimates/learned_trees.py) give LightGBM's own ``booster.predict``
(plus the model's init) to 1e-9, on a real trace's feature rows and on the
same rows with missing values, unseen and negative categories, negative and
huge numbers: every branch of LightGBM's decision rules."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import trace_path

from pipeline.estimates import learned as L
from pipeline.estimates import learned_trees as T
from pipeline.estimates import load_jobs
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse


@pytest.fixture(scope="module")
def kth_jobs(tmp_path_factory):
    """KTH-SP2's jobs as the estimates stage reads them (also tests/test_kernel_learned_trees.py)."""
    wh = Warehouse(tmp_path_factory.mktemp("kth") / "wh")
    ingest([trace_path("KTH-SP2-1996-2.1-cln.swf.gz")], wh, lenient=False)
    con = wh.reader()
    jobs = load_jobs(con, "KTH-SP2-1996-2.1-cln")
    con.close()
    return jobs


@pytest.fixture(scope="module")
def kth(kth_jobs):
    return L.features(kth_jobs.head(6000))[0]


def _abused(x: np.ndarray, seed: int) -> np.ndarray:
    """x, then copies with NaN, unseen / negative / huge categories, negative and huge numbers."""
    rng = np.random.default_rng(seed)
    out = [x]
    for value in (np.nan, -1.0, 10_000.0, 3e9, -5e12, 0.0, 1e-40, 1e300):
        y = x.copy()
        hit = rng.random(y.shape) < 0.3
        y[hit] = value
        out.append(y)
    return np.vstack(out)


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["quantile", "eloss"])
def test_flat_trees_equal_booster_predict(kth, loss):
    x = L.matrix(kth)
    run = kth["run"].to_numpy().astype(np.float64)
    forest = T.Forest()
    boosters = []
    for lo, hi in ((0, 2000), (1000, 4000)):  # two models, as two retraining periods
        booster, init = L.train(x[lo:hi], run[lo:hi], loss, 0.7, 4.0, 50, threads=1)
        boosters.append((booster, init, forest.add(booster, init)))
    arrays = forest.arrays()
    assert arrays[2].sum() > 0, "categorical splits are exercised"
    assert (arrays[3] == 2).any() or (arrays[3] == 1).any(), "missing-value rules are exercised"
    rows = _abused(x[4000:5000], 1)
    for booster, init, m in boosters:
        want = booster.predict(rows) + init
        got = T.predict_rows(rows, m, *arrays)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
        assert np.unique(np.round(got, 6)).size > 50  # the trees really branch


def test_one_leaf_tree_and_hand_checked_split():
    """A stump on one numerical feature: left (x <= threshold) and right give its two leaf values."""
    import lightgbm as lgb

    x = np.repeat(np.array([[1.0], [2.0]]), 100, axis=0)
    y = np.where(x[:, 0] == 1.0, 0.0, 10.0)
    b = lgb.train({"objective": "l2", "num_iterations": 1, "learning_rate": 1.0, "min_data_in_leaf": 1,
                   "verbose": -1, "boost_from_average": False}, lgb.Dataset(x, label=y))
    f = T.Forest()
    m = f.add(b, 0.5)
    got = T.predict_rows(np.array([[1.0], [2.0], [np.nan]]), m, *f.arrays())
    assert got[0] == pytest.approx(0.5) and got[1] == pytest.approx(10.5)  # leaves 0 and 10, plus init 0.5
    assert got[2] == pytest.approx(b.predict(np.array([[np.nan]]))[0] + 0.5)
