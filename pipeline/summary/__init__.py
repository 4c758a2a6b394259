"""Summary stage: the three answers for one trace, on one screen.

1. How wrong are the users' requested times (R, CPU-hours asked for but
   not used, the owners who waste most)?
2. How much better can the system guess (the best of CANDIDATES by mean
   accuracy, its underestimation rate, the gain over the request)?
3. What does that do to the queue (mean/median wait and bounded slowdown
   under one scheduler with the requests, the best estimator regular and
   selective, and with exact runtimes; each change paired over periods with
   a bootstrap interval, compare.py)?

The recommendation weighs mean wait, mean bounded slowdown, underestimated
jobs and utilisation, picks on the site's objective (``OBJECTIVES``) and
names every metric that gets worse; who wins and who loses per user,
account and partition comes from the view summary_owner_change (migration
210). A trace too small to conclude (compare.too_small) gets the numbers
and no recommendation.

Whatever is missing is computed once under the writer lock and reused
afterwards: the estimates through the estimates stage, the simulations through
the planner of runs (simulate.many.simulate_many, which decides what is stored);
a warm summary only reads the warehouse. ``words.py`` turns the numbers into
sentences.
"""

from __future__ import annotations

import contextlib
import shlex
import time
from dataclasses import asdict, dataclass, field

from .. import derived, progress, schemes, sqlfiles
from ..errors import WalltimeError
from ..timed import require_times
from ..characterize import lost_attempts
from ..warehouse import Warehouse
from .compare import DEFAULT_OBJECTIVE, OBJECTIVES

# The system estimators the summary compares: (label, canonical spec). One list;
# a new estimator is one more line. "{key}" becomes the trace's Tang key
# (user_project_req, or user when the trace has no group ids).
CANDIDATES: list[tuple[str, str]] = [
    ("Tang p85, user+project+request, 30 days", "tang:floor=0.5,key={key},min=10,stat=p85,window=30d"),
    ("Klusacek last 5", "klusacek:last=5"),
    ("ave2, mean of the last two", "ave2"),
    ("Mu'alem & Feitelson mean + 1.5 sd", "feitelson:horizon=7d,sd=1.5"),
]
# The learned scheme (gradient-boosted trees trained walk-forward) is a
# candidate when this build has it; its spec is the one `walltime evaluate` tunes around.
# (Canonical, as every spec here: the stored accuracy rows are looked up by it.)
LEARNED = ("learned, gradient-boosted trees (median)", "learned:q=0.5")
if LEARNED[1].split(":", 1)[0] in schemes.SCHEMES:
    LEARNED = (LEARNED[0], schemes.canonical(LEARNED[1]))
    CANDIDATES.append(LEARNED)
REQUEST = ("the users' requests", "request")
# Why Mu'alem & Feitelson's predictor equals the request on a trace without executable ids: what
# the code does (pipeline/estimates/compute.py `_feitelson`, `_capped`), and where the paper differs
# (Section 4.4; docs/estimates.md). tests/test_feitelson_fallback_words.py checks it on a hand-made case.
FEITELSON_NO_EXE = (" (it predicts from the runs of the same executable, user and size that ended in the "
                    "past week, and this trace has no executable ids, so this implementation finds no such run "
                    "and gives every job its request; where a job has no such run, Mu'alem & Feitelson use "
                    "the mean + 1.5 sd of the whole workload's runs instead, not capped at the request)")
# Not a bound: with exact runtimes EASY can backfill less (no slack in the
# reservations), so an estimator can give shorter waits than exact runtimes.
EXACT = ("with exact runtimes", "actual")
TOP_OWNERS = 5
MIGRATION = 210  # sql/080_summary_views.sql and sql/210_summary_owner_change.sql: the views this stage reads
SPLITS = ("month", "none")


