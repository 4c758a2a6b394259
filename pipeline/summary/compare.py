"""How sure is "X% shorter"? The paired comparison of two runs over periods.

Two runs of the same trace replay the same jobs; only the runtimes the
scheduler believes differ. So the comparison is paired: for each period of
submission (months; weeks for a trace under 6 months; days under 6 weeks)
we sum each run's waits and bounded slowdowns over the same jobs
(sql/summary_periods.sql). The change is sum(other) / sum(requests) - 1 over
the whole trace, which equals the change of the means. Its uncertainty: a
bootstrap over periods (periods drawn with replacement, ``RESAMPLES`` times,
seed ``SEED``), the 2.5th and 97.5th percentiles of the resampled change. The
count of periods in which the other run's mean is lower / higher is given
beside it. Where the interval includes 0 the words say "no clear change".

The bootstrap is one NumPy draw of a (resamples x periods) index matrix and
two sums along its rows: about a millisecond for 12 months.

``ratio_interval`` (the same paired change from any per-period sums) and
``mean_interval`` (a mean of per-period values) are the same bootstrap for
`walltime reproduce`, whose direction checks need an interval that excludes 0.

A trace is too small to conclude (``too_small``) under ``MIN_JOBS`` jobs or
``MIN_PERIODS`` periods: the summary then shows the numbers but compares nothing
and recommends nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import sqlfiles

# --objective: what the recommendation must improve (the change in percent against the requests).
OBJECTIVES = {
    "wait": "mean wait",
    "bsld": "mean bounded slowdown",
    "balanced": "the average of the changes in mean wait and mean bounded slowdown",
}
DEFAULT_OBJECTIVE = "balanced"

RESAMPLES = 2000
SEED = 23  # fixed, so the same runs always give the same interval
MIN_JOBS = 1000
MIN_PERIODS = 4
DAY = 86400
WEEK = 7 * DAY
# span thresholds of the period rule (seconds from the first to the last submission)
SIX_WEEKS = 42 * DAY
SIX_MONTHS = 183 * DAY


def period_kind(span_s: float) -> tuple[str, int]:
    """(name, seconds; 0 = calendar month) of the periods for a trace spanning ``span_s``."""
    if span_s < SIX_WEEKS:
        return "day", DAY
    if span_s < SIX_MONTHS:
        return "week", WEEK
    return "month", 0


@dataclass
class Change:
    """One metric of one run against the requests' run, with its uncertainty."""

    metric: str                 # "wait" (mean wait) or "bsld" (mean bounded slowdown) or "balanced"
    base: float | None          # the requests' mean (wait in hours; bsld as is)
    value: float | None         # the other run's mean
    pct: float | None           # change of the mean in percent (None: base is 0)
    lo: float | None = None     # bootstrap 95% interval of pct
    hi: float | None = None
    better: int = 0             # periods in which the other run's mean is lower
    worse: int = 0
    same: int = 0
    periods: int = 0
    period: str = "month"
    resamples: int = RESAMPLES
    seed: int = SEED

    @property
    def clear(self) -> bool:
        """The interval excludes 0 (an interval is known)."""
        return self.lo is not None and self.hi is not None and (self.lo > 0 or self.hi < 0)


def period_sums(con, base_run: str, runs: list[str], period_s: int) -> dict:
    """run_id -> (period labels, array[periods, 5]: jobs, base_wait, run_wait,
    base_bsld, run_bsld), for every run of ``runs`` against ``base_run``."""
    import numpy as np

    rows = con.execute(sqlfiles.load("summary_periods"), [base_run, list(runs), period_s]).fetchall()
    out = {}
    for run in runs:
        mine = [r for r in rows if r[0] == run]
        out[run] = ([r[1] for r in mine], np.array([r[2:] for r in mine], dtype=float).reshape(len(mine), 5))
    return out


def _pct(num, den):
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        return 100.0 * (num / den - 1.0)


