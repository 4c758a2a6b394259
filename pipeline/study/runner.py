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
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb

from .. import derived
from ..characterize import compute as characterize_compute
from ..checks import check_regular
from ..errors import WalltimeError, os_message
from ..estimates import ensure_estimates
from ..ingest import ingest, reader
from ..report import build_report
from ..simulate.config import SimItem
from ..simulate.executors import Workers, default_workers, start_forkserver
from ..simulate.many import early_sender, plan_runs, run_and_commit
from ..warehouse import Warehouse, transaction
from .config import Study


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
            check_regular(self.path, "study log")  # never a device or FIFO (one may appear after the check at load)
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
                start_forkserver()  # its imports overlap the checks below
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
                data = reader.read_bytes(t.path)
            except reader.Truncated as e:
                raise WalltimeError(f"{t.path}: {e.why}") from None
            old = stored.get(t.name)
            if old and reader.same_content(old[0], data):  # (BLAKE3, or an old trace's SHA-256)
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
    """The study's runs through the one planner (simulate/many.plan_runs): steps and reused runs in
    the study's order; local workers start at the first input set to compute and get each set as it
    is prepared."""
    if not study.simulations:
        return
    items = study.simulations
    pools: list[Workers] = []
    send = None if dry_run else early_sender(len(items), executor, workers, pools)
    unknown = (lambda item: con is None or item.trace in changed or _estimate_missing(res, item)) if dry_run else None
    try:
        with _connection(wh, dry_run) as con:
            plan = plan_runs(con, wh.root, items, force, dry_run, unknown, send)
    except BaseException:
        for p in pools:
            p.close()
        raise
    res.steps.extend(Step("simulate", *step) for step in plan.steps)
    res.runs.extend(plan.reused)
    pool = pools[0] if pools else None
    if dry_run or not plan.tasks:
        if pool is not None:
            pool.close()
        return
    log(f"simulate: {len(plan.tasks)} runs on {executor}")  # runs sharing inputs back to back
    run_and_commit(wh, plan.tasks, plan.prepared, res.runs, log, executor, workers, scheduler, pool=pool)


def _estimate_missing(res, item: SimItem) -> bool:
    return any(s.stage == "estimate" and s.target == f"{item.trace} {item.config.estimate}" and s.action == "run"
               for s in res.steps)


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
