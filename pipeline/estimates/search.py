"""Genetic search for Smith's template sets (paper 004, Section 2.1.3).

An individual is 1..10 templates, each ``BITS`` bits:

- 1 bit: absolute (0) or relative (1) run times;
- 1 bit per characteristic the trace records (CHARACTERISTICS with any
  known value): enabled or not;
- node range: 1 enable bit + 4 bits, size 2^(code mod 10) = 1..512;
- running-time range: 1 enable bit + 4 bits, 2^(6 + code mod 11) = 64..65536 s;
- maximum history: 1 enable bit + 4 bits, 2^(1 + code) = 2..65536.

The paper also encodes the prediction type (mean or one of three
regressions) but uses only the mean in this work, so those bits are left
out. Fitness of a generation: F_min + (E_max - E) / (E_max - E_min) x
(F_max - F_min) with F_max = 4 F_min (all F_min when every error is equal);
E = mean absolute run-time prediction error (s) of ``smith`` with the set
over the training jobs with a known run time (the request where no category
predicts). Parents: stochastic sampling with replacement (P(i) = F_i / sum
F), in pairs; each pair is replaced by its two children of the
variable-length crossover (template i and bit position p in parent 1,
template j in parent 2 such that neither child exceeds 10 templates); each
child bit flips with probability 0.01; the 2 best individuals survive
unmutated (elitism). Everything random comes from one NumPy generator
seeded by ``seed``: the same seed gives the same search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from .smith import Prepared, predict
from .templates import CHARACTERISTICS, HISTORY_SIZES, MAX_TEMPLATES, NODE_SIZES, RUNTIME_SIZES, Template

F_MIN, F_MAX = 1.0, 4.0
MUTATION = 0.01
ELITE = 2
# the options' bounds (Smith et al. evolved tens of individuals for tens of generations): checked
# before any work, so that a typo (1e9) is a one-line refusal, not an out-of-memory or a week-long run
MAX_GENERATIONS = 1000
MAX_POPULATION = 1000


@dataclass
class Encoding:
    chars: tuple[str, ...]   # the characteristics this trace records, in bit order

    @property
    def bits(self) -> int:
        return 1 + len(self.chars) + 15

    def decode_one(self, b: np.ndarray) -> Template:
        def code(lo):
            return int(b[lo]) * 8 + int(b[lo + 1]) * 4 + int(b[lo + 2]) * 2 + int(b[lo + 3])
        k = 1 + len(self.chars)
        chars = tuple(c for c, on in zip(self.chars, b[1:k]) if on)
        nodes = NODE_SIZES[code(k + 1) % len(NODE_SIZES)] if b[k] else None
        runtime = RUNTIME_SIZES[code(k + 6) % len(RUNTIME_SIZES)] if b[k + 5] else None
        history = HISTORY_SIZES[code(k + 11)] if b[k + 10] else None
        return Template(chars, nodes, runtime, history, bool(b[0]))

    def decode(self, ind: np.ndarray) -> tuple[Template, ...]:
        return tuple(self.decode_one(row) for row in ind)


def trace_characteristics(jobs: pl.DataFrame) -> tuple[str, ...]:
    """Letters of the characteristics with at least one known value."""
    return tuple(c for c, col in CHARACTERISTICS.items()
                 if col in jobs.columns and jobs[col].null_count() < jobs.height)


def fitness(errors: np.ndarray) -> np.ndarray:
    lo, hi = errors.min(), errors.max()
    if hi <= lo:
        return np.full(len(errors), F_MIN)
    return F_MIN + (hi - errors) / (hi - lo) * (F_MAX - F_MIN)


def crossover(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Section 2.1.3's two children of templates a_1..a_n and b_1..b_m."""
    n, m, bits = len(a), len(b), a.shape[1]
    i = int(rng.integers(1, n + 1))
    p = int(rng.integers(0, bits + 1))
    j = int(rng.integers(max(1, i + m - MAX_TEMPLATES), min(m, MAX_TEMPLATES - n + i) + 1))
    n1 = np.concatenate([a[i - 1, :p], b[j - 1, p:]])
    n2 = np.concatenate([b[j - 1, :p], a[i - 1, p:]])
    c1 = np.vstack([a[:i - 1], n1[None], b[j:]])
    c2 = np.vstack([b[:j - 1], n2[None], a[i:]])
    return c1, c2


