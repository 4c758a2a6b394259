"""Smith, Taylor & Foster 1999 (JSSPP): run-time prediction with their template
predictor, wait-time prediction by simulating the queue forward (Tables 4-9)
and scheduling on the predictions (Tables 10-15), with their set-up.

Set-up (their Sections 2.1.4, 3, 4): the scheduler runs on the requests while
the wait forecast at each submission uses the predictor (Tables 4-9); Tables
10-15 schedule on the predictor. "Backfill" = conservative backfilling.
Predictors: actual run times, the requests, Smith's template predictor (a set
searched on each workload, ``smith:set=...``), Gibbons, Downey. The runs are in
``smith_runs.py`` (the forecasts, and everything in memory) and ``smith_plan.py``
(the workloads as derived traces, the replays through the planner, the sets and
estimates stored); the paper's numbers in ``smith_published.py``.
"""

from __future__ import annotations

import statistics

from ..warehouse import Warehouse
from . import smith_published as P
from .common import CTC, PAR96, boot_interval, pct_change
from .core import Check, Checks, Explanation, Section, Table, Text, say
from .smith_runs import CONDITIONAL, PREDICTORS, SEARCH, run_all

TRACES = {CTC: 512, PAR96: 400}
QUICK = {CTC: 512, PAR96: 400}  # the CTC two-month window and SDSC96 (no full CTC, no compressed SDSC)
TOL = 20.0  # percent of the paper's number
OTHERS = ("request", "gibbons", "downey_mean", "downey_median")
_DONE: dict = {}  # (database file, traces, quick) -> run_all's result, from compute() to build()


def _key(con, traces: dict, quick: bool):
    db = con.execute("SELECT file FROM pragma_database_list WHERE name = current_database()").fetchone()
    return (db[0] if db else "", tuple(sorted(traces.items())), quick)


def compute(wh: Warehouse, traces: dict, quick: bool) -> None:
    """The workloads as derived traces, the replays through the planner, the searched sets and the
    estimates stored (smith_plan.py; stored work reused); the wait forecasts computed."""
    from .smith_plan import run_stored

    res = run_stored(wh, traces, quick)
    con = wh.reader()
    try:
        _DONE[_key(con, traces, quick)] = res
    finally:
        con.close()


def build(con, traces: dict, quick: bool) -> Section:
    key = _key(con, traces, quick)
    res = _DONE.pop(key) if key in _DONE else run_all(con, traces, quick)
    s = Section("smith", "Smith, Taylor & Foster 1999: run-time and wait-time prediction, scheduling on predictions")
    s.add(Text("Set-up (their Sections 2.1.4, 3 and 4): the scheduler runs on the requests (maximum run times); at "
               "each submission the wait is forecast by simulating the queue forward with the predictor's run "
               "times and no later arrivals, jobs running at that instant re-predicted given their age "
               "(`kernel.simulate_forecast_running`). \"Backfill\" is conservative "
               "backfilling. Tables 10-15 schedule on the predictor itself. Run-time error (Tables 5-9) is the "
               "paper's: mean |prediction - run| over every prediction event, each job in the system (queued "
               "or running) at each submission, so it differs by algorithm as the paper's rows do; the tables "
               "in minutes also give each job's one prediction at submission. Utilisation = work / (nodes x time from the "
               f"first submission to the last end). Smith's template set is searched, as in the paper (its "
               f"Section 3), once per algorithm and workload ({SEARCH[0]} generations x {SEARCH[1]}, seed "
               f"{SEARCH[2]}), each job's error weighted by the prediction events it takes part in under that "
               "algorithm on the requests (its submission, then every submission while it waits and, except "
               "for LWF scheduling, which predicts waiting jobs only, while it runs). Values are judged within {TOL:g}% of "
               "the paper's; the paper's ANL and SDSC95 rows have no trace here."
               + (" Quick set: the CTC two-month window and SDSC96 only." if quick else "")))
    _workloads(s, res["workloads"])
    _table1(s, con, res["workloads"])
    W = {(r["w"].key, r["p"], r["alg"]): r for r in res["wait"]}
    S = {(r["w"].key, r["p"], r["alg"]): r for r in res["sched"]}
    _fcfs_exact(s, res["workloads"], W)
    _wait_tables(s, res["workloads"], W)
    _context(s, res["workloads"], W, S)
    _sched_tables(s, res["workloads"], S)
    _readings(s, res["workloads"], W, S)
    return s


