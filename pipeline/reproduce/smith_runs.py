"""Smith, Taylor & Foster's experiments with their own set-up: the workloads
(CTC two months of 1996, SDSC Paragon 1996, full CTC, SDSC96 with halved
interarrivals), their predictors and the two kinds of run.

Why a module of its own: the wait forecasts (Tables 4-9) call the kernel
directly (the scheduler on the requests while the wait forecast uses the
predictor, ``kernel.simulate_forecast_running``): experiment harnesses,
computed here each time (:func:`tabulate`). The replays (the schedule runs of
Tables 10-15, the request replays weighting the template search) and the
searched sets are stored and reused by smith_plan.py, which
``walltime reproduce`` runs; :func:`run_all` computes everything here, in
memory, with the same numbers (tests/test_smith_planner.py compares them).
``smith.py`` keeps only the checks and the document.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl

from ..estimates import load_jobs
from ..estimates.compute import compute
from ..estimates.search import search
from ..estimates.templates import set_text
from ..schemes import parse
from ..simulate import kernel
from ..simulate.conditional import forecast_inputs
from ..simulate.derived_traces import Recipe, apply, runnable
from .common import CTC, PAR96

PAPER_CTC_JOBS = 13217  # Table 1; picks the two-month window
INTERACTIVE = 0  # SDSC Paragon queue 0, "interactive" (the log's header): not a batch queue
ALGS = {"FCFS": ("fcfs", "none"), "LWF": ("lwf", "none"), "Backfill": ("fcfs", "conservative")}
PREDICTORS = {"actual": "actual run times", "request": "maximum run times", "smith": "Smith (searched set)",
              "gibbons": "Gibbons", "downey_mean": "Downey cond. average", "downey_median": "Downey cond. median"}
SPECS = {"actual": "actual", "request": "request", "smith": "smith:set=searched", "gibbons": "gibbons",
         "downey_mean": "downey:stat=mean,key=queue", "downey_median": "downey:stat=median,key=queue"}
SEARCH = (20, 20, 0)  # template search: generations, population, seed
WEEK = 7 * 86400  # the periods the checks' intervals resample (the CTC window has only two months)
CONDITIONAL = ("smith", "gibbons", "downey_mean", "downey_median")  # running jobs re-predicted in a forecast


@dataclass
class Workload:
    label: str
    key: str                 # check-id tag: ctc2m, sdsc96, ctcfull, sdsc96x05
    paper: str | None        # the paper's row it is checked against: "CTC", "SDSC96" or None
    jobs: pl.DataFrame
    capacity: int
    note: str
    forecast_algs: tuple[str, ...] = tuple(ALGS)
    sched_algs: tuple[str, ...] = ("LWF", "Backfill")
    dropped: int = 0
    no_req: int = 0
    facts: dict = field(default_factory=dict)
    templates: tuple = ()    # Smith's searched set (Template objects)
    like: str | None = None  # a paper row shown beside it for context only, never checked (CTC full)
    source: str | None = None  # the trace it is made from, and how: stored as derived trace ``trace``
    recipe: Recipe | None = None

    def __post_init__(self):
        j = self.jobs
        ok = (pl.col("run") >= 0) & (pl.col("nodes") > 0) & (pl.col("nodes") <= self.capacity)
        self.dropped = j.height - j.filter(ok).height
        # no request: the simulator's rule, max(run, 1) (simulation spec)
        self.no_req = j.filter(ok & ~(pl.col("req") > 0).fill_null(False)).height
        self.jobs = runnable(j, self.capacity).sort("submit", "job_id")

    @property
    def n(self) -> int:
        return self.jobs.height

    @property
    def trace(self) -> str:
        """Its name as a derived trace in the warehouse (smith_plan.py)."""
        return f"smith-{self.key}"


def ctc_window(months: pl.DataFrame) -> tuple[str, str, int]:
    """The two consecutive months of 1996 whose job count is closest to Table 1's 13,217."""
    m = months.filter(pl.col("month").str.starts_with("1996")).sort("month").rows()
    return min(((a[0], b[0], a[1] + b[1]) for a, b in zip(m, m[1:])), key=lambda t: abs(t[2] - PAPER_CTC_JOBS))


