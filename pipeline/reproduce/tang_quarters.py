"""Tang et al. Fig. 2: the mean R (actual / requested) of the jobs by quarter of
submission, "0.50 with a standard deviation of 0.33 ... by quarters from 0.42
to 0.59" on Intrepid; here on the stand-in logs (``characterize_quarters``,
sql/characterize_quarters.sql, which ``walltime characterize`` fills).

Why a module of its own: tang.py holds the paper's main claims; this figure is
a property of the log alone and adds its own checks and sentence.
"""

from __future__ import annotations

from . import tang_published as P
from .common import SHORT, rows
from .core import Check, Checks, Section, Table, Text

TOL = 0.05  # R units, as Fig. 1's mean R check


def fig2(s: Section, con, trace: str) -> None:
    short = SHORT[trace]
    q = rows(con, "SELECT quarter, jobs, mean_r, std_r FROM report_r_quarters WHERE trace = ? ORDER BY quarter",
             trace)
    summ = (rows(con, "SELECT std_r FROM report_r_summary WHERE trace = ?", trace) or [{}])[0]
    if not q:
        return
    s.add(Table(f"Fig. 2, {short}: mean R by quarter of submission", ["quarter", "jobs", "mean R", "sd of R"],
                [[r["quarter"], r["jobs"], r["mean_r"], r["std_r"]] for r in q], "report_r_quarters"))
    lo, hi = min(q, key=lambda r: r["mean_r"]), max(q, key=lambda r: r["mean_r"])
    checks = [Check(f"tang.fig2.{short}.std_r", P.FIG2["std_r"].ref, P.FIG2["std_r"].what, P.FIG2["std_r"].value,
                    summ.get("std_r"), "value", TOL, rel=False, trace=short),
              Check(f"tang.fig2.{short}.lowest", P.FIG2["lowest"].ref, P.FIG2["lowest"].what,
                    P.FIG2["lowest"].value, lo["mean_r"], "value", TOL, rel=False, trace=short),
              Check(f"tang.fig2.{short}.highest", P.FIG2["highest"].ref, P.FIG2["highest"].what,
                    P.FIG2["highest"].value, hi["mean_r"], "value", TOL, rel=False, trace=short)]
    s.add(Checks(f"Fig. 2, {short}: mean R by quarter (within {TOL:g} of R; Intrepid in the paper)", checks))
    inside = sum(P.FIG2["lowest"].value <= r["mean_r"] <= P.FIG2["highest"].value for r in q)
    s.add(Text(f"{short}: over {len(q)} quarters the mean R runs from {lo['mean_r']:.2f} ({lo['quarter']}) to "
               f"{hi['mean_r']:.2f} ({hi['quarter']}), against Intrepid's {P.FIG2['lowest'].value:.2f} to "
               f"{P.FIG2['highest'].value:.2f}; {inside} of {len(q)} quarters fall inside the paper's range."))