@dataclass(frozen=True)
class Options:
    """The scheduler and machine the third answer replays, and the objective."""

    policy: str = "fcfs"
    backfill: str = "easy"
    objective: str = DEFAULT_OBJECTIVE
    capacity: int | None = None          # None: the trace's (or its partitions') size
    partitions: tuple[str, ...] = ()
    split: str = "none"                  # "month": each month of submission simulated alone
    load_factor: float = 1.0

    def check(self) -> Options:
        from ..simulate.config import make_config

        if self.objective not in OBJECTIVES:
            raise WalltimeError(f"--objective {self.objective}: use one of {', '.join(OBJECTIVES)}")
        if self.split not in SPLITS:
            raise WalltimeError(f"--split {self.split}: use month or none")
        make_config(policy=self.policy, backfill=self.backfill, split=self.sim_split,
                    load_factor=self.load_factor, capacity=self.capacity,
                    partitions=self.partitions)  # one-line errors for bad options
        return Options(**{**asdict(self), "partitions": tuple(sorted(set(self.partitions)))})

    @property
    def sim_split(self) -> str | None:
        return None if self.split == "none" else self.split

    def flags(self) -> str:
        """The options as command-line flags, defaults left out (for suggested commands)."""
        out = []
        if self.policy != "fcfs":
            out.append(f"--policy {self.policy}")
        if self.backfill != "easy":
            out.append(f"--backfill {self.backfill}")
        out += [f"--partition {shlex.quote(p)}" for p in self.partitions]
        if self.split != "none":
            out.append(f"--split {self.split}")
        if self.load_factor != 1.0:
            out.append(f"--load-factor {self.load_factor:g}")
        if self.objective != DEFAULT_OBJECTIVE:
            out.append(f"--objective {self.objective}")
        return " ".join(out)


@dataclass
class QueueRow:
    label: str
    estimate: str
    adjust: str
    run_id: str | None = None
    mean_wait_h: float | None = None
    median_wait_h: float | None = None
    mean_bsld: float | None = None
    utilisation: float | None = None  # share of the machine busy (run_metrics.utilization)
    no_request: int | None = None    # jobs without a time limit, replayed with their own run as request
    jobs_in_trace: int | None = None
    jobs_simulated: int | None = None
    held_running: int | None = None  # running at the dump: replayed holding their CPUs until it
    change_pct: float | None = None  # mean wait vs the requests' run
    changes: dict = field(default_factory=dict)  # metric -> compare.Change (as a dict) vs the requests


@dataclass
class Summary:
    trace: str
    jobs: int
    policy: str
    backfill: str
    capacity: int | None
    first: str | None
    last: str | None                     # first and last submission dates, in the trace's zone (tz)
    wrong: dict | None = None            # None: the trace has no requested times
    owners: dict = field(default_factory=dict)  # kind -> top owners by unused CPU-hours
    hours_unit: str = "CPU-hours"        # CPUs x time: "processor-hours" for SWF traces (their unit)
    gpus: list[dict] = field(default_factory=list)  # GPU-hours requested and used per partition (summary_gpu_partitions)
    estimators: list[dict] = field(default_factory=list)  # accuracy rows, best first
    best: dict | None = None
    request: dict | None = None          # accuracy of the requests
    queue: list[QueueRow] = field(default_factory=list)
    objective: str = DEFAULT_OBJECTIVE
    options: dict = field(default_factory=dict)   # Options as given (capacity, partitions, split, ...)
    left_out: list[dict] = field(default_factory=list)  # candidates that are the request in disguise, with why
    period: str | None = None            # month / week / day: the periods of the paired comparison
    periods: int | None = None
    too_small: str | None = None         # why the trace is too small to conclude (None: it is not)
    no_machine: str | None = None        # the command that gives a machine size, when none is known
    recommendation: dict = field(default_factory=dict)
    winners: dict = field(default_factory=dict)   # label, kind -> {gain: [...], loss: [...]}
    tz: str | None = None                # the trace's time zone, in which first and last are dates
    notes: list[str] = field(default_factory=list)
    lost: dict | None = None             # CPU-hours of requeued jobs' earlier attempts (characterize.lost_attempts)
    cut_short: dict | None = None        # runs cut short, left out of R and accuracy (summary_cut_short)
    same_jobs: dict | None = None        # the best estimator and the requests on the jobs both score
    calibration: dict | None = None      # the requests' replay beside the log (run_calibration, pipeline/calibration.py)
    scheduler: str = "queue"             # the replays' model: "slurm" for a trace kept with its slurm.conf
    slurm_calibration: dict | None = None  # (kept for old --json readers: the Slurm runs are now the queue's own)
    computed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        doc = asdict(self)
        from .words import sentences

        doc["text"] = sentences(self)
        return doc


