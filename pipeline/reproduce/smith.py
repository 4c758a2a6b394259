"""Smith, Taylor & Foster 1999 (JSSPP): wait-time prediction by simulating the
queue forward (Tables 4-9) and scheduling performance (Tables 10-15), CTC rows.

Their template predictor (genetic search) is not implemented here; the
project's history predictors stand in, and their CTC log is not ours (the
Table 1 checks below say by how much).
"""

from __future__ import annotations

from ..warehouse import Warehouse
from .common import CTC, SDSC, SHORT, rows, run_plan
from .core import Check, Checks, Explanation, Section, Table, Text, say

TRACES = {CTC: 512, SDSC: None}
QUICK = {CTC: 512}
TOL = 20.0  # percent
REQ, EXACT = "user estimate (request)", "exact runtime"
# Table 1: CTC "2 months of 1996", 13,217 requests, mean run time 171.14 min
CTC_LOG = {"jobs": 13217, "mean_run_min": 171.14}
# Tables 4-5 (CTC): algorithm -> (run error min, % of mean run, wait error min, % of mean wait)
WAIT_ERR = {
    EXACT: {"LWF": (None, None, 4.05, 39), "Backfill": (None, None, 2.62, 10)},
    REQ: {"FCFS": (243.97, 143, 125.36, 128), "LWF": (254.57, 149, 9.86, 94), "Backfill": (264.36, 154, 51.16, 190)},
}
TEMPLATE = {"FCFS": 37, "LWF": 53, "Backfill": 44}  # Table 6: their predictor, wait error % of mean wait
# Tables 10-11 (CTC): (utilization %, mean wait min)
SCHED = {EXACT: {"LWF": (51.28, 11.15), "Backfill": (51.28, 23.75)},
         REQ: {"LWF": (51.28, 10.48), "Backfill": (51.28, 26.86)}}


def compute(wh: Warehouse, traces: dict, quick: bool) -> None:
    run_plan(wh, traces, ["prediction"], "smith")


def build(con, traces: dict, quick: bool) -> Section:
    s = Section("smith", "Smith, Taylor & Foster 1999: wait-time prediction (CTC rows)")
    s.add(Text("Predicted start at submission by simulating the queue forward with the scheduler's estimates "
               "and no later arrivals. FCFS and LWF without backfilling; Backfill = FCFS + EASY. CTC at 512 "
               "nodes. The paper's SDSC rows are the SDSC Paragon, not the SP2, so only CTC is checked."))
    names = list(traces)
    pred = rows(con, "SELECT * FROM report_smith_prediction WHERE trace IN (SELECT unnest(?::VARCHAR[])) "
                     "ORDER BY trace, pos, apos", names)
    sched = rows(con, "SELECT * FROM report_smith_scheduling WHERE trace IN (SELECT unnest(?::VARCHAR[])) "
                      "ORDER BY trace, pos, apos", names)
    s.add(Table("Tables 4-9 layout, ours: run-time and wait-time prediction error",
                ["trace", "predictor", "algorithm", "run error (min)", "% of mean run", "wait error (min)",
                 "% of mean wait"],
                [[SHORT[r["trace"]], r["predictor"], r["algorithm"], r["run_error_min"], r["run_error_pct"],
                  r["wait_error_min"], r["wait_error_pct"]] for r in pred], "report_smith_prediction"))
    if CTC not in traces:
        return s
    p = {(r["predictor"], r["algorithm"]): r for r in pred if r["trace"] == CTC}
    sc = {(r["predictor"], r["algorithm"]): r for r in sched if r["trace"] == CTC}
    (jobs, mean_run) = con.execute("SELECT count(*), avg(run) / 60 FROM jobs WHERE trace = ? AND run >= 0",
                                   [CTC]).fetchone()
    log = [Check("smith.t1.CTC.jobs", "Table 1", "jobs in the CTC log", CTC_LOG["jobs"], jobs, "value", 5.0,
                 trace="CTC"),
           Check("smith.t1.CTC.mean_run", "Table 1", "mean run time (min)", CTC_LOG["mean_run_min"], mean_run,
                 "value", 5.0, trace="CTC")]
    s.add(Checks("Table 1: is it the same CTC log?", log))
    s.add(Text(" ".join(say(c) for c in log)))
    s.add(Explanation("Smith et al.'s CTC log covers two months of 1996; the archive's CTC-SP2 log covers "
                      "July 1996 to May 1997, so the two studies do not share a log: the CTC rows below compare "
                      "the same machine and scheduler rules on different job streams.", [c.id for c in log]))
    checks = []
    for who, by in WAIT_ERR.items():
        tag = "exact" if who == EXACT else "request"
        for alg, (run_min, run_pct, wait_min, wait_pct) in by.items():
            o = p.get((who, alg), {})
            checks.append(Check(f"smith.wait.CTC.{tag}.{alg}", "Table 4" if who == EXACT else "Table 5",
                                f"{alg}, {tag}: wait-time error (% of mean wait)", wait_pct, o.get("wait_error_pct"),
                                "value", TOL, trace="CTC"))
            if run_pct is not None:
                checks.append(Check(f"smith.run.CTC.{tag}.{alg}", "Table 5",
                                    f"{alg}, {tag}: run-time error (% of mean run)", run_pct,
                                    o.get("run_error_pct"), "value", TOL, trace="CTC"))
    for who, by in SCHED.items():
        tag = "exact" if who == EXACT else "request"
        ref = "Table 10" if who == EXACT else "Table 11"
        for alg, (util, wait) in by.items():
            o = sc.get((who, alg), {})
            checks.append(Check(f"smith.util.CTC.{tag}.{alg}", ref, f"{alg}, {tag}: utilization (%)", util,
                                o.get("utilization_pct"), "value", TOL, trace="CTC"))
            checks.append(Check(f"smith.meanwait.CTC.{tag}.{alg}", ref, f"{alg}, {tag}: mean wait (min)", wait,
                                o.get("mean_wait_min"), "value", TOL, trace="CTC"))
    s.add(Checks(f"Tables 4, 5, 10, 11 (CTC): values within {TOL:g}%", checks))
    better = []
    for (who, alg), o in sorted(p.items()):
        if who in (REQ, EXACT) or alg not in TEMPLATE:
            continue
        base = p.get((REQ, alg), {}).get("wait_error_pct")
        better.append(Check(f"smith.better.CTC.{who.split()[0].lower()}.{alg}", "Table 6 vs Table 5",
                            f"{alg}: wait-time error with a history predictor ({who}; paper: theirs) minus with "
                            "the requests (points)", TEMPLATE[alg] - WAIT_ERR[REQ][alg][3],
                            None if base is None or o.get("wait_error_pct") is None else o["wait_error_pct"] - base,
                            "direction", trace="CTC"))
    s.add(Checks("Better run-time predictions, better wait-time predictions (sign)", better))
    return s
