"""Accuracy of estimates against the actual runtimes, per scheme.

Tang et al. 2013 Eq. 3: accuracy = min(run, est) / max(run, est), 1 when
equal. Scored jobs: known runtime and known estimate. Classes (shares of the
scored jobs, summing to 1), checked in this order:
  na     est = requested (no adjustment);
  ue/be  est < run by less than / at least 30 minutes;
  oe     run <= est < requested;
  above  everything else: est >= run and above the request, or no request.
under_rate counts every est < run, NA jobs that overran their request included.

One Polars aggregation serves a handful of stored schemes and the 432 of a
grid alike (grouped by scheme over a long frame).
"""

from __future__ import annotations

import polars as pl

COLUMNS = ("scored", "acc_mean", "acc_median", "acc_mean_not_under", "under_rate",
           "na", "oe", "ue", "be", "above")
BAD_GAP = 1800  # seconds: UE vs BE (Tang et al. Section 4.2.2)


def _metrics() -> list[pl.Expr]:
    run = pl.col("run").cast(pl.Float64)
    req = pl.col("req").cast(pl.Float64)
    est = pl.col("est")
    scored = run.is_not_null() & est.is_not_null()
    acc = pl.when(scored).then(
        pl.when(est == run).then(1.0).otherwise(pl.min_horizontal(est, run) / pl.max_horizontal(est, run)))
    under = est < run
    cls = (
        pl.when(~scored).then(None)
        .when(req.is_not_null() & (est == req)).then(pl.lit("na"))
        .when(under & (run - est < BAD_GAP)).then(pl.lit("ue"))
        .when(under).then(pl.lit("be"))
        .when(req.is_not_null() & (est < req)).then(pl.lit("oe"))
        .otherwise(pl.lit("above"))
    )

    def share(expr: pl.Expr) -> pl.Expr:
        return pl.when(scored).then(expr.cast(pl.Float64)).mean()

    return [
        scored.sum().cast(pl.Int64).alias("scored"),
        acc.mean().alias("acc_mean"),
        acc.median().alias("acc_median"),
        acc.filter(scored & ~under).mean().alias("acc_mean_not_under"),
        share(under).alias("under_rate"),
        *(share(cls == c).alias(c) for c in ("na", "oe", "ue", "be", "above")),
    ]


def score(est_long: pl.DataFrame) -> pl.DataFrame:
    """est_long(scheme, run, req, est) -> one row per scheme (first-seen order):
    scheme + COLUMNS. Statistics of a scheme with no scored job are null."""
    return est_long.group_by("scheme", maintain_order=True).agg(_metrics())