def summarize(wh: Warehouse, trace: str, policy: str = "fcfs", backfill: str = "easy",
              say=None, opts: Options | None = None) -> Summary:
    """The three answers for ``trace`` under ``policy`` + ``backfill`` (or the
    whole ``opts``); computes missing estimates and simulations first (``say``
    gets one line per step)."""
    t0 = time.perf_counter()
    opts = (opts or Options(policy=policy, backfill=backfill)).check()
    computed = ensure(wh, trace, opts=opts, say=say)
    con = wh.reader()
    try:
        s = read(con, trace, opts=opts)
    finally:
        _close(con)
    s.computed = computed
    s.seconds = round(time.perf_counter() - t0, 2)
    return s


def _opts(policy: str, backfill: str, opts: Options | None) -> Options:
    return opts or Options(policy=policy, backfill=backfill)


def ensure(wh: Warehouse, trace: str, policy: str = "fcfs", backfill: str = "easy", say=None,
           opts: Options | None = None) -> list[str]:
    """Compute what the summary needs and is not stored; returns the steps done."""
    opts = _opts(policy, backfill, opts)
    if not wh.exists():
        wh.reader()  # the one-line "no warehouse here yet" error, creating nothing
    con = wh.reader()
    try:
        require_times(con, trace, "summary")
        require_runnable(con, trace)
    finally:
        con.close()
    return [] if _complete(wh, trace, opts) else _compute(wh, trace, opts, say)


def require_runnable(con, trace: str) -> None:
    """Refuse, before any estimate is stored, a trace with jobs of which none
    can be simulated (no run time or no size in each: an SWF of -1s)."""
    from ..simulate.inputs import no_runnable_message

    runnable, jobs = con.execute("SELECT count(*) FILTER (run >= 0 AND nodes > 0), count(*) FROM jobs WHERE trace = ?",
                                 [trace]).fetchone()
    if jobs and not runnable:
        raise WalltimeError(no_runnable_message(trace))


def pending_runs(wh: Warehouse, trace: str, policy: str = "fcfs", backfill: str = "easy",
                 opts: Options | None = None) -> tuple[list[str], list]:
    """For a caller that runs simulations in a batch (the report): compute the
    summary's missing estimates here, and return (steps done, [(description,
    config)] of the simulations still missing)."""
    from ..estimates import ensure_estimates

    opts = _opts(policy, backfill, opts)
    with wh.lock():
        with wh.writer() as con:  # brings the schema (and the summary views) up to date
            require_runnable(con, trace)
            missing = _missing_estimates(con, trace)
            _close_memo(con)
        done = []
        if missing:
            ensure_estimates(wh, trace, missing)
            done.append(f"estimates ({len(missing)} schemes)")
        con = wh.reader()
        try:
            more = _run_schemes_missing(con, trace, _queue_items(con, trace, opts))
        finally:
            _close(con)
        if more:  # (not a step of its own: a simulation stores them)
            ensure_estimates(wh, trace, more)
        con = wh.reader()
        try:
            return done, _missing_runs(con, wh.root, trace, opts)
        finally:
            _close(con)


def _close_memo(con) -> None:
    _FIELDS.pop(id(con), None)


# -- what is needed ------------------------------------------------------------

def _fields(con, trace: str) -> dict:
    """The trace's row of report_trace_fields, plus the simulator's trace_info
    ("info"); read once per connection and trace (they depend on the jobs only)."""
    memo = _FIELDS.setdefault(id(con), {})
    if memo.get("con") is not con:  # a new connection that reuses an old id
        memo.clear()
        memo["con"] = con
    if trace not in memo:
        from ..simulate.inputs import trace_info

        cur = con.execute("SELECT * FROM report_trace_fields WHERE trace = ?", [trace])
        row = cur.fetchone()
        if row is None:
            raise WalltimeError(f'trace "{trace}" is not in the warehouse; `walltime traces` lists them')
        memo[trace] = {**dict(zip([d[0] for d in cur.description], row)), "info": trace_info(con, trace)}
    return memo[trace]


_FIELDS: dict[int, dict] = {}


def _close(con) -> None:
    _FIELDS.pop(id(con), None)
    con.close()