def mutate(ind: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    flips = rng.random(ind.shape) < MUTATION
    return np.where(flips, 1 - ind, ind).astype(np.int8)


@dataclass
class Generation:
    number: int
    best_error: float
    mean_error: float
    best: tuple[Template, ...]


class Evaluator:
    """Mean absolute error (s) of a template set on the training jobs; caches
    by the decoded set. ``weights`` (optional, one per job): a weighted mean,
    e.g. how many prediction events a job takes part in (Smith et al.'s
    search over an algorithm's prediction workload)."""

    def __init__(self, jobs: pl.DataFrame, train: np.ndarray, weights: np.ndarray | None = None):
        self.prep = Prepared(jobs)
        self.train = train & ~np.isnan(self.prep.run)
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.cache: dict[tuple, float] = {}
        self.evaluations = 0

    def error(self, templates: tuple[Template, ...]) -> float:
        if templates not in self.cache:
            est, _, _ = predict(self.prep, templates)
            est = np.where(np.isnan(est), self.prep.req, est)
            ok = self.train & ~np.isnan(est)
            err = np.abs(est[ok] - self.prep.run[ok])
            if not ok.any():
                self.cache[templates] = np.inf
            elif self.weights is None:
                self.cache[templates] = float(err.mean())
            else:
                self.cache[templates] = float(np.average(err, weights=self.weights[ok]))
            self.evaluations += 1
        return self.cache[templates]


def search(jobs: pl.DataFrame, train: np.ndarray, generations: int, population: int, seed: int,
           on_generation: Callable[[Generation], None] | None = None,
           weights: np.ndarray | None = None) -> tuple[tuple[Template, ...], float, list[Generation]]:
    """Run the GA; returns the best set ever seen, its training error (s),
    and one record per generation. ``weights``: see :class:`Evaluator`."""
    enc = Encoding(trace_characteristics(jobs))
    ev = Evaluator(jobs, train, weights)
    rng = np.random.default_rng(seed)
    pop = [rng.integers(0, 2, (int(rng.integers(1, MAX_TEMPLATES + 1)), enc.bits)).astype(np.int8)
           for _ in range(population)]
    best_set, best_err, log = None, np.inf, []
    for g in range(generations):
        sets = [enc.decode(ind) for ind in pop]
        errors = np.array([ev.error(s) for s in sets])
        order = np.argsort(errors, kind="stable")
        if errors[order[0]] < best_err:
            best_set, best_err = sets[order[0]], float(errors[order[0]])
        rec = Generation(g + 1, float(errors[order[0]]), float(np.mean(errors[np.isfinite(errors)])),
                         sets[order[0]])
        log.append(rec)
        if on_generation:
            on_generation(rec)
        if g == generations - 1:
            break
        f = fitness(np.where(np.isfinite(errors), errors, errors[np.isfinite(errors)].max()))
        prob = f / f.sum()
        children: list[np.ndarray] = []
        while len(children) < population - ELITE:
            p1, p2 = rng.choice(population, size=2, replace=True, p=prob)
            for child in crossover(pop[p1], pop[p2], rng):
                children.append(mutate(child, rng))
        pop = children[:population - ELITE] + [pop[k].copy() for k in order[:ELITE]]
    return best_set, best_err, log


# -- the command's library function ---------------------------------------------

@dataclass
class SearchResult:
    trace: str
    name: str
    templates: tuple[Template, ...]
    train_error: float          # seconds
    train_jobs: int
    mean_run: float             # seconds, over the training jobs
    generations: list[Generation]
    evaluations: int
    seconds: float

    def as_dict(self) -> dict:
        from .templates import set_text
        return {"trace": self.trace, "name": self.name, "templates": set_text(self.templates),
                "train_error_s": self.train_error, "train_jobs": self.train_jobs, "mean_run_s": self.mean_run,
                "evaluations": self.evaluations, "seconds": self.seconds,
                "generations": [{"generation": g.number, "best_error_s": g.best_error,
                                 "mean_error_s": g.mean_error, "best": set_text(g.best)}
                                for g in self.generations]}


def parse_until(text: str | None):
    """--train-until DATE (YYYY-MM-DD or an ISO instant, UTC unless zoned)."""
    import datetime as dt

    from ..errors import WalltimeError
    if text is None:
        return None
    try:
        t = dt.datetime.fromisoformat(text)
    except ValueError:
        raise WalltimeError(f'--train-until "{text}": not a date (use YYYY-MM-DD or YYYY-MM-DDTHH:MM)') from None
    return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)