def _with_month(con, trace: str) -> pl.DataFrame:
    months = pl.from_arrow(con.sql("SELECT job_id, month FROM jobs WHERE trace = $1", params=[trace]).to_arrow_table())
    return load_jobs(con, trace).join(months, on="job_id")


def workloads(con, traces: dict, quick: bool) -> list[Workload]:
    """The paper's workloads, each a recipe on a trace (simulate/derived_traces.py): built here in
    memory, and stored as derived traces by smith_plan.py (the same recipe on the same jobs)."""
    out = []

    def made(label, key, paper, source, frame, recipe, note, *rest, **kw):
        return Workload(label, key, paper, apply(frame, recipe, through_capacity=False), recipe.capacity, note,
                        *rest, source=source, recipe=recipe, **kw)

    if CTC in traces:
        ctc = _with_month(con, CTC)
        a, b, n = ctc_window(ctc.group_by("month").len().rename({"len": "n"}))
        out.append(made("CTC 2 months", "ctc2m", "CTC", CTC, ctc, Recipe(months=(a, b), capacity=traces[CTC]),
                        f"CTC-SP2 jobs submitted in {a} and {b} (the two consecutive months of 1996 whose "
                        f"count is closest to the paper's {PAPER_CTC_JOBS:,})"))
        if not quick:
            out.append(made("CTC full", "ctcfull", None, CTC, ctc, Recipe(capacity=traces[CTC]),
                            f"all {ctc.height:,} CTC-SP2 jobs (Jun 1996 - May 1997); not in the paper, so "
                            "shown beside its CTC row for context and never checked", like="CTC"))
    if PAR96 in traces:
        par = _with_month(con, PAR96)
        inter = par.filter(pl.col("month").str.starts_with("1996") & (pl.col("queue_id") == INTERACTIVE))
        # SDSC Paragon: every job's request = the longest run in its queue (paper Section 3)
        sd96 = Recipe(months=("1996",), drop_queues=(INTERACTIVE,), req="queue_max", capacity=traces[PAR96])
        out.append(made("SDSC96", "sdsc96", "SDSC96", PAR96, par, sd96,
                        f"SDSC Paragon jobs submitted in 1996 to the batch queues; requests = longest run per "
                        f"queue (the paper's Section 3: each queue has limits, the longest run stands for "
                        f"them). Left out: the {inter.height:,} jobs of queue {INTERACTIVE} ('interactive', the "
                        f"log header's 48-node interactive partition, mean run "
                        f"{inter['run'].mean() / 60:.1f} min, longest {inter['run'].max() / 3600:.1f} h), which "
                        "no batch queue limit covers and the batch scheduler never held"))
        if not quick:
            # interarrival times x 0.5; each job keeps its trace wait and run, so its history end moves
            out.append(made("SDSC96 x0.5", "sdsc96x05", None, PAR96, par, replace(sd96, interarrival=0.5),
                            "SDSC96 with interarrival times halved (the paper's compressed experiment, which "
                            "reports mean waits only); the offered load exceeds the machine and conservative "
                            "backfilling does not finish in reasonable time, so only LWF scheduling is run",
                            (), ("LWF",)))
    return out


def predictions(w: Workload) -> tuple[dict[str, np.ndarray], str, float]:
    """Every predictor's run time for every job, at its submission; Smith's set is
    searched on the workload's jobs, each once (SEARCH): the set the workloads
    table shows; the runs use the per-algorithm sets of :func:`searched_for`."""
    jobs = w.jobs
    t0 = time.perf_counter()
    best, _, _ = search(jobs, np.ones(jobs.height, bool), *SEARCH)
    search_s = time.perf_counter() - t0
    w.templates = tuple(best)
    req = jobs["req"].cast(pl.Float64).to_numpy()
    out = {}
    for k, spec in SPECS.items():
        e = compute(jobs, parse(spec), best if k == "smith" else None)["est"].cast(pl.Float64).to_numpy()
        out[k] = np.clip(np.round(np.where(np.isnan(e), req, e)), 0, 2 ** 40).astype(np.int64)
    return out, set_text(best), search_s


