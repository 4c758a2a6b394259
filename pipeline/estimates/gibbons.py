"""Gibbons' historical profiler (paper 004, Section 2.2, Table 3), one pass
over the trace's events in a Numba loop.

Templates, tried in order until one gives a valid prediction:
(u,e,n,runtime) mean, (u,e) regression, (e,n,runtime) mean, (e) regression,
(n,runtime) mean, () regression. ``n`` is the exponential node range
1, 2-3, 4-7, ...; ``runtime`` is the exponential running-time range
[0, 1 min), [1, 2 min), [2, 4 min), [4, 8 min), ... of how long the job has
run when asked (``runtime_low``; the paper gives no boundaries). A job of
age a is asked the points of its (level, n) category whose run reached its
range's lower bound: at submission (age 0) and below 1 minute that is 0,
every completed job, so the prediction is the one without the split; a
running job re-predicted at a forecast instant
(pipeline/simulate/conditional.py) of age a >= 1 min uses the points with
run >= 2^floor(log2(a / 60 s)) min, counted in O(log n) from Fenwick trees
(count, sum, sum of squares) over each category's points in run-time order
(pipeline/estimates/fenwick.py, as Smith's ``rt=`` ranges; built only when
some row has such an age). A mean is valid with at least 2 points. A
regression category (u,e), (e) or () is the union of its node-range
subcategories: a weighted least-squares line of
the subcategories' mean run time on their mean node count, each
subcategory with at least 2 points weighted by 1 / max(variance, 1 s^2)
(sample variance of its run times), evaluated at the job's node count and
clipped at 0; with one usable subcategory, its mean; the regression
templates have no ``runtime`` and ignore the age. Nothing valid: the
request. Same event order and history rule as pipeline/estimates/smith.py.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..jit import jit
from .fenwick import fen_at_least, fen_insert, run_slots
from .smith import Prepared

LEVELS = (("user_id", "exe_id"), ("exe_id",), ())
MIN_POINTS = 2
VAR_FLOOR = 1.0
RANGE_UNIT = 60  # s: the first running-time range is [0, 1 min), then powers of two of minutes


def node_bucket(nodes: np.ndarray) -> np.ndarray:
    """1 -> 0, 2-3 -> 1, 4-7 -> 2, ...; unknown (< 1) -> -1."""
    out = np.full(nodes.shape, -1, np.int64)
    ok = nodes >= 1
    out[ok] = np.floor(np.log2(nodes[ok].astype(np.float64)) + 1e-12).astype(np.int64)
    # guard the float log against exact powers of two
    fix = ok & (2 ** np.clip(out, 0, 62) > nodes)
    out[fix] -= 1
    up = ok & (2 ** np.clip(out + 1, 0, 62) <= nodes)
    out[up] += 1
    return out


def runtime_low(age: np.ndarray) -> np.ndarray:
    """Lower bound (s) of the running-time range of each age (s): 0 below
    1 minute, else the largest 2^k minutes <= age."""
    q = np.asarray(age, np.int64) // RANGE_UNIT
    k = node_bucket(q)
    return np.where(k >= 0, RANGE_UNIT * (np.int64(1) << np.maximum(k, 0)), 0).astype(np.int64)


@jit
def _predict(ev_job, ev_end, cats, ncat, bucket, nodes, run, nb_, low, slot, psz, poff, srun):
    L, N = cats.shape
    off = np.zeros(L + 1, np.int64)
    for lv in range(L):
        off[lv + 1] = off[lv] + ncat[lv]
    G = off[L]
    cnt = np.zeros((G, nb_), np.int64)
    s = np.zeros((G, nb_))
    ss = np.zeros((G, nb_))
    sn = np.zeros((G, nb_))
    shift = np.zeros((G, nb_))
    est = np.full(N, np.nan)
    which = np.full(N, -1, np.int64)
    hist = np.zeros(N, np.int64)
    split = slot.shape[1] == N  # running-time ranges asked: Fenwick trees per (level category, n)
    size = psz.sum() if split else 0
    fc = np.zeros(max(size, 1))
    fs = np.zeros(max(size, 1))
    fss = np.zeros(max(size, 1))
    for e in range(ev_job.shape[0]):
        j = ev_job[e]
        b = bucket[j]
        if ev_end[e]:
            if b < 0:
                continue
            for lv in range(L):
                c = cats[lv, j]
                if c < 0:
                    continue
                g = off[lv] + c
                if cnt[g, b] == 0:
                    shift[g, b] = run[j]
                x = run[j] - shift[g, b]
                cnt[g, b] += 1
                s[g, b] += x
                ss[g, b] += x * x
                sn[g, b] += nodes[j]
                if split:
                    f = g * nb_ + b
                    fen_insert(fc, fs, fss, poff[f], psz[f], slot[lv, j], x)
            continue
        if b < 0:
            continue
        for lv in range(L):
            c = cats[lv, j]
            if c < 0:
                continue
            g = off[lv] + c
            n = cnt[g, b]
            sx = s[g, b]
            if low[j] > 0:  # past the first running-time range: the points with run >= its lower bound
                f = g * nb_ + b
                n, sx, _ = fen_at_least(fc, fs, fss, poff[f], psz[f], srun, low[j], n, sx, ss[g, b])
            if n >= 2:  # template 2*lv + 1: the mean of (level, n, runtime)
                est[j] = sx / n + shift[g, b]
                which[j] = 2 * lv
                hist[j] = n
                break
            # template 2*lv + 2: weighted regression over the level's subcategories
            sw = 0.0
            sx = 0.0
            sy = 0.0
            used = 0
            pts = 0
            for k in range(nb_):
                m = cnt[g, k]
                if m < 2:
                    continue
                mean = s[g, k] / m
                var = (ss[g, k] - s[g, k] * mean) / (m - 1)
                w = 1.0 / max(var, 1.0)
                sw += w
                sx += w * (sn[g, k] / m)
                sy += w * (mean + shift[g, k])
                used += 1
                pts += m
            if used == 0:
                continue
            xbar = sx / sw
            ybar = sy / sw
            pred = ybar
            if used >= 2:
                sxx = 0.0
                sxy = 0.0
                for k in range(nb_):
                    m = cnt[g, k]
                    if m < 2:
                        continue
                    mean = s[g, k] / m
                    var = (ss[g, k] - s[g, k] * mean) / (m - 1)
                    w = 1.0 / max(var, 1.0)
                    dx = sn[g, k] / m - xbar
                    sxx += w * dx * dx
                    sxy += w * dx * (mean + shift[g, k] - ybar)
                pred = ybar + sxy / sxx * (nodes[j] - xbar)
            est[j] = max(pred, 0.0)
            which[j] = 2 * lv + 1
            hist[j] = pts
            break
    return est, hist, which


def range_storage(prep: Prepared, cats, ncat, bucket, nb_, run) -> tuple:
    """(slot[L, N], sizes, offsets, runs in slot order) of the Fenwick trees of
    the (level category, node range) categories: every point each will get
    (the rows with a completion event), in run-time order."""
    L, N = cats.shape
    off = np.concatenate([[0], np.cumsum(ncat)])
    inserted = np.zeros(N, bool)
    inserted[prep.ev_job[prep.ev_end.astype(bool)]] = True
    slot = np.full((L, N), -1, np.int64)
    size = np.zeros(int(off[-1]) * nb_, np.int64)
    for lv in range(L):
        flat = np.where((cats[lv] >= 0) & (bucket >= 0), (off[lv] + cats[lv]) * nb_ + bucket, -1)
        rows = np.flatnonzero(inserted & (flat >= 0))
        order, sl, sz = run_slots(flat, rows, run, len(size))
        slot[lv, order] = sl
        size += sz
    poff = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
    srun = np.zeros(max(int(size.sum()), 1))
    for lv in range(L):
        rows = np.flatnonzero(slot[lv] >= 0)
        srun[poff[(off[lv] + cats[lv][rows]) * nb_ + bucket[rows]] + slot[lv, rows]] = run[rows]
    return slot, size, poff, srun


def predict(prep: Prepared, age: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(prediction or NaN, points used, Table 3 template number - 1 or -1) per row.
    ``age`` (s, per row; None: 0): a row of a job that has run that long is
    asked its running-time range in the mean templates."""
    cats = np.stack([prep.categories(cols, None)[0] for cols in LEVELS])
    ncat = np.array([max(prep.categories(cols, None)[1], 1) for cols in LEVELS], np.int64)
    nodes = prep.jobs["nodes"].fill_null(0).to_numpy().astype(np.int64)
    bucket = node_bucket(nodes)
    nb_ = int(bucket.max(initial=0)) + 1
    run = np.nan_to_num(prep.run)
    low = np.zeros(prep.n, np.int64) if age is None else runtime_low(age)
    if low.any():
        slot, psz, poff, srun = range_storage(prep, cats, ncat, bucket, nb_, run)
    else:
        z = np.zeros(1, np.int64)
        slot, psz, poff, srun = np.zeros((len(LEVELS), 0), np.int64), z, z, np.zeros(1)
    return _predict(prep.ev_job, prep.ev_end, cats, ncat, bucket, nodes.astype(np.float64), run, nb_,
                    low, slot, psz, poff, srun)


def gibbons_frame(jobs: pl.DataFrame) -> pl.DataFrame:
    """job_id, est (request where no template is valid), hist."""
    est, hist, _ = predict(Prepared(jobs))
    out = jobs.select("job_id", "req").with_columns(pl.Series("p", est).fill_nan(None), pl.Series("hist", hist))
    return out.select("job_id", pl.coalesce("p", pl.col("req").cast(pl.Float64)).alias("est"), "hist")
