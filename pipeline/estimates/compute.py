"""Every scheme's estimate for every job, as whole-frame Polars expressions.

Input: the frame of sql/estimates_jobs.sql (req NULL = no request). Output:
job_id, est (float seconds, NULL = no estimate), hist (history jobs used, NULL
for schemes without history), in the input's row order. The exact rules, edge
cases included, are in docs/estimates.md; tests/naive_estimates.py is the
plain-Python statement of the same rules.
"""

from __future__ import annotations

import polars as pl

from ..schemes import Scheme
from . import history as H
from .seeded import uniform01
from .templates import resolve

MODEL_CAP = 86400  # Mu'alem & Feitelson 4.3 step 4: "truncate to some upper bound (e.g., 24 hours)"


def window_seconds(window: str) -> int | None:
    return None if window == "all" else int(window[:-1]) * 86400


def ratio() -> pl.Expr:
    """R = run / req capped at 1 (Tang Eq. 1; Klusacek's usage)."""
    return pl.min_horizontal(pl.col("run") / pl.col("req"), pl.lit(1.0))


def _with_request_and_run() -> pl.Expr:
    return pl.col("req").is_not_null() & pl.col("run").is_not_null()


def compute(jobs: pl.DataFrame, scheme: Scheme, templates=None) -> pl.DataFrame:
    """Estimates of one scheme for every job of ``jobs``. ``templates``: the
    template set of a ``smith`` scheme (default: the built-in set of that name)."""
    if scheme.name == "smith":
        from .smith import smith_frame

        return smith_frame(jobs, templates if templates is not None else resolve(scheme["set"]))
    return _COMPUTE[scheme.name](jobs, scheme)


def _plain(jobs: pl.DataFrame, est: pl.Expr) -> pl.DataFrame:
    return jobs.select("job_id", est.cast(pl.Float64).alias("est"), pl.lit(None, pl.Int64).alias("hist"))


def _attach(jobs: pl.DataFrame, per_job: pl.DataFrame) -> pl.DataFrame:
    """Left-join per-job history results back in input order; missing = no history. When every job
    has a result and the jobs are in strictly increasing job_id order (load_jobs'), the results
    sorted by job_id are set beside them (a sort by one column, not a join)."""
    out = jobs.select("job_id", "req", "run")
    ids = out["job_id"]
    if (per_job.height == out.height and ids.null_count() == 0 and ids.is_sorted()
            and (out.height < 2 or ids.diff().min() > 0)):
        got = per_job.sort("job_id")
        if (got["job_id"] == ids).all():
            return out.hstack(got.drop("job_id").get_columns()).with_columns(pl.col("n").fill_null(0))
    out = out.join(per_job, on="job_id", how="left", maintain_order="left")
    return out.with_columns(pl.col("n").fill_null(0))


def tang_from_stat(frame: pl.DataFrame, a_col: str, floor: float, min_jobs: int) -> pl.Expr:
    """est = req x max(A, floor) with at least ``min_jobs`` (and >= 1) history
    jobs, else req (no adjustment)."""
    enough = (pl.col("n") >= max(min_jobs, 1)) & pl.col(a_col).is_not_null()
    a = pl.max_horizontal(pl.col(a_col), pl.lit(float(floor)))
    return pl.when(enough).then(pl.col("req") * a).otherwise(pl.col("req").cast(pl.Float64))


def tang_stats(jobs: pl.DataFrame, key: str, window: str, stats: list[str]) -> pl.DataFrame:
    """Per job: n and the named statistics of the history R in the window
    (joined back to every job in input order)."""
    per_job = H.window_stats(
        jobs, H.KEY_COLUMNS[key], ratio(), _with_request_and_run(), window_seconds(window),
        {s: s for s in stats},
    )
    return _attach(jobs, per_job)


def _tang(jobs: pl.DataFrame, s: Scheme) -> pl.DataFrame:
    frame = tang_stats(jobs, s["key"], s["window"], [s["stat"]])
    est = tang_from_stat(frame, s["stat"], s["floor"], s["min"])
    return frame.select("job_id", est.alias("est"), pl.col("n").alias("hist"))