def searched_for(w: Workload, a: dict, alg: str, running: bool) -> tuple[tuple, np.ndarray, float]:
    """Smith's set searched as the paper did, once per algorithm and trace (their
    Section 3): each job's error weighted by how many prediction events it takes
    part in under that algorithm scheduling on the requests: its submission,
    every later submission while it waits and, with ``running``, while it runs
    (forecasts and backfill predict running jobs too; LWF scheduling predicts
    only the waiting ones). Returns (templates, the jobs' predictions at
    submission, search seconds)."""
    pol, bf = ALGS[alg]
    start = kernel.simulate(a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], a["req"], a["req"],
                            w.capacity, kernel.POLICIES[pol], kernel.BACKFILLS[bf], kernel.OVERRUNS["request"],
                            False)[0]
    queued, run_n = event_counts(a["submit"], start, a["run"])
    weights = 1 + queued + (run_n if running else 0)
    t0 = time.perf_counter()
    best, _, _ = search(w.jobs, np.ones(w.jobs.height, bool), *SEARCH, weights=weights)
    secs = time.perf_counter() - t0
    req = w.jobs["req"].cast(pl.Float64).to_numpy()
    e = compute(w.jobs, parse(SPECS["smith"]), best)["est"].cast(pl.Float64).to_numpy()
    return tuple(best), np.clip(np.round(np.where(np.isnan(e), req, e)), 0, 2 ** 40).astype(np.int64), secs


def arrays(w: Workload) -> dict:
    j = w.jobs
    a = {c: np.ascontiguousarray(j[c].to_numpy().astype(np.int64)) for c in ("submit", "job_id", "run", "nodes")}
    a["req"] = np.ascontiguousarray(j["req"].fill_null(0).to_numpy().astype(np.int64).clip(1))
    return a