def _schemes(fields: dict) -> list[tuple[str, str]]:
    """(label, spec) of the request and every candidate that fits the trace."""
    out = [REQUEST] if fields["has_request"] else []
    for label, spec in CANDIDATES:
        name = spec.split(":", 1)[0]
        if name in ("tang", "klusacek") and not fields["has_request"]:
            continue
        if "{key}" in spec and fields["tang_key"] != "user_project_req":
            label = label.replace("user+project+request", "user")
        out.append((label, spec.replace("{key}", fields["tang_key"])))
    return out


def _machine(con, trace: str, fields: dict, opts: Options):
    """(trace info narrowed to the partitions, capacity or None when no size is known)."""
    info = fields["info"]
    if opts.partitions:
        key = ("partitions", opts.partitions)
        if key not in fields:
            from ..simulate.partitions import partition_info

            fields[key] = partition_info(con, info, opts.partitions)
        info = fields[key]
    return info, (opts.capacity if opts.capacity is not None else info.capacity)


def _config(con, trace: str, fields: dict, opts: Options, estimate: str, adjust: str, slurm: bool = False):
    """The resolved simulation config (the oversized-job rule as the report's:
    jobs wider than the machine are left out)."""
    from ..simulate import resolve_capacity
    from ..simulate.config import make_config

    info, cap = _machine(con, trace, fields, opts)
    drop = bool(cap is not None and info.max_nodes is not None and info.max_nodes > cap)
    if slurm:  # the site's Slurm modelled (_slurm_applies), the estimate as the time limit
        return resolve_capacity(make_config(scheduler="slurm", backfill=opts.backfill, estimate=estimate,
                                            adjust=adjust), info)
    cfg = make_config(policy=opts.policy, backfill=opts.backfill, estimate=estimate, adjust=adjust,
                      drop_oversized=drop, split=opts.sim_split, load_factor=opts.load_factor,
                      capacity=opts.capacity, partitions=opts.partitions)
    return resolve_capacity(cfg, info)


def _stored_run(con, trace: str, cfg) -> str | None:
    from ..simulate import code_version

    return derived.stored_run(con, trace, cfg.canonical(), code_version())


def _has_views(con) -> bool:
    try:
        return con.execute("SELECT count(*) FROM schema_migrations WHERE version = ?", [MIGRATION]).fetchone()[0] > 0
    except Exception:  # a warehouse older than schema_migrations
        return False


def _missing_estimates(con, trace: str) -> list[str]:
    fields = _fields(con, trace)
    stored = derived.stored_schemes(con, trace)
    return [spec for _, spec in _schemes(fields) if spec not in stored]


def _queue_items(con, trace: str, opts: Options) -> list[tuple[str, object]]:
    """(description, SimItem) of every simulation the third answer compares, in the order of
    _queue_plan (none when no machine size is known; the estimates must be stored)."""
    from ..simulate.config import SimItem

    fields = _fields(con, trace)
    if _machine(con, trace, fields, opts)[1] is None:
        return []
    slurm = _slurm_applies(con, trace, fields, opts)
    how = "the site's Slurm (its slurm.conf)" if slurm else f"{opts.policy} + {opts.backfill}"
    return [(f"simulate {how} {label if label == EXACT[0] else 'with ' + label}",
             SimItem(trace, _config(con, trace, fields, opts, estimate, adjust, slurm)))
            for label, estimate, adjust in _queue_plan(fields, _best_spec(con, trace), slurm)]


def _run_schemes_missing(con, trace: str, items: list[tuple[str, object]]) -> list[str]:
    """The estimate schemes the runs of ``items`` replay that are not stored: the planner reads stored
    estimates, but for ``actual`` (exact runtimes), which it reads from the jobs (simulate.inputs.actual_column)."""
    from ..simulate.inputs import ACTUAL

    stored = derived.stored_schemes(con, trace)
    return sorted({item.config.estimate for _, item in items} - set(stored) - {ACTUAL})


def _to_run(items: list[tuple[str, object]], plan) -> list[tuple[str, object]]:
    """The (description, SimItem) of ``items`` that the planner's ``plan`` (simulate.many.plan_runs)
    runs: not stored yet."""
    return [it for it, (_, action, _) in zip(items, plan.steps) if action == "run"]


