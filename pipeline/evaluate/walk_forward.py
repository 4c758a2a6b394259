"""The field's walk-forward benchmark: train on a sliding window of the log's past, predict the next step.

Menear et al. (PEARC'23) train a model each day on the jobs of the previous 100 days and predict that day's
submissions, over all of NREL Eagle: R^2 0.417 and RMSE 7.8 h over 8.04M predictions. Fan et al. (CLUSTER'17)
report a predictor's accuracy (mean of min(run, estimate) / max(run, estimate)) with its underestimation rate:
80% at 5%. ``walltime evaluate TRACE --walk-forward`` runs that protocol on any log with requests:

- at each step start ``P`` (every ``step`` seconds from the first submission + ``window``), a learned model
  (the learned scheme's trees and features, pipeline/estimates/learned.py) is trained on the jobs that ended in
  ``(P - window, P]`` and were submitted before ``P`` -- what a site knows at ``P`` -- and predicts the jobs
  submitted in ``[P, P + step)``; a step with fewer than MIN_TRAIN such jobs predicts nothing;
- beside it, on the same jobs: ave2 (the mean of the user's last two runs that ended before the submission,
  capped at the request) and the users' requests;
- scored on the predicted jobs with a run and a request: R^2 and RMSE/MAE in hours of the runtime, accuracy and
  the underestimation rate. The learned prediction is the model's own (not capped at the request), as
  Menear et al.'s.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import polars as pl

DAY = 86_400
# (source, trace, estimator, figures) the protocol's published numbers
PUBLISHED = (
    {"source": "Menear et al. 2023 (PEARC'23)", "log": "NREL Eagle, 11M jobs", "estimator": "learned, 100-day window, daily",
     "r2": 0.417, "rmse_h": 7.8, "predictions": 8_040_000},
    {"source": "Fan et al. 2017 (CLUSTER'17)", "log": "Mira (ALCF)", "estimator": "their learned predictor",
     "accuracy": 0.80, "under": 0.05},
)


@dataclass
class Score:
    """One estimator's figures over the predicted jobs."""
    estimator: str
    predictions: int
    r2: float | None
    rmse_h: float | None
    mae_h: float | None
    accuracy: float | None
    under: float | None


def score(estimator: str, run: np.ndarray, est: np.ndarray) -> Score:
    """R^2 of the runtime, RMSE and MAE in hours, mean min/max accuracy and the share underestimated."""
    run = np.asarray(run, np.float64)
    est = np.asarray(est, np.float64)
    n = len(run)
    if n == 0:
        return Score(estimator, 0, None, None, None, None, None)
    err = est - run
    ss = float(((run - run.mean()) ** 2).sum())
    hi = np.maximum(run, est)
    ratio = np.where(hi > 0, np.minimum(run, est) / np.where(hi > 0, hi, 1.0), 1.0)
    return Score(estimator, n, 1.0 - float((err ** 2).sum()) / ss if ss > 0 else None,
                 float(np.sqrt((err ** 2).mean())) / 3600, float(np.abs(err).mean()) / 3600,
                 float(ratio.mean()), float((est < run).mean()))


def learned_predictions(jobs: pl.DataFrame, window_s: int, step_s: int, q: float = 0.5, loss: str = "quantile",
                        under: float = 4.0, trees: int = 50) -> tuple[pl.DataFrame, int]:
    """(job_id, est) of every job the protocol predicts (input order kept), and the number of models trained.

    At 11M jobs (2,285 daily models of ~460,000 jobs each) the plan holds only each step's bounds into the
    jobs sorted by end; a step's training rows are taken, its model trained, its jobs predicted and the
    model dropped in one task, :func:`learned.workers` tasks side by side (one thread each). Holding every
    step's rows (8.4 GB of indices) and every model before predicting made the command's peak."""
    from ..estimates import learned as L

    frame, x, _ = L.features_matrix(jobs)  # the matrix alone (features() + matrix() held it three times)
    submit = frame["submit"].to_numpy()
    run = frame["run"].to_numpy(allow_copy=True).astype(np.float64)
    order = L.training_rows(frame)  # ended jobs, by end
    ends = frame["end"].to_numpy()[order] if len(order) else np.zeros(0, np.int64)
    subs = submit[order]
    t0 = int(submit.min()) if len(submit) else 0
    steps = np.floor_divide(submit - (t0 + window_s), step_s)  # a job's step; < 0: inside the first window
    plan = []  # (lo, hi, p, the step's jobs): its training rows are order[lo:hi][subs[lo:hi] < p]
    of_step = L.indices_by_value(steps)  # (one sort, not a scan per step)
    for b in sorted(k for k in of_step if k >= 0):
        p = t0 + window_s + int(b) * step_s
        lo = int(np.searchsorted(ends, p - window_s, side="right"))
        hi = int(np.searchsorted(ends, p, side="right"))
        if int(np.count_nonzero(subs[lo:hi] < p)) < L.MIN_TRAIN:
            continue
        plan.append((lo, hi, p, of_step[b]))
    del of_step, steps
    pred = np.full(len(frame), np.nan)

    def one(item, threads):
        lo, hi, p, mine = item
        rows = order[lo:hi][subs[lo:hi] < p]
        booster, init = L.train(x[rows], run[rows], loss, q, under, trees, threads=threads)
        del rows
        pred[mine] = booster.predict(x[mine], num_threads=threads) + init  # the steps' jobs are disjoint

    L._side_by_side(one, plan)
    x = None  # the matrix freed (the closure above reads it through its cell)
    est = np.expm1(np.maximum(pred, 0.0))
    out = frame.select("job_id").with_columns(pl.Series("est", est).fill_nan(None))
    return out.filter(pl.col("est").is_not_null()), len(plan)


