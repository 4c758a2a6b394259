"""Run a study: only the work whose inputs changed, safe under cron.

Order: ingest the traces (a changed file is re-ingested), characterize the ones
whose content is newer than their characterization, compute the estimate
schemes not stored for the current content, run the simulations whose run_id
(a hash of inputs + canonical config + code version) is not stored -- in
parallel, on local processes or a Dask cluster -- and render the report.
The whole study holds the warehouse's writer lock; every step commits on its
own, so a killed run keeps what finished and the next run picks up the rest.
The database itself is open for writing only while a step commits (the
simulations run with it closed), so `walltime sql` and `traces` keep working
during a long run. A dry run takes no lock, writes no log and creates nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb

from .. import derived, progress
from ..characterize import compute as characterize_compute
from ..errors import WalltimeError, os_message
from ..estimates import ensure_estimates
from ..ingest import ingest, reader
from ..report import build_report
from ..simulate import input_hash, make_run_id, resolve_capacity, check_scheme_fits, run_row, store
from ..estimates.templates import set_text
from ..simulate.inputs import load_inputs, trace_info, with_forecast
from ..simulate.transforms import scale_load
from ..warehouse import Warehouse, transaction
from .config import SimItem, Study
from .executors import Workers, default_workers, run_tasks, start_forkserver
from .tasks import SimTask


@dataclass
class Step:
    stage: str    # ingest, characterize, estimate, simulate, report
    target: str   # trace, trace + scheme, run config, report file
    action: str   # run, skip (dry run: would run / up to date), done
    why: str = ""


@dataclass
class StudyResult:
    study: str
    dry_run: bool
    steps: list[Step] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)
    report: str | None = None
    seconds: float = 0.0

    def as_dict(self) -> dict:
        d = asdict(self)
        d["counts"] = {a: sum(s.action == a for s in self.steps) for a in ("run", "skip")}
        return d


class _Log:
    """Timestamped lines to the study's log file (and nothing else).

    Lines wait in memory until there is somewhere to put them without
    creating anything a failed command should not leave: the default log
    (inside the warehouse) is written only once the warehouse exists; a dry
    run writes no log at all."""

    def __init__(self, path: Path | None, wh: Warehouse | None = None):
        self.path = path
        self.wh = wh
        self.pending: list[str] = []

    def __call__(self, msg: str) -> None:
        if not self.path:
            return
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.pending.append(f"{stamp} {msg}\n")
        if self.wh is not None and not self.wh.exists():
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a") as fh:
                fh.write("".join(self.pending))
        except OSError as e:
            why = os_message(OSError(e.errno, e.strerror))
            raise WalltimeError(f"{self.path}: cannot write the study log: {why}") from None
        self.pending.clear()


def run_study(study: Study, wh: Warehouse, force: bool = False, dry_run: bool = False,
              executor: str = "local", workers: int | None = None, scheduler: str | None = None) -> StudyResult:
    t0 = time.perf_counter()
    wh.check_root()
    log = _Log(None) if dry_run else (_Log(study.log) if study.log else
                                      _Log(wh.root / "logs" / f"{study.name}.log", wh))
    res = StudyResult(study.name, dry_run)
    log(f"start study {study.name} ({study.file})")
    # a dry run changes nothing: no lock file, no directory
    guard = contextlib.nullcontext() if dry_run else wh.lock()
    try:
        with guard:
            if not dry_run and executor == "local" and study.simulations and \
                    min(workers or study.workers or default_workers(), len(study.simulations)) > 1:
                start_forkserver()  # its imports overlap the checks below (issue 11)
            changed = _traces(study, wh, res, dry_run, log)
            stored = _stored(wh, dry_run)  # after ingest; characterizing does not change it
            _characterize(study, wh, res, dry_run, force, changed, stored, log)
            _estimates(study, wh, res, dry_run, changed, stored, log)
            _simulations(study, wh, res, dry_run, force, changed, log,
                         executor, workers or study.workers, scheduler)
            _report(study, wh, res, dry_run, force, log)
    except WalltimeError as e:
        with contextlib.suppress(WalltimeError):
            log(f"error: {e}")
        raise
    except BaseException as e:
        with contextlib.suppress(WalltimeError):
            log(f"failed: {type(e).__name__}: {e}")
        raise
    res.seconds = time.perf_counter() - t0
    log(f"end study {study.name}: {sum(s.action == 'run' for s in res.steps)} steps run, "
        f"{sum(s.action == 'skip' for s in res.steps)} up to date, {res.seconds:.1f} s")
    return res


@contextlib.contextmanager
def _connection(wh: Warehouse, dry_run: bool):
    """A read-only connection (the lock, held by a real run, has already
    migrated the schema), or None when there is no warehouse yet."""
    if not wh.exists():
        yield None
        return
    con = wh.reader()
    try:
        yield con
    finally:
        con.close()


def _stored(wh: Warehouse, dry_run: bool) -> dict[str, tuple]:
    """trace -> (sha256, characterize_stale, stored schemes) for every stored trace."""
    with _connection(wh, dry_run) as con:
        if con is None:
            return {}
        try:
            traces = con.execute("SELECT trace, sha256 FROM traces").fetchall()
            return {t: (sha, not derived.characterized(con, t), sorted(derived.stored_schemes(con, t)))
                    for t, sha in traces}
        except duckdb.CatalogException:  # dry run on a warehouse of an older schema
            return {}


def _traces(study, wh, res, dry_run, log) -> set[str]:
    """Ingest each trace; returns the names whose content is new or changed."""
    stored = _stored(wh, dry_run)
    changed = set()
    for t in study.traces:
        if dry_run:
            try:
                sha = hashlib.sha256(reader.read_bytes(t.path)).hexdigest()
            except reader.Truncated as e:
                raise WalltimeError(f"{t.path}: {e.why}") from None
            old = stored.get(t.name)
            if old and old[0] == sha:
                res.steps.append(Step("ingest", t.name, "skip", "same content"))
            else:
                res.steps.append(Step("ingest", t.name, "run", "new trace" if not old else "file changed"))
                changed.add(t.name)
            continue
        (r,) = ingest([t.path], wh, name=t.name, lenient=t.lenient, replace=True, options=t.options)
        if r.status == "unchanged" and r.same_as != t.name:
            raise WalltimeError(f'{study.file}: traces: {t.path} has the same content as trace "{r.same_as}" '
                                f'already in the warehouse; name it "{r.same_as}" in the study')
        action = "skip" if r.status == "unchanged" else "run"
        res.steps.append(Step("ingest", t.name, action, r.status))
        log(f"ingest {t.name}: {r.status} ({r.jobs} jobs)" if action == "run" else f"ingest {t.name}: unchanged")
        if action == "run":
            changed.add(t.name)
    return changed


def _characterize(study, wh, res, dry_run, force, changed, stored, log):
    for t in study.traces:
        stale = force or t.name in changed or stored.get(t.name, (None, True))[1]
        if not stale:
            res.steps.append(Step("characterize", t.name, "skip", "up to date"))
            continue
        res.steps.append(Step("characterize", t.name, "run", "content changed" if t.name in changed else "stale"))
        if not dry_run:
            with wh.writer() as con, transaction(con):
                characterize_compute(con, t.name)
            log(f"characterize {t.name}")


def _estimates(study, wh, res, dry_run, changed, stored, log):
    for t in study.traces:
        fresh = dry_run and t.name in changed  # not ingested yet: nothing stored for the new content
        have = set() if fresh else set(stored.get(t.name, (None, None, []))[2] or [])
        todo = [s for s in study.estimates[t.name] if s not in have]
        for s in study.estimates[t.name]:
            res.steps.append(Step("estimate", f"{t.name} {s}", "run" if s in todo else "skip",
                                  "not stored for this content" if s in todo else "stored"))
        if todo and not dry_run:
            ensure_estimates(wh, t.name, todo)
            log(f"estimate {t.name}: {len(todo)} schemes")


def _simulations(study, wh, res, dry_run, force, changed, log, executor, workers, scheduler):
    if not study.simulations:
        return
    tasks, prepared = [], {}
    cache: dict[tuple, object] = {}
    pools: list[Workers] = []
    try:
        with _connection(wh, dry_run) as con:
            _prepare_tasks(study, wh, res, dry_run, force, changed, con, cache, tasks, prepared,
                           executor, workers, pools)
    except BaseException:
        for p in pools:
            p.close()
        raise
    pool = pools[0] if pools else None
    if dry_run or not tasks:
        if pool is not None:
            pool.close()
        return
    log(f"simulate: {len(tasks)} runs on {executor}")  # runs sharing inputs back to back
    run_and_commit(wh, tasks, prepared, res.runs, log, executor, workers, scheduler, pool=pool)


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


def _prepare_tasks(study, wh, res, dry_run, force, changed, con, cache, tasks, prepared, executor, workers,
                   pools: list) -> None:
    """The study's runs not stored yet, as tasks, one input set after another
    (runs that differ only in policy, backfill or overrun share one). Local
    workers start (in ``pools``) as soon as the first run to compute is found,
    and each input set's runs are sent to them as soon as it is prepared
    (``Workers.send``), so the workers compute while the coordinator prepares
    the rest instead of waiting for all of it (issue 11). Steps and reused
    runs are recorded in the study's order."""
    stored = _StoredRuns(con)
    items = study.simulations
    steps: list[Step | None] = [None] * len(items)
    reused: dict[int, dict] = {}
    groups: dict[tuple, list[int]] = {}
    cfgs: dict[int, object] = {}  # resolved once, for the grouping and for _prepare
    for i, item in enumerate(items):
        if dry_run and (con is None or item.trace in changed or _estimate_missing(res, item)):
            steps[i] = Step("simulate", _label(item), "run", "inputs change")
            continue
        cfgs[i] = _resolve(con, item, cache)
        groups.setdefault(_input_key(item.trace, cfgs[i]), []).append(i)
    try:
        # lowest load factor first: compressed arrivals make long queues and slow loops (CTC-SP2:
        # a run at 0.6 took 5-20x one at 1.0), so the sweep's last pieces are short ones
        for key in sorted(groups, key=lambda k: k[-1]):
            members = groups[key]
            group = []
            for i in members:
                item = items[i]
                cfg, inp, in_sha = _prepare(con, item, cache, cfgs[i])
                run_id = make_run_id(item.trace, cfg, in_sha)
                if run_id in stored and not force:
                    steps[i] = Step("simulate", _label(item), "skip", f"stored as {run_id}")
                    reused[i] = {"run_id": run_id, "trace": item.trace, "config": cfg.canonical(), "reused": True}
                    continue
                steps[i] = Step("simulate", _label(item), "run", "forced" if force else "not stored")
                if not dry_run and run_id not in prepared:
                    prepared[run_id] = (item.trace, cfg, inp, in_sha)
                    group.append(SimTask(str(wh.root.resolve()), item.trace, cfg.canonical(), in_sha, run_id,
                                         set_text(inp.fc_templates) if inp.fc_templates else ""))
            if not group:
                continue
            group.sort(key=_cost)
            tasks.extend(group)
            if not pools and (pool := _early_workers(executor, workers, len(items))):
                pools.append(pool)
            if pools:
                pools[0].send(group, prepared[group[0].run_id][2])
    finally:
        res.steps.extend(s for s in steps if s is not None)
        res.runs.extend(reused[i] for i in sorted(reused))


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