def compare(sums, period: str, small: bool = False) -> dict[str, Change]:
    """Changes of mean wait, mean bounded slowdown and their average ("balanced")
    from the per-period sums; intervals unless ``small`` or under 2 periods."""
    import numpy as np

    n, bw, rw, bb, rb = (sums[:, i] for i in range(5))
    jobs = n.sum()
    out = {}
    point = {}
    for key, b, r, scale in (("wait", bw, rw, 1 / 3600), ("bsld", bb, rb, 1.0)):
        pct = float(_pct(r.sum(), b.sum())) if b.sum() > 0 else None
        point[key] = pct
        out[key] = Change(key, b.sum() / jobs * scale if jobs else None, r.sum() / jobs * scale if jobs else None,
                          pct, better=int((r < b).sum()), worse=int((r > b).sum()), same=int((r == b).sum()),
                          periods=len(n), period=period)
    both = [point["wait"], point["bsld"]]
    bal = None if None in both else (both[0] + both[1]) / 2
    out["balanced"] = Change("balanced", None, None, bal, periods=len(n), period=period)
    if small or len(n) < 2:
        return out
    idx = resample_index(len(n))
    draws = {}
    for key, b, r in (("wait", bw, rw), ("bsld", bb, rb)):
        draws[key] = _pct(r[idx].sum(axis=1), b[idx].sum(axis=1))  # inf/nan where a resample's base is 0
    draws["balanced"] = (draws["wait"] + draws["bsld"]) / 2
    for key, d in draws.items():
        c = out[key]
        d = d[np.isfinite(d)]
        if c.pct is not None and len(d) >= RESAMPLES // 2:
            c.lo, c.hi = (float(x) for x in np.percentile(d, [2.5, 97.5]))
    return out


def resample_index(n: int):
    """The bootstrap's (RESAMPLES x n) matrix of period indices drawn with replacement (seed SEED)."""
    import numpy as np

    return np.random.default_rng(SEED).integers(0, n, size=(RESAMPLES, n))


def ratio_interval(base, other) -> tuple[float | None, float | None, float | None]:
    """Paired change of two runs over the same periods: (pct, lo, hi) with pct =
    100 (sum(other) / sum(base) - 1) and the bootstrap 95% interval over the
    periods (the interval is None under 2 periods). ``base`` and ``other``: per
    period sums (e.g. a month's jobs x its mean response time)."""
    import numpy as np

    b, r = np.asarray(base, dtype=float), np.asarray(other, dtype=float)
    if not len(b) or b.sum() <= 0:
        return None, None, None
    pct = float(_pct(r.sum(), b.sum()))
    if len(b) < 2:
        return pct, None, None
    idx = resample_index(len(b))
    d = _pct(r[idx].sum(axis=1), b[idx].sum(axis=1))
    d = d[np.isfinite(d)]
    if len(d) < RESAMPLES // 2:
        return pct, None, None
    lo, hi = (float(x) for x in np.percentile(d, [2.5, 97.5]))
    return pct, lo, hi


def mean_interval(values) -> tuple[float | None, float | None, float | None]:
    """(mean, lo, hi): the mean of per-period values and its bootstrap 95% interval over the periods."""
    import numpy as np

    v = np.asarray([x for x in values if x is not None], dtype=float)
    if not len(v):
        return None, None, None
    if len(v) < 2:
        return float(v.mean()), None, None
    m = v[resample_index(len(v))].mean(axis=1)
    lo, hi = (float(x) for x in np.percentile(m, [2.5, 97.5]))
    return float(v.mean()), lo, hi


def too_small(jobs: int, periods: int) -> str | None:
    """Why the trace is too small to conclude, or None."""
    why = []
    if jobs < MIN_JOBS:
        why.append(f"{jobs:,} jobs (under {MIN_JOBS:,})")
    if periods < MIN_PERIODS:
        why.append(f"{periods} period{'s' if periods != 1 else ''} of submission (under {MIN_PERIODS})")
    return " and ".join(why) or None