def _workloads(s: Section, ws) -> None:
    s.add(Table("Workloads", ["workload", "jobs", "nodes", "left out", "no request", "ran past request",
                              "mean run (min)", "search (s)", "all runs (s)", "Smith's set, searched per algorithm"],
                [[w.label, w.n, w.capacity, w.dropped, w.no_req, w.facts["overran"], w.facts["mean_run_min"],
                  w.facts["search_s"], w.facts["seconds"],
                  "; ".join(f"{k}: {v}" for k, v in w.facts.get("sets", {"all": w.facts["set"]}).items())]
                 for w in ws]))
    s.add(Text(" ".join(f"{w.label}: {w.note}." for w in ws)))


def _table1(s: Section, con, ws) -> None:
    log = []
    for w in ws:
        if w.key == "ctc2m":
            log += [Check("smith.t1.ctc2m.jobs", "Table 1", "jobs in the CTC two-month window", P.CTC_LOG["jobs"].value,
                          w.n, "value", 5.0, trace="CTC"),
                    Check("smith.t1.ctc2m.mean_run", "Table 1", "mean run time (min)",
                          P.CTC_LOG["mean_run_min"].value, w.facts["mean_run_min"], "value", 10.0, trace="CTC")]
        if w.key == "sdsc96":
            log += [Check("smith.t1.sdsc96.jobs", "Table 1", "jobs in the SDSC Paragon 1996 log",
                          P.SDSC96_JOBS.value, w.n, "value", 5.0, trace="SDSC96"),
                    Check("smith.t1.sdsc96.mean_run", "Table 1", "mean run time (min)", P.SDSC96_MEAN_RUN.value,
                          w.facts["mean_run_min"], "value", 10.0, trace="SDSC96")]
    if not log:
        return
    s.add(Checks("Table 1: are they the same logs?", log), Text(" ".join(say(c) for c in log)))


def _wait_tables(s: Section, ws, W) -> None:
    for p, name in PREDICTORS.items():
        checks = []
        for w in ws:
            for alg in w.forecast_algs:
                r = W[(w.key, p, alg)]
                pub = P.WAIT.get((w.paper, p, alg)) if w.paper else None
                tno = pub[0] if pub else 4 + list(PREDICTORS).index(p)
                base = f"smith.t{tno}.{w.key}.{p}.{alg}"
                if p != "actual":
                    checks.append(Check(f"{base}.run_pct", f"Table {tno}",
                                        f"{alg}: run-time error over all prediction events (% of mean run)",
                                        pub and pub[2], r["run_pct_events"], "value", TOL, unit="%",
                                        trace=w.label))
                checks.append(Check(f"{base}.wait_pct", f"Table {tno}", f"{alg}: wait-time error (% of mean wait)",
                                    pub and pub[4], r["wait_pct"], "value", TOL, unit="%", trace=w.label))
        if checks:
            tno = 4 + list(PREDICTORS).index(p)
            s.add(Checks(f"Table {tno}: wait-time prediction with {name} (scheduler on the requests)",
                         [c for c in checks if c.paper is not None]))
            s.add(Table(f"Table {tno}, ours in minutes", ["workload", "algorithm", "run error, all events (min)",
                                                          "prediction events", "run error at submission (min)",
                                                          "wait error (min)", "mean wait (min)"],
                        [[r["w"].label, r["alg"], r["run_err_events"], r["events"], r["run_err"], r["wait_err"],
                          r["mean_wait"]] for (k, pp, a), r in W.items() if pp == p]))


