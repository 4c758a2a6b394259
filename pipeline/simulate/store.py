"""Writing a run: its jobs to ``parquet/sim_jobs/<run_id>.parquet`` (by the
process that ran the loop, see pipeline/sim_results.py), its metrics computed
beside the loop in NumPy, then its row in ``runs`` and its ``run_metrics``
rows in the DuckDB file (by the one writer, in its transaction).

Why arrays all the way: the loop's outputs become an Arrow table without
copying and go straight to Parquet; the writer only stores a few small rows.
"""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa

from .. import metrics, sim_results
from .inputs import Inputs

RUN_COLUMNS = (
    "run_id", "trace", "config", "code_version", "input_sha256", "policy", "backfill", "estimate",
    "adjust", "overrun", "split", "load_factor", "capacity", "drop_oversized", "predict_wait",
    "jobs_in_trace", "jobs_simulated", "left_out_no_run", "left_out_running", "held_running", "left_out_no_size", "dropped_oversized",
    "no_request", "no_estimate", "segments", "load_s", "simulate_s", "write_s", "created_at", "scheduler",
    "preempted_jobs", "preemptions",
)


def preemption_counts(out: dict) -> dict:
    """A Slurm replay with QOS preemption: the jobs it preempted and how many times (the ``runs`` columns);
    nothing for any other run (NULL: no preemption modelled)."""
    if "preemptions" not in out:
        return {}
    return {"preempted_jobs": int((out["preemptions"] > 0).sum()), "preemptions": int(out["preemptions"].sum())}


def sim_jobs_table(run_id: str, inp: Inputs, out: dict[str, np.ndarray]) -> pa.Table:
    """A run's jobs file as an Arrow table (NULL where the loop said -1); the
    sim_jobs view adds "end" and wait."""
    n = inp.n
    months = pa.DictionaryArray.from_arrays(
        pa.array(inp.month_idx.astype(np.int32)), pa.array(inp.months, pa.string()))
    pred = out["predicted_start"]
    bound = out["first_bound"]
    return pa.table({
        "run_id": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([run_id])),
        "job_id": inp.job_id,
        "month": months,
        "submit": out.get("release", inp.submit),  # --scheduler slurm with preemption: the replay's last release
        "run": out.get("ran", inp.run),  # ... and the run a CANCEL preemption cut short
        "nodes": out.get("nodes", inp.nodes),  # --scheduler slurm: the CPUs the replay's placement held
        "req": inp.req,
        "est_wait": out.get("est", inp.est_wait),  # --history simulated: the estimates the loop computed
        "est_run": out.get("est", inp.est_run),
        "start": out["start"],
        "backfilled": out["backfilled"].astype(np.bool_),
        "predicted_start": pa.array(pred, mask=pred < 0),
        "score": out["score"].astype(np.float64),
        "first_bound": pa.array(bound, mask=bound < 0),
        # --scheduler slurm with QOS preemption: how many times the replay preempted the job (NULL: not modelled)
        "preemptions": pa.array(out["preemptions"], pa.int64()) if "preemptions" in out else pa.nulls(n, pa.int64()),
    })


def finish_run(root, run_id: str, inp: Inputs, cfg, out: dict[str, np.ndarray], syncer=None):
    """In the process that ran the loop: write the run's jobs file and compute
    its metrics. Returns (run_metrics rows, seconds spent), and with
    ``syncer`` also the future of the file's fsync and rename
    (sim_results.write_run_file)."""
    t = time.perf_counter()
    written = sim_results.write_run_file(root, run_id, sim_jobs_table(run_id, inp, out), syncer=syncer)
    nodes = out.get("nodes", inp.nodes)  # --scheduler slurm: the CPUs its placement held
    submit, run = out.get("release", inp.submit), out.get("ran", inp.run)  # (as sim_jobs_table)
    weight = metrics.eq4_weight(cfg.policy, submit, out["start"], inp.req, nodes)
    rows = metrics.compute_metrics(
        submit, run, nodes, out["start"], out["backfilled"], out["predicted_start"],
        weight, inp.month_idx, inp.months, int(cfg.capacity), cfg.split == "month")
    if syncer is not None:
        return rows, time.perf_counter() - t, written
    return rows, time.perf_counter() - t


def run_exists(con, run_id: str) -> bool:
    return con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchone()[0] > 0


def delete_run(con, run_id: str) -> None:
    for table in ("run_metrics", "sim_jobs_legacy", "runs"):
        con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])


def write_run(con, row: dict, metric_rows: list[dict]) -> None:
    """Insert (or replace) the run row and its metrics (caller holds the
    transaction); the jobs file is already in place."""
    delete_run(con, row["run_id"])
    cols = ", ".join(f'"{c}"' for c in RUN_COLUMNS)
    marks = ", ".join("?" for _ in RUN_COLUMNS)
    con.execute(f"INSERT INTO runs ({cols}) VALUES ({marks})", [row.get(c) for c in RUN_COLUMNS])
    metrics.insert_metrics(con, row["run_id"], metric_rows)


def write_runs(con, rows: list[dict], metric_rows: dict[str, list[dict]]) -> None:
    """:func:`write_run` for many runs in a few statements (caller holds the
    transaction): a study commits its finished runs in batches. The rows go in
    as two Arrow tables (one ``INSERT ... SELECT`` each): binding every value
    as a statement parameter cost ~3 ms per run (0.31 s for 100 runs of
    CTC-SP2, in the coordinator, on a core the workers need; docs/speed.md, "Sweeps and studies")."""
    if not rows:
        return
    ids = [r["run_id"] for r in rows]
    for table in ("run_metrics", "sim_jobs_legacy", "runs"):
        con.execute(f"DELETE FROM {table} WHERE run_id IN (SELECT unnest(?::VARCHAR[]))", [ids])
    cols = ", ".join(f'"{c}"' for c in RUN_COLUMNS)
    runs_arrow = pa.table({c: pa.array([r.get(c) for r in rows]) for c in RUN_COLUMNS})
    con.register("_walltime_new_runs", runs_arrow)
    try:
        con.execute(f"INSERT INTO runs ({cols}) SELECT {cols} FROM _walltime_new_runs")
    finally:
        con.unregister("_walltime_new_runs")
    metrics.insert_metrics_many(con, [(r["run_id"], m) for r in rows for m in metric_rows[r["run_id"]]])