def simulate_many(wh: Warehouse, items: list[SimItem], workers: int | None = None, executor: str = "local",
                  scheduler: str | None = None, label: str | None = None, beside=None) -> list[dict]:
    """Run the simulations of ``items`` not stored yet, in parallel, as a
    study does (their estimate schemes must be stored): the report's compute
    phase uses it. Tasks go longest first (conservative backfilling, then
    wait forecasts, then the rest; runs sharing inputs back to back), so the
    last worker to finish is not left with the longest run. Returns one dict
    per run simulated (run_id, trace, config, simulate_s, cpu_s, loop_cpu_s).
    ``beside``: work for this process meanwhile (run_and_commit), run even
    when every simulation is stored."""
    tasks, prepared, cache = [], {}, {}
    pool = None
    con = wh.reader()
    stored = _StoredRuns(con)
    try:
        for item in items:
            cfg, inp, in_sha = _prepare(con, item, cache)
            run_id = make_run_id(item.trace, cfg, in_sha)
            if run_id in prepared or run_id in stored:
                continue
            prepared[run_id] = (item.trace, cfg, inp, in_sha)
            tasks.append(SimTask(str(wh.root.resolve()), item.trace, cfg.canonical(), in_sha, run_id,
                                 set_text(inp.fc_templates) if inp.fc_templates else ""))
            if pool is None:
                pool = _early_workers(executor, workers, len(items))
    except BaseException:
        if pool is not None:
            pool.close()
        raise
    finally:
        con.close()
    cache.clear()  # the tasks' inputs are kept in `prepared`
    if not tasks:
        if pool is not None:
            pool.close()
        if beside is not None:
            beside()
        return []

    tasks.sort(key=lambda t: (*_cost(t), t.trace, t.in_sha))  # run_tasks makes the compiled loop ready once before workers start
    runs: list[dict] = []
    run_and_commit(wh, tasks, prepared, runs, lambda msg: None, executor, workers, scheduler, label,
                   pool=pool, beside=beside)
    return runs


