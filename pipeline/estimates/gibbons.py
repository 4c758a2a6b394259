"""Gibbons' historical profiler (paper 004, Section 2.2, Table 3), one pass
over the trace's events in a Numba loop.

Templates, tried in order until one gives a valid prediction:
(u,e,n,runtime) mean, (u,e) regression, (e,n,runtime) mean, (e) regression,
(n,runtime) mean, () regression. ``n`` is the exponential node range
1, 2-3, 4-7, ...; at submission the running time is 0, whose range holds
every completed job, so ``runtime`` does not split categories here. A mean
is valid with at least 2 points. A regression category (u,e), (e) or () is
the union of its node-range subcategories: a weighted least-squares line of
the subcategories' mean run time on their mean node count, each
subcategory with at least 2 points weighted by 1 / max(variance, 1 s^2)
(sample variance of its run times), evaluated at the job's node count and
clipped at 0; with one usable subcategory, its mean. Nothing valid: the
request. Same event order and history rule as pipeline/estimates/smith.py.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import polars as pl

from .smith import Prepared

LEVELS = (("user_id", "exe_id"), ("exe_id",), ())
MIN_POINTS = 2
VAR_FLOOR = 1.0


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


@nb.njit(cache=True)
def _predict(ev_job, ev_end, cats, ncat, bucket, nodes, run, nb_):
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
            continue
        if b < 0:
            continue
        for lv in range(L):
            c = cats[lv, j]
            if c < 0:
                continue
            g = off[lv] + c
            n = cnt[g, b]
            if n >= 2:  # template 2*lv + 1: the mean of (level, n, runtime)
                est[j] = s[g, b] / n + shift[g, b]
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


def predict(prep: Prepared) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(prediction or NaN, points used, Table 3 template number - 1 or -1) per row."""
    cats = np.stack([prep.categories(cols, None)[0] for cols in LEVELS])
    ncat = np.array([max(prep.categories(cols, None)[1], 1) for cols in LEVELS], np.int64)
    nodes = prep.jobs["nodes"].fill_null(0).to_numpy().astype(np.int64)
    bucket = node_bucket(nodes)
    nb_ = int(bucket.max(initial=0)) + 1
    run = np.nan_to_num(prep.run)
    return _predict(prep.ev_job, prep.ev_end, cats, ncat, bucket, nodes.astype(np.float64), run, nb_)


def gibbons_frame(jobs: pl.DataFrame) -> pl.DataFrame:
    """job_id, est (request where no template is valid), hist."""
    est, hist, _ = predict(Prepared(jobs))
    out = jobs.select("job_id", "req").with_columns(pl.Series("p", est).fill_nan(None), pl.Series("hist", hist))
    return out.select("job_id", pl.coalesce("p", pl.col("req").cast(pl.Float64)).alias("est"), "hist")