def _missing_runs(con, root, trace: str, opts: Options) -> list[tuple[str, object]]:
    """(description, config) of the simulations not stored yet, as the planner decides (a dry run
    of simulate.many.plan_runs: the estimates must be stored), once one that read() shows is not."""
    from ..simulate.many import plan_runs

    items = _queue_items(con, trace, opts)
    if all(_stored_run(con, trace, item.config) for _, item in items):
        return []  # every run read() shows is stored: nothing to plan (a warm summary loads no inputs)
    plan = plan_runs(con, root, [item for _, item in items], dry_run=True)
    return [(what, item.config) for what, item in _to_run(items, plan)]


def _slurm_applies(con, trace: str, fields: dict, opts: Options) -> bool:
    """Whether the third answer replays the site's Slurm: a trace ingested with its slurm.conf, with requests,
    and options the model takes (FCFS order, EASY backfill, the whole machine, no split, arrivals as logged).
    Every what-if then runs in that model, its estimate as the job's time limit (docs/slurm-replay.md)."""
    from ..simulate.config import auto_scheduler

    import duckdb

    try:
        kept = con.execute("SELECT count(*) FROM trace_slurm_files WHERE trace = ? AND kind = 'slurm.conf'",
                           [trace]).fetchone()[0] > 0
    except duckdb.CatalogException:  # a warehouse from before migration 325, read before it is brought up
        kept = False
    return bool(fields["has_request"] and opts.load_factor == 1.0 and auto_scheduler(
        kept, opts.policy, opts.backfill, split=opts.sim_split, capacity=opts.capacity,
        partitions=opts.partitions) == "slurm")


def _complete(wh: Warehouse, trace: str, opts: Options) -> bool:
    """True when everything the summary shows is stored (a read-only check). A run not stored under
    its config is left to _compute's planner, which decides and runs in one pass: planning here too
    would read every run's inputs twice (the jobs and estimates of a 11M-job trace: tens of seconds)."""
    con = wh.reader()
    try:
        if not _has_views(con) or _missing_estimates(con, trace):
            return False
        items = _queue_items(con, trace, opts)
        return all(_stored_run(con, trace, item.config) for _, item in items)
    finally:
        _close(con)


def _queue_plan(fields: dict, best: tuple[str, str] | None, slurm: bool = False) -> list[tuple[str, str, str]]:
    """(label, estimate, adjust) of the runs the third answer compares. In the Slurm model a job has one time
    limit, so there is no selective run (the request once a job runs would be the request throughout)."""
    plan = [(REQUEST[0], REQUEST[1], "regular")] if fields["has_request"] else []
    if best is not None:
        plan.append((f"{best[0]}, regular", best[1], "regular"))
        if fields["has_request"] and not slurm:  # selective: the request once a job runs
            plan.append((f"{best[0]}, selective", best[1], "selective"))
    plan.append((EXACT[0], EXACT[1], "regular"))
    return plan


def _compute(wh: Warehouse, trace: str, opts: Options, say) -> list[str]:
    """Estimates first (the best one decides the runs), then the simulations through the planner
    (simulate.many.simulate_many: the runs not stored, on worker processes when they pay,
    committed as they finish); one progress bar of steps on stderr."""
    from ..estimates import ensure_estimates
    from ..simulate.many import auto_workers, simulate_many

    done = []
    with wh.lock(), progress.bar() as bar:
        with wh.writer() as con:  # brings the schema (and the summary views) up to date
            missing = _missing_estimates(con, trace)
            _close_memo(con)
        task = bar.add_task("summary", total=1 + 1) if bar else None

        def step(what, action):
            if bar:
                bar.update(task, description=f"summary: {what}")
            elif say:
                say(f"summary: {what}")
            with progress.silenced() if bar else contextlib.nullcontext():
                action()
            if bar:
                bar.advance(task)

        if missing:
            what = f"estimates ({len(missing)} schemes)"
            step(what, lambda: ensure_estimates(wh, trace, missing))
            done.append(what)
        elif bar:
            bar.advance(task)
        con = wh.reader()
        try:
            items = _queue_items(con, trace, opts)
            jobs = _fields(con, trace)["jobs"]
            more = _run_schemes_missing(con, trace, items)
        finally:
            _close(con)
        runs: list[str] = []

        def planned(plan):
            runs.extend(what for what, _ in _to_run(items, plan))
            if not bar and say:
                for what in runs:
                    say(f"summary: {what}")

        if items:
            workers = auto_workers(jobs * len(items))
            if bar:
                bar.update(task, description=f"summary: simulate ({len(items)} runs, those not stored)")
            with progress.silenced() if bar else contextlib.nullcontext():
                if more:  # the runs' own schemes (exact runtimes): stored as a simulation stores them
                    ensure_estimates(wh, trace, more)
                simulate_many(wh, [item for _, item in items], workers, planned=planned,
                              label=f"summary {trace}: simulations")
        done += runs
        if bar:
            bar.advance(task)
    return done


