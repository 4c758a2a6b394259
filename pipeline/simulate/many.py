"""Many simulations at once: the runs not stored yet, prepared in this
process, computed in parallel (this process, local processes or a Dask
cluster: executors.py; one run as a task: tasks.py) and committed in batches.

A study (pipeline/study/runner.py) and the report's compute phase
(pipeline/report/compute.py) both run their simulations through this module,
so it sits below both. Each worker writes its run's jobs file; only this
process writes the DuckDB file, open only while a batch of runs commits.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import progress
from ..errors import WalltimeError
from ..estimates.templates import set_text
from ..warehouse import Warehouse, transaction
from . import check_scheme_fits, input_hash, make_run_id, resolve_capacity, run_row, store
from .config import SimItem, learned_in_loop
from .executors import Workers, default_workers, run_tasks
from .inputs import job_columns, load_inputs, no_runnable_message, trace_info, with_forecast, with_learned
from .partitions import partition_info
from .tasks import SimTask, trace_rules
from .transforms import scale_load


class _StoredRuns:
    """``run_id in stored``: the stored run ids read in one query when first
    asked, not one query per run (200 look-ups cost 0.5 s of a sweep's serial
    preparation). The caller holds the writer lock, so nothing is added meanwhile."""

    def __init__(self, con):
        self.con, self.ids = con, None

    def __contains__(self, run_id: str) -> bool:
        if self.ids is None:
            self.ids = set() if self.con is None else {r for (r,) in self.con.execute("SELECT run_id FROM runs").fetchall()}
        return run_id in self.ids


def _early_workers(executor: str, workers: int | None, most: int) -> Workers | None:
    """Local worker processes started now, when the first run to compute is
    known, so that their start-up overlaps the preparation of the other runs
    (None: the runs go in this process, or to Dask)."""
    if executor != "local":
        return None
    n = min(workers or default_workers(), most)
    return Workers(n, expected=most) if n > 1 else None


def _cost(t: SimTask) -> tuple:
    """Sort key, costliest first among runs sharing inputs: conservative
    backfilling, then wait forecasts, then no backfilling (its queue grows
    longest: CTC-SP2 at load factor 0.6, 1.2 s against 0.14 s with EASY),
    then the rest."""
    cfg = t.cfg
    return (cfg.backfill != "conservative", not cfg.predict_wait, cfg.backfill != "none")


def run_and_commit(wh, tasks: list[SimTask], prepared: dict, runs: list[dict], log, executor: str = "local",
                   workers: int | None = None, scheduler: str | None = None, label: str | None = None,
                   pool: Workers | None = None, beside=None) -> None:
    """Run ``tasks`` on the executor's workers (each writes its run's jobs
    file) and commit their catalogue rows in batches; ``prepared`` maps
    run_id -> (trace, cfg, inputs, input hash); a dict per finished run is
    appended to ``runs``. Used by `walltime run` and by the report.
    ``pool``: local workers already started. ``beside``: work for this
    process while worker processes compute (the report's Tang grid); the
    runs that finish meanwhile commit after it (in-process runs: before it)."""
    # the database is closed while the workers compute; each worker writes its
    # run's jobs file, and the runs' catalogue rows commit in batches (that makes
    # them visible): at most one short open of the database per COMMIT_EVERY_S
    with progress.bar() as bar:
        task_bar = bar.add_task(label or f"simulating {len(tasks)} runs", total=len(tasks)) if bar else None
        inputs = {run_id: p[2] for run_id, p in prepared.items()}
        pending: list[dict] = []
        every = commit_every_s()
        last, gap = time.monotonic(), every
        results = None
        try:
            results = run_tasks(tasks, executor, workers, scheduler, inputs, pool)  # sent to processes now
            if beside is not None:  # one live display at a time: its bars stay silent under ours
                with progress.silenced() if bar else contextlib.nullcontext():
                    beside()
            idle = getattr(results, "idle", lambda: False)
            for out in results:
                pending.append(out)
                # a worker with nothing left to do leaves a core free: commit on it now, so the
                # commit after the last result holds only that piece's runs
                if time.monotonic() - last >= gap or idle():
                    t = time.monotonic()
                    _commit_runs(wh, prepared, pending, runs, log, bar, task_bar)
                    last = time.monotonic()
                    # at most ~1/COMMIT_SHARE of the time in commits, however slow the machine
                    gap = every and max(every, COMMIT_SHARE * (last - t))
        finally:  # an interrupted run keeps the runs that finished
            with contextlib.suppress(Exception):  # stop the workers if we stopped early
                if results is None and pool is not None:
                    pool.close()
                elif (close := getattr(results, "close", None)) is not None:
                    close()
            _commit_runs(wh, prepared, pending, runs, log, bar, task_bar)


@dataclass
class RunPlan:
    """What to do for a list of simulations: one ``(label, action, reason)`` per item in their order
    (action ``run`` or ``skip``), the tasks to compute (costliest first within each input set), their
    inputs (``prepared``: run_id -> (trace, cfg, inputs, input hash)) and the stored runs reused."""
    steps: list[tuple[str, str, str]] = field(default_factory=list)
    tasks: list[SimTask] = field(default_factory=list)
    prepared: dict = field(default_factory=dict)
    reused: list[dict] = field(default_factory=list)


def plan_runs(con, wh_root, items: list[SimItem], force: bool = False, dry_run: bool = False,
              unknown=None, send=None) -> RunPlan:
    """The one decision "is this run stored, must it run" for every caller (a study, the report,
    evaluate, summary through ``simulate_many``): each item's config resolved against its trace,
    its inputs loaded once per input set (runs that differ only in policy, backfill or overrun share
    one), its run id (a hash of inputs, canonical config and code version) looked up among the
    stored runs; ``force``: run even when stored.

    ``unknown(item)``: True when the item's inputs are not known yet (a dry run over a trace whose
    new content is not ingested): a step "run: inputs change", nothing loaded. ``dry_run``: steps
    only, no task. ``send(group)``: called with each input set's tasks as soon as they are
    prepared, lowest load factor first (compressed arrivals make the slowest runs), so workers
    started early compute while the rest is prepared (``send(group, prepared)``: early_sender)."""
    plan = RunPlan()
    stored = _StoredRuns(con)
    cache: dict[tuple, object] = {}
    steps: list[tuple | None] = [None] * len(items)
    reused: dict[int, dict] = {}
    groups: dict[tuple, list[int]] = {}
    cfgs: dict[int, object] = {}
    for i, item in enumerate(items):
        if unknown is not None and unknown(item):
            steps[i] = (label(item), "run", "inputs change")
            continue
        cfgs[i] = _resolve(con, item, cache)
        groups.setdefault(_input_key(item.trace, cfgs[i]), []).append(i)
    releases: dict[str, dict] = {}  # traces.release by trace, for the workers (one query per trace)
    try:
        for key in sorted(groups, key=lambda k: k[-1]):
            group = []
            for i in groups[key]:
                item = items[i]
                cfg, inp, in_sha = _prepare(con, item, cache, cfgs[i])
                run_id = make_run_id(item.trace, cfg, in_sha)
                if run_id in stored and not force:
                    steps[i] = (label(item), "skip", f"stored as {run_id}")
                    reused[i] = {"run_id": run_id, "trace": item.trace, "config": cfg.canonical(), "reused": True}
                    continue
                steps[i] = (label(item), "run", "forced" if force else "not stored")
                if not dry_run and run_id not in plan.prepared:
                    plan.prepared[run_id] = (item.trace, cfg, inp, in_sha)
                    if item.trace not in releases:
                        releases[item.trace] = trace_rules(con, item.trace)
                    group.append(SimTask(str(Path(wh_root).resolve()), item.trace, cfg.canonical(), in_sha, run_id,
                                         set_text(inp.fc_templates) if inp.fc_templates else "",
                                         **releases[item.trace]))
            if not group:
                continue
            group.sort(key=_cost)
            plan.tasks.extend(group)
            if send is not None:
                send(group, plan.prepared)
    finally:
        plan.steps = [s for s in steps if s is not None]
        plan.reused = [reused[i] for i in sorted(reused)]
    return plan


def early_sender(items: int, executor: str, workers: int | None, pools: list):
    """A ``send`` for plan_runs: local workers started at the first input set to compute (kept in
    ``pools``; none for one worker or Dask), each set sent to them at once with its inputs."""
    def send(group: list[SimTask], prepared: dict) -> None:
        if not pools and (pool := _early_workers(executor, workers, items)):
            pools.append(pool)
        if pools:
            pools[0].send(group, prepared[group[0].run_id][2])
    return send


def simulate_many(wh: Warehouse, items: list[SimItem], workers: int | None = None, executor: str = "local",
                  scheduler: str | None = None, label: str | None = None, beside=None,
                  planned=None) -> list[dict]:
    """Run the simulations of ``items`` not stored yet (plan_runs), in parallel, as a study does
    (their estimate schemes must be stored): the report's compute phase, evaluate and summary use
    it. Returns one dict per run simulated (run_id, trace, config, simulate_s, cpu_s, loop_cpu_s).
    ``beside``: work for this process meanwhile (run_and_commit), run even when every
    simulation is stored. ``planned(plan)``: called with the RunPlan before its tasks run (the
    summary names the runs it computes from the plan's steps)."""
    pools: list[Workers] = []
    con = wh.reader()
    try:
        plan = plan_runs(con, wh.root, items, send=early_sender(len(items), executor, workers, pools))
    except BaseException:
        for p in pools:
            p.close()
        raise
    finally:
        con.close()
    pool = pools[0] if pools else None
    if planned is not None:
        try:
            planned(plan)
        except BaseException:
            if pool is not None:
                pool.close()
            raise
    if not plan.tasks:
        if pool is not None:
            pool.close()
        if beside is not None:
            beside()
        return []
    runs: list[dict] = []
    run_and_commit(wh, plan.tasks, plan.prepared, runs, lambda msg: None, executor, workers, scheduler, label,
                   pool=pool, beside=beside)
    return runs


# Below this many job-runs (jobs x simulations) a batch runs in this process: starting worker processes
# costs about a second, more than small batches take (CTC-SP2's summary, 4 x 77k job-runs: 6.7 s in
# this process, 7.1 s on two workers, on a loaded 2-core machine)
PARALLEL_MIN_JOB_RUNS = 1_000_000


def auto_workers(job_runs: int) -> int | None:
    """simulate_many's ``workers`` for a batch of ``job_runs`` (jobs x simulations): None (every core)
    when the batch pays for starting worker processes, else 1 (this process)."""
    return None if job_runs >= PARALLEL_MIN_JOB_RUNS else 1


COMMIT_EVERY_S = 1.0  # readers see a finished run this much later (or COMMIT_SHARE x a commit's time)
# A commit (open, insert, checkpoint on close: ~0.06 CPU-s) takes a core the workers need: at most
# 2% of the time, i.e. every ~3 s in a sweep of CTC-SP2 (at 5%: 10 commits of a 13 s sweep)
COMMIT_SHARE = 50


def commit_every_s() -> float:
    """Seconds between a study's commits of finished runs: WALLTIME_COMMIT_EVERY_S
    (0: after every run), default COMMIT_EVERY_S. Each commit is one short open
    of the database (docs/speed.md, "Sweeps and studies": what batching saves)."""
    import os

    try:
        return max(0.0, float(os.environ.get("WALLTIME_COMMIT_EVERY_S") or COMMIT_EVERY_S))
    except ValueError:
        return COMMIT_EVERY_S


def _commit_runs(wh, prepared, pending, runs, log, bar, task_bar) -> None:
    """Commit the catalogue rows of finished runs (their jobs files are in
    place) in one transaction of a few statements (store.write_runs); until
    then the files are invisible, and a kill leaves them to the next writer to
    delete (pipeline/sim_results.py)."""
    if not pending:
        return
    batch = list(pending)
    pending.clear()
    rows = []
    for out in batch:
        trace, cfg, inp, in_sha = prepared[out["run_id"]]
        timings = {"load_s": out["load_s"], "simulate_s": out["simulate_s"]}
        rows.append(run_row(trace, cfg, inp, in_sha, out["run_id"], timings, out["write_s"], out.get("counts")))
    with wh.writer(attach_results=False) as con, transaction(con):
        store.write_runs(con, rows, {out["run_id"]: out["metrics"] for out in batch})
    for out in batch:
        trace, cfg = prepared[out["run_id"]][:2]
        runs.append({"run_id": out["run_id"], "trace": trace, "config": cfg.canonical(),
                     "reused": False, "simulate_s": out["simulate_s"], "cpu_s": out.get("cpu_s"), "loop_cpu_s": out.get("loop_cpu_s"),
                     "load_s": out.get("load_s"), "pid": out.get("pid"),
                     "began": out.get("began"), "ended": out.get("ended")})
        log(f"simulate {trace} {out['run_id']}: {cfg.canonical()} ({out['simulate_s']:.2f} s)")
        if bar:
            bar.advance(task_bar)


def label(item: SimItem) -> str:
    """A run's name in a plan's steps: trace, policy/backfill/adjust, estimate and what differs from
    the defaults."""
    c = item.config
    extra = "".join(f" {k}={v}" for k, v in (("overrun", c.overrun), ("load_factor", c.load_factor),
                                             ("capacity", c.capacity)) if v not in ("request", 1.0, None))
    return f"{item.trace} {c.policy}/{c.backfill}/{c.adjust} {c.estimate}{extra}"


def _resolve(con, item: SimItem, cache: dict):
    """The item's config with the trace's capacity, checked against the trace
    (one ``trace_info`` query per trace, kept in ``cache``)."""
    if ("info", item.trace) not in cache:
        cache[("info", item.trace)] = trace_info(con, item.trace)
    info = cache[("info", item.trace)]
    if item.config.partitions:  # the partitions' jobs and size (as `walltime simulate --partition`)
        key = ("info", item.trace, item.config.partitions)
        if key not in cache:
            cache[key] = partition_info(con, info, item.config.partitions)
        info = cache[key]
        if info.runnable == 0:
            raise WalltimeError(no_runnable_message(item.trace, item.config.partitions))
    cfg = resolve_capacity(item.config, info)
    check_scheme_fits(cfg, info)
    return cfg


def _input_key(trace: str, cfg) -> tuple:
    """What a run's inputs depend on: runs with the same key share them."""
    return (trace, cfg.estimate, cfg.capacity, cfg.drop_oversized, cfg.adjust, cfg.partitions, cfg.forecast_with,
            cfg.est_rounding, cfg.load_factor)


def _prepare(con, item: SimItem, cache: dict, cfg=None):
    """Resolve the config (unless given, as :func:`_resolve` made it) and load
    (or reuse) the run's inputs; inputs are shared by the runs that differ only
    in policy, backfill or overrun, and read once for all load factors."""
    cfg = cfg or _resolve(con, item, cache)
    key = _input_key(item.trace, cfg)
    base = key[:-1]
    if key not in cache:
        if base not in cache:  # one estimate query per input set; each load factor scales it in NumPy
            jkey = ("jobs", item.trace, cfg.partitions)
            if jkey not in cache:  # the jobs themselves: one query for every scheme of the plan
                cache[jkey] = job_columns(con, item.trace, cfg.partitions)
            cache[base] = load_inputs(con, item.trace, cfg.estimate, cfg.capacity, cfg.drop_oversized, cfg.adjust,
                                      cfg.partitions, jobs=cache[jkey], rounding=cfg.est_rounding)
            if cfg.forecast_with is not None:
                cache[base] = with_forecast(con, cache[base], item.trace, cfg.forecast_with, cfg.capacity,
                                            cfg.drop_oversized, cfg.partitions, jobs=cache[jkey])
        inp = scale_load(cache[base], cfg.load_factor)
        cache[key] = (inp, input_hash(item.trace, inp))
    inp, in_sha = cache[key]
    if cfg.scheduler == "slurm":  # the Slurm model: the kept configuration and each job's request
        skey = (*key, "slurm")
        if skey not in cache:
            from dataclasses import replace

            from .slurm import replay

            with_s = replace(inp, slurm=replay.load(con, item.trace, inp.job_id))
            cache[skey] = (with_s, input_hash(item.trace, with_s))
        inp, in_sha = cache[skey]
    if learned_in_loop(cfg):  # the learned scheme's trees in the replay: its own input set (and hash)
        lkey = (*key, "learned")
        if lkey not in cache:
            with_l = with_learned(con, inp, item.trace, cfg)
            cache[lkey] = (with_l, input_hash(item.trace, with_l))
        inp, in_sha = cache[lkey]
    return cfg, inp, in_sha