def _klusacek(jobs: pl.DataFrame, s: Scheme) -> pl.DataFrame:
    per_job = H.last_n(jobs, ("user_id",), ratio(), _with_request_and_run(), s["last"], "max")
    frame = _attach(jobs, per_job)
    est = pl.when(pl.col("n") > 0).then(pl.col("req") * pl.col("stat")).otherwise(pl.col("req").cast(pl.Float64))
    return frame.select("job_id", est.alias("est"), pl.col("n").alias("hist"))


def _capped(est: pl.Expr) -> pl.Expr:
    """Cap at the request when there is one; with no history, the request."""
    return (
        pl.when(pl.col("n") == 0).then(pl.col("req").cast(pl.Float64))
        .when(pl.col("req").is_null()).then(est)
        .otherwise(pl.min_horizontal(est, pl.col("req").cast(pl.Float64)))
    )


def _ave2(jobs: pl.DataFrame, s: Scheme) -> pl.DataFrame:
    per_job = H.last_n(jobs, ("user_id",), pl.col("run"), pl.col("run").is_not_null(), 2, "mean")
    frame = _attach(jobs, per_job)
    return frame.select("job_id", _capped(pl.col("stat")).alias("est"), pl.col("n").alias("hist"))


def _feitelson(jobs: pl.DataFrame, s: Scheme) -> pl.DataFrame:
    per_job = H.window_stats(
        jobs, H.KEY_COLUMNS["feitelson"], pl.col("run"), pl.col("run").is_not_null(), s["horizon"],
        {"mean": "mean", "std": "std"},
    )
    frame = _attach(jobs, per_job)
    pred = pl.col("mean") + float(s["sd"]) * pl.col("std")
    return frame.select("job_id", _capped(pred).alias("est"), pl.col("n").alias("hist"))


def _uniform(jobs: pl.DataFrame, s: Scheme) -> pl.DataFrame:
    u = uniform01(s["seed"], jobs["job_id"].to_numpy(), 0)
    f = float(s["f"])
    return _plain(jobs, pl.col("run") * (1.0 + (f - 1.0) * pl.lit(pl.Series(u))))


def _model(jobs: pl.DataFrame, s: Scheme) -> pl.DataFrame:
    """Mu'alem & Feitelson 2001 Section 4.3: 10%: 0.99 run; else run/u, u in
    (0, 1], x10 when run < 90 s, truncated at max(24 h, run)."""
    ids = jobs["job_id"].to_numpy()
    p = pl.lit(pl.Series(uniform01(s["seed"], ids, 0)))
    u = pl.lit(pl.Series(1.0 - uniform01(s["seed"], ids, 1)))  # (0, 1]
    run = pl.col("run").cast(pl.Float64)
    big = run / u * pl.when(pl.col("run") < 90).then(10.0).otherwise(1.0)
    big = pl.min_horizontal(big, pl.max_horizontal(run, pl.lit(float(MODEL_CAP))))
    est = pl.when(pl.col("run").is_null()).then(None).when(p < 0.1).then(0.99 * run).otherwise(big)
    return _plain(jobs, est)


# The Numba kernels (smith, gibbons, downey) and LightGBM (learned) are
# imported when their scheme is computed: importing Numba costs 0.6-1.5 s of
# every `estimate` that needs none of them (bench/learned.py).
def _gibbons(jobs):
    from .gibbons import gibbons_frame

    return gibbons_frame(jobs)


def _downey(jobs, s):
    from .downey import downey_frame

    return downey_frame(jobs, s["key"], s["stat"])


def _learned(jobs, s):
    from .learned import learned_frame

    return learned_frame(jobs, s)


_COMPUTE = {
    "request": lambda jobs, s: _plain(jobs, pl.col("req")),
    "actual": lambda jobs, s: _plain(jobs, pl.col("run")),
    "factor": lambda jobs, s: _plain(jobs, pl.col("req") * float(s["f"])),
    "tang": _tang,
    "klusacek": _klusacek,
    "ave2": _ave2,
    "feitelson": _feitelson,
    "uniform": _uniform,
    "model": _model,
    "gibbons": lambda jobs, s: _gibbons(jobs),
    "downey": lambda jobs, s: _downey(jobs, s),
    "learned": lambda jobs, s: _learned(jobs, s),
}
