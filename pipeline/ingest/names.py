"""One schema for every trace: names as strings, ids as integers.

Why both: reports and estimator keys want the names a site knows (users,
accounts, partitions); the SWF fields and the simulator want integers. A
sacct trace gets integer codes (1, 2, ... in order of first appearance in
submission order); an SWF trace gets its ids as text.
"""

from __future__ import annotations

import polars as pl

# string column -> the SWF id column that carries it as an integer
STRING_IDS = {
    "user": "user_id",
    "group_name": "group_id",
    "account": "group_id",  # Tang et al.'s "project": the SWF group field
    "partition": "partition_id",
    "qos": "queue_id",
    "job_name": "exe_id",
}
# the columns the 060 migration adds to `jobs`, with their types
EXTRA_COLUMNS: dict[str, pl.DataType] = {
    "user": pl.String, "group_name": pl.String, "account": pl.String, "partition": pl.String,
    "qos": pl.String, "job_name": pl.String, "slurm_id": pl.String, "array_job_id": pl.Int64,
    "array_task_id": pl.Int64, "het_job_id": pl.Int64, "het_offset": pl.Int64, "gpus": pl.Int64,
    "state": pl.String, "exit_code": pl.String,
}


def add_codes(df: pl.DataFrame, pairs: dict[str, str]) -> pl.DataFrame:
    """For each ``dst: src``: 1, 2, ... for the distinct non-null values of
    ``src`` in row order (NULL stays NULL)."""
    firsts = [(pl.col(src).is_first_distinct() & pl.col(src).is_not_null()).cast(pl.Int64).cum_sum().alias(f"_n_{dst}")
              for dst, src in pairs.items()]
    df = df.with_columns(firsts)
    return df.with_columns(
        pl.when(pl.col(src).is_not_null()).then(pl.col(f"_n_{dst}").first().over(src)).alias(dst)
        for dst, src in pairs.items()
    ).drop([f"_n_{dst}" for dst in pairs])


def ids_as_strings(jobs: pl.DataFrame) -> pl.DataFrame:
    """The string columns of an SWF trace: its ids as text (NULL stays NULL)."""
    cols = [pl.col(src).cast(pl.String).alias(dst) for dst, src in STRING_IDS.items()]
    missing = [pl.lit(None, t).alias(c) for c, t in EXTRA_COLUMNS.items() if c not in STRING_IDS]
    return jobs.with_columns(*cols, *missing)