def _sched_tables(s: Section, ws, S) -> None:
    for p, name in PREDICTORS.items():
        checks = []
        tno = 10 + list(PREDICTORS).index(p)
        for w in ws:
            for alg in w.sched_algs:
                r = S[(w.key, p, alg)]
                pub = P.SCHED.get((w.paper, p, alg)) if w.paper else None
                if pub is None:
                    continue
                base = f"smith.t{tno}.{w.key}.{p}.{alg}"
                # both simulators' baselines: the same algorithm on actual run times (Table 10 and ours)
                pb, ob = P.SCHED.get((w.paper, "actual", alg)), S.get((w.key, "actual", alg))
                baselines = ({"base_paper": pb[4], "base_ours": ob["mean_wait"]}
                             if p != "actual" and pb is not None and ob is not None else {})
                checks.append(Check(f"{base}.mean_wait", f"Table {tno}", f"{alg}: mean wait (min)", pub[4],
                                    r["mean_wait"], "value", TOL, unit="min", trace=w.label, **baselines))
                if p == "actual":
                    checks.append(Check(f"{base}.util", f"Table {tno}", f"{alg}: utilisation (%)", pub[3],
                                        r["util"], "value", TOL, unit="%", trace=w.label))
        if checks:
            s.add(Checks(f"Table {tno}: scheduling on {name}", checks))
    s.add(Table("Tables 10-15, ours: scheduling on each predictor", ["workload", "predictor", "algorithm",
                                                                     "run error (min)", "utilisation (%)",
                                                                     "mean wait (min)"],
                [[r["w"].label, PREDICTORS[p], alg, r["run_err"], r["util"], r["mean_wait"]]
                 for (k, p, alg), r in S.items()]))


def _fcfs_exact(s: Section, ws, W) -> None:
    """The paper's Table 4 text: FCFS forecasts with actual run times have no error,
    later arrivals never pass a queued job. Checked as run and with every run cut
    at its request; the reading names how many forecasts were early and why."""
    checks, parts = [], []
    for w in (w for w in ws if w.paper and "FCFS" in w.forecast_algs):
        r, k = W[(w.key, "actual", "FCFS")], w.facts["fcfs_capped"]
        base = f"smith.t4.{w.key}.actual.FCFS"
        checks += [Check(f"{base}.wait_err", P.FCFS_EXACT.ref, P.FCFS_EXACT.what, P.FCFS_EXACT.value,
                         r["wait_err"], "value", 0.01, rel=False, unit="min", trace=w.label),
                   Check(f"{base}.wait_err_capped", P.FCFS_EXACT.ref,
                         P.FCFS_EXACT.what + ", every run cut at its request", P.FCFS_EXACT.value, k["wait_err"],
                         "value", 0.01, rel=False, unit="min", trace=w.label)]
        parts.append(f"{w.label}: {w.facts['overran']:,} of {w.n:,} jobs ran past their request; "
                     f"{r['err_jobs']:,} forecasts were off ({r['early_jobs']:,} of them too early), mean error "
                     f"{r['wait_err']:.2f} min as run and {k['wait_err']:.2f} min ({k['err_jobs']:,} forecasts off) "
                     "with every run cut at its request")
    if not checks:
        return
    s.add(Checks("Table 4 text: FCFS forecasts with actual run times have no error", checks))
    early = all(W[(w.key, "actual", "FCFS")]["early_jobs"] == W[(w.key, "actual", "FCFS")]["err_jobs"]
                for w in ws if w.paper and "FCFS" in w.forecast_algs)
    exact = all(w.facts["fcfs_capped"]["err_jobs"] == 0 for w in ws if w.paper and "FCFS" in w.forecast_algs)
    cause = ("A forecast job never outlives its request, so a job that really ran past it is forecast to end at "
             "its request and the jobs queued behind it are forecast to start "
             + ("too early (every erroneous forecast is early)" if early else "at other times")
             + "; with every run cut at its request the FCFS forecast "
             + ("is exact, so that is the whole cause" if exact else "still errs, so that is not the whole cause"))
    s.add(Explanation(cause + ". " + "; ".join(parts) + ".", [c.id for c in checks]))


