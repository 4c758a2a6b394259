"""Report section 2: how good are the users' runtime estimates?

Tang et al. Fig. 1 (R distribution and CDF), Fig. 2 (mean R by quarter),
Table 2 (per-key spread); Mu'alem & Feitelson Table 2; Klusacek & Soysal
Fig. 2 (CDFs of actual, requested and predicted runtimes) and Figs. 3-4
(per-user mean absolute error, request vs predictor).
"""

from __future__ import annotations

from . import figures
from .common import by_trace, series, split_by_request, trace_fields
from .page import Figure, Section
from .views import rows, view_table


def user_estimates(con, traces: list[str]) -> Section:
    sec = Section(
        "estimates", "2. User estimates",
        "How much of the requested time jobs really use. R is the run time divided by the requested "
        "time (capped at 1): R near 1 means the user guessed well (or the job was killed at its limit), "
        "R near 0 means the job asked for far more time than it needed. The histogram and CDF show how "
        "R spreads over the jobs, the quarterly means show whether users got better over time, and the "
        "per-key table shows that jobs of the same user, project and requested time are far more alike "
        "than jobs in general, the observation adjustment schemes rely on. The runtime CDFs and per-user "
        "errors compare the requests with a simple predictor (the request times the largest R of the "
        "user's last five jobs, Klusacek & Soysal).",
    )
    have, notes = split_by_request(con, traces, "the R distribution, quarters, per-key spread and predictor comparison")
    sec.notes += notes
    fields = trace_fields(con, have)
    sec.notes += [f"{t}: no group (project) ids, so the per-key spread has no project, user + project or "
                  "user + project + request rows" for t in have if not fields[t]["has_group"]]
    sec.blocks.append(view_table(con, "Mu'alem & Feitelson Table 2: parameters of the workloads",
                                 "report_mualem_table2", traces, order="trace, pos"))
    if not have:
        return sec
    sec.blocks.append(view_table(con, "R = run / request: summary (Tang Sec. 3)", "report_r_summary", have))
    hist = by_trace(rows(con, "report_r_hist", have, order="trace, bin"))
    cdf = by_trace(rows(con, "report_r_cdf", have, order="trace, x"))
    for t in have:
        h = hist.get(t, [])
        sec.blocks.append(Figure(f"R histogram {t}", figures.bar_chart(
            [f"{r['lo']:.2f}" for r in h], {"share of jobs": [r["share"] for r in h]},
            f"Distribution of R (Tang Fig. 1): {t}", "R = run / request (bin start, ratio)", "share of jobs (0-1)")))
        c = cdf.get(t, [])
        sec.blocks.append(Figure(f"R CDF {t}", figures.line_chart(
            {"CDF": ([r["x"] for r in c], [r["share_le"] for r in c])},
            f"CDF of R: {t}", "R = run / request (ratio)", "share of jobs with R <= x (0-1)", step=True, ylim=(0, 1))))
    q = by_trace(rows(con, "report_r_quarters", have, order="trace, quarter"))
    quarters = sorted({r["quarter"] for rs in q.values() for r in rs})
    sec.blocks.append(Figure("mean R per quarter", figures.line_chart(
        {t: ([quarters.index(r["quarter"]) for r in q.get(t, [])], [r["mean_r"] for r in q.get(t, [])]) for t in have},
        "Mean R per quarter (Tang Fig. 2)", "quarter of submission", "mean R (ratio)", ylim=(0, 1),
        xcats=quarters, dates=True)))
    sec.blocks.append(view_table(con, "Mean R per quarter (Tang Fig. 2)", "report_r_quarters", have,
                                 order="trace, quarter"))
    sec.blocks.append(view_table(con, "Spread of R within keys (Tang Table 2)", "report_r_keys", have,
                                 order="trace, pos"))
    runtime = by_trace(rows(con, "report_runtime_cdf", have, order="trace, walltime, k"))
    errors = by_trace(rows(con, "report_user_error", have, order="trace, rank_by_request"))
    for t in have:
        sec.blocks.append(Figure(f"runtime CDF {t}", figures.line_chart(
            series(runtime.get(t, []), "walltime", "seconds", "share_le"),
            f"CDF of runtimes (Klusacek & Soysal Fig. 2): {t}", "runtime (s, log scale)", "share of jobs (0-1)",
            step=True, xlog=True, ylim=(0, 1))))
        top = errors.get(t, [])[:25]
        sec.blocks.append(Figure(f"per-user error {t}", figures.bar_chart(
            [str(r.get("user") or r["user_id"]) for r in top],
            {"user estimate": [r["mae_request_h"] for r in top], "predictor": [r["mae_predictor_h"] for r in top]},
            f"Mean absolute error per user (K&S Figs. 3-4): {t}", "user (25 worst by request)",
            "mean absolute error (h)")))
    sec.blocks.append(view_table(con, "Mean absolute error per user (hours), 25 worst per trace by request",
                                 "report_user_error", have, order="trace, rank_by_request", where="rank_by_request <= 25"))
    return sec