def weeks(submit: np.ndarray) -> np.ndarray:
    """Each job's week of submission, counted from the workload's first submission."""
    return ((submit - submit.min()) // WEEK).astype(np.int64)


def by_week(week: np.ndarray, values) -> np.ndarray:
    """Sums of ``values`` over the jobs of each week (0 .. the last week), as floats."""
    return np.bincount(week, weights=np.asarray(values, dtype=float), minlength=int(week.max()) + 1)


def event_counts(submit: np.ndarray, start: np.ndarray, run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(queued, running): for every job, at how many later forecast instants (the
    distinct submission times T > its submission) it is still in the system of the
    real schedule: queued when T <= start, running when start < T < start + run
    (conditional.running_pairs' rule, so ``running`` sums to its pair count)."""
    ctime = np.unique(submit)
    after_submit = np.searchsorted(ctime, submit, "right")
    after_start = np.searchsorted(ctime, start, "right")
    queued = after_start - after_submit
    running = np.maximum(np.searchsorted(ctime, start + run, "left") - after_start, 0)
    return queued, running


def wait_forecast(a: dict, cap: int, alg: str, fc: np.ndarray, w: Workload | None = None,
                  p: str | None = None, templates: tuple | None = None) -> dict:
    """Scheduler on the requests; the wait forecast at each submission on ``fc``.
    With a predictor from history (``p`` in CONDITIONAL, ``w`` its workload),
    every job running at a forecast instant is re-predicted given its age and
    the jobs completed by then, and the submission predictions are made on the
    simulated schedule's history (pipeline/simulate/conditional.py);
    ``run_pct_all`` is then the run-time error over each job's submission
    prediction and every re-prediction of a running job.

    ``run_pct_events`` is the paper's run-time error (their Section 3: "the
    run-time prediction workload contains predictions for all running and
    queued jobs every time an application is submitted"): the mean |prediction
    - run| over every (forecast instant, job in the system) pair, a queued job
    counted with the prediction its forecast used (its submission one), a
    running job with its re-prediction given its age (or, for a predictor not
    from history, its one prediction). It depends on the algorithm through how
    long each job stays in the system, as the paper's Table 5 rows do."""
    pol, bf = ALGS[alg]
    args = (a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], a["req"], a["req"], cap,
            kernel.POLICIES[pol], kernel.BACKFILLS[bf], kernel.OVERRUNS["request"])
    out = {}
    if p in CONDITIONAL and w is not None:
        real = kernel.simulate(*args, False)[0]
        tpl = templates if templates is not None else (w.templates or None)
        fc, table = forecast_inputs(w.jobs, real, parse(SPECS[p]), tpl, rounding=np.round)
        start, _, pred, _, _ = kernel.simulate_forecast_running(*args, fc, *table.args())
        errs = np.abs(fc - a["run"]).sum() + np.abs(table.cval - a["run"][table.cjob]).sum()
        out["run_pct_all"] = 100 * errs / (len(fc) + len(table.cval)) / a["run"].mean()
        out["running_pairs"] = len(table.cval)
        queued, running = event_counts(a["submit"], start, a["run"])
        # a running job's re-predictions count in the week of its submission, as its other events do
        job_err = np.abs(fc - a["run"]) * (1 + queued) + np.bincount(
            table.cjob, weights=np.abs(table.cval - a["run"][table.cjob]), minlength=len(fc))
        job_n = 1 + queued + np.bincount(table.cjob, minlength=len(fc))
    else:
        start, _, pred, _, _ = kernel.simulate_forecast(*args, fc)
        queued, running = event_counts(a["submit"], start, a["run"])
        job_err = np.abs(fc - a["run"]) * (1 + queued + running)
        job_n = 1 + queued + running
    ev_err, ev_n = job_err.sum(), job_n.sum()
    out["run_err_events"] = ev_err / ev_n / 60
    out["run_pct_events"] = 100 * ev_err / ev_n / a["run"].mean()
    out["events"] = int(ev_n)
    wait = start - a["submit"]
    err = np.abs(pred - start)
    out["err_jobs"] = int((err > 0).sum())
    out["early_jobs"] = int((pred < start).sum())
    wk = weeks(a["submit"])
    out["weeks"] = {"wait_err": by_week(wk, err), "wait": by_week(wk, wait), "ev_err": by_week(wk, job_err),
                    "ev_n": by_week(wk, job_n), "run": by_week(wk, a["run"]), "jobs": by_week(wk, np.ones(len(wk)))}
    return {"wait_err": err.mean() / 60, "wait_pct": 100 * err.mean() / max(wait.mean(), 1e-9),
            "mean_wait": wait.mean() / 60, **out}


def schedule(a: dict, cap: int, alg: str, est: np.ndarray) -> dict:
    """Scheduler on the predictor (Tables 10-15), on the kernel directly."""
    pol, bf = ALGS[alg]
    start, *_ = kernel.simulate(a["submit"], a["job_id"], a["run"], a["nodes"], est, est, a["req"], cap,
                                kernel.POLICIES[pol], kernel.BACKFILLS[bf], kernel.OVERRUNS["request"], False)
    return schedule_metrics(a, cap, start)


def run_error(a: dict, est: np.ndarray) -> tuple[float, float]:
    e = np.abs(est - a["run"]).mean()
    return e / 60, 100 * e / a["run"].mean()


def set_keys(w: Workload) -> set[tuple[str, bool]]:
    """The (algorithm, running) pairs Smith's set is searched for: every forecast algorithm (running
    jobs predicted), every scheduling one (running jobs too, except LWF's)."""
    return {*((x, True) for x in w.forecast_algs), *((x, x != "LWF") for x in w.sched_algs)}


def schedule_metrics(a: dict, cap: int, start: np.ndarray) -> dict:
    """Tables 10-15's numbers from a schedule's starts (in ``a``'s order)."""
    span = (start + a["run"]).max() - a["submit"].min()
    wk = weeks(a["submit"])
    return {"util": 100 * float((a["run"] * a["nodes"]).sum()) / (cap * span),
            "mean_wait": (start - a["submit"]).mean() / 60,
            "weeks": {"wait": by_week(wk, start - a["submit"]), "jobs": by_week(wk, np.ones(len(wk)))}}


def _in_memory(w: Workload, a: dict):
    """Everything but the forecasts computed here, on the kernel directly (nothing stored)."""
    est, tset, search_s = predictions(w)
    sets = {k: searched_for(w, a, *k) for k in set_keys(w)}
    return est, tset, search_s, sets, lambda alg, p, e: schedule(a, w.capacity, alg, e)


def run_all(con, traces: dict, quick: bool) -> dict:
    """{"workloads": [...], "wait": [...], "sched": [...]}: one row per workload x predictor x algorithm,
    everything computed in this process and nothing stored (smith_plan.run_stored stores and reuses
    the replays, the sets and the estimates; the numbers are the same)."""
    return tabulate(workloads(con, traces, quick), _in_memory)


def tabulate(ws: list[Workload], provide) -> dict:
    """The wait forecasts (computed here: experiment harnesses, nothing stored) and the rows of every
    table. ``provide(w, a)``: (predictions at submission by predictor, the plain searched set's text,
    search seconds, Smith's sets by set_keys as searched_for returns them, ``sched(alg, p, est)``:
    the schedule's numbers, schedule_metrics)."""
    wait_rows, sched_rows = [], []
    for w in ws:
        t0 = time.perf_counter()
        a = arrays(w)
        est, tset, search_s, sets, sched = provide(w, a)
        w.facts = {**w.facts, "mean_run_min": a["run"].mean() / 60, "overran": int((a["run"] > a["req"]).sum()),
                   "set": tset, "search_s": search_s, "mean_req_min": a["req"].mean() / 60,
                   "offered_load": float((a["run"] * a["nodes"]).sum())
                   / (w.capacity * max(int(a["submit"].max() - a["submit"].min()), 1))}
        # diagnostics for Table 4: the same runs killed at their request (no overruns)
        k = {**a, "run": np.minimum(a["run"], a["req"])}
        if "Backfill" in w.forecast_algs and w.facts["overran"]:
            w.facts["t4_capped"] = wait_forecast(k, w.capacity, "Backfill", k["run"])["wait_pct"]
        if "FCFS" in w.forecast_algs:  # the paper: FCFS forecasts with actual run times have no error
            w.facts["fcfs_capped"] = wait_forecast(k, w.capacity, "FCFS", k["run"])
        # Smith's set, searched once per algorithm on its prediction events (the paper's set-up)
        w.facts["sets"] = {f"{alg}{'' if running else ' (waiting jobs)'}": set_text(t)
                           for (alg, running), (t, _, _) in sorted(sets.items())}
        w.facts["search_s"] += sum(x[2] for x in sets.values())
        for p in PREDICTORS:
            re_min, re_pct = run_error(a, est[p])
            base = {"w": w, "p": p, "run_err": re_min, "run_pct": re_pct}
            for alg in w.forecast_algs:
                tpl, e = (sets[alg, True][:2]) if p == "smith" else (None, est[p])
                extra = {"run_err": run_error(a, e)[0], "run_pct": run_error(a, e)[1]} if p == "smith" else {}
                wait_rows.append({**base, **extra, "alg": alg, **wait_forecast(a, w.capacity, alg, e, w, p, tpl)})
            for alg in w.sched_algs:
                e = sets[alg, alg != "LWF"][1] if p == "smith" else est[p]
                extra = {"run_err": run_error(a, e)[0], "run_pct": run_error(a, e)[1]} if p == "smith" else {}
                sched_rows.append({**base, **extra, "alg": alg, **sched(alg, p, e)})
        w.facts["seconds"] = time.perf_counter() - t0 + w.facts.get("planned_s", 0.0)
    return {"workloads": ws, "wait": wait_rows, "sched": sched_rows}
