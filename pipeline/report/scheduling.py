"""Report section 4: what better estimates do to the schedule.

Tang et al. Figs. 13-17 (monthly, WFP and FCFS, regular and selective);
Mu'alem & Feitelson Tables 1, 3, 4 (EASY vs conservative, uniform estimates,
doubled requests); Klusacek & Soysal Figs. 5-7 (backfill ratio, wait times).
"""

from __future__ import annotations

from . import figures
from .common import by_trace, capacity_notes, split_by_request
from .page import Figure, Section
from .views import rows, view_table

PANELS = (("wait", "avg. wait (baseline 100)"), ("slowdown", "avg. slowdown (baseline 10)"),
          ("weighted_wait", "weighted avg. wait (baseline 100)"))


def scheduling(con, traces: list[str]) -> Section:
    sec = Section(
        "scheduling", "4. Scheduling",
        "Each trace is replayed through the simulator, month by month from an empty machine, with the "
        "users' requests (the baseline) and with adjusted estimates (one-month history, 95th, 85th and "
        "70th percentile: conservative to aggressive). Values are relative to the baseline of the same "
        "month: below 100 (or 10 for slowdown) the adjusted estimates helped. Regular adjustment uses the "
        "adjusted estimate for waiting and running jobs; selective keeps the request for running jobs. "
        "The Mu'alem & Feitelson tables compare EASY with conservative backfilling, estimates drawn "
        "uniformly between the run time and f times it, and requests doubled; the Klusacek & Soysal "
        "figures show how many jobs are backfilled and how long jobs wait with exact runtimes, the "
        "requests and a predictor under conservative backfilling.",
    )
    traces, cap_notes = capacity_notes(con, traces)
    have, notes = split_by_request(con, traces, "the adjusted-estimate and request-based simulations")
    sec.notes += cap_notes + notes
    if have:
        _tang(con, sec, have)
    _mualem(con, sec, traces, have)
    _klusacek(con, sec, traces, have)
    return sec


def _tang(con, sec: Section, have: list[str]) -> None:
    months = by_trace(rows(con, "report_tang_months", have, order="trace, policy DESC, adjust, scheme DESC, month"))
    acc = by_trace(rows(con, "report_accuracy_month", have, order="trace, month"))
    for t in have:
        a = acc.get(t, [])
        sec.blocks.append(Figure(f"accuracy per month {t}", figures.line_chart(
            {k: (list(range(len(a))), [r[k] for r in a]) for k in ("original", "p95", "p85", "p70")},
            f"Mean accuracy per month (Tang Fig. 13): {t}", "month of submission",
            "mean accuracy (0-1, 1 = exact)", xcats=[r["month"] for r in a], dates=True, ylim=(0, 1))))
        for policy, adjust, fig in (("wfp", "regular", 14), ("wfp", "selective", 15),
                                    ("fcfs", "regular", 16), ("fcfs", "selective", 17)):
            rs = [r for r in months.get(t, []) if r["policy"] == policy and r["adjust"] == adjust]
            cats = sorted({r["month"] for r in rs})
            pos = {m: i for i, m in enumerate(cats)}
            for col, label in PANELS:
                base = 10 if col == "slowdown" else 100
                ser = {"baseline": (list(range(len(cats))), [base] * len(cats))}
                for s in ("p95", "p85", "p70"):
                    pts = [r for r in rs if r["scheme"] == s]
                    ser[s] = ([pos[r["month"]] for r in pts], [r[col] for r in pts])
                sec.blocks.append(Figure(f"tang {t} {policy} {adjust} {col}", figures.line_chart(
                    ser, f"Fig. {fig}, {policy.upper()} {adjust}: {label}: {t}", "month of submission",
                    f"{label.split(' (')[0]}, % of the requests' value" if base == 100
                    else f"{label.split(' (')[0]}, requests = 10", xcats=cats, dates=True)))
    gain = by_trace(rows(con, "report_tang_gain", have, order="trace, policy DESC, adjust, scheme DESC"))
    for t in have:
        g = gain.get(t, [])
        cats = [f"{r['policy']} {r['adjust'][:3]} {r['scheme']}" for r in g]
        sec.blocks.append(Figure(f"tang gain {t}", figures.bar_chart(
            cats, {"wait": [r["wait_gain_pct"] for r in g], "slowdown": [r["slowdown_gain_pct"] for r in g],
                   "weighted wait": [r["weighted_wait_gain_pct"] for r in g]},
            f"Average gain over months (Tang Figs. 14-17 (d)): {t}", "policy, adjustment, scheme",
            "gain over the requests (%, positive = better)")))
    sec.blocks.append(view_table(con, "Average gain of the adjusted estimates over the baseline, percent "
                                      "(Tang Figs. 14-17 (d))", "report_tang_gain", have,
                                 order="trace, policy DESC, adjust, scheme DESC"))
    sec.blocks.append(view_table(con, "Per month, relative to the baseline (Tang Figs. 14-17 (a)-(c))",
                                 "report_tang_months", have, order="trace, policy DESC, adjust, scheme DESC, month"))


