"""The generator's distributions: job sizes, runtimes, requested times.

Why simplified: the point is a workload whose *estimate* structure is
realistic (habitual, rounded, mostly generous requests), with sizes and
runtimes only in the spirit of Lublin & Feitelson (2003): many serial jobs,
a power-of-two bias, log-runtimes from a two-component gamma mixture whose
long component gets likelier as jobs get wider. Every number lives in
:class:`Model` so docs/generate.md can list them and tests can vary them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

MINUTE = 60
HOUR = 3600

# The values users actually type as a walltime (seconds): 5/10/15/30 min, 1..48 h.
REQUEST_MENU = np.array(
    [5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
     1 * HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR, 12 * HOUR, 18 * HOUR, 24 * HOUR, 36 * HOUR, 48 * HOUR],
    dtype=np.int64,
)


@dataclass(frozen=True)
class Model:
    """Every tunable of the synthetic workload, with its default."""

    # population
    users_per_sqrt_job: float = 1.5      # users = clip(1.5 * sqrt(jobs), 4, 3000)
    users_per_project: float = 4.0       # projects (SWF group) = users / 4
    user_zipf: float = 0.9               # activity of the k-th busiest user ~ k**-0.9
    own_project_share: float = 0.8       # templates charged to the user's main project
    templates_mean: float = 3.0          # templates per user: 1 + Poisson(2)
    templates_max: int = 10
    # sizes (log2 two-stage uniform, Lublin-Feitelson style)
    serial_share: float = 0.30
    small_share: float = 0.85            # parallel sizes from the lower stage
    stage_split: float = 0.45            # lower stage covers log2 size in [1, 1 + 0.45*(log2 C - 1)]
    pow2_share: float = 0.75             # parallel sizes rounded to a power of two
    # runtimes: ln(median runtime of a template) ~ Gamma(k, theta), two components
    short_k: float = 5.0
    short_theta: float = 0.9             # mean e^4.5 ~ 90 s
    long_k: float = 60.0
    long_theta: float = 0.16             # mean e^9.6 ~ 4 h
    short_p_serial: float = 0.25         # P(short component) for a serial template ...
    short_p_per_log2: float = -0.035     # ... changing by this per doubling of size
    spread_lo: float = 0.15              # sd of ln(runtime) within a template, uniform in [lo, hi]
    spread_hi: float = 0.7
    fail_share: float = 0.08             # jobs that fail at start (run 1..fail_max_run s, status 0)
    fail_max_run: int = 30
    # requested times (Mu'alem & Feitelson 2001, Section 4.3, rounded up to REQUEST_MENU)
    habit_share: float = 0.90            # jobs that reuse their template's habitual request
    habit_z: float = 0.5                 # ... sized for exp(ln median + habit_z * spread)
    under_share: float = 0.05            # requests below the runtime: the job is killed at the limit
    u_floor: float = 0.60                # u ~ U(u_floor, 1), not the paper's U(0, 1): menu rounding
                                         # already inflates requests; this matches real traces' R
    short_factor: float = 10.0           # runtimes < 90 s get 10x estimates
    max_request: int = 48 * HOUR
    # repeat bursts: a template is submitted in runs of 1 + Geometric jobs
    burst_mean_lo: float = 1.0
    burst_mean_hi: float = 12.0          # mean jobs per burst: lo + (hi - lo) U^2 / (1 + median run / scale)
    burst_runtime_scale: float = 3600.0
    burst_gap_median: float = 120.0      # seconds between submissions in a burst (lognormal)
    # arrival cycles
    weekend_factor: float = 0.45
    hourly: tuple = field(default=(
        0.25, 0.20, 0.18, 0.17, 0.17, 0.20, 0.30, 0.50, 0.90, 1.40, 1.70, 1.75,
        1.50, 1.60, 1.75, 1.70, 1.55, 1.30, 1.00, 0.85, 0.75, 0.60, 0.45, 0.35,
    ))

    def as_dict(self) -> dict:
        return asdict(self)


def sizes(rng: np.random.Generator, n: int, capacity: int, m: Model) -> np.ndarray:
    """Processor counts in [1, capacity]: serial share, then log2 two-stage uniform."""
    if capacity < 2:
        return np.ones(n, dtype=np.int64)
    top = np.log2(capacity)
    mid = 1.0 + m.stage_split * (top - 1.0)
    lower = rng.random(n) < m.small_share
    lo = np.where(lower, 1.0, mid)
    hi = np.where(lower, mid, top)
    l2 = lo + (hi - lo) * rng.random(n)
    pow2 = rng.random(n) < m.pow2_share
    size = np.where(pow2, np.exp2(np.floor(l2 + 0.5)), np.floor(np.exp2(l2) + 0.5))
    size = np.clip(size, 2, capacity).astype(np.int64)
    serial = rng.random(n) < m.serial_share
    return np.where(serial, 1, size)


def median_runtimes(rng: np.random.Generator, size: np.ndarray, m: Model) -> np.ndarray:
    """ln(median runtime) per template: hyper-gamma, long component likelier for wide jobs."""
    n = size.shape[0]
    p_short = np.clip(m.short_p_serial + m.short_p_per_log2 * np.log2(size), 0.1, 0.9)
    short = rng.random(n) < p_short
    ln_short = rng.gamma(m.short_k, m.short_theta, n)
    ln_long = rng.gamma(m.long_k, m.long_theta, n)
    ln_med = np.where(short, ln_short, ln_long)
    return np.clip(ln_med, 0.0, np.log(m.max_request))


def round_up_to_menu(seconds: np.ndarray) -> np.ndarray:
    """The smallest menu value >= seconds (the top of the menu beyond it)."""
    i = np.searchsorted(REQUEST_MENU, seconds, side="left")
    return REQUEST_MENU[np.minimum(i, REQUEST_MENU.size - 1)]


def round_down_below(seconds: np.ndarray) -> np.ndarray:
    """The largest menu value < seconds (the smallest menu value when none is)."""
    i = np.searchsorted(REQUEST_MENU, seconds, side="left") - 1
    return REQUEST_MENU[np.maximum(i, 0)]


def mf_request(rng: np.random.Generator, runtime: np.ndarray, m: Model) -> np.ndarray:
    """Mu'alem & Feitelson's user estimate T_r/u (x10 under 90 s), capped, rounded up."""
    u = m.u_floor + (1.0 - m.u_floor) * rng.random(runtime.shape[0])
    est = runtime / u
    est = np.where(runtime < 90, est * m.short_factor, est)
    est = np.minimum(est, m.max_request)
    return round_up_to_menu(est)
