"""Writing a run: its row in ``runs``, its jobs in ``sim_jobs`` (+ Parquet
mirror), its metrics in ``run_metrics``.

Why arrays all the way: the loop's outputs become an Arrow table without
copying, and DuckDB inserts it in one statement inside the caller's
transaction; the Parquet mirror is written only after the commit.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import metrics, sqlfiles
from .inputs import Inputs

RUN_COLUMNS = (
    "run_id", "trace", "config", "code_version", "input_sha256", "policy", "backfill", "estimate",
    "adjust", "overrun", "split", "load_factor", "capacity", "drop_oversized", "predict_wait",
    "jobs_in_trace", "jobs_simulated", "left_out_no_run", "left_out_no_size", "dropped_oversized",
    "no_request", "no_estimate", "segments", "load_s", "simulate_s", "write_s", "created_at",
)


def sim_jobs_table(run_id: str, inp: Inputs, out: dict[str, np.ndarray]) -> pa.Table:
    """The sim_jobs rows of a run as an Arrow table (NULL where the loop said -1)."""
    n = inp.n
    months = pa.DictionaryArray.from_arrays(
        pa.array(inp.month_idx.astype(np.int32)), pa.array(inp.months, pa.string()))
    pred = out["predicted_start"]
    bound = out["first_bound"]
    return pa.table({
        "run_id": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([run_id])),
        "job_id": inp.job_id,
        "month": months,
        "submit": inp.submit,
        "run": inp.run,
        "nodes": inp.nodes,
        "req": inp.req,
        "est_wait": inp.est_wait,
        "est_run": inp.est_run,
        "start": out["start"],
        "end": out["start"] + inp.run,
        "wait": out["start"] - inp.submit,
        "backfilled": out["backfilled"].astype(np.bool_),
        "predicted_start": pa.array(pred, mask=pred < 0),
        "score": out["score"].astype(np.float64),
        "first_bound": pa.array(bound, mask=bound < 0),
    })


def run_exists(con, run_id: str) -> bool:
    return con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchone()[0] > 0


def delete_run(con, run_id: str) -> None:
    for table in ("run_metrics", "sim_jobs", "runs"):
        con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])


def write_run(con, row: dict, table: pa.Table) -> None:
    """Insert the run row, its jobs and its metrics (caller holds the transaction)."""
    cols = ", ".join(f'"{c}"' for c in RUN_COLUMNS)
    marks = ", ".join("?" for _ in RUN_COLUMNS)
    con.execute(f"INSERT INTO runs ({cols}) VALUES ({marks})", [row.get(c) for c in RUN_COLUMNS])
    con.register("new_sim_jobs", table)
    try:
        con.execute(sqlfiles.load("simulate_insert_jobs"))
    finally:
        con.unregister("new_sim_jobs")
    metrics.compute_run_metrics(con, row["run_id"])


def set_write_time(con, run_id: str, write_s: float) -> None:
    con.execute("UPDATE runs SET write_s = ? WHERE run_id = ?", [write_s, run_id])
