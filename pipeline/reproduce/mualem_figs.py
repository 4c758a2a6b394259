"""Mu'alem & Feitelson Table 1(a)'s load and jobs columns, and Fig. 5: the amount of backfilling in the trace
simulations, EASY beside conservative ("similar and, in one case (SDSC),
conservative even performs more backfilling but achieves worse results").

Why a module of its own: mualem.py holds Section 3's main claims; this figure
is read from the same runs (sql/reproduce_mualem_fig5.sql) and adds its own
checks and reading.
"""

from __future__ import annotations

from ..sqlfiles import load
from ..summary.compare import ratio_interval
from .common import SDSC, SHORT, boot_interval, pct_change, rows
from .core import Check, Checks, Explanation, Section, Table, Text

SIMILAR = 5.0  # points of jobs: our reading of "similar" (the paper gives no number)
LOAD_TOL, JOBS_TOL = 0.05, 10.0  # as Table 1(b)'s checks (mualem.py)


def fig5_intervals(con, trace: str) -> tuple[dict, dict]:
    """The 95% intervals of Fig. 5's two SDSC checks over the months (paired: the same jobs under both
    schemes): the backfilled share's difference in points and the bounded slowdown's change in percent."""
    got = rows(con, """SELECT p.backfill, s.month, count(*) AS jobs, sum(s.backfilled::INT) AS bf,
                              sum(greatest(1.0, (s.wait + s.run) / greatest(s.run, 10))) AS bsld
                       FROM report_plan_runs p JOIN sim_jobs s ON s.run_id = p.run_id
                       WHERE p.experiment = 'mualem' AND p.role = 'original' AND p.trace = ?
                       GROUP BY ALL""", trace)
    by: dict = {}
    for r in got:
        by.setdefault(r["backfill"], {})[r["month"]] = r
    e, c = by.get("easy", {}), by.get("conservative", {})
    ms = sorted(set(e) & set(c))
    cols = [[x[m][k] for m in ms] for x in (c, e) for k in ("bf", "jobs")]

    def points(x):  # conservative's backfilled share minus EASY's, in points
        return 100 * (x[0].sum(axis=-1) / x[1].sum(axis=-1) - x[2].sum(axis=-1) / x[3].sum(axis=-1))

    lo, hi = boot_interval(cols, points) if ms else (None, None)
    _, blo, bhi = ratio_interval([e[m]["bsld"] for m in ms], [c[m]["bsld"] for m in ms])
    return ({"lo": lo, "hi": hi, "interval": "months, paired"},
            {"lo": blo, "hi": bhi, "interval": "months, paired"})