def _context(s: Section, ws, W, S) -> None:
    """Workloads the paper does not have (CTC full): ours beside the paper's row of
    the same machine, for context only, outside the checks and the tally."""
    for w in (w for w in ws if w.like):
        rows = []
        for (key, p, alg), r in W.items():
            pub = P.WAIT.get((w.like, p, alg))
            if key == w.key and pub:
                rows.append(["wait forecast", PREDICTORS[p], alg, pub[2], r["run_pct_events"], pub[4],
                             r["wait_pct"]])
        for (key, p, alg), r in S.items():
            pub = P.SCHED.get((w.like, p, alg))
            if key == w.key and pub:
                rows.append(["scheduling, mean wait (min)", PREDICTORS[p], alg, None, None, pub[4], r["mean_wait"]])
        s.add(Table(f"{w.label}, not in the paper: beside the paper's {w.like} rows, not checked",
                    ["run", "predictor", "algorithm", f"paper {w.like} run error (%)", "ours run error, all events (%)",
                     f"paper {w.like} wait", "ours wait"], rows))


def _backfill_reading(ws, W) -> str:
    """Why Table 4's Backfill rows differ, from the numbers: the forecast replays the
    scheduler exactly, so what is left is later arrivals, and overruns feed them."""
    parts = []
    for w in ws:
        if not w.paper or "Backfill" not in w.forecast_algs:
            continue
        got = W[(w.key, "actual", "Backfill")]["wait_pct"]
        if "t4_capped" in w.facts:
            parts.append(f"{w.label}: {w.facts['overran']:,} of {w.n:,} jobs ran past their request; {got:.1f}% "
                         f"as run, {w.facts['t4_capped']:.1f}% with every run cut at its request")
        else:
            parts.append(f"{w.label}: no job ran past its request; {got:.1f}%")
    return ("The conservative forecast simulates the scheduler itself forward from the submission (reservations "
            "on the requests, compression when a job ends early), so with actual run times its only error is what "
            "later arrivals do, the paper's reading of Table 4 (tests check it equals the schedule of the jobs "
            "submitted so far when no job runs past its request). A forecast job never outlives its request, so "
            "a job that really ran past it is forecast to end at its request; and in the real schedule such a "
            "job is expected to end at once at every event, so reservations keep moving and later arrivals "
            "backfill into the room. The paper's logs may have had runs cut at the maximum. Table 4 Backfill "
            "error in % of mean wait: " + "; ".join(parts) + ".")


def _running_reading(ws, W) -> str:
    """How the forecasts treat running jobs, with the re-prediction counts and the
    run-time error over every prediction the forecasts used, from the numbers."""
    parts, larger = [], []
    for w in (w for w in ws if w.paper):
        alg = w.forecast_algs[0]
        rows = [(p, W.get((w.key, p, alg))) for p in CONDITIONAL]
        rows = [(p, r) for p, r in rows if r and "run_pct_all" in r]
        larger += [r["run_pct_events"] > r["run_pct"] for _, r in rows]
        if rows:
            parts.append(f"{w.label} ({alg}, {rows[0][1]['events']:,} prediction events, "
                         f"{rows[0][1]['running_pairs']:,} of them running-job re-predictions): "
                         + ", ".join(f"{PREDICTORS[p]} {r['run_pct_events']:.0f}% over all events, "
                                     f"{r['run_pct']:.0f}% at submission" for p, r in rows))
    return ("In a forecast every job running at the forecast instant is re-predicted given how long it has run "
            "and the jobs completed by then (Smith's running-time ranges, Downey's conditional lifetime, Gibbons' "
            "exponential running-time ranges of 1, 2, 4, ... minutes), on the simulated schedule's history; a "
            "queued job keeps its submission prediction. The checks use the paper's definition, every job in the "
            "system at every submission, so a job counts once per event it is in: long-running and long-waiting "
            "jobs weigh more. " + ("Here the all-events error is the larger for every predictor and workload. "
                                   if larger and all(larger) else
                                   f"Here the all-events error is the larger in {sum(larger)} of {len(larger)} "
                                   "predictor and workload pairs. ")
            + "Run-time error in % of mean run: " + "; ".join(parts) + ".")


