"""`walltime evaluate --walk-forward` (pipeline/evaluate/walk_forward.py): the metrics against a hand-worked
case, no prediction that sees a later job, and the command's table, store and sentence agreeing."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from conftest import run_cli, trace_path
from pipeline.evaluate.walk_forward import DAY, learned_predictions, score, sentence
from pipeline.warehouse import Warehouse


def test_scores_by_hand():
    # runs 1 h, 2 h, 0 s; estimates 0.5 h, 2 h, 60 s. Errors -1800, 0, 60 s; mean run 3600 s, so the total sum
    # of squares is 2 x 3600^2 = 25,920,000 and the error's 1800^2 + 60^2 = 3,243,600: R^2 = 1 - 0.125139.
    # RMSE sqrt(3,243,600 / 3) = 1039.81 s; MAE 620 s. Accuracy 0.5, 1 and 0 (min 0 over max 60): 0.5;
    # underestimated: the first only.
    s = score("x", np.array([3600.0, 7200.0, 0.0]), np.array([1800.0, 7200.0, 60.0]))
    assert s.predictions == 3
    assert s.r2 == pytest.approx(1 - 3_243_600 / 25_920_000)
    assert s.rmse_h == pytest.approx(math.sqrt(3_243_600 / 3) / 3600)
    assert s.mae_h == pytest.approx(620 / 3600)
    assert s.accuracy == pytest.approx(0.5) and s.under == pytest.approx(1 / 3)
    assert score("x", np.array([5.0, 5.0]), np.array([5.0, 4.0])).r2 is None  # one runtime: no R^2
    assert score("x", np.array([0.0]), np.array([0.0])).accuracy == 1.0  # both 0: exact


@pytest.fixture(scope="module")
def kth(tmp_path_factory):
    wh = tmp_path_factory.mktemp("wf")
    run_cli("ingest", str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")), "--name", "kth", warehouse=wh, check=True)
    return wh


def _jobs(wh, n: int) -> pl.DataFrame:
    from pipeline.estimates import load_jobs

    con = Warehouse(wh).reader()
    try:
        return load_jobs(con, "kth").sort("submit").head(n)
    finally:
        con.close()


def test_no_prediction_sees_a_later_job(kth):
    """Every job submitted from a cut-off on gets another runtime: the predictions of the jobs submitted before
    the cut-off's step are unchanged (a model learns only from jobs that ended by its step's start)."""
    jobs = _jobs(kth, 4000)
    window, step = 20 * DAY, 5 * DAY
    t0 = int(jobs["submit"].min())
    cut = t0 + window + 6 * step + 3600  # inside the seventh step
    before, models = learned_predictions(jobs, window, step)
    later = pl.col("submit") >= cut
    changed = jobs.with_columns(pl.when(later).then(pl.col("run") * 3 + 17).otherwise(pl.col("run")).alias("run"),
                                pl.when(later).then(pl.col("end") + pl.col("run") * 2 + 17).otherwise(pl.col("end"))
                                .alias("end"))
    after, _ = learned_predictions(changed, window, step)
    step_start = t0 + window + 6 * step
    early = jobs.filter(pl.col("submit") < step_start)["job_id"].implode()
    a = before.filter(pl.col("job_id").is_in(early)).sort("job_id")
    b = after.filter(pl.col("job_id").is_in(early)).sort("job_id")
    assert models >= 6 and a.height > 100
    assert a.equals(b)
    # and the protocol is not blind: the jobs after the cut-off are predicted differently
    assert not before.filter(~pl.col("job_id").is_in(early)).sort("job_id").equals(
        after.filter(~pl.col("job_id").is_in(early)).sort("job_id"))


def test_the_command_stores_what_it_says(kth):
    out = run_cli("evaluate", "kth", "--walk-forward", "--window-days", "30", "--step-days", "7", "--json",
                  warehouse=kth, check=True)
    doc = json.loads(out.stdout)["walk_forward"][0]
    con = Warehouse(kth).reader()
    try:
        rows = con.execute("SELECT estimator, models, predictions, r2, rmse_h, accuracy, under FROM "
                           "evaluate_walk_forward WHERE trace = 'kth' AND window_days = 30 AND step_days = 7 "
                           "ORDER BY estimator").fetchall()
        req = con.execute("SELECT count(*) FROM jobs WHERE trace = 'kth' AND req > 0 AND run IS NOT NULL").fetchone()[0]
    finally:
        con.close()
    stored = {r[0]: r for r in rows}
    assert set(stored) == {"learned", "ave2", "request"}
    for s in doc["scores"]:
        r = stored[s["estimator"]]
        assert (r[1], r[2]) == (doc["models"], s["predictions"])
        assert r[3] == pytest.approx(s["r2"]) and r[5] == pytest.approx(s["accuracy"])
    n = doc["scores"][0]["predictions"]
    assert all(s["predictions"] == n for s in doc["scores"]) and 0 < n < req
    # the sentence names the estimator with the largest R^2 and the most accurate one
    from pipeline.evaluate.walk_forward import Score, WalkForward

    w = WalkForward(**{k: v for k, v in doc.items() if k != "published"} | {"scores": [Score(**s) for s in doc["scores"]]})
    best = max(doc["scores"], key=lambda s: s["r2"])["estimator"]
    acc = max(doc["scores"], key=lambda s: s["accuracy"])["estimator"]
    words = sentence(w)
    assert f"{best} explains the most runtime variance" in words and f"the most accurate is {acc}" in words
    text = run_cli("evaluate", "kth", "--walk-forward", "--window-days", "30", "--step-days", "7", warehouse=kth,
                   check=True).stdout
    assert words in text and "Menear et al. 2023" in text


def test_a_bad_window_is_one_line(kth):
    out = run_cli("evaluate", "kth", "--walk-forward", "--window-days", "0", warehouse=kth)
    assert out.returncode == 1
    assert out.stderr.strip().count("\n") == 0 and "--window-days 0" in out.stderr


def test_a_window_longer_than_the_log_predicts_nothing_and_says_so(kth):
    out = run_cli("evaluate", "kth", "--walk-forward", "--window-days", "5000", "--json", warehouse=kth, check=True)
    doc = json.loads(out.stdout)["walk_forward"][0]
    assert doc["models"] == 0 and all(s["predictions"] == 0 and s["r2"] is None for s in doc["scores"])
    text = run_cli("evaluate", "kth", "--walk-forward", "--window-days", "5000", warehouse=kth, check=True).stdout
    assert "No step had 5000 days of history" in text and "Traceback" not in text
    header, *rows = [ln for ln in text.splitlines() if ln.startswith("  ") and not ln.startswith("  published")][:4]
    assert header.split() == ["estimator", "R^2", "RMSE", "h", "MAE", "h", "accuracy", "under"]
    for row in rows[:2]:  # learned and ave2 predicted nothing: dashes, each right-aligned in its column
        assert row.split()[1:] == ["-"] * 5 and len(row) == len(header), (row, header)


def _naive_protocol(jobs: list[dict], window: int, step: int) -> dict[int, float]:
    """The protocol stated job by job in plain Python, independently of learned_predictions' plan: each job
    submitted at or after t0 + window belongs to the step starting at P = t0 + window + k * step (k = floor);
    that step's model learns from the jobs with end and run known, P - window < end <= P and submit < P,
    oldest first by (end, submit, job_id), on the plain-Python features (tests/naive_learned.py); fewer
    than MIN_TRAIN: not predicted. The estimate is expm1(max(prediction + init, 0)), not capped."""
    import naive_learned as NL
    from pipeline.estimates.learned import MIN_TRAIN, train

    feats = NL.features(jobs)
    t0 = min(j["submit"] for j in jobs)
    out, models = {}, {}
    for j in jobs:
        if j["submit"] < t0 + window:
            continue
        p = t0 + window + (j["submit"] - t0 - window) // step * step
        if p not in models:
            hist = sorted((k for k in jobs if k["end"] is not None and k["run"] is not None
                           and p - window < k["end"] <= p and k["submit"] < p),
                          key=lambda k: (k["end"], k["submit"], k["job_id"]))
            models[p] = None if len(hist) < MIN_TRAIN else train(
                NL._x([feats[k["job_id"]] for k in hist]), [k["run"] for k in hist], "quantile", 0.5, 4.0, 50)
        if models[p] is not None:
            booster, init = models[p]
            out[j["job_id"]] = math.expm1(max(booster.predict(NL._x([feats[j["job_id"]]]), num_threads=1)[0]
                                              + init, 0.0))
    return out


@pytest.mark.parametrize("workers", ["1", "2"])
def test_predictions_match_the_naive_protocol(kth, monkeypatch, workers):
    """learned_predictions (its plan of bounds into the jobs by end, each step trained and predicted in one
    task, tasks side by side) against the protocol stated job by job: the same jobs predicted, the same
    estimates, one model per step with enough history; one task at a time or two side by side."""
    monkeypatch.setenv("WALLTIME_LEARNED_WORKERS", workers)
    jobs = _jobs(kth, 1200)
    window, step = 4 * DAY, DAY
    fast, models = learned_predictions(jobs, window, step)
    naive = _naive_protocol(jobs.to_dicts(), window, step)
    assert models >= 5 and len(naive) > 500
    got = dict(zip(fast["job_id"].to_list(), fast["est"].to_list()))
    assert set(got) == set(naive)
    for job_id, est in naive.items():
        assert got[job_id] == pytest.approx(est, rel=1e-9), job_id
    assert fast["job_id"].to_list() == [j for j in jobs["job_id"].to_list() if j in naive]  # input order
