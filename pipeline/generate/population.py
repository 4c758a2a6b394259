"""Users, projects and each user's job templates.

Why templates: history-based estimators (Tang et al. 2013, Klusacek & Soysal
2018, Tsafrir's ave2) work because users resubmit the same jobs with the same
habitual request. A template is one such job: size, median runtime and its
spread, the request the user habitually types, a project, an executable id
and how long its repeat bursts are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import model as md


@dataclass
class Templates:
    user: np.ndarray        # user id (1-based) per template
    project: np.ndarray     # SWF group id (1-based)
    size: np.ndarray        # processors
    ln_median: np.ndarray   # ln of the median runtime (s)
    spread: np.ndarray      # sd of ln(runtime)
    request: np.ndarray     # habitual requested time (s), a menu value
    burst_mean: np.ndarray  # mean jobs per repeat burst
    gap_ln: np.ndarray      # ln of the median gap between submissions in a burst (s)
    cum: np.ndarray         # user u's templates cover (u-1, u] in this cumulative array
    user_weight: np.ndarray  # submission share per user (sums to 1)

    @property
    def count(self) -> int:
        return self.user.shape[0]


def population(rng: np.random.Generator, jobs: int, capacity: int, m: md.Model) -> Templates:
    n_users = int(np.clip(round(m.users_per_sqrt_job * np.sqrt(jobs)), 4, 3000))
    n_projects = max(2, int(round(n_users / m.users_per_project)))
    user_weight = _zipf(rng, n_users, m.user_zipf)
    main_project = 1 + rng.choice(n_projects, n_users, p=_zipf(rng, n_projects, 0.8))

    per_user = np.minimum(1 + rng.poisson(m.templates_mean - 1.0, n_users), m.templates_max)
    user = np.repeat(np.arange(1, n_users + 1), per_user)
    n = user.shape[0]

    own = rng.random(n) < m.own_project_share
    other = 1 + rng.integers(0, n_projects, n)
    project = np.where(own, main_project[user - 1], other)

    size = md.sizes(rng, n, capacity, m)
    ln_median = md.median_runtimes(rng, size, m)
    spread = m.spread_lo + (m.spread_hi - m.spread_lo) * rng.random(n)
    # the habitual request: the M&F model applied to a generous runtime (a high
    # percentile of the template's runtimes), as users size requests for the slow runs
    request = md.mf_request(rng, np.exp(ln_median + m.habit_z * spread), m)
    # short jobs come in long series, long jobs a few at a time
    burst_mean = m.burst_mean_lo + (m.burst_mean_hi - m.burst_mean_lo) * rng.random(n) ** 2 \
        / (1.0 + np.exp(ln_median) / m.burst_runtime_scale)
    gap_ln = np.log(m.burst_gap_median) + rng.normal(0.0, 1.0, n)

    # within-user template popularity: gamma weights normalised per user
    w = rng.gamma(0.7, 1.0, n) + 1e-9
    starts = np.concatenate(([0], np.cumsum(per_user)[:-1]))
    totals = np.add.reduceat(w, starts)
    within = np.cumsum(w) - np.repeat(np.cumsum(totals) - totals, per_user)
    cum = (user - 1) + within / np.repeat(totals, per_user)
    cum[np.cumsum(per_user) - 1] = np.arange(1, n_users + 1)  # exact upper ends
    return Templates(user, project, size, ln_median, spread, request, burst_mean, gap_ln, cum, user_weight)


def pick_templates(rng: np.random.Generator, t: Templates, count: int) -> np.ndarray:
    """Template indices for ``count`` bursts: a user by activity, then one of theirs."""
    users = rng.choice(t.user_weight.shape[0], count, p=t.user_weight)  # 0-based
    r = users + rng.random(count)
    idx = np.searchsorted(t.cum, r, side="right")  # r in [u, u+1): one of user u's
    return np.minimum(idx, t.count - 1)


def _zipf(rng: np.random.Generator, n: int, s: float) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1) ** s
    w = rng.permutation(w)
    return w / w.sum()
