"""Smith, Taylor & Foster's run-time predictor (paper 004, Section 2.1.2),
one pass over the trace's events in a Numba loop.

Events: a job's completion inserts its value (run, or run / request) into
every category of every template it falls into (dropping the category's
oldest point past the template's maximum history); a job's submission asks
each of its categories with at least 2 points for the mean and its 95%
confidence interval (Student t, pipeline/estimates/tdist.py) and keeps the
mean of the category with the smallest interval (ties: the earlier
template). Relative templates multiply mean and interval by the job's
request. No category with 2 points: the request. Events are ordered as
every history-based estimator of the project orders them
(pipeline/estimates/history.py): a completion at t counts for submissions at
t, unless the job was itself submitted at t.

Running-time ranges only matter for a job that has already run: at
submission (age 0) its running-time category is the first range, which holds
every completed job, so a template with ``rt=`` predicts at submission
exactly as the same template without it (docs/estimates.md). A row with an
age a > 0 (a running job re-predicted at a forecast instant,
pipeline/simulate/conditional.py) is asked range floor(a / S): the points of
its category whose job ran at least floor(a / S) x S, the latest ``h`` of
them: with a maximum history, found by walking the category's points newest
first; without, in O(log n) from Fenwick trees (count, sum, sum of squares)
over the category's points in run-time order (kept for ``rt=`` templates only).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..jit import jit
from .fenwick import fen_at_least, fen_insert, run_slots
from .tdist import t975_table
from .templates import Template

TIE = 1e-9        # a later template must have a CI narrower by this fraction to win
ZERO_VAR = 1e-12  # variance below ZERO_VAR x mean^2 counts as 0 (same rule in the twin)


class Prepared:
    """The per-trace arrays every template set shares (event order, columns),
    with a cache of category ids per (characteristics, node range size)."""

    def __init__(self, jobs: pl.DataFrame, src: np.ndarray | None = None):
        """``src``: rows that copy another row's columns (query rows of
        pipeline/simulate/conditional.py): src[i] is the row whose categories
        row i has; the first src.max() + 1 rows are their own sources."""
        self.n = jobs.height
        self.src = src
        self._base = None if src is None else Prepared(jobs.head(int(src.max(initial=0)) + 1))
        self.jobs = jobs
        self.ev_job, self.ev_end = event_order(jobs)
        self.run = jobs["run"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        self.req = jobs["req"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        self.done = (jobs["end"].is_not_null() & jobs["run"].is_not_null()).to_numpy()
        self._ranks: dict[str, np.ndarray] = {}
        self._cats: dict[tuple, tuple[np.ndarray, int]] = {}
        self.tq = t975_table(max(int(self.done.sum()), 2))  # a category holds at most every completed job

    def rank(self, col: str) -> np.ndarray:
        """Dense rank 0.. of a categorical column (-1 = unknown or missing column)."""
        if col not in self._ranks:
            if col in self.jobs.columns:
                r = self.jobs[col].rank("dense").cast(pl.Int64).fill_null(0).to_numpy() - 1
            else:
                r = np.full(self.n, -1, dtype=np.int64)
            self._ranks[col] = r
        return self._ranks[col]

    def categories(self, cols: tuple[str, ...], node_size: int | None) -> tuple[np.ndarray, int]:
        """Category id per job for the characteristics and node range (-1: a
        characteristic is unknown) and the number of categories."""
        key = (cols, node_size)
        if key not in self._cats and self._base is not None:  # copies: the source rows' categories
            ids, k = self._base.categories(cols, node_size)
            self._cats[key] = (ids[self.src], k)
        if key not in self._cats:
            parts = [self.rank(c) for c in cols]
            if node_size:
                nodes = self.jobs["nodes"].fill_null(0).to_numpy()
                parts.append(np.where(nodes >= 1, (nodes - 1) // node_size, -1))
            ids = np.zeros(self.n, dtype=np.int64)
            ok = np.ones(self.n, dtype=bool)
            for r in parts:
                ok &= r >= 0
                ids = ids * (int(r.max(initial=0)) + 1) + np.maximum(r, 0)
                _, ids = np.unique(ids, return_inverse=True)
            ids = np.where(ok, ids, -1)
            if ok.any():
                _, dense = np.unique(ids[ok], return_inverse=True)
                ids[ok] = dense
            self._cats[key] = (ids.astype(np.int64), int(ids.max(initial=-1)) + 1)
        return self._cats[key]


def event_order(jobs: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the completion and submission events in time order.
    Completions sit at 2*end (+1 when end == submit), submissions at
    2*submit; at equal keys completions first, then by submit and job id."""
    submit = jobs["submit"].to_numpy()
    end = jobs["end"].fill_null(-1).to_numpy()
    jid = jobs["job_id"].to_numpy()
    rows = np.arange(jobs.height)
    done = (jobs["end"].is_not_null() & jobs["run"].is_not_null()).to_numpy()
    er = rows[done]
    t = np.concatenate([2 * end[er] + (end[er] == submit[er]), 2 * submit])
    kind = np.concatenate([np.zeros(len(er), np.int8), np.ones(jobs.height, np.int8)])
    idx = np.concatenate([er, rows])
    order = np.lexsort((jid[idx], submit[idx], kind, t))
    return idx[order].astype(np.int64), kind[order] == 0


