"""One simulation as a self-contained task, so it can run in another process
or on a Dask worker.

A Dask worker reads its inputs from the warehouse's Parquet mirrors (a path
every worker sees) through an in-memory DuckDB with ``jobs`` and ``estimates``
views, using the same input SQL as ``walltime simulate``; local worker
processes get the coordinator's arrays with their tasks instead (cheaper than
a query each). No worker opens the warehouse database, which only the
coordinating process writes. It writes the run's jobs
itself (``parquet/sim_jobs/<run_id>.parquet``) and computes its metrics, so the
coordinator stores only a few rows per run. The input hash computed
by the coordinator travels with the task and is checked, so a worker that sees
different files fails instead of returning a wrong run.
"""

from __future__ import annotations

import json
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from ..simulate import input_hash, run_segments, store
from ..simulate.config import SimConfig
from ..simulate.transforms import scale_load

# Imported where used, not here: only a Dask worker reads its own inputs
# (DuckDB over the Parquet files; the estimates package with its Numba and
# Polars imports, ~0.4 s), and local workers start from a forkserver that
# imports this module before their first task can begin.


@dataclass(frozen=True)
class SimTask:
    root: str       # warehouse directory, as the workers see it
    trace: str
    config: str     # SimConfig.canonical()
    in_sha: str     # input hash the coordinator computed
    run_id: str
    templates: str = ""  # forecast_with smith:set=NAME: the set's text (workers do not read template_sets)
    release: str | None = None  # traces.release: a job is released at Eligible ('eligible') or Submit
    dump_end: int | None = None  # traces.dump_end: jobs running at the dump hold their CPUs until then

    @property
    def cfg(self) -> SimConfig:
        return SimConfig(**json.loads(self.config))


def release_of(con, trace: str) -> str | None:
    """The trace's release rule (``traces.release``), which workers cannot read: they see no database."""
    return trace_rules(con, trace)["release"]


def trace_rules(con, trace: str) -> dict:
    """What the input query reads of ``traces`` (SimTask's fields, for workers that see no database):
    the release rule and the dump's time (``traces.dump_end``)."""
    row = con.execute("SELECT release, dump_end FROM traces WHERE trace = ?", [trace]).fetchone()
    return {"release": row[0] if row else None, "dump_end": row[1] if row else None}


def parquet_connection(root: str | Path, trace: str, release: str | None = None, dump_end: int | None = None):
    """An in-memory DuckDB whose ``jobs``/``estimates`` views read the trace's
    Parquet files (its jobs files, pipeline/jobs_files.py; the estimates mirror),
    and a one-row ``traces`` with the release rule and the dump's time the input queries join."""
    import duckdb

    from ..jobs_files import committed_files

    base = Path(root) / "parquet"
    con = duckdb.connect(":memory:")
    con.execute("CREATE TABLE traces (trace VARCHAR, release VARCHAR, dump_end BIGINT)")
    con.execute("INSERT INTO traces VALUES (?, ?, ?)", [trace, release, dump_end])
    path = base / "estimates" / f"{trace}.parquet"
    if not path.exists():
        raise FileNotFoundError(f"{path}: Parquet mirror missing (workers read inputs from it)")
    for table, paths in (("jobs", committed_files(root, trace)), ("estimates", [path])):
        listed = ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths)
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet([{listed}])")
    return con


# Inputs this process loaded lately, by (warehouse, trace, input hash): runs that
# differ only in policy, backfill or overrun share them (tasks are sent in that order).
_recent: OrderedDict[tuple, object] = OrderedDict()
RECENT = 4