def _sdsc96_reading(ws, S) -> str:
    """How our SDSC96 compares with the paper's Table 1 row, from the numbers."""
    w = next((w for w in ws if w.key == "sdsc96"), None)
    if w is None:
        return ""
    f = w.facts
    lwf = S.get(("sdsc96", "actual", "LWF"))
    return (f"Our SDSC96 (batch queues, interactive queue left out) holds {w.n:,} jobs with a mean run of "
            f"{f['mean_run_min']:.0f} min against the paper's {P.SDSC96_JOBS.value:,.0f} and "
            f"{P.SDSC96_MEAN_RUN.value:g} min: an offered load of {100 * f['offered_load']:.0f}% of {w.capacity} "
            "nodes over the year" + (f", utilisation {lwf['util']:.0f}% under LWF on actual run times (paper "
                                     f"{P.SCHED[('SDSC96', 'actual', 'LWF')][3]:g}%)" if lwf else "")
            + f". The requests are the longest run of each queue, a mean of {f['mean_req_min']:.0f} min; the "
            "archive's queues hold runs longer than the paper's queue limits, so the request-based rows are judged "
            "on larger requests.")


def _compressed_reading(ws, S) -> str:
    """The compressed-load run (halved interarrivals) is LWF on SDSC96 only; how
    saturated it is, from the numbers."""
    w = next((w for w in ws if w.key == "sdsc96x05"), None)
    if w is None:
        return ""
    rows = [S[(w.key, p, a)] for p in PREDICTORS for a in w.sched_algs if (w.key, p, a) in S]
    u = [r["util"] for r in rows]
    h = [r["mean_wait"] / 60 for r in rows]
    load = w.facts["offered_load"]
    state = ("more work is offered than the machine can do, so the queue grows through the run and the mean waits "
             "measure that backlog" if load >= 1 else
             "the machine is nearly always busy" if min(u) >= 90 else "the machine keeps idle room")
    return (f"The compressed run is SDSC96 only, scheduled with {' and '.join(w.sched_algs)} only, at an offered "
            f"load of {100 * load:.0f}% of the machine: utilisation {min(u):.0f}-{max(u):.0f}% "
            f"and mean waits {min(h):.0f}-{max(h):.0f} h over the predictors; {state}. The paper compressed both "
            "SDSC workloads (SDSC95 is not in the shared traces) and schedules them with LWF and backfill.")


WEEKS = "weeks of submission, paired"  # what the readings' intervals resample (smith_runs.WEEK)


def _ratio_gap(x):
    """boot_interval's statistic for two ratios of sums: 100 x (x0 / x1 - x2 / x3)."""
    s = x.sum(axis=-1)
    return 100 * (s[0] / s[1] - s[2] / s[3])


def _run_gap(x):
    """Run-time error over events, first minus second predictor, in points of the mean run:
    x = (errors, events) of each, then the runs and the jobs."""
    s = x.sum(axis=-1)
    return 100 * (s[0] / s[1] - s[2] / s[3]) / (s[4] / s[5])


def _wait_gap(x):
    """Mean wait (min), first run minus second: x = (waits, waits, jobs)."""
    s = x.sum(axis=-1)
    return (s[0] - s[1]) / s[2] / 60