def search_templates(wh, trace: str, name: str, generations: int = 20, population: int = 20, seed: int = 0,
                     train_until: str | None = None, on_generation=None) -> SearchResult:
    """Search on ``trace`` (jobs submitted before ``train_until``), store the
    best set as ``name`` (replacing one of that name) with its training error."""
    import time

    from ..errors import WalltimeError
    from ..warehouse import transaction
    from . import _trace_row, load_jobs
    from .templates import BUILTIN, NAME_RE, store_set

    if not NAME_RE.fullmatch(name):
        raise WalltimeError(f'--name "{name}": use letters, digits, _ . - (at most 64)')
    if name in BUILTIN:
        raise WalltimeError(f'--name "{name}": that name is a built-in template set; choose another')
    if not 1 <= generations <= MAX_GENERATIONS:
        raise WalltimeError(f"--generations {generations}: must be a whole number from 1 to {MAX_GENERATIONS:,}")
    if not ELITE + 2 <= population <= MAX_POPULATION:
        raise WalltimeError(f"--population {population}: must be a whole number from {ELITE + 2} to "
                            f"{MAX_POPULATION:,}")
    until = parse_until(train_until)
    con = wh.reader()
    try:
        _trace_row(con, trace)
        jobs = load_jobs(con, trace)
        ts = pl.from_arrow(con.sql("SELECT job_id, submit_ts FROM jobs WHERE trace = $1 ORDER BY job_id",
                                   params=[trace]).to_arrow_table())
    finally:
        con.close()
    train = ~jobs["cut_short"].to_numpy()  # a run cut short is no runtime to fit (sql/estimates_jobs.sql)
    if until is not None:
        sub = jobs.select("job_id").join(ts, on="job_id", how="left", maintain_order="left")["submit_ts"]
        train &= (sub.dt.epoch("s") < int(until.timestamp())).fill_null(False).to_numpy()
    n_train = int((train & jobs["run"].is_not_null().to_numpy()).sum())
    if n_train == 0:
        raise WalltimeError(f'--train-until "{train_until}": no job of {trace} with a known run time '
                            f'was submitted before it')
    t0 = time.perf_counter()
    # jobs submitted after the last training job are never history for one: drop them
    last = jobs.filter(pl.Series(train))["submit"].max()
    keep = (jobs["submit"] <= last).to_numpy()
    jobs, train = jobs.filter(pl.Series(keep)), train[keep]
    best, err, log = search(jobs, train, generations, population, seed, on_generation)
    seconds = time.perf_counter() - t0
    mean_run = float(jobs.filter(pl.Series(train))["run"].drop_nulls().mean())
    with wh.writer() as wcon:
        with transaction(wcon):
            store_set(wcon, name, best, trace, err, until, generations, population, seed)
    return SearchResult(trace, name, best, err, n_train, mean_run, log,
                        sum(1 for _ in log) * population, seconds)