COMMIT_EVERY_S = 1.0  # readers see a finished run this much later (or COMMIT_SHARE x a commit's time)
# A commit (open, insert, checkpoint on close: ~0.06 CPU-s) takes a core the workers need: at most
# 2% of the time, i.e. every ~3 s in a sweep of CTC-SP2 (at 5%: 10 commits of a 13 s sweep)
COMMIT_SHARE = 50


def commit_every_s() -> float:
    """Seconds between a study's commits of finished runs: WALLTIME_COMMIT_EVERY_S
    (0: after every run), default COMMIT_EVERY_S. Each commit is one short open
    of the database (docs/speed.md measures what batching saves)."""
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
        rows.append(run_row(trace, cfg, inp, in_sha, out["run_id"], timings, out["write_s"]))
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


def _label(item: SimItem) -> str:
    c = item.config
    extra = "".join(f" {k}={v}" for k, v in (("overrun", c.overrun), ("load_factor", c.load_factor),
                                             ("capacity", c.capacity)) if v not in ("request", 1.0, None))
    return f"{item.trace} {c.policy}/{c.backfill}/{c.adjust} {c.estimate}{extra}"


def _estimate_missing(res, item: SimItem) -> bool:
    return any(s.stage == "estimate" and s.target == f"{item.trace} {item.config.estimate}" and s.action == "run"
               for s in res.steps)


