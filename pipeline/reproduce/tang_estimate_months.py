"""Intervals over months for Tang et al.'s checks of the estimates alone (Table 2, Figs. 4, 5, 7, 8, 9).

Why a module of its own: estimate_grid keeps one accuracy row per scheme over the whole trace; an
interval needs each month's share of it. The checks' schemes are computed again from the same
estimator (``estimates.grid.grid_columns``: three history passes, not the grid's 24) and scored per
month of submission with the grid's own metric expressions (``estimates.accuracy.metrics``), kept as
sums so that any set of months gives its pooled figure (a test holds the months' sums to the stored
grid). An interval resamples the months, the same draws for every scheme of a check (paired).
Table 2's spread of R within keys resamples the key's groups instead (:func:`key_spread` says why).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..estimates import load_jobs
from ..estimates.accuracy import metrics
from ..estimates.grid import grid_columns, scored_jobs
from ..sqlfiles import load
from ..summary.compare import resample_index
from .common import boot_interval

SUMS = ("scored", "acc", "under", "na", "oe", "ue", "be")  # per month: scored jobs, then sums over them
INTERVAL = "months of submission, paired"
_MONTHS = "SELECT job_id, month FROM jobs WHERE trace = $1"


class MonthSums:
    """Per (key, window, floor, stat): a (len(SUMS), months) array of the month sums."""

    def __init__(self, sums: dict[tuple, np.ndarray], months: list[str]):
        self.sums, self.months = sums, months

    def ratio(self, scheme: tuple, num: str) -> np.ndarray:
        """Two series over the months: the sum of ``num`` and the scored jobs (pooled: num / scored)."""
        s = self.sums[scheme]
        return np.stack([s[SUMS.index(num)], s[0]])

    def interval(self, parts: list[tuple[tuple, str]], stat) -> dict:
        """Check keywords (lo, hi, interval) for ``stat`` of the pooled ratios ``parts`` (scheme, sum):
        ``stat`` takes the list of ratios, each an array over the draws."""
        cols = np.concatenate([self.ratio(scheme, num) for scheme, num in parts])

        def draws(x):
            s = x.sum(axis=-1)
            return stat([s[2 * i] / s[2 * i + 1] for i in range(len(parts))])

        lo, hi = boot_interval(cols, draws)
        return {"lo": lo, "hi": hi, "interval": INTERVAL}

    def pooled(self, scheme: tuple, num: str) -> float:
        s = self.ratio(scheme, num).sum(axis=-1)
        return float(s[0] / s[1])


def month_sums(con, trace: str, passes: list[tuple[str, str]], stats: tuple[str, ...]) -> MonthSums:
    """The month sums of every (floor, stat) scheme of each (key, window) pass."""
    months = pl.from_arrow(con.sql(_MONTHS, params=[trace]).to_arrow_table())
    jobs = scored_jobs(load_jobs(con, trace))
    names = sorted(months["month"].unique().drop_nulls().to_list())
    out = {}
    for key, window in passes:
        wide, meta = grid_columns(jobs, key, window, stats)
        # one pass over the jobs per (key, window): every scheme's metrics as a struct column
        per = (wide.join(months, on="job_id", how="left")
               .group_by("month").agg(pl.struct(metrics(m["scheme"])).alias(m["scheme"]) for m in meta)
               .filter(pl.col("month").is_not_null())
               .join(pl.DataFrame({"month": names}), on="month", how="right").sort("month"))
        for m in meta:
            got = per[m["scheme"]].struct.unnest()
            scored = got["scored"].fill_null(0).cast(pl.Float64).to_numpy()
            share = {c: got[c].fill_null(0.0).to_numpy() for c in ("acc_mean", "under_rate", "na", "oe", "ue", "be")}
            out[(key, window, m["floor"], m["stat"])] = np.stack(
                [scored, share["acc_mean"] * scored, share["under_rate"] * scored,
                 *(share[c] * scored for c in ("na", "oe", "ue", "be"))])
    return MonthSums(out, names)


MIN_GROUP = 10  # characterize_keys.sql: groups of at least 10 jobs
GROUPS = "the key's groups, resampled"  # Table 2's interval (not months: see key_spread)


def _std(n, s1, s2):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(np.maximum(s2 - s1 * s1 / n, 0.0) / (n - 1))


def spread_draws(every: pl.DataFrame, finer: pl.DataFrame, counts: np.ndarray) -> np.ndarray:
    """Per row of ``counts`` (how often each group of ``finer`` is drawn), the std of R over the drawn
    groups' jobs (and the jobs no group of the key holds, always in) minus the mean over the drawn
    groups of at least MIN_GROUP jobs of their std of R (characterize_keys.sql's avg_std_r): with every
    group once, Table 2's spread."""
    n, s1, s2 = (finer[c].cast(pl.Float64).to_numpy() for c in ("n", "s1", "s2"))
    rest = [float(every[c].sum()) - x.sum() for c, x in (("n", n), ("s1", s1), ("s2", s2))]
    big = n >= MIN_GROUP
    sd = _std(n[big], s1[big], s2[big])
    out = []
    for lo in range(0, len(counts), 250):  # draws in blocks: draws x groups matrices stay small
        c = counts[lo:lo + 250]
        whole = _std(c @ n + rest[0], c @ s1 + rest[1], c @ s2 + rest[2])
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(whole - (c[:, big] @ sd) / c[:, big].sum(axis=1))
    return np.concatenate(out)


def key_spread(con, trace: str, finer: str) -> tuple[float, dict]:
    """Table 2's spread: avg std of R within key 'all' minus within ``finer``, and its check keywords
    (lo, hi, interval) over summary/compare.py's draws of the key's groups. Not months: a draw of
    months cuts a user's history to some of its months, whose jobs are more alike than the whole
    history's, so every draw's within-group std falls and the interval misses the log's own figure."""
    frames = {k: pl.from_arrow(con.sql(load("reproduce_r_key_groups"), params=[trace, k]).to_arrow_table())
              for k in ("all", finer)}
    groups = frames[finer].height
    pooled = float(spread_draws(frames["all"], frames[finer], np.ones((1, groups)))[0])
    if groups < 2:
        return pooled, {"interval": "one group: no interval"}
    draws = resample_index(groups)
    counts = np.zeros((len(draws), groups))
    np.add.at(counts, (np.repeat(np.arange(len(draws)), groups), draws.ravel()), 1.0)
    v = spread_draws(frames["all"], frames[finer], counts)
    v = v[np.isfinite(v)]
    lo, hi = np.percentile(v, [2.5, 97.5])
    return pooled, {"lo": float(lo), "hi": float(hi), "interval": GROUPS}
