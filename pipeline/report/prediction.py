"""Report section 5: predicting each job's wait at submission (Smith, Taylor &
Foster 1999, Tables 4-9 and 10-15 layout) with the predictors we have."""

from __future__ import annotations

from . import figures
from .common import by_trace, capacity_notes, trace_fields
from .page import Figure, Section
from .views import rows, view_table


def prediction(con, traces: list[str]) -> Section:
    sec = Section(
        "prediction", "5. Wait-time prediction",
        "When a job is submitted, the scheduler can tell its user when it will start by simulating the "
        "queue forward with the runtime estimates it has (no later arrivals). This section measures how "
        "far those predicted starts are from the real ones under FCFS, least-work-first (LWF) and FCFS "
        "with EASY backfilling, for each kind of runtime estimate: the exact runtimes, the users' "
        "requests and the predictors. Errors are in minutes and as a percent of the mean run time "
        "(for the runtime estimates) or of the mean wait (for the predicted waits); the second table "
        "shows what each estimate does to utilization and mean wait when the scheduler uses it.",
    )
    traces, cap_notes = capacity_notes(con, traces)
    sec.notes += cap_notes
    f = trace_fields(con, traces)
    for t in traces:
        if not f[t]["has_request"]:
            sec.notes.append(f"{t}: no requested times, so the request-based estimates (requests, Tang p85, "
                             "Klusacek) are left out; exact runtimes and the history predictors remain")
        if not f[t]["has_exe"]:
            sec.notes.append(f"{t}: no executable ids (SWF field 14), so the mean + 1.5 sd predictor (key "
                             "executable, user, nodes) finds no history and falls back to the requests (Mu'alem & Feitelson "
                             "fall back to the mean + 1.5 sd of the whole workload so far)")
    pred = by_trace(rows(con, "report_smith_prediction", traces, order="trace, pos, apos"))
    for t in traces:
        p = pred.get(t, [])
        algos = ["FCFS", "LWF", "Backfill"]
        names = list(dict.fromkeys(r["predictor"] for r in p))
        sec.blocks.append(Figure(f"smith {t}", figures.bar_chart(
            names, {a: [next((r["wait_error_pct"] for r in p if r["predictor"] == n and r["algorithm"] == a), None)
                        for n in names] for a in algos},
            f"Wait-time prediction error, percent of mean wait (Smith et al. Tables 4-9): {t}",
            "runtime estimate", "wait prediction error (% of mean wait)")))
    sec.blocks.append(view_table(con, "Wait-time prediction (Smith, Taylor & Foster Tables 4-9 layout)",
                                 "report_smith_prediction", traces, order="trace, pos, apos"))
    sec.blocks.append(view_table(con, "Scheduling performance (Smith, Taylor & Foster Tables 10-15 layout)",
                                 "report_smith_scheduling", traces, order="trace, pos, apos"))
    return sec
