"""Downey's predictor (paper 004, Section 2.2): per category (queue by
default), the log-uniform model F(t) = b0 + b1 ln t of the run-time CDF,
refitted at every submission from the category's completed jobs, then the
conditional median sqrt(a t_max) or conditional average
(t_max - a) / (ln t_max - ln a), t_max = e^((1 - b0) / b1).

Fit: least squares of the plotting positions F_i = (i - 1/2) / n on
x_i = ln max(run_i, 1 s), i the rank of x_i (ascending). Kept up to date in
O(log n) per completion with a Fenwick tree over the category's runs in
value order (the tree's slots are laid out in advance; a slot only counts
once its job has completed). Age at submission: a = t_min = e^(-b0 / b1),
where the fitted CDF is 0 -- the model's shortest lifetime -- so the
conditional median and average at submission are the model's unconditional
median e^((1/2 - b0) / b1) and mean. Valid with at least 2 distinct run
times; else the request. Exponents are capped at ln(1e9), so no prediction
exceeds 1e9 s.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..jit import jit
from .fenwick import fen_add as _fen_add
from .fenwick import fen_sum as _fen_sum
from .smith import Prepared
from .templates import CHARACTERISTICS, NAMES

MAX_EXP = math.log(1e9)


@jit
def _predict(ev_job, ev_end, cat, slot, catbase, catsize, total, x, want_mean, max_exp, age):
    N = cat.shape[0]
    G = catbase.shape[0]
    tcnt = np.zeros(max(total, 1))
    tsum = np.zeros(max(total, 1))
    n = np.zeros(G, np.int64)
    sx = np.zeros(G)
    sxx = np.zeros(G)
    six = np.zeros(G)
    shift = np.zeros(G)
    lo = np.full(G, np.inf)
    hi = np.full(G, -np.inf)
    est = np.full(N, np.nan)
    hist = np.zeros(N, np.int64)
    for e in range(ev_job.shape[0]):
        j = ev_job[e]
        c = cat[j]
        if c < 0:
            continue
        if ev_end[e]:
            if n[c] == 0:
                shift[c] = x[j]
            v = x[j] - shift[c]
            b, size, p = catbase[c], catsize[c], slot[j]
            below = _fen_sum(tcnt, b, p)
            above = sx[c] - _fen_sum(tsum, b, p)  # shifted sum of the points above
            six[c] += (below + 1.0) * v + above
            _fen_add(tcnt, b, size, p, 1.0)
            _fen_add(tsum, b, size, p, v)
            n[c] += 1
            sx[c] += v
            sxx[c] += v * v
            lo[c] = min(lo[c], x[j])
            hi[c] = max(hi[c], x[j])
            continue
        m = n[c]
        if m < 2 or not (hi[c] > lo[c]):
            continue
        mx = sx[c] / m
        var = sxx[c] / m - mx * mx
        cov = (six[c] / m - 0.5 * sx[c] / m) / m - 0.5 * mx  # mean(F x) - mean(F) mean(x), shifted x
        b1 = cov / var
        b0 = 0.5 - b1 * (mx + shift[c])
        e_max = min((1.0 - b0) / b1, max_exp)
        e_min = min(-b0 / b1, max_exp)
        if age[j] > 0:  # a running job: conditional on its age (the model's t_min at the least)
            e_min = min(max(np.log(age[j]), e_min), max_exp)
        if want_mean:
            est[j] = (np.exp(e_max) - np.exp(e_min)) / (e_max - e_min) if e_max > e_min else np.exp(e_max)
        else:
            est[j] = np.exp(0.5 * (e_max + e_min))
        hist[j] = m
    return est, hist


def predict(prep: Prepared, key: str, stat: str, age: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(prediction or NaN, points) per row; ``age`` (s, per row; None or 0: at
    submission, a = t_min): a running job's age, a = max(age, t_min). Past
    t_max the model has no mass left: the prediction is then below the age
    (the forecast ends such a job at once)."""
    cat, ncat = prep.categories((CHARACTERISTICS[NAMES[key]],), None)
    x = np.log(np.maximum(np.nan_to_num(prep.run), 1.0))
    # slots: within each category, the completed jobs in ascending x
    ins = prep.done & (cat >= 0)
    rows = np.flatnonzero(ins)
    order = rows[np.lexsort((x[rows], cat[rows]))]
    sizes = np.bincount(cat[rows], minlength=max(ncat, 1)).astype(np.int64)
    base = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    slot = np.zeros(prep.n, np.int64)
    slot[order] = np.arange(len(order)) - base[cat[order]]
    ages = np.zeros(prep.n, np.int64) if age is None else np.ascontiguousarray(age, dtype=np.int64)
    return _predict(prep.ev_job, prep.ev_end, cat, slot, base, sizes, len(order), x, stat == "mean", MAX_EXP, ages)


def downey_frame(jobs: pl.DataFrame, key: str, stat: str) -> pl.DataFrame:
    """job_id, est (request where the category cannot be fitted), hist."""
    est, hist = predict(Prepared(jobs), key, stat)
    out = jobs.select("job_id", "req").with_columns(pl.Series("p", est).fill_nan(None), pl.Series("hist", hist))
    return out.select("job_id", pl.coalesce("p", pl.col("req").cast(pl.Float64)).alias("est"), "hist")
