"""Report section 3: runtime adjustment schemes (Tang et al. Figs. 4-11).

Reads the stored ``--grid tang`` (every key x window x percentile, with and
without the 0.5 floor) and the per-job estimates of the one-month schemes.
"""

from __future__ import annotations

from . import figures
from .common import by_trace, series, split_by_request, trace_fields
from .page import Figure, Section
from .views import rows, view_table

KEYS = {"single_user": "user", "single_project": "project", "double_key": "user + project",
        "triple_key": "user + project + request", "original": "original (requests)"}


def adjustment(con, traces: list[str]) -> Section:
    sec = Section(
        "adjustment", "3. Adjustment schemes",
        "What happens if the scheduler replaces each request by the request times a factor learned from "
        "similar earlier jobs (Tang et al.): the factor is a percentile of R over the jobs of the same key "
        "that ended within the history window, at least 10 of them, never below 0.5 when the floor is on. "
        "Accuracy is min(estimate, run) / max(estimate, run), 1 being perfect. Lower percentiles and finer "
        "keys raise the accuracy but also the share of jobs whose estimate falls short of their run "
        "(UE: by less than 30 minutes, BE: by more; NA: left at the request; OE: still above the run). "
        "The floor trades a little accuracy for fewer underestimates; the window shows whether recent "
        "history is enough. The CDF compares per-job accuracy before and after adjustment.",
    )
    have, notes = split_by_request(con, traces, "the adjustment schemes")
    sec.notes += notes
    fields = trace_fields(con, have)
    for t in have:
        if not fields[t]["has_group"]:
            sec.notes.append(f"{t}: no group (project) ids, so the project, double and triple keys find no "
                             "history and leave the requests unchanged; the one-month schemes below use the "
                             "user key instead")
    if not have:
        return sec
    acc = by_trace(rows(con, "report_grid_accuracy", have, order="trace, pos"))
    shares = by_trace(rows(con, "report_grid_shares", have, order="trace, key_type DESC, pos"))
    floor = by_trace(rows(con, "report_grid_floor", have, order="trace, key_type DESC, pos"))
    window = by_trace(rows(con, "report_grid_window", have, order="trace, key_type DESC, pos"))
    cdf = by_trace(rows(con, "report_accuracy_cdf", have, order="trace, scheme, x"))
    for t in have:
        a = acc.get(t, [])
        stats = [r["stat"] for r in a]
        sec.blocks.append(Figure(f"accuracy by key {t}", figures.bar_chart(
            stats, {label: [r[col] for r in a] for col, label in KEYS.items()},
            f"Mean accuracy by key and statistic, window all, no floor (Tang Fig. 4): {t}",
            "statistic of R", "mean accuracy (0-1, 1 = exact)", ylim=(0, 1))))
        tri = [r for r in shares.get(t, []) if r["key_type"] == "user_project_req"]
        sec.blocks.append(Figure(f"shares {t}", figures.bar_chart(
            [r["stat"] for r in tri], {c.upper(): [r[c] for r in tri] for c in ("na", "oe", "ue", "be", "above")},
            f"NA / OE / UE / BE, triple key (Tang Fig. 5): {t}", "statistic of R", "share of jobs (0-1)",
            stacked=True, ylim=(0, 1))))
        fl = [r for r in floor.get(t, []) if r["key_type"] == "user_project_req"]
        sec.blocks.append(Figure(f"floor {t}", figures.bar_chart(
            [r["stat"] for r in fl], {"no floor": [r["under_no_floor"] for r in fl],
                                      "floor 0.5": [r["under_floor_0_5"] for r in fl]},
            f"Underestimated share with and without the floor (Tang Figs. 6-7): {t}", "statistic of R",
            "share of jobs with estimate < run (0-1)")))
        w = [r for r in window.get(t, []) if r["key_type"] == "user_project_req"]
        sec.blocks.append(Figure(f"window {t}", figures.line_chart(
            {f"accuracy {win}": (list(range(len(w))), [r[f"acc_{win}"] for r in w]) for win in ("30d", "90d", "365d", "all")}
            | {f"under {win}": (list(range(len(w))), [r[f"under_{win}"] for r in w]) for win in ("30d", "all")},
            f"History window, triple key, floor 0.5 (Tang Figs. 8-10): {t}", "statistic of R",
            "mean accuracy / underestimated share (0-1)", xcats=[r["stat"] for r in w], ylim=(0, 1))))
        sec.blocks.append(Figure(f"accuracy CDF {t}", figures.line_chart(
            series(cdf.get(t, []), "scheme", "x", "share_le"),
            f"CDF of per-job accuracy, before and after (Tang Fig. 11): {t}", "accuracy (0-1, 1 = exact)",
            "share of jobs with accuracy <= x (0-1)", step=True, ylim=(0, 1))))
    sec.blocks.append(view_table(con, "Mean accuracy by key and statistic, window all, no floor (Tang Fig. 4)",
                                 "report_grid_accuracy", have, order="trace, pos"))
    sec.blocks.append(view_table(con, "NA / OE / UE / BE shares, window all, no floor (Tang Fig. 5)",
                                 "report_grid_shares", have, order="trace, key_type DESC, pos"))
    sec.blocks.append(view_table(con, "Effect of the floor A >= 0.5, window all (Tang Figs. 6-7)",
                                 "report_grid_floor", have, order="trace, key_type DESC, pos"))
    sec.blocks.append(view_table(con, "Effect of the history window, floor 0.5 (Tang Figs. 8-10)",
                                 "report_grid_window", have, order="trace, key_type DESC, pos"))
    sec.blocks.append(view_table(con, "Accuracy of the schemes the report simulates and of the predictors",
                                 "report_role_accuracy", have, order="trace, pos"))
    sec.blocks.append(view_table(con, "CDF of per-job accuracy (Tang Fig. 11)", "report_accuracy_cdf", have,
                                 order="trace, scheme, x"))
    return sec