def _inputs(task: SimTask):
    key = (task.root, task.trace, task.in_sha)
    if key in _recent:
        _recent.move_to_end(key)
        return _recent[key]
    from ..estimates.templates import parse_set
    from ..simulate.inputs import load_inputs, with_forecast

    cfg = task.cfg
    from ..simulate.config import learned_in_loop

    if learned_in_loop(cfg):  # the models are trained from the warehouse's jobs, which the mirrors lack (tz)
        from ..errors import WalltimeError

        raise WalltimeError("--history simulated --estimate learned: runs on local workers only "
                            "(the coordinator trains the models), not --executor dask")
    if cfg.scheduler == "slurm":  # the configuration is in the warehouse's database, which workers never open
        from ..errors import WalltimeError

        raise WalltimeError("--scheduler slurm: runs on local workers only, not --executor dask")
    con = parquet_connection(task.root, task.trace, task.release, task.dump_end)
    try:
        inp = load_inputs(con, task.trace, cfg.estimate, cfg.capacity, cfg.drop_oversized, cfg.adjust,
                          cfg.partitions,  # (--partition: the partitions' jobs, as the coordinator read them)
                          rounding=cfg.est_rounding)
        if cfg.forecast_with is not None:
            inp = with_forecast(con, inp, task.trace, cfg.forecast_with, cfg.capacity, cfg.drop_oversized,
                                cfg.partitions, templates=parse_set(task.templates) if task.templates else None)
    finally:
        con.close()
    inp = scale_load(inp, cfg.load_factor)
    got = input_hash(task.trace, inp)
    if got != task.in_sha:
        raise RuntimeError(f"run {task.run_id}: the worker's inputs differ from the coordinator's "
                           f"({got[:12]} != {task.in_sha[:12]}); is {task.root} the same warehouse?")
    _recent[key] = inp
    while len(_recent) > RECENT:
        _recent.popitem(last=False)
    return inp


def compute(task: SimTask, inp=None, syncer=None) -> dict:
    """Run the event loop for ``task``, write the run's jobs file (visible once
    the coordinator commits the run) and return its metrics and timings.
    ``syncer``: see :func:`compute_chunk` (the result then holds the future
    of the file's fsync and rename under "written")."""
    t0, c0, began = time.perf_counter(), time.process_time(), time.time()
    cfg = task.cfg
    inp = _inputs(task) if inp is None else inp  # in-process: the coordinator's arrays
    t1, c1 = time.perf_counter(), time.process_time()
    out = run_segments(inp, cfg)
    t2, c2 = time.perf_counter(), time.process_time()
    done = store.finish_run(task.root, task.run_id, inp, cfg, out, syncer=syncer)
    res = {"run_id": task.run_id, "metrics": done[0], "load_s": t1 - t0, "simulate_s": t2 - t1,
           "write_s": done[1], "cpu_s": time.process_time() - c0, "loop_cpu_s": c2 - c1,
           "pid": os.getpid(), "began": began, "ended": time.time(), "counts": store.preemption_counts(out)}
    if syncer is not None:
        res["written"] = done[2]
    return res


def compute_chunk(tasks: list[SimTask], inp=None) -> list[dict]:
    """:func:`compute` for runs that share inputs (``inp``: the coordinator's
    arrays, else loaded once here; see executors.Dealer). Each run's file is
    fsynced and renamed by a thread while the next run's loop computes (the
    disk wait, ~3 ms per CTC-SP2 run, no longer idles the core); the results
    are returned only once every file has its final name, so the coordinator
    never commits a run whose file is not in place."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="walltime-fsync") as syncer:
        outs = [compute(t, inp, syncer) for t in tasks]
        for out in outs:
            out.pop("written").result()  # raises the write's error, if any
    return outs


def ready_loop(tasks: list[SimTask]) -> float | None:
    """Make the event loop's machine code ready once, here, before local workers
    start: the compiled-ahead module (pipeline/simulate/aot.py) is built now, or
    awaited if `walltime ingest` is building it, the user told on stderr, so
    that every worker loads it in milliseconds instead of each JIT-compiling
    the loop (26 CPU-s apiece in a fresh install). Without a C compiler the JIT
    compiles once here and the workers load Numba's cache. Returns seconds
    spent, None when no task runs the processor loop compiled ahead (node-aware
    runs and --forecast-with use their own JIT functions)."""
    if not any(not (c := t.cfg).nodes_aware and c.forecast_with is None for t in tasks):
        return None
    from ..simulate import warm_up

    return warm_up()