def _resolve(con, item: SimItem, cache: dict):
    """The item's config with the trace's capacity, checked against the trace
    (one ``trace_info`` query per trace, kept in ``cache``)."""
    if ("info", item.trace) not in cache:
        cache[("info", item.trace)] = trace_info(con, item.trace)
    info = cache[("info", item.trace)]
    cfg = resolve_capacity(item.config, info)
    check_scheme_fits(cfg, info)
    return cfg


def _input_key(trace: str, cfg) -> tuple:
    """What a run's inputs depend on: runs with the same key share them."""
    return (trace, cfg.estimate, cfg.capacity, cfg.drop_oversized, cfg.adjust, cfg.forecast_with, cfg.load_factor)


def _prepare(con, item: SimItem, cache: dict, cfg=None):
    """Resolve the config (unless given, as :func:`_resolve` made it) and load
    (or reuse) the run's inputs; inputs are shared by the runs that differ only
    in policy, backfill or overrun, and read once for all load factors."""
    cfg = cfg or _resolve(con, item, cache)
    key = _input_key(item.trace, cfg)
    base = key[:-1]
    if key not in cache:
        if base not in cache:  # one query per input set; each load factor scales it in NumPy
            cache[base] = load_inputs(con, item.trace, cfg.estimate, cfg.capacity, cfg.drop_oversized, cfg.adjust)
            if cfg.forecast_with is not None:
                cache[base] = with_forecast(con, cache[base], item.trace, cfg.forecast_with, cfg.capacity,
                                            cfg.drop_oversized)
        inp = scale_load(cache[base], cfg.load_factor)
        cache[key] = (inp, input_hash(item.trace, inp))
    inp, in_sha = cache[key]
    return cfg, inp, in_sha


def _report(study, wh, res, dry_run, force, log):
    if not study.report:
        return
    r = study.report
    out: Path = r["out"]
    anything = any(s.action == "run" for s in res.steps)
    if out.exists() and not anything and not force:
        res.steps.append(Step("report", str(out), "skip", "nothing changed"))
        res.report = str(out)
        return
    res.steps.append(Step("report", str(out), "run", "results changed" if anything else "missing"))
    if dry_run:  # the papers' experiments the report adds to the study's own runs
        from ..report.compute import describe

        traces = r["traces"] or [t.name for t in study.traces]
        for what in describe(wh, traces, r["sections"]):
            res.steps.append(Step("report", what, "run", "a paper experiment the report shows"))
    if not dry_run:
        build_report(wh, r["traces"], out, r["sections"], r["csv"], runs=[x["run_id"] for x in res.runs])
        res.report = str(out)
        log(f"report {out}")