def fig5(s: Section, con, traces: dict) -> None:
    got = rows(con, load("reproduce_mualem_fig5"), list(traces))
    by = {(r["trace"], r["backfill"]): r for r in got}
    done = [t for t in traces if (t, "easy") in by and (t, "conservative") in by]
    if not done:
        return
    s.add(Table("Fig. 5: jobs started by backfilling (Section 3 runs, users' requests)",
                ["trace", "jobs", "EASY backfilled %", "conservative backfilled %", "conservative - EASY (points)",
                 "bounded slowdown EASY", "bounded slowdown conservative"],
                [[SHORT[t], by[t, "easy"]["jobs"], by[t, "easy"]["backfilled_pct"],
                  by[t, "conservative"]["backfilled_pct"],
                  by[t, "conservative"]["backfilled_pct"] - by[t, "easy"]["backfilled_pct"],
                  by[t, "easy"]["mean_bounded_slowdown"], by[t, "conservative"]["mean_bounded_slowdown"]]
                 for t in done], "sql/reproduce_mualem_fig5.sql"))
    checks = []
    for t in done:
        e, c = by[t, "easy"], by[t, "conservative"]
        short = SHORT[t]
        checks.append(Check(f"mualem.fig5.{short}.similar", "Fig. 5 text",
                            "backfilled share, conservative minus EASY (points of jobs)", 0.0,
                            c["backfilled_pct"] - e["backfilled_pct"], "value", SIMILAR, rel=False, unit="points",
                            trace=short))
        if t == SDSC:
            more, worse = fig5_intervals(con, t)
            checks += [Check(f"mualem.fig5.{short}.more", "Fig. 5 text",
                             "backfilled share, conservative minus EASY (points of jobs)", 1.0,
                             c["backfilled_pct"] - e["backfilled_pct"], "direction", unit="points", trace=short,
                             paper_note="conservative backfills more", **more),
                       Check(f"mualem.fig5.{short}.worse", "Fig. 5 text",
                             "bounded slowdown, conservative vs EASY (%)", 1.0,
                             pct_change(c["mean_bounded_slowdown"], e["mean_bounded_slowdown"]), "direction",
                             unit="%", trace=short, paper_note="conservative worse", **worse)]
    s.add(Checks(f"Fig. 5: the amount of backfilling (\"similar\": within {SIMILAR:g} points, our reading)", checks))
    parts = []
    for t in done:
        e, c = by[t, "easy"], by[t, "conservative"]
        parts.append(f"{SHORT[t]}: EASY {e['backfilled_pct']:.1f}%, conservative {c['backfilled_pct']:.1f}% of "
                     f"{e['jobs']:,} jobs, bounded slowdown {e['mean_bounded_slowdown']:.1f} against "
                     f"{c['mean_bounded_slowdown']:.1f}")
    more_worse = [t for t in done if by[t, "conservative"]["backfilled_pct"] > by[t, "easy"]["backfilled_pct"]
                  and by[t, "conservative"]["mean_bounded_slowdown"] > by[t, "easy"]["mean_bounded_slowdown"]]
    s.add(Explanation(
        "A job counts as backfilled when the backfill scan starts it while a job ahead of it in queue order still "
        "waits (shared/specs/simulation.md); the paper does not define its count. " + "; ".join(parts) + ". "
        + (f"Conservative backfills more and still does worse on {', '.join(SHORT[t] for t in more_worse)}: "
           "the amount of backfilling does not decide the result, the paper's point."
           if more_worse else "On no trace here does conservative backfill more and do worse."),
        [c.id for c in checks]))


def table1a_load(s: Section, con, trace: str) -> None:
    """Table 1(a)'s load and jobs columns, month by month (the offered load is a
    property of the log: a month whose load agrees is the same month of the same
    workload, whatever the scheduler does)."""
    from .mualem_published import TABLE1

    short = SHORT[trace]
    ours = {r["month"]: r for r in rows(con, "SELECT month, load, jobs FROM report_mualem_table1 WHERE trace = ?",
                                        trace)}
    checks = []
    for month, load, jobs, *_ in TABLE1[short]:
        o = ours.get(month, {})
        checks += [Check(f"mualem.t1a.{short}.{month}.load", "Table 1(a)", f"{month}: offered load", load,
                         o.get("load"), "value", LOAD_TOL, rel=False, trace=short),
                   Check(f"mualem.t1a.{short}.{month}.jobs", "Table 1(a)", f"{month}: jobs", jobs, o.get("jobs"),
                         "value", JOBS_TOL, trace=short)]
    if not any(c.ours is not None for c in checks):
        return
    s.add(Checks(f"Table 1(a), {short}: the months' load (within {LOAD_TOL:g}) and jobs (within {JOBS_TOL:g}%)",
                 checks))
    loads = [c for c in checks if c.id.endswith(".load") and c.ours is not None]
    jobs = [c for c in checks if c.id.endswith(".jobs") and c.ours is not None]
    s.add(Text(f"{short}: the offered load agrees within {LOAD_TOL:g} in "
               f"{sum(c.verdict == 'reproduced' for c in loads)} of {len(loads)} months and the job count within "
               f"{JOBS_TOL:g}% in {sum(c.verdict == 'reproduced' for c in jobs)} of {len(jobs)}; ours has fewer "
               f"jobs in {sum(c.ours < c.paper for c in jobs)} months."))