# -- reading the answers -------------------------------------------------------

def _rows(con, sql: str, params: list) -> list[dict]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _accuracy(con, trace: str, fields: dict) -> list[dict]:
    out = []
    for label, spec in _schemes(fields):
        rows = _rows(con, "SELECT acc_mean, acc_median, under_rate, na, scored FROM estimate_accuracy "
                          "WHERE trace = ? AND scheme = ?", [trace, spec])
        if rows:
            out.append({"label": label, "scheme": spec, **rows[0]})
    return out


def _is_request(a: dict) -> bool:
    """A candidate whose estimate equals the request on every scored job (na = 1)."""
    return a["scheme"] != REQUEST[1] and a["scored"] > 0 and a["na"] is not None and a["na"] >= 1.0


def _competitors(con, trace: str, fields: dict) -> tuple[list[dict], list[dict]]:
    """(candidates that compete, best first; candidates left out, each with ``why``)."""
    acc = [a for a in _accuracy(con, trace, fields) if a["scheme"] != REQUEST[1] and a["acc_mean"] is not None]
    out, left = [], []
    for a in acc:
        if fields["has_request"] and _is_request(a):
            why = "its estimate equals the request on every job"
            if a["scheme"].startswith("feitelson") and not fields["has_exe"]:
                why += FEITELSON_NO_EXE
            left.append({**a, "why": why})
        else:
            out.append(a)
    return sorted(out, key=lambda a: -a["acc_mean"]), left


def _best_spec(con, trace: str) -> tuple[str, str] | None:
    cands, _ = _competitors(con, trace, _fields(con, trace))
    return (cands[0]["label"], cands[0]["scheme"]) if cands else None


def hours_unit(con, trace: str) -> str:
    """The word for size x time in ``trace``: SWF counts processors
    (processor-hours); sacct and tables count CPUs (NCPUS: hardware threads
    where a node has several a core, so not cores): CPU-hours."""
    got = con.execute("SELECT format FROM traces WHERE trace = ?", [trace]).fetchall()
    return "processor-hours" if got and got[0][0] == "swf" else "CPU-hours"