def _mean_pct(x):
    """The mean over pairs (x0 vs x1, x2 vs x3, ...) of the percent change of the sums."""
    s = x.sum(axis=-1)
    return sum(100 * (s[i] / s[i + 1] - 1) for i in range(0, len(s), 2)) / (len(s) // 2)


def _iv(cols, stat) -> dict:
    lo, hi = boot_interval(cols, stat)
    return {"lo": lo, "hi": hi, "interval": WEEKS}


def _readings(s: Section, ws, W, S) -> None:
    """The paper's comparisons (Sections 3, 4) as direction checks: Smith's predictor
    against each other one, on the same workload and algorithm, with a 95% interval
    over the weeks of submission (paired: every predictor's replay of the same weeks)."""
    wait, run, sched = [], [], []
    for w in (w for w in ws if w.paper):
        for alg in w.forecast_algs:
            for o in OTHERS:
                ps, po = P.WAIT.get((w.paper, "smith", alg)), P.WAIT.get((w.paper, o, alg))
                a, b = W[(w.key, "smith", alg)]["weeks"], W[(w.key, o, alg)]["weeks"]
                wait.append(Check(f"smith.wait_vs.{w.key}.{o}.{alg}", f"Table 6 vs Table {po[0]}",
                                  f"{alg}: wait-time error with Smith's minus with {PREDICTORS[o]} (points of mean "
                                  "wait)", ps[4] - po[4], W[(w.key, "smith", alg)]["wait_pct"]
                                  - W[(w.key, o, alg)]["wait_pct"], "direction", unit="points", trace=w.label,
                                  **_iv([a["wait_err"], a["wait"], b["wait_err"], b["wait"]], _ratio_gap)))
        alg = w.forecast_algs[0]
        for o in OTHERS:
            ps, po = P.WAIT[(w.paper, "smith", alg)], P.WAIT[(w.paper, o, alg)]
            a, b = W[(w.key, "smith", alg)]["weeks"], W[(w.key, o, alg)]["weeks"]
            run.append(Check(f"smith.run_vs.{w.key}.{o}", f"Table 6 vs Table {po[0]}",
                             f"run-time error over all prediction events with Smith's minus with {PREDICTORS[o]} "
                             f"(points of mean run, {alg} rows)",
                             ps[2] - po[2], W[(w.key, "smith", alg)]["run_pct_events"] - W[(w.key, o, alg)]["run_pct_events"],
                             "direction", unit="points", trace=w.label,
                             **_iv([a["ev_err"], a["ev_n"], b["ev_err"], b["ev_n"], a["run"], a["jobs"]], _run_gap)))
        for alg in w.sched_algs:
            ps, pr = P.SCHED[(w.paper, "smith", alg)], P.SCHED[(w.paper, "request", alg)]
            a, b = S[(w.key, "smith", alg)]["weeks"], S[(w.key, "request", alg)]["weeks"]
            sched.append(Check(f"smith.sched_vs.{w.key}.request.{alg}", "Table 12 vs Table 11",
                               f"{alg}: mean wait scheduling on Smith's minus on the requests (min)", ps[4] - pr[4],
                               S[(w.key, "smith", alg)]["mean_wait"] - S[(w.key, "request", alg)]["mean_wait"],
                               "direction", unit="min", trace=w.label,
                               **_iv([a["wait"], b["wait"], a["jobs"]], _wait_gap)))
    comp = [w for w in ws if w.key == "sdsc96x05"]
    if comp:
        pairs = [(S[("sdsc96x05", "smith", alg)], S[("sdsc96x05", o, alg)])
                 for alg in comp[0].sched_algs for o in OTHERS[1:]]
        d = [pct_change(a["mean_wait"], b["mean_wait"]) for a, b in pairs]
        sched.append(Check("smith.compressed.sdsc96x05", P.COMPRESSED.ref, P.COMPRESSED.what, P.COMPRESSED.value,
                           statistics.mean(d), "direction", unit="%", trace="SDSC96 x0.5",
                           paper_note="8% lower on average",
                           **_iv([c for a, b in pairs for c in (a["weeks"]["wait"], b["weeks"]["wait"])], _mean_pct)))
    s.add(Checks("Wait-time forecasts: Smith's predictor against the others (sign)", wait))
    s.add(Checks("Run-time error: Smith's predictor against the others (sign)", run))
    if sched:
        s.add(Checks("Scheduling on Smith's predictor (sign)", sched))
    explain = [
        (_running_reading(ws, W),
         [c.id for c in s.checks() if c.id.endswith(".run_pct") and not c.id.startswith("smith.t5.sdsc96.")]),
        (_backfill_reading(ws, W),
         [f"smith.t4.{w.key}.actual.Backfill.wait_pct" for w in ws if w.paper and "Backfill" in w.forecast_algs]),
        ("Utilisation here moves with the schedule's makespan and the window's edges; the paper's is one figure "
         "per workload.", [c.id for c in s.checks() if c.id.endswith(".util") and ".sdsc96." not in c.id]),
        (_sdsc96_reading(ws, S), [c.id for c in s.checks() if c.id.startswith(
            ("smith.t1.sdsc96.", "smith.t10.sdsc96.", "smith.t11.sdsc96.", "smith.t5.sdsc96."))]),
        (_compressed_reading(ws, S), ["smith.compressed.sdsc96x05"] if comp else []),
    ]
    for text, ids in explain:
        if ids:
            s.add(Explanation(text, ids))