def template_arrays(prep: Prepared, templates) -> tuple:
    """cats[T, N], catoff[T], vals[T, N], scale[T, N], limit[T], capoff[G], total capacity."""
    T, N = len(templates), prep.n
    cats = np.empty((T, N), np.int64)
    vals = np.empty((T, N), np.float64)
    scale = np.empty((T, N), np.float64)
    catoff = np.zeros(T, np.int64)
    limit = np.zeros(T, np.int64)
    caps, total = [], 0
    for i, t in enumerate(templates):
        ids, ncat = prep.categories(tuple(t.columns()), t.nodes)
        cats[i] = ids
        catoff[i] = total
        if t.relative:
            vals[i] = np.where(prep.done, prep.run / prep.req, np.nan)
            scale[i] = prep.req
        else:
            vals[i] = np.where(prep.done, prep.run, np.nan)
            scale[i] = 1.0
        limit[i] = t.history or 0
        if t.history:
            ins = (ids >= 0) & ~np.isnan(vals[i])
            cap = np.minimum(np.bincount(ids[ins], minlength=ncat), t.history)
        else:
            cap = np.zeros(ncat, np.int64)
        caps.append(cap)
        total += ncat
    cap = np.concatenate(caps) if caps else np.zeros(0, np.int64)
    capoff = np.concatenate([[0], np.cumsum(cap)[:-1]]).astype(np.int64) if len(cap) else cap
    return cats, catoff, vals, scale, limit, capoff, int(cap.sum()), total


@jit
def _range_stats(base, stored, L, lim, pv, prun):
    """(n, mean, variance) of the newest ``lim`` (0: all) of the stored points
    whose job ran >= L; two passes, newest first."""
    n = 0
    s = 0.0
    p = stored - 1
    while p >= 0 and (lim == 0 or n < lim):
        if prun[base + p] >= L:
            n += 1
            s += pv[base + p]
        p -= 1
    if n < 2:
        return n, 0.0, 0.0
    m = s / n
    q = 0.0
    c = 0
    p = stored - 1
    while p >= 0 and c < n:
        if prun[base + p] >= L:
            c += 1
            q += (pv[base + p] - m) * (pv[base + p] - m)
        p -= 1
    return n, m, q / (n - 1)