def read(con, trace: str, policy: str = "fcfs", backfill: str = "easy", opts: Options | None = None) -> Summary:
    """The summary from stored results (a read-only connection; run ensure first)."""
    from . import compare

    opts = _opts(policy, backfill, opts)
    fields = _fields(con, trace)
    (first, last, span, tz), = con.execute(  # dates in the trace's own zone, as `traces` and the report
        "SELECT strftime(min(j.submit_ts) AT TIME ZONE t.tz, '%Y-%m-%d'), "
        "strftime(max(j.submit_ts) AT TIME ZONE t.tz, '%Y-%m-%d'), "
        "epoch(max(j.submit_ts)) - epoch(min(j.submit_ts)), t.tz "
        "FROM jobs j JOIN traces t USING (trace) WHERE j.trace = ? GROUP BY t.tz", [trace]).fetchall()
    info, cap = _machine(con, trace, fields, opts)
    s = Summary(trace, fields["jobs"], opts.policy, opts.backfill, cap, first, last,
                objective=opts.objective, options=asdict(opts), tz=tz)
    s.hours_unit = hours_unit(con, trace)
    s.gpus = _rows(con, "SELECT \"partition\", gpu_jobs, req_gpu_h, used_gpu_h FROM summary_gpu_partitions "
                        "WHERE trace = ? ORDER BY \"partition\" NULLS LAST", [trace])
    s.lost = lost_attempts(con, trace)
    cut = _rows(con, "SELECT * EXCLUDE (trace) FROM summary_cut_short WHERE trace = ?", [trace])
    s.cut_short = cut[0] if cut else None
    wrong = _rows(con, "SELECT * EXCLUDE (trace) FROM summary_r WHERE trace = ?", [trace])
    if fields["has_request"] and not wrong:
        s.notes.append("no job has both a requested time and a run time, so there is no R to measure")
    if wrong:
        s.wrong = wrong[0]
        top = _rows(con, "SELECT kind, owner, jobs, mean_r, unused_core_h, unused_share, share_of_unused "
                         "FROM report_waste_by_owner WHERE trace = ? AND rank <= ? ORDER BY kind, rank",
                    [trace, TOP_OWNERS])
        for kind in ("user", "account", "partition"):
            rows = [{k: v for k, v in r.items() if k != "kind"} for r in top if r["kind"] == kind]
            if len(rows) > 1 or (rows and kind == "user"):
                s.owners[kind] = rows
    elif not fields["has_request"]:
        s.notes.append("the trace has no requested times (SWF field 9), so there is no user estimate to measure")
    cands, s.left_out = _competitors(con, trace, fields)
    s.request = next((a for a in _accuracy(con, trace, fields) if a["scheme"] == REQUEST[1]), None)
    s.estimators = ([s.request] if s.request else []) + cands
    s.estimators.sort(key=lambda a: -(a["acc_mean"] or 0))
    s.best = cands[0] if cands else None
    if s.best and s.request:
        s.same_jobs = _rows(con, sqlfiles.load("summary_same_jobs"), [trace, s.best["scheme"]])[0]
    s.period, period_s = compare.period_kind(span or 0)
    if cap is None:
        flags = " ".join(x for x in (opts.flags(), "--capacity N") if x)
        s.no_machine = f"walltime summary {shlex.quote(trace)} {flags}"
        s.too_small = compare.too_small(fields["jobs"], _periods_in_jobs(con, trace, period_s))
        return s
    best = (s.best["label"], s.best["scheme"]) if s.best else None
    slurm = _slurm_applies(con, trace, fields, opts)
    s.scheduler = "slurm" if slurm else "queue"
    for label, estimate, adjust in _queue_plan(fields, best, slurm):
        cfg = _config(con, trace, fields, opts, estimate, adjust, slurm)
        row = QueueRow(label, estimate, adjust, _stored_run(con, trace, cfg))
        if row.run_id:
            m = _rows(con, "SELECT mean_wait, median_wait, mean_bounded_slowdown, utilization FROM run_metrics "
                           "WHERE run_id = ? AND month = 'all'", [row.run_id])[0]
            row.mean_wait_h = m["mean_wait"] / 3600 if m["mean_wait"] is not None else None
            row.median_wait_h = m["median_wait"] / 3600 if m["median_wait"] is not None else None
            row.mean_bsld = m["mean_bounded_slowdown"]
            row.utilisation = m["utilization"]
            row.no_request, row.jobs_in_trace, row.jobs_simulated, row.held_running = con.execute(
                "SELECT no_request, jobs_in_trace, jobs_simulated, held_running FROM runs WHERE run_id = ?",
                [row.run_id]).fetchone()
        s.queue.append(row)
    base = s.queue[0] if s.queue and s.queue[0].estimate == REQUEST[1] and s.queue[0].run_id else None
    if base is None:
        s.too_small = compare.too_small(fields["jobs"], _periods_in_jobs(con, trace, period_s))
        s.recommendation = {"action": "none", "why": "no requests" if not fields["has_request"] else "not simulated"}
        return s
    base.change_pct = 0.0
    if opts.load_factor == 1.0:  # arrivals as logged: the replay's waits compare with the log's
        from .. import calibration

        s.calibration = calibration.read(con, base.run_id)
    paired = compare.period_sums(con, base.run_id, [q.run_id for q in s.queue[1:] if q.run_id], period_s)
    for row in s.queue[1:]:
        if row.run_id is None:
            continue
        labels, sums = paired[row.run_id]
        s.periods = len(labels)
        if s.too_small is None:
            s.too_small = compare.too_small(fields["jobs"], len(labels))
        ch = compare.compare(sums, s.period, small=s.too_small is not None)
        row.changes = {k: asdict(v) | {"clear": v.clear} for k, v in ch.items()}
        row.change_pct = ch["wait"].pct
    s.recommendation = _recommend(s, base)
    pick = s.recommendation.get("considered")
    if pick is not None and s.too_small is None:
        s.winners = _winners(con, trace, base.run_id, s.queue[pick])
    return s


