"""Simulate stage: replay a trace through a scheduler and store the run.

Library entry point :func:`simulate`; ``walltime simulate`` is a thin wrapper.
Order of work: validate the options against the trace (read-only, nothing
written on error), then under the writer lock: compute the estimate scheme if
missing (in memory, not stored yet), load the inputs as arrays (from a
read-only connection, or, when the scheme was just computed, inside a
transaction that holds it and is rolled back), hash them with the canonical
config into the run_id, reuse a stored run with that id or run the Numba
event loop (per month with --split month) with the database closed (readers
keep working), and store the new estimates and the run in ONE short
transaction: a kill at any moment leaves both or neither. The staged Parquet
mirror of the estimates follows the commit.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import derived, metrics, progress
from ..errors import WalltimeError
from . import store
from .config import SimConfig, make_config
from .inputs import Inputs, load_inputs, no_runnable_message, trace_info, with_forecast, with_learned
from .partitions import missing_capacity_message, partition_info
from .transforms import month_segments, scale_load

if TYPE_CHECKING:  # not at run time: a study's workers import this package and need no DuckDB
    from ..warehouse import Warehouse

__all__ = ["SimConfig", "make_config", "simulate", "RunResult", "run_kernel", "store_run", "code_version"]

# Schemes whose estimate is derived from the user's requested time: they make
# no sense on a trace without requested times.
REQUEST_SCHEMES = ("request", "factor", "tang", "klusacek")


@dataclass
class RunResult:
    run_id: str
    trace: str
    config: SimConfig
    reused: bool
    counts: dict
    metrics: dict
    months: list[dict]
    timings: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # --scheduler slurm: what the cluster model assumed or left out
    model: str | None = None  # --scheduler slurm: the replay in words (slurm/replay.py SlurmInputs.model)

    def as_dict(self) -> dict:
        doc = {
            "run_id": self.run_id,
            "trace": self.trace,
            "config": self.config.canonical(),
            "reused": self.reused,
            "counts": self.counts,
            "metrics": self.metrics,
        }
        if self.config.split == "month":
            doc["months"] = self.months
        doc["timings"] = self.timings
        if self.notes:
            doc["notes"] = self.notes
        return doc


@cache
def code_version() -> str:
    """walltime's version plus a hash of this stage's sources: a change to the
    loop or the input rules gives new run_ids."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("walltime")
    except PackageNotFoundError:
        v = "0"
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for p in sorted(here.rglob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return f"{v}+{h.hexdigest()[:10]}"


def input_hash(trace: str, inp: Inputs) -> str:
    h = hashlib.sha256(trace.encode())
    for name, arr in inp.arrays().items():
        h.update(name.encode())
        h.update(memoryview(np.ascontiguousarray(arr, dtype=np.int64)))  # the bytes, not a copy of them
    if inp.fc_run is not None:
        h.update(b"fc_run")
        h.update(memoryview(np.ascontiguousarray(inp.fc_run, dtype=np.int64)))
    if inp.fc_jobs is not None:  # running jobs re-predicted at each forecast instant
        h.update(b"conditional")
    if inp.learned is not None:  # the learned scheme's trees in the replay: its estimates are not in est_*
        h.update(b"learned")
        h.update(np.ascontiguousarray(inp.learned[3], dtype=np.int64).tobytes())  # each job's model
    if inp.slurm is not None:  # the Slurm-shaped replay: the configuration and each job's request
        h.update(b"slurm" + inp.slurm.digest.encode())
        for name, arr in inp.slurm.arrays.items():
            h.update(name.encode())
            h.update(np.ascontiguousarray(arr).tobytes())
    h.update("\n".join(inp.months).encode())
    return h.hexdigest()


def make_run_id(trace: str, cfg: SimConfig, in_sha: str) -> str:
    key = "\0".join((trace, cfg.canonical(), code_version(), in_sha))
    return hashlib.sha256(key.encode()).hexdigest()[:16]


COMPILE_S = 30  # CPU seconds of the first JIT compile (measured 29 s; 110 s wall with the 2 cores at load 8)
COMPILE_LEARN_S = 40  # the same for kernel.simulate_learn (measured 43 s of CPU at load 2, docs/speed.md, "Compiles")


def jit_cached(name: str = "simulate") -> bool:
    """True when Numba's on-disk cache holds the JIT-compiled loop ``kernel.<name>``."""
    from . import kernel

    try:
        return Path(getattr(kernel, name)._cache._cache_file._index_path).exists()
    except AttributeError:  # another Numba layout: assume compiled, say nothing
        return True


def compiled() -> bool:
    """True when the event loop's machine code is ready: the ahead-of-time
    module (pipeline/simulate/aot.py) or Numba's on-disk cache."""
    from . import aot

    return (aot.enabled() and aot.module_path().exists()) or jit_cached()


def _loop(name: str = "simulate"):
    """The event loop ``kernel.<name>`` (``simulate``, or ``simulate_learn`` for
    ave2 learned in the replay): the compiled-ahead module's when there is
    one, else Numba's JIT."""
    from . import aot

    fn = aot.load(name)
    if fn is not None:
        return fn
    from . import kernel

    return getattr(kernel, name)


def learns_ave2(cfg: SimConfig) -> bool:
    """Whether ``cfg`` runs ave2 learned in the replay (kernel.simulate_learn)."""
    return cfg.history == "simulated" and cfg.estimate.split(":", 1)[0] != "learned"


def warm_up(learn: bool = False) -> float:
    """Load (or build) the loop and run it on a one-job input; returns seconds.
    Kept out of simulate_s so that timing is the loop alone. ``learn``: the
    loop of ave2 learned in the replay (kernel.simulate_learn), else the plain
    one (kernel.simulate); both are in the one compiled-ahead module.

    The ahead-of-time module (pipeline/simulate/aot.py) when built. Else, when
    Numba's cache already holds the loop, that (and the module is built in the
    background for the next runs, said on stderr); else the module is built
    here, or awaited if `walltime ingest` started building it (said on
    stderr). Without a C compiler: the JIT, whose first compile is announced."""
    from . import aot

    name = "simulate_learn" if learn else "simulate"
    t = time.perf_counter()
    fn = aot.load(name)
    if fn is None and aot.enabled():
        if jit_cached(name):
            pid = None if aot.building() else aot.start_background()
            if pid is not None:
                progress.note(f"compiling the simulator ahead of time in the background (pid {pid}); "
                              "later runs start faster")
        else:
            fn = aot.ensure(note=progress.note, name=name)
    if fn is None:
        from . import kernel

        if not jit_cached(name):
            progress.note(f"compiling the simulator once: about {COMPILE_LEARN_S if learn else COMPILE_S} s on an "
                          "idle machine, longer under load; later runs reuse the compiled code")
        fn = getattr(kernel, name)
    one = np.ones(1, np.int64)
    if learn:  # submit, job_id, run, nodes, req, user; capacity, policy, backfill, overrun, predict
        fn(one * 0, one, one, one, one, one * 0, 1, 0, 1, 0, False)
    else:
        fn(one * 0, one, one, one, one, one, one, 1, 0, 0, 0, False)
    return time.perf_counter() - t


def run_kernel(inp: Inputs, cfg: SimConfig) -> dict[str, np.ndarray]:
    """Run the event loop over the jobs of ``inp`` (one segment, empty machine)."""
    if cfg.nodes_aware:
        from . import nodes

        return nodes.run_kernel(inp, cfg)
    if cfg.scheduler == "slurm":
        from .slurm import replay

        return replay.run(inp, inp.slurm, cfg.backfill != "none")
    from .aot import BACKFILLS, EASY_SJBF, OVERRUNS, POLICIES

    backfill = EASY_SJBF if cfg.backfill_order == "sjbf" else BACKFILLS[cfg.backfill]  # make_config: sjbf needs easy
    if cfg.history == "simulated" and cfg.estimate.split(":", 1)[0] == "learned":  # the trees in the loop
        from ._learned import learned_sim

        if inp.learned is None:
            raise ValueError("--history simulated: the inputs carry no learned models (inputs.with_learned)")
        start, backfilled, predicted, score, bound, est = learned_sim(
            inp.submit, inp.run, inp.nodes, inp.req, int(cfg.capacity), POLICIES[cfg.policy], backfill,
            OVERRUNS[cfg.overrun], *inp.learned)
        return {"start": start, "backfilled": backfilled, "predicted_start": predicted,
                "score": score, "first_bound": bound, "est": est}
    if cfg.history == "simulated":  # ave2 learned in the loop (compiled ahead when built, else the JIT)
        start, backfilled, predicted, score, bound, est = _loop("simulate_learn")(
            inp.submit, inp.job_id, inp.run, inp.nodes, inp.req, inp.user_index(), int(cfg.capacity),
            POLICIES[cfg.policy], backfill, OVERRUNS[cfg.overrun], bool(cfg.predict_wait))
        return {"start": start, "backfilled": backfilled, "predicted_start": predicted,
                "score": score, "first_bound": bound, "est": est}
    args = (inp.submit, inp.job_id, inp.run, inp.nodes, inp.est_wait, inp.est_run, inp.req,
            int(cfg.capacity), POLICIES[cfg.policy], backfill, OVERRUNS[cfg.overrun])
    if cfg.forecast_with is not None:  # the forecast on a predictor: Numba's JIT (not compiled ahead)
        if inp.fc_run is None:
            raise ValueError("--forecast-with: the inputs carry no forecast run times (inputs.with_forecast)")
        from . import kernel

        if inp.fc_jobs is not None:  # a predictor from history: running jobs re-predicted (conditional.py)
            from .conditional import forecast_inputs, loop_frame

            real = kernel.simulate(*args, False)[0]
            fc, table = forecast_inputs(loop_frame(inp), real, inp.fc_scheme, inp.fc_templates)
            start, backfilled, predicted, score, bound = kernel.simulate_forecast_running(*args, fc, *table.args())
        else:
            start, backfilled, predicted, score, bound = kernel.simulate_forecast(*args, inp.fc_run)
    else:
        start, backfilled, predicted, score, bound = _loop()(*args, bool(cfg.predict_wait))
    return {"start": start, "backfilled": backfilled, "predicted_start": predicted,
            "score": score, "first_bound": bound}


def run_segments(inp: Inputs, cfg: SimConfig, on_segment=None) -> dict[str, np.ndarray]:
    """The whole run: one loop, or one per month (each from an empty machine)."""
    if cfg.split != "month":
        out = run_kernel(inp, cfg)
        if on_segment:
            on_segment()
        return out
    n = inp.n
    out = {"start": np.empty(n, np.int64), "backfilled": np.zeros(n, np.bool_),
           "predicted_start": np.full(n, -1, np.int64), "score": np.zeros(n, np.float64),
           "first_bound": np.full(n, -1, np.int64)}
    for _, idx in month_segments(inp):
        part = run_kernel(inp.take(idx), cfg)
        for k, v in part.items():
            out[k][idx] = v
        if on_segment:
            on_segment()
    return out


def resolve_capacity(cfg: SimConfig, info) -> SimConfig:
    capacity = cfg.capacity if cfg.capacity is not None else info.capacity
    if capacity is None:
        raise WalltimeError(missing_capacity_message(info.trace, cfg.partitions))
    if info.max_nodes is not None and info.max_nodes > capacity and not cfg.drop_oversized:
        where = "--capacity" if cfg.capacity is not None else f'trace "{info.trace}" capacity'
        raise WalltimeError(
            f"{where} {capacity}: job {info.widest_job} needs {info.max_nodes} nodes; "
            "raise --capacity or pass --drop-oversized"
        )
    return cfg.with_capacity(capacity)


def check_scheme_fits(cfg: SimConfig, info) -> None:
    for option, scheme in (("--estimate", cfg.estimate), ("--forecast-with", cfg.forecast_with)):
        if scheme is None:
            continue
        name = scheme.split(":", 1)[0]
        if name in REQUEST_SCHEMES and info.with_request == 0:
            raise WalltimeError(
                f'{option} {scheme}: trace "{info.trace}" has no requested times, so this '
                "scheme does not apply to it; use actual or a history scheme"
            )


MAX_PIN = 1 << 40  # seconds (~35,000 years): the node loop adds it to int64 times


def check_nodes(cfg: SimConfig, info) -> None:
    """--nodes-aware's options against the machine and the trace's widest job,
    before any work (the inputs' own check, nodes.job_nodes, repeats it per job)."""
    if not cfg.nodes_aware:
        return
    if cfg.machine_nodes < 1:
        raise WalltimeError(f"--node-size {cfg.node_size}: larger than the machine ({cfg.capacity} processors)")
    widest = info.max_nodes if info.max_nodes is not None and info.max_nodes <= cfg.capacity else None
    if widest is not None and -(-widest // cfg.node_size) > cfg.machine_nodes:
        raise WalltimeError(
            f"--node-size {cfg.node_size}: job {info.widest_job} needs {-(-widest // cfg.node_size)} nodes of "
            f"{cfg.node_size} processors, the machine has {cfg.machine_nodes}; choose a node size that divides "
            "the capacity")
    if cfg.pin_interval is not None and cfg.pin_interval > MAX_PIN:
        raise WalltimeError(f"--pin-interval {cfg.pin_interval:,} s: at most {MAX_PIN:,} s")


def has_slurm_conf(wh: Warehouse, trace: str) -> bool:
    """Whether ``trace`` was ingested with its slurm.conf (trace_slurm_files): the Slurm model can replay it."""
    import duckdb

    con = wh.reader(attach_results=False)
    try:
        return con.execute("SELECT count(*) FROM trace_slurm_files WHERE trace = ? AND kind = 'slurm.conf'",
                           [trace]).fetchone()[0] > 0
    except duckdb.CatalogException:  # a warehouse from before migration 325 (read-only: not migrated yet)
        return False
    finally:
        con.close()


def estimates_stored(con, trace: str, scheme: str) -> bool:
    """Whether the (canonical) scheme's estimates are stored and current for the
    trace: the check of pipeline.estimates.ensure_estimates, without importing
    the estimators (Polars) when there is nothing to compute."""
    return scheme in derived.stored_schemes(con, trace)


def simulate(wh: Warehouse, trace: str, cfg: SimConfig, force: bool = False) -> RunResult:
    """Simulate ``trace`` under ``cfg`` and store the run (or reuse the stored one).

    ``force`` re-runs the loop even when the run is stored, replacing it (the
    results are identical: the loop is deterministic).
    """
    t0 = time.perf_counter()
    con = wh.reader(attach_results=False)  # no sim_jobs view: nothing here reads it
    try:
        info = trace_info(con, trace)
        if cfg.partitions:
            info = partition_info(con, info, cfg.partitions)
    finally:
        con.close()
    if info.runnable == 0:  # (before any estimate is computed and stored)
        raise WalltimeError(no_runnable_message(trace, cfg.partitions))
    cfg = resolve_capacity(cfg, info)
    check_scheme_fits(cfg, info)
    check_nodes(cfg, info)

    timings: dict[str, float] = {}
    with wh.lock():
        schemes_needed = [cfg.estimate] + ([cfg.forecast_with] if cfg.forecast_with else [])
        con = wh.reader(attach_results=False)  # no sim_jobs view: nothing here reads it
        try:
            work = None
            if not all(estimates_stored(con, trace, sch) for sch in schemes_needed):
                from ..estimates import compute_missing  # Polars and the estimators: only when needed

                work = compute_missing(con, trace, schemes_needed)  # computed, not stored yet
            else:
                inp, in_sha, run_id, reused = _inputs(con, trace, cfg, t0, timings)
        finally:
            con.close()
        if work is not None:
            # the inputs join the new estimates: read them inside a transaction that is rolled
            # back; the estimates are committed with the run, so a kill stores both or neither
            from ..estimates import insert_computed

            with wh.writer(attach_results=False) as con:
                con.execute("BEGIN TRANSACTION")
                try:
                    insert_computed(con, trace, work)
                    inp, in_sha, run_id, reused = _inputs(con, trace, cfg, t0, timings)
                finally:
                    con.execute("ROLLBACK")
        reused = reused and not force
        if not reused:
            # the database is closed while the loop runs and its jobs file is written
            out = _run_loop(trace, cfg, inp, timings)
            t2 = time.perf_counter()
            rows, _ = store.finish_run(wh.root, run_id, inp, cfg, out)
            if cfg.nodes_aware:
                from . import nodes

                nodes.write_file(wh.root, run_id, inp, out)
            write_s = time.perf_counter() - t2
        whole, months = _commit(wh, trace, cfg, inp, in_sha, run_id, timings, work,
                                None if reused else (rows, write_s, out))
    if reused:
        timings.update(simulate_s=0.0, write_s=0.0)
    notes = list(inp.slurm.notes) if inp.slurm is not None else []
    model = inp.slurm.model if inp.slurm is not None else None
    return RunResult(run_id, trace, cfg, reused, inp.counts, whole, months, timings, notes, model)


def _inputs(con, trace: str, cfg: SimConfig, t0: float, timings: dict) -> tuple:
    """(inputs, their hash, run_id, whether that run is stored), read through ``con``."""
    inp = load_inputs(con, trace, cfg.estimate, cfg.capacity, cfg.drop_oversized, cfg.adjust, cfg.partitions,
                      rounding=cfg.est_rounding)
    if cfg.forecast_with is not None:
        inp = with_forecast(con, inp, trace, cfg.forecast_with, cfg.capacity, cfg.drop_oversized, cfg.partitions)
    inp = with_learned(con, scale_load(inp, cfg.load_factor), trace, cfg)
    if cfg.scheduler == "slurm":
        from .slurm import replay

        inp.slurm = replay.load(con, trace, inp.job_id)
    if cfg.nodes_aware:  # a job needing more nodes than the machine has fails here, before the loop
        from .nodes import job_nodes

        job_nodes(inp, cfg)
    in_sha = input_hash(trace, inp)
    run_id = make_run_id(trace, cfg, in_sha)
    timings["load_s"] = time.perf_counter() - t0
    return inp, in_sha, run_id, store.run_exists(con, run_id)


def _commit(wh: Warehouse, trace: str, cfg: SimConfig, inp: Inputs, in_sha: str, run_id: str, timings: dict,
            work: tuple | None, ran: tuple | None) -> tuple[dict, list[dict]]:
    """ONE transaction: the estimates computed for this run (``work``) and the
    run's rows (``ran``: metric rows, write seconds, loop outputs; None when
    the stored run is reused); the estimates mirror is published after it.
    Returns the run's metrics as stored."""
    from ..warehouse import transaction  # here: study workers import this package and need no DuckDB

    if work is None and ran is None:  # the stored run, reused: nothing to write
        con = wh.reader(attach_results=False)
        try:
            return metrics.read_run_metrics(con, run_id)
        finally:
            con.close()
    staged: list[Path] = []
    try:
        with wh.writer(attach_results=False) as con:  # the view reads every run file's footer
            with transaction(con):
                if work is not None:
                    from ..estimates import insert_computed

                    insert_computed(con, trace, work)
                    staged += wh.stage_mirror(con, "estimates", trace)
                if ran is not None:
                    rows, write_s, out = ran
                    store_run(con, trace, cfg, inp, in_sha, run_id, rows, timings, write_s, out)
            stored = metrics.read_run_metrics(con, run_id)
    except BaseException:
        wh.discard(staged)
        raise
    wh.publish(staged)
    return stored


def _run_loop(trace: str, cfg: SimConfig, inp: Inputs, timings: dict) -> dict[str, np.ndarray]:
    """Run the loop (timed alone)."""
    timings["compile_s"] = warm_up(learns_ave2(cfg))
    segments = len(month_segments(inp)) if cfg.split == "month" else 1
    t1 = time.perf_counter()
    with progress.bar() as bar:
        task = bar.add_task(f"simulating {trace}", total=segments) if bar else None
        tick = (lambda: bar.advance(task)) if bar else None
        out = run_segments(inp, cfg, tick)
    timings["simulate_s"] = time.perf_counter() - t1
    return out


def store_run(con, trace: str, cfg: SimConfig, inp: Inputs, in_sha: str, run_id: str,
              metric_rows: list[dict], timings: dict, write_s: float, out: dict | None = None) -> None:
    """Write the runs row and run_metrics rows of a run whose jobs file is in
    place (inside the caller's transaction). ``walltime run`` and the report,
    whose loops run (and write their files) in other processes, store many at
    once with :func:`run_row` and ``store.write_runs``. ``out``, the loop's
    outputs, is needed for a node-aware run's node sets."""
    row = run_row(trace, cfg, inp, in_sha, run_id, timings, write_s, store.preemption_counts(out or {}))
    store.write_run(con, row, metric_rows)
    if cfg.nodes_aware:  # its sim_nodes file is in place (only `walltime simulate` runs node-aware)
        from . import nodes

        nodes.delete(con, run_id)
        nodes.write(con, run_id, cfg)


def run_row(trace: str, cfg: SimConfig, inp: Inputs, in_sha: str, run_id: str, timings: dict,
            write_s: float, counts: dict | None = None) -> dict:
    """A run's ``runs`` row (``timings`` gains the run's ``write_s``); ``counts``: what the loop counted
    (store.preemption_counts)."""
    t = time.perf_counter()
    segments = len(month_segments(inp)) if cfg.split == "month" else 1
    row = {
        "run_id": run_id, "trace": trace, "config": cfg.canonical(), "code_version": code_version(),
        "input_sha256": in_sha, **{k: getattr(cfg, k) for k in (
            "policy", "backfill", "estimate", "adjust", "overrun", "split", "load_factor",
            "capacity", "drop_oversized", "predict_wait", "scheduler")},
        **inp.counts, "segments": segments, "load_s": timings["load_s"],
        "simulate_s": timings["simulate_s"], "created_at": datetime.now(timezone.utc), **(counts or {}),
    }
    timings["write_s"] = write_s + (time.perf_counter() - t)
    row["write_s"] = timings["write_s"]
    return row