@dataclass
class WalkForward:
    trace: str
    window_days: float
    step_days: float
    models: int
    jobs: int
    scores: list[Score]

    def as_dict(self) -> dict:
        return asdict(self) | {"published": list(PUBLISHED)}


def walk_forward(jobs: pl.DataFrame, trace: str, window_s: int = 100 * DAY, step_s: int = DAY) -> WalkForward:
    """The protocol on one trace's jobs (estimates.load_jobs): learned, ave2 and the requests on the jobs the
    learned model predicted that have a run and a request."""
    from .. import schemes
    from ..estimates.compute import compute

    learned, models = learned_predictions(jobs, window_s, step_s)  # its matrix freed before ave2's frames
    ave2 = compute(jobs, schemes.parse("ave2")).select("job_id", pl.col("est").alias("ave2"))
    both = (learned.join(jobs.select("job_id", "run", "req"), on="job_id").join(ave2, on="job_id", how="left")
            .filter(pl.col("run").is_not_null() & pl.col("req").is_not_null() & (pl.col("req") > 0)))
    run = both["run"].to_numpy().astype(np.float64)
    scores = [score("learned", run, both["est"].to_numpy()),
              score("ave2", run, both["ave2"].fill_null(both["req"].cast(pl.Float64)).to_numpy()),
              score("request", run, both["req"].to_numpy().astype(np.float64))]
    return WalkForward(trace, window_s / DAY, step_s / DAY, models, jobs.height, scores)


def lines(w: WalkForward) -> list[str]:
    """The table and the sentence, for the terminal."""
    out = [f"{w.trace}: walk-forward, {w.window_days:g}-day window, a new model every {w.step_days:g} day(s): "
           f"{w.models:,} models, {w.scores[0].predictions:,} predictions of {w.jobs:,} jobs",
           f"  {'estimator':<10} {'R^2':>7} {'RMSE h':>8} {'MAE h':>7} {'accuracy':>9} {'under':>7}"]
    for s in w.scores:
        def f(v, fmt):  # a missing figure is a dash in its column's width
            return format(v, fmt) if v is not None else format("-", ">" + fmt.split(".")[0])
        out.append(f"  {s.estimator:<10} {f(s.r2, '7.3f')} {f(s.rmse_h, '8.2f')} {f(s.mae_h, '7.2f')} "
                   f"{f(s.accuracy, '9.1%')} {f(s.under, '7.1%')}")
    for p in PUBLISHED:
        figs = ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v:g}"
                         for k, v in p.items() if k not in ("source", "log", "estimator"))
        out.append(f"  published: {p['source']}, {p['log']}, {p['estimator']}: {figs}")
    out.append("  " + sentence(w))
    return out


def sentence(w: WalkForward) -> str:
    """The answer in words, generated from the scores."""
    by = {s.estimator: s for s in w.scores}
    lrn, ave, req = by["learned"], by["ave2"], by["request"]
    if not lrn.predictions:
        return (f"No step had {w.window_days:g} days of history with enough finished jobs: nothing was predicted "
                "(a shorter --window-days predicts from less history).")
    fit = max((s for s in w.scores if s.r2 is not None), key=lambda s: s.r2, default=None)
    acc = max(w.scores, key=lambda s: s.accuracy)
    first = (f"{fit.estimator} explains the most runtime variance (R^2 {fit.r2:.3f}, RMSE {fit.rmse_h:.2f} h; "
             "Menear et al.: 0.417 and 7.8 h on Eagle)") if fit else "no estimator has an R^2 (one runtime only)"
    return (f"On {lrn.predictions:,} predictions, {first}; the most accurate is {acc.estimator} "
            f"({acc.accuracy:.1%}, underestimating {acc.under:.1%}; learned {lrn.accuracy:.1%} at {lrn.under:.1%}, "
            f"ave2 {ave.accuracy:.1%} at {ave.under:.1%}, the requests {req.accuracy:.1%} at {req.under:.1%}; "
            "Fan et al.: 80% at 5%).")


def store(con, w: WalkForward) -> None:
    """Replace the trace's rows for this window and step (evaluate_walk_forward, migration 330)."""
    con.execute("DELETE FROM evaluate_walk_forward WHERE trace = ? AND window_days = ? AND step_days = ?",
                [w.trace, w.window_days, w.step_days])
    con.executemany("INSERT INTO evaluate_walk_forward VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())",
                    [[w.trace, w.window_days, w.step_days, s.estimator, w.models, s.predictions, s.r2, s.rmse_h,
                      s.mae_h, s.accuracy, s.under] for s in w.scores])


def run(wh, traces: list[str], window_days: float, step_days: float) -> list[WalkForward]:
    """The protocol on each trace (in the warehouse), stored; the writer lock is held only to store."""
    from ..errors import WalltimeError
    from ..estimates import load_jobs

    if not window_days > 0 or not step_days > 0:
        raise WalltimeError(f"--window-days {window_days:g} / --step-days {step_days:g}: both must be above 0")
    out = []
    for trace in traces:
        con = wh.reader()
        try:
            jobs = load_jobs(con, trace)
        finally:
            con.close()
        w = walk_forward(jobs, trace, int(window_days * DAY), int(step_days * DAY))
        with wh.writer() as con:
            store(con, w)
        out.append(w)
    return out