def _periods_in_jobs(con, trace: str, period_s: int) -> int:
    """Periods of submission of the trace's jobs (for the too-small rule when nothing was simulated)."""
    if period_s == 0:
        sql = "SELECT count(DISTINCT strftime(submit_ts, '%Y-%m')) FROM jobs WHERE trace = ?"
        return con.execute(sql, [trace]).fetchone()[0]
    sql = ("SELECT count(DISTINCT floor((epoch(submit_ts) - (SELECT min(epoch(submit_ts)) FROM jobs WHERE trace = $1)) "
           "/ $2)) FROM jobs WHERE trace = $1")
    return con.execute(sql, [trace, period_s]).fetchone()[0]


def _recommend(s: Summary, base: QueueRow) -> dict:
    """What to do on the site's objective, and every metric that gets worse.

    Candidates: the best estimator, regular and selective. One is better on the
    objective when the whole 95% interval of its change is below 0; the one with
    the lowest change among those is recommended, else the requests are kept.
    ``considered``: index in s.queue of the candidate with the lowest change
    (recommended or not), for who wins and who loses."""
    if s.too_small is not None:
        return {"action": "none", "why": "too small"}
    if s.best is None:
        return {"action": "none", "why": "no estimator"}
    idx = [i for i, q in enumerate(s.queue) if q.estimate == s.best["scheme"] and q.changes]
    if not idx:
        return {"action": "none", "why": "not simulated"}
    obj = s.objective

    def score(i):
        p = s.queue[i].changes[obj]["pct"]
        return float("inf") if p is None else p

    considered = min(idx, key=score)
    clear = [i for i in idx if s.queue[i].changes[obj]["clear"] and s.queue[i].changes[obj]["hi"] < 0]
    out = {"objective": obj, "considered": considered, "candidates": idx}
    if not clear:
        return {**out, "action": "keep"}
    pick = min(clear, key=score)
    q = s.queue[pick]
    worse = []
    for key in ("wait", "bsld"):
        c = q.changes[key]
        if c["pct"] is not None and c["pct"] > 0:
            worse.append({"metric": key, **c})
    under_b, under_r = s.best["under_rate"], (s.request or {}).get("under_rate")
    if under_r is not None and under_b is not None and under_b > under_r:
        worse.append({"metric": "under", "base": under_r, "value": under_b})
    if q.utilisation is not None and base.utilisation is not None and q.utilisation < base.utilisation:
        worse.append({"metric": "utilisation", "base": base.utilisation, "value": q.utilisation})
    return {**out, "action": "schedule", "pick": pick, "considered": pick, "worse": worse}


def _winners(con, trace: str, base_run: str, row: QueueRow) -> dict:
    """Per user, account and partition: the TOP_OWNERS that gain most and lose most
    (summary_owner_change for this pair, ranked by the total change in hours of waiting)."""
    rows = _rows(con, sqlfiles.load("summary_owner_change_pair"), [trace, base_run, row.run_id, TOP_OWNERS])
    out = {"label": row.label, "run_id": row.run_id, "base_run": base_run, "kinds": {}}
    for kind in ("user", "account", "partition"):
        rs = [r for r in rows if r["kind"] == kind]
        if len({r["owner"] for r in rs}) < 2:
            continue
        gain = sorted((r for r in rs if r["rank_gain"] <= TOP_OWNERS and r["total_wait_change_h"] < 0),
                      key=lambda r: r["rank_gain"])
        loss = sorted((r for r in rs if r["rank_loss"] <= TOP_OWNERS and r["total_wait_change_h"] > 0),
                      key=lambda r: r["rank_loss"])
        out["kinds"][kind] = {"gain": gain, "loss": loss}
    return out
