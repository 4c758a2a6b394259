"""Accuracy of estimates against the actual runtimes (sql/estimates_accuracy.sql).

Computed on a private in-memory DuckDB connection over an Arrow frame, so the
same SQL scores a stored scheme and the hundreds of schemes of a grid that are
never stored.
"""

from __future__ import annotations

import duckdb
import polars as pl

from .. import sqlfiles

COLUMNS = ("scored", "acc_mean", "acc_median", "acc_mean_not_under", "under_rate",
           "na", "oe", "ue", "be", "above")


def compute_connection() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET threads = 2")
    return con


def score(est_long: pl.DataFrame, con: duckdb.DuckDBPyConnection | None = None) -> pl.DataFrame:
    """est_long(scheme, run, req, est) -> one row per scheme: scheme + COLUMNS."""
    own = con is None
    con = con or compute_connection()
    try:
        con.register("est_long", est_long.select("scheme", "run", "req", "est").to_arrow())
        out = pl.from_arrow(con.sql(sqlfiles.load("estimates_accuracy")).to_arrow_table())
        con.unregister("est_long")
    finally:
        if own:
            con.close()
    return out
