"""Accuracy of estimates against the actual runtimes, per scheme.

Tang et al. 2013 Eq. 3: accuracy = min(run, est) / max(run, est), 1 when
equal. Scored jobs: known runtime and known estimate. Classes (shares of the
scored jobs, summing to 1), checked in this order:
  na     est = requested (no adjustment);
  ue/be  est < run by less than / at least 30 minutes;
  oe     run <= est < requested;
  above  everything else: est >= run and above the request, or no request.
under_rate counts every est < run, NA jobs that overran their request included.

One set of Polars expressions (:func:`metrics`) serves the stored schemes
(grouped over a long frame) and the 432 schemes of a grid (one column each).
"""

from __future__ import annotations

import polars as pl

COLUMNS = ("scored", "acc_mean", "acc_median", "acc_mean_not_under", "under_rate",
           "na", "oe", "ue", "be", "above")
BAD_GAP = 1800  # seconds: UE vs BE (Tang et al. Section 4.2.2)


def metrics(est_col: str = "est") -> list[pl.Expr]:
    """The accuracy columns of one estimate column (aggregations over jobs)."""
    run = pl.col("run").cast(pl.Float64)
    req = pl.col("req").cast(pl.Float64)
    est = pl.col(est_col)
    scored = run.is_not_null() & est.is_not_null()
    acc = pl.when(scored).then(
        pl.when(est == run).then(1.0).otherwise(pl.min_horizontal(est, run) / pl.max_horizontal(est, run)))
    under = est < run
    na = req.is_not_null() & (est == req)
    below_req = req.is_not_null() & (est < req)
    classes = {
        "na": na,
        "oe": ~na & ~under & below_req,
        "ue": ~na & under & (run - est < BAD_GAP),
        "be": ~na & under & (run - est >= BAD_GAP),
        "above": ~na & ~under & ~below_req,
    }

    def share(expr: pl.Expr) -> pl.Expr:
        return pl.when(scored).then(expr.cast(pl.Float64)).mean()

    return [
        scored.sum().cast(pl.Int64).alias("scored"),
        acc.mean().alias("acc_mean"),
        acc.median().alias("acc_median"),
        acc.filter(scored & ~under).mean().alias("acc_mean_not_under"),
        share(under).alias("under_rate"),
        *(share(e).alias(c) for c, e in classes.items()),
    ]


def score(est_long: pl.DataFrame) -> pl.DataFrame:
    """est_long(scheme, run, req, est) -> one row per scheme (first-seen order):
    scheme + COLUMNS. Statistics of a scheme with no scored job are null."""
    return est_long.group_by("scheme", maintain_order=True).agg(metrics())


def score_columns(frame: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """frame(run, req, <one column per scheme>) -> one row per scheme; the same
    numbers as :func:`score`, without building the long frame (grids)."""
    out = frame.select(
        pl.struct(metrics(name)).alias(name) for name in names
    )
    return pl.DataFrame(
        [{"scheme": name, **out[name][0]} for name in names],
        schema={"scheme": pl.String, **out.select(pl.col(names[0]).struct.unnest()).schema},
    )