def _mualem(con, sec: Section, traces: list[str], have: list[str]) -> None:
    if have:
        sec.blocks.append(view_table(con, "EASY vs conservative backfilling per month, FCFS, users' requests "
                                          "(Mu'alem & Feitelson Table 1)", "report_mualem_table1", have,
                                     order="trace, month"))
    t3 = by_trace(rows(con, "report_mualem_table3", traces, order="trace, backfill DESC, metric"))
    cols = ["f1", "f2", "f4", "f11", "f31", "f101", "f301"]
    for t in traces:
        rs = [r for r in t3.get(t, []) if r["metric"] == "bounded slowdown"]
        sec.blocks.append(Figure(f"uniform {t}", figures.line_chart(
            {r["backfill"]: (list(range(len(cols))), [r[c] for c in cols]) for r in rs},
            f"Bounded slowdown, estimates uniform in [r, f r] (M&F Table 3): {t}", "f (estimates uniform in [run, f x run])", "mean bounded slowdown (ratio, 10 s bound)",
            xcats=[c[1:] for c in cols])))
    sec.blocks.append(view_table(con, "Estimates uniform in [r, f r], one seed (Mu'alem & Feitelson Table 3)",
                                 "report_mualem_table3", traces, order="trace, backfill DESC, metric"))
    if have:
        sec.blocks.append(view_table(con, "Requests doubled (Mu'alem & Feitelson Table 4)",
                                     "report_mualem_table4", have, order="trace, metric"))


def _klusacek(con, sec: Section, traces: list[str], have: list[str]) -> None:
    if not have:
        return
    waits = by_trace(rows(con, "report_ks_wait", have, order="trace, pos, bin"))
    bf = by_trace(rows(con, "report_ks_backfill", have, order="trace, pos"))
    for t in have:
        b = bf.get(t, [])
        sec.blocks.append(Figure(f"ks backfill {t}", figures.bar_chart(
            [r["walltime"] for r in b], {"backfilled %": [r["backfilled_pct"] for r in b]},
            f"Backfilled jobs, FCFS + conservative (K&S Fig. 5): {t}", "walltime the scheduler used", "backfilled jobs (% of jobs)")))
        w = waits.get(t, [])
        bins = []
        for r in w:
            if r["wait"] not in bins:
                bins.append(r["wait"])
        ser = {}
        for r in w:
            ser.setdefault(r["walltime"], [0.0] * len(bins))[bins.index(r["wait"])] = r["share"]
        sec.blocks.append(Figure(f"ks waits {t}", figures.bar_chart(
            bins, ser, f"Distribution of wait times (K&S Figs. 6-7): {t}", "wait (bin)", "share of jobs (0-1)")))
    sec.blocks.append(view_table(con, "Backfilled jobs and waits under conservative backfilling "
                                      "(Klusacek & Soysal Fig. 5)", "report_ks_backfill", have, order="trace, pos"))
    sec.blocks.append(view_table(con, "Distribution of wait times (Klusacek & Soysal Figs. 6-7)",
                                 "report_ks_wait", have, order="trace, pos, bin"))
