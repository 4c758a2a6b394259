"""`simulate --nodes-aware`: run the node-level loop and store its per-job node data.

Why a module of its own: the processor-count stage (kernel, store) stays as
it is; a node-aware run writes the usual sim_jobs file and runs/run_metrics rows plus
a `sim_nodes` file with one row per job (node set as ranges, T_node,
planned-set changes, pinning instant), written beside the jobs file before the
commit, and one `node_runs` row (node size, machine nodes, pinning interval)
in the run's transaction.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..errors import WalltimeError
from ._nodes import ranges_text, run_nodes
from .config import SimConfig
from .inputs import Inputs

BACKFILL_CODES = {"none": 0, "conservative": 2}
OVERRUN_CODES = {"request": 0, "double": 1, "tsafrir": 2}


def job_nodes(inp: Inputs, cfg: SimConfig) -> np.ndarray:
    """Nodes each job needs: ceil(processors / node size); one-line error if wider than the machine."""
    need = -(-inp.nodes // cfg.node_size)
    m = cfg.machine_nodes
    if m < 1:
        raise WalltimeError(f"--node-size {cfg.node_size}: larger than the machine ({cfg.capacity} processors)")
    if need.size and need.max() > m:
        j = int(np.argmax(need))
        raise WalltimeError(
            f"--node-size {cfg.node_size}: job {int(inp.job_id[j])} needs {int(need[j])} nodes of "
            f"{cfg.node_size} processors, the machine has {m}; choose a node size that divides the capacity")
    return np.ascontiguousarray(need, dtype=np.int64)


def run_kernel(inp: Inputs, cfg: SimConfig) -> dict:
    """The node-aware loop over ``inp``; outputs in the keys the stage stores."""
    if inp.n == 0:
        e = np.empty(0, np.int64)
        return {"start": e, "backfilled": np.zeros(0, np.bool_), "predicted_start": e, "score": np.zeros(0),
                "first_bound": e, "node_ranges": [], "t_node": e, "t_node_strict": e, "plan_changes": e,
                "pinned_at": e, "node_count": e}
    need = job_nodes(inp, cfg)
    pin = -1 if cfg.pin_interval is None else int(cfg.pin_interval)
    out = run_nodes(inp.submit, inp.run, need, inp.est_wait, inp.est_run, inp.req, cfg.machine_nodes,
                    BACKFILL_CODES[cfg.backfill], OVERRUN_CODES[cfg.overrun], pin)
    start = out["start"]
    # backfilled: started while a job ahead of it (earlier arrival) was still waiting
    ahead = np.maximum.accumulate(np.concatenate([[np.iinfo(np.int64).min], start[:-1]]))
    conservative = cfg.backfill == "conservative"
    return {
        "start": start,
        "backfilled": start < ahead,
        "predicted_start": out["first_plan"],
        "score": (start - inp.submit).astype(np.float64),
        "first_bound": out["first_plan"] if conservative else np.full(inp.n, -1, np.int64),
        "node_ranges": ranges_text(out),
        "t_node": out["t_node"],
        "t_node_strict": out["t_node_strict"],
        "plan_changes": out["changes"],
        "pinned_at": out["pinned_at"],
        "node_count": need,
    }


def sim_nodes_table(run_id: str, inp: Inputs, out: dict) -> pa.Table:
    """A node-aware run's per-job node data as an Arrow table (the run's sim_nodes file)."""
    pinned = out["pinned_at"]
    return pa.table({
        "run_id": pa.DictionaryArray.from_arrays(pa.array(np.zeros(inp.n, np.int32)), pa.array([run_id])),
        "job_id": inp.job_id,
        "node_count": out["node_count"],
        "node_ranges": pa.array(out["node_ranges"], pa.string()),
        "t_node": out["t_node"],
        "t_node_strict": out["t_node_strict"],
        "plan_changes": out["plan_changes"],
        "pinned_at": pa.array(pinned, mask=pinned < 0),
    })


def write_file(root, run_id: str, inp: Inputs, out: dict) -> None:
    """In the process that ran the loop, before the run commits: its sim_nodes file
    (parquet/sim_nodes/<run_id>.parquet, atomic; pipeline/sim_results.py)."""
    from .. import sim_results

    sim_results.write_run_file(root, run_id, sim_nodes_table(run_id, inp, out), "sim_nodes")


def write(con, run_id: str, cfg: SimConfig) -> None:
    """Insert the run's node_runs row (caller holds the transaction; the sim_nodes file is in place)."""
    con.execute("INSERT INTO node_runs VALUES (?, ?, ?, ?)",
                [run_id, cfg.node_size, cfg.machine_nodes, cfg.pin_interval])


def delete(con, run_id: str) -> None:
    for table in ("sim_nodes_legacy", "node_runs"):
        con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])


def node_metrics(con, run_id: str) -> dict:
    """T_node shares and plan changes of a stored node-aware run (sql/nodes_summary.sql)."""
    from .. import sqlfiles

    cur = con.execute(sqlfiles.load("nodes_summary"), [run_id])
    names = [d[0] for d in cur.description]
    return dict(zip(names, cur.fetchone()))


def summary_text(nm: dict) -> str:
    """One paragraph, every number from ``nm``."""
    pin = "no pinning" if nm["pin_interval"] is None else f"pinning {nm['pin_interval'] / 3600:g} h"
    med = nm["median_t_node_waiting"]
    med_txt = "no job waited" if med is None else f"the median over jobs that waited is {med / 60:,.1f} min"
    return (f"Node predictions ({nm['machine_nodes']:,} nodes of {nm['node_size']} processors, {pin}): "
            f"{nm['share_t_node_pos']:.1%} of {nm['jobs']:,} jobs had their final node set known before "
            f"they started (T_node > 0), {nm['share_t_node_10min']:.1%} at least 10 min ahead and "
            f"{nm['share_t_node_1h']:.1%} at least 1 h ahead; {med_txt}. A waiting job's planned node set "
            f"changed {nm['mean_plan_changes']:.2f} times on average; mean wait {nm['mean_wait'] / 3600:,.2f} h.")
