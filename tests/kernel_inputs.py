"""Real traces as kernel inputs: ingest into a warehouse, read the jobs table.

Applies the spec's input rules (unknown runtime or size dropped, req <= 0
-> max(run, 1)) and uses the request as the estimate, as the papers do.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline import sqlfiles
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse


def trace_arrays(path: Path, warehouse: Path, capacity: int | None = None) -> tuple[dict, int]:
    wh = Warehouse(warehouse)
    name = ingest([path], wh)[0].trace
    con = wh.reader()
    try:
        cols = con.execute(sqlfiles.load("simulate_kernel_jobs"), [name]).fetchnumpy()
        header_capacity = con.execute("SELECT capacity FROM traces WHERE trace = ?", [name]).fetchone()[0]
    finally:
        con.close()
    w = {k: np.ascontiguousarray(np.asarray(v), dtype=np.int64) for k, v in cols.items()}
    w["req"] = np.where(w["req"] <= 0, np.maximum(w["run"], 1), w["req"])
    w["est"] = w["req"]
    return w, int(capacity or header_capacity)


def kernel_args(w: dict, capacity: int, policy: int, backfill: int, overrun: int = 0, predict: bool = False,
                n: int | None = None) -> tuple:
    """Positional arguments of kernel.simulate (regular adjustment), optionally the first n jobs."""
    s = slice(0, n)
    return (w["submit"][s], w["job_id"][s], w["run"][s], w["nodes"][s], w["est"][s], w["est"][s], w["req"][s],
            capacity, policy, backfill, overrun, predict)


def trace_loader(tmp_path_factory, traces: dict):
    """key -> trace_arrays of traces[key] = (file name, capacity), each ingested once
    into its own warehouse on first use (for module-scoped fixtures)."""
    from conftest import trace_path

    loaded = {}

    def get(key):
        if key not in loaded:
            name, capacity = traces[key]
            loaded[key] = trace_arrays(trace_path(name), tmp_path_factory.mktemp(key) / "wh", capacity)
        return loaded[key]

    return get