@jit
def _predict(ev_job, ev_end, cats, catoff, vals, scale, limit, capoff, bufsize, ncat, tq,
             age, rts, poff, psz, psize, slot, srun, run):
    T, N = cats.shape
    pv = np.zeros(max(psize, 1))
    prun = np.zeros(max(psize, 1))
    fc = np.zeros(max(psize, 1))   # Fenwick trees of rt= templates without a maximum history
    fs = np.zeros(max(psize, 1))
    fss = np.zeros(max(psize, 1))
    pn = np.zeros(ncat, np.int64)
    cnt = np.zeros(ncat, np.int64)
    head = np.zeros(ncat, np.int64)
    s = np.zeros(ncat)
    ss = np.zeros(ncat)
    shift = np.zeros(ncat)
    buf = np.zeros(max(bufsize, 1))
    est = np.full(N, np.nan)
    hist = np.zeros(N, np.int64)
    which = np.full(N, -1, np.int64)
    for e in range(ev_job.shape[0]):
        j = ev_job[e]
        if ev_end[e]:
            for t in range(T):
                c = cats[t, j]
                v = vals[t, j]
                if c < 0 or np.isnan(v):
                    continue
                g = catoff[t] + c
                if cnt[g] == 0 and s[g] == 0.0 and shift[g] == 0.0:
                    shift[g] = v  # first point ever: centre the sums on it
                x = v - shift[g]
                L = limit[t]
                if rts[t] > 0:  # the running-time ranges' own records
                    if L == 0:
                        fen_insert(fc, fs, fss, poff[g], psz[g], slot[t, j], x)
                    else:
                        pv[poff[g] + pn[g]] = v
                        prun[poff[g] + pn[g]] = run[j]
                        pn[g] += 1
                if L == 0:
                    cnt[g] += 1
                    s[g] += x
                    ss[g] += x * x
                    continue
                base = capoff[g]
                if cnt[g] < L:
                    buf[base + (head[g] + cnt[g]) % L] = x
                    cnt[g] += 1
                    s[g] += x
                    ss[g] += x * x
                else:
                    old = buf[base + head[g]]
                    buf[base + head[g]] = x
                    head[g] = (head[g] + 1) % L
                    if head[g] == 0:  # re-sum once per turn of the ring: no drift
                        a = 0.0
                        b = 0.0
                        for k in range(L):
                            a += buf[base + k]
                            b += buf[base + k] * buf[base + k]
                        s[g] = a
                        ss[g] = b
                    else:
                        s[g] += x - old
                        ss[g] += x * x - old * old
        else:
            best = np.inf
            for t in range(T):
                c = cats[t, j]
                sc = scale[t, j]
                if c < 0 or np.isnan(sc):
                    continue
                g = catoff[t] + c
                if rts[t] > 0 and age[j] >= rts[t] and limit[t] == 0:  # past the first range: Fenwick suffix
                    n, sx, sxx = fen_at_least(fc, fs, fss, poff[g], psz[g], srun, (age[j] // rts[t]) * rts[t],
                                              cnt[g], s[g], ss[g])
                    if n < 2:
                        continue
                    m = sx / n
                    var = (sxx - sx * m) / (n - 1)
                    mean = m + shift[g]
                elif rts[t] > 0 and age[j] >= rts[t]:  # past the first range: the newest h, walked
                    n, mean, var = _range_stats(poff[g], pn[g], (age[j] // rts[t]) * rts[t], limit[t], pv, prun)
                    if n < 2:
                        continue
                else:
                    n = cnt[g]
                    if n < 2:
                        continue
                    m = s[g] / n
                    var = (ss[g] - s[g] * m) / (n - 1)
                    mean = m + shift[g]
                if var <= ZERO_VAR * mean * mean:
                    var = 0.0
                hw = tq[n - 1] * np.sqrt(var / n) * sc
                if hw < best * (1.0 - TIE):
                    best = hw
                    est[j] = mean * sc
                    hist[j] = n
                    which[j] = t
    return est, hist, which


def range_storage(cats, catoff, vals, templates, ncat, run) -> tuple:
    """For the running-time ranges: rts[T] (range size, 0 = none); per category
    of an ``rt=`` template the offset and number of its points (every point it
    will get); and, for those without a maximum history, each job's slot in its
    category's run-time order (slot[T, N], -1 elsewhere) and the runs in that
    order (srun, at the category's offset)."""
    rts = np.array([t.runtime or 0 for t in templates], np.int64)
    size = np.zeros(max(ncat, 1), np.int64)
    ends = list(catoff[1:]) + [ncat]
    for i, t in enumerate(templates):
        if t.runtime:
            ins = (cats[i] >= 0) & ~np.isnan(vals[i])
            size[catoff[i]:ends[i]] = np.bincount(cats[i][ins], minlength=ends[i] - catoff[i])
    poff = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
    slot = np.full(cats.shape, -1, np.int64)
    srun = np.zeros(max(int(size.sum()), 1))
    for i, t in enumerate(templates):
        if t.runtime and not t.history:
            rows = np.flatnonzero((cats[i] >= 0) & ~np.isnan(vals[i]))
            order, sl, _ = run_slots(cats[i], rows, run, ends[i] - catoff[i])
            g = catoff[i] + cats[i][order]
            slot[i, order] = sl
            srun[poff[g] + sl] = run[order]
    return rts, poff, size, int(size.sum()), slot, srun


def predict(prep: Prepared, templates, age: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(prediction or NaN, points of the chosen category, template index or -1) per row.
    ``age`` (s, per row; None: 0): a row of a job that has run that long is
    asked its running-time range (``rt=`` templates)."""
    cats, catoff, vals, scale, limit, capoff, bufsize, ncat = template_arrays(prep, templates)
    ages = np.zeros(prep.n, np.int64) if age is None else np.ascontiguousarray(age, dtype=np.int64)
    run = np.nan_to_num(prep.run)
    if age is None or not any(t.runtime for t in templates):
        z = np.zeros(max(ncat, 1), np.int64)
        rts, poff, psz, psize, slot, srun = np.zeros(len(templates), np.int64), z, z, 0, cats[:0], np.zeros(1)
    else:
        rts, poff, psz, psize, slot, srun = range_storage(cats, catoff, vals, templates, ncat, run)
    return _predict(prep.ev_job, prep.ev_end, cats, catoff, vals, scale, limit, capoff, bufsize,
                    max(ncat, 1), prep.tq, ages, rts, poff, psz, psize, slot, srun, run)


def smith_frame(jobs: pl.DataFrame, templates: tuple[Template, ...]) -> pl.DataFrame:
    """job_id, est (request where no category can predict), hist."""
    prep = Prepared(jobs)
    est, hist, _ = predict(prep, templates)
    out = jobs.select("job_id", "req").with_columns(
        pl.Series("p", est).fill_nan(None), pl.Series("hist", hist))
    return out.select("job_id", pl.coalesce("p", pl.col("req").cast(pl.Float64)).alias("est"), "hist")
