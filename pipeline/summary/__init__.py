"""Summary stage: the three answers for one trace, on one screen.

1. How wrong are the users' requested times (R, node-hours asked for but
   not used, the owners who waste most)?
2. How much better can the system guess (the best of CANDIDATES by mean
   accuracy, its underestimation rate, the gain over the request)?
3. What does that do to the queue (mean/median wait and bounded slowdown
   under one scheduler with the requests, the best estimator regular and
   selective, and exact runtimes as the bound; the month-by-month spread)?

Whatever is missing (estimates, simulations) is computed once through the
ordinary stages under the writer lock and reused afterwards: a warm summary
only reads the warehouse. ``words.py`` turns the numbers into sentences.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import asdict, dataclass, field

from .. import derived, progress
from ..errors import WalltimeError
from ..timed import require_times
from ..warehouse import Warehouse

# The system estimators the summary compares: (label, canonical spec). One list;
# a new estimator is one more line. "{key}" becomes the trace's Tang key
# (user_project_req, or user when the trace has no group ids).
CANDIDATES: list[tuple[str, str]] = [
    ("Tang p85, user+project+request, 30 days", "tang:floor=0.5,key={key},min=10,stat=p85,window=30d"),
    ("Klusacek last 5", "klusacek:last=5"),
    ("ave2, mean of the last two", "ave2"),
    ("Mu'alem & Feitelson mean + 1.5 sd", "feitelson:horizon=7d,sd=1.5"),
]
REQUEST = ("the users' requests", "request")
EXACT = ("exact runtimes (bound)", "actual")
TOP_OWNERS = 5
MIGRATION = 80  # sql/080_summary_views.sql: the views this stage reads


@dataclass
class QueueRow:
    label: str
    estimate: str
    adjust: str
    run_id: str | None = None
    mean_wait_h: float | None = None
    median_wait_h: float | None = None
    mean_bsld: float | None = None
    change_pct: float | None = None  # mean wait vs the requests' run


@dataclass
class Summary:
    trace: str
    jobs: int
    policy: str
    backfill: str
    capacity: int | None
    first: str | None
    last: str | None
    wrong: dict | None = None            # None: the trace has no requested times
    owners: dict = field(default_factory=dict)  # kind -> top owners by unused node-hours
    estimators: list[dict] = field(default_factory=list)  # accuracy rows, best first
    best: dict | None = None
    request: dict | None = None          # accuracy of the requests
    queue: list[QueueRow] = field(default_factory=list)
    months: dict | None = None           # best-regular vs requests: better/worse/same/total
    notes: list[str] = field(default_factory=list)
    computed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        doc = asdict(self)
        from .words import sentences

        doc["text"] = sentences(self)
        return doc


def summarize(wh: Warehouse, trace: str, policy: str = "fcfs", backfill: str = "easy",
              say=None) -> Summary:
    """The three answers for ``trace`` under ``policy`` + ``backfill``; computes
    missing estimates and simulations first (``say`` gets one line per step)."""
    t0 = time.perf_counter()
    from ..simulate.config import make_config

    make_config(policy=policy, backfill=backfill)  # one-line errors for bad options
    computed = ensure(wh, trace, policy, backfill, say)
    con = wh.reader()
    try:
        s = read(con, trace, policy, backfill)
    finally:
        _close(con)
    s.computed = computed
    s.seconds = round(time.perf_counter() - t0, 2)
    return s


def ensure(wh: Warehouse, trace: str, policy: str = "fcfs", backfill: str = "easy", say=None) -> list[str]:
    """Compute what the summary needs and is not stored; returns the steps done."""
    if not wh.exists():
        wh.reader()  # the one-line "no warehouse here yet" error, creating nothing
    con = wh.reader()
    try:
        require_times(con, trace, "summary")
    finally:
        con.close()
    return [] if _complete(wh, trace, policy, backfill) else _compute(wh, trace, policy, backfill, say)


def pending_runs(wh: Warehouse, trace: str, policy: str = "fcfs", backfill: str = "easy") -> tuple[list[str], list]:
    """For a caller that runs simulations in a batch (the report): compute the
    summary's missing estimates here, and return (steps done, [(description,
    config)] of the simulations still missing)."""
    from ..estimates import ensure_estimates

    with wh.lock():
        with wh.writer() as con:  # brings the schema (and the summary views) up to date
            missing = _missing_estimates(con, trace)
            _close_memo(con)
        done = []
        if missing:
            ensure_estimates(wh, trace, missing)
            done.append(f"estimates ({len(missing)} schemes)")
        con = wh.reader()
        try:
            return done, _missing_runs(con, trace, policy, backfill)
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


def _config(con, trace: str, fields: dict, policy: str, backfill: str, estimate: str, adjust: str):
    """The resolved simulation config (capacity and the oversized-job rule as the report's)."""
    from ..simulate import resolve_capacity
    from ..simulate.config import make_config

    cap = fields["capacity"]
    drop = bool(cap is not None and fields["max_nodes"] is not None and fields["max_nodes"] > cap)
    cfg = make_config(policy=policy, backfill=backfill, estimate=estimate, adjust=adjust,
                      drop_oversized=drop)
    return resolve_capacity(cfg, fields["info"])


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


def _missing_runs(con, trace: str, policy: str, backfill: str) -> list[tuple[str, object]]:
    """(description, config) of the simulations not stored yet (estimates must be)."""
    fields = _fields(con, trace)
    if fields["capacity"] is None:
        return []
    out = []
    for label, estimate, adjust in _queue_plan(fields, _best_spec(con, trace)):
        cfg = _config(con, trace, fields, policy, backfill, estimate, adjust)
        if _stored_run(con, trace, cfg) is None:
            out.append((f"simulate {policy} + {backfill} with {label}", cfg))
    return out


def _complete(wh: Warehouse, trace: str, policy: str, backfill: str) -> bool:
    """True when everything the summary shows is stored (a read-only check)."""
    con = wh.reader()
    try:
        return (_has_views(con) and not _missing_estimates(con, trace)
                and not _missing_runs(con, trace, policy, backfill))
    finally:
        _close(con)


def _queue_plan(fields: dict, best: tuple[str, str] | None) -> list[tuple[str, str, str]]:
    """(label, estimate, adjust) of the runs the third answer compares."""
    plan = [(REQUEST[0], REQUEST[1], "regular")] if fields["has_request"] else []
    if best is not None:
        plan.append((f"{best[0]}, regular", best[1], "regular"))
        if fields["has_request"]:  # selective: the request once a job runs
            plan.append((f"{best[0]}, selective", best[1], "selective"))
    plan.append((EXACT[0], EXACT[1], "regular"))
    return plan


def _compute(wh: Warehouse, trace: str, policy: str, backfill: str, say) -> list[str]:
    """Estimates first (the best one decides the runs), then the simulations;
    one progress bar of steps on stderr."""
    from ..estimates import ensure_estimates
    from ..simulate import simulate

    done = []
    with wh.lock(), progress.bar() as bar:
        with wh.writer() as con:  # brings the schema (and the summary views) up to date
            missing = _missing_estimates(con, trace)
        task = bar.add_task("summary", total=1 + 4) if bar else None

        def step(what, action):
            if bar:
                bar.update(task, description=f"summary: {what}")
            elif say:
                say(f"summary: {what}")
            with progress.silenced() if bar else contextlib.nullcontext():
                action()
            done.append(what)
            if bar:
                bar.advance(task)

        if missing:
            step(f"estimates ({len(missing)} schemes)", lambda: ensure_estimates(wh, trace, missing))
        elif bar:
            bar.advance(task)
        con = wh.reader()
        try:
            runs = _missing_runs(con, trace, policy, backfill)
        finally:
            _close(con)
        if bar:
            bar.update(task, total=1 + len(runs))
        for what, cfg in runs:
            step(what, lambda c=cfg: simulate(wh, trace, c))
    return done


# -- reading the answers -------------------------------------------------------

def _rows(con, sql: str, params: list) -> list[dict]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _accuracy(con, trace: str, fields: dict) -> list[dict]:
    out = []
    for label, spec in _schemes(fields):
        rows = _rows(con, "SELECT acc_mean, acc_median, under_rate, scored FROM estimate_accuracy "
                          "WHERE trace = ? AND scheme = ?", [trace, spec])
        if rows:
            out.append({"label": label, "scheme": spec, **rows[0]})
    return out


def _best_spec(con, trace: str) -> tuple[str, str] | None:
    fields = _fields(con, trace)
    cands = [a for a in _accuracy(con, trace, fields) if a["scheme"] != REQUEST[1] and a["acc_mean"] is not None]
    if not cands:
        return None
    b = max(cands, key=lambda a: a["acc_mean"])
    return b["label"], b["scheme"]


def read(con, trace: str, policy: str = "fcfs", backfill: str = "easy") -> Summary:
    """The summary from stored results (a read-only connection; run ensure first)."""
    fields = _fields(con, trace)
    (first, last), = con.execute("SELECT strftime(min(submit_ts), '%Y-%m-%d'), strftime(max(submit_ts), '%Y-%m-%d') "
                                 "FROM jobs WHERE trace = ?", [trace]).fetchall()
    s = Summary(trace, fields["jobs"], policy, backfill, fields["capacity"], first, last)
    wrong = _rows(con, "SELECT * EXCLUDE (trace) FROM summary_r WHERE trace = ?", [trace])
    if fields["has_request"] and not wrong:
        s.notes.append("no job has both a requested time and a run time, so there is no R to measure")
    if wrong:
        s.wrong = wrong[0]
        top = _rows(con, "SELECT kind, owner, jobs, mean_r, unused_node_h, unused_share, share_of_unused "
                         "FROM report_waste_by_owner WHERE trace = ? AND rank <= ? ORDER BY kind, rank",
                    [trace, TOP_OWNERS])
        for kind in ("user", "account", "partition"):
            rows = [{k: v for k, v in r.items() if k != "kind"} for r in top if r["kind"] == kind]
            if len(rows) > 1 or (rows and kind == "user"):
                s.owners[kind] = rows
    elif not fields["has_request"]:
        s.notes.append("the trace has no requested times (SWF field 9), so there is no user estimate to measure")
    acc = sorted(_accuracy(con, trace, fields), key=lambda a: -(a["acc_mean"] or 0))
    s.estimators = acc
    s.request = next((a for a in acc if a["scheme"] == REQUEST[1]), None)
    s.best = next((a for a in acc if a["scheme"] != REQUEST[1]), None)
    if fields["capacity"] is None:
        s.notes.append("the trace header gives no machine size, so nothing was simulated; "
                       f"`walltime simulate {trace} --capacity N` sets one")
        return s
    best = (s.best["label"], s.best["scheme"]) if s.best else None
    for label, estimate, adjust in _queue_plan(fields, best):
        cfg = _config(con, trace, fields, policy, backfill, estimate, adjust)
        row = QueueRow(label, estimate, adjust, _stored_run(con, trace, cfg))
        if row.run_id:
            m = _rows(con, "SELECT mean_wait, median_wait, mean_bounded_slowdown FROM run_metrics "
                           "WHERE run_id = ? AND month = 'all'", [row.run_id])[0]
            row.mean_wait_h = m["mean_wait"] / 3600 if m["mean_wait"] is not None else None
            row.median_wait_h = m["median_wait"] / 3600 if m["median_wait"] is not None else None
            row.mean_bsld = m["mean_bounded_slowdown"]
        s.queue.append(row)
    base = s.queue[0] if s.queue and s.queue[0].estimate == REQUEST[1] else None
    for row in s.queue:
        if base and base.mean_wait_h and row.mean_wait_h is not None:
            row.change_pct = 100 * (row.mean_wait_h / base.mean_wait_h - 1)
    # the month-by-month spread of the better of regular and selective
    picks = [q for q in s.queue[1:] if q.estimate != EXACT[1] and q.change_pct is not None]
    if base and base.run_id and picks:
        pick = min(picks, key=lambda q: q.change_pct)
        s.months = {"label": pick.label, **_months(con, base.run_id, pick.run_id)}
    return s


def _months(con, base_run: str, run: str) -> dict:
    """How many months of submission the run's mean wait is below / above the requests'."""
    (better, worse, same, total), = con.execute(
        "SELECT count(*) FILTER (WHERE b.mean_wait < a.mean_wait), count(*) FILTER (WHERE b.mean_wait > a.mean_wait), "
        "count(*) FILTER (WHERE b.mean_wait = a.mean_wait), count(*) "
        "FROM run_metrics a JOIN run_metrics b USING (month) "
        "WHERE a.run_id = ? AND b.run_id = ? AND month <> 'all'", [base_run, run]).fetchall()
    return {"better": better, "worse": worse, "same": same, "total": total}
