"""Tang et al. Figs. 5 and 7: the adjustment extents at every percentile the
paper shows, and the floor A >= 0.5 on the double key.

Why a module of its own: the paper states these figures in words (trends
across percentiles, a band for percentiles 80-90, "reduces ... with accuracy
slightly decreased"), so each statement becomes one check per percentile or one
trend check, computed from estimate_grid (window all, as in Figs. 4-7).
"""

from __future__ import annotations

import numpy as np

from . import tang_published as P
from .common import rows
from .core import Check
from .tang_estimate_months import MonthSums

# The percentiles the paper's Figs. 4-7 show (Section 4.1 and the Fig. 4 text),
# from the least to the most aggressive.
PCTS = ("max", "p95", "p90", "p85", "p80", "p70", "median")
BAND = ("p90", "p85", "p80")  # "percentiles between 80 and 90" (Fig. 5 text)


def grid(con, trace: str, key: str, floor: float, win: str = "all") -> dict[str, dict]:
    """estimate_grid rows of one key, window and floor, by statistic."""
    return {r["stat"]: r for r in rows(
        con, "SELECT stat, na, oe, ue, be, under_rate, acc_mean FROM estimate_grid "
             "WHERE trace = ? AND grid = 'tang' AND key_type = ? AND win = ? AND floor = ?", trace, key, win, floor)}


def has_groups(con, trace: str) -> bool:
    """Whether the log has group ids (the keys with a project mean something)."""
    r = rows(con, "SELECT avg_std_r FROM report_r_keys WHERE trace = ? AND key_type = 'project'", trace)
    return bool(r) and r[0]["avg_std_r"] is not None


def _pct(v):
    return None if v is None else 100 * v


def steps_share(seq: list, up: bool) -> float | None:
    """Percent of adjacent steps (max -> median) that move the paper's way (ties count against)."""
    if any(v is None for v in seq) or len(seq) < 2:
        return None
    steps = list(zip(seq, seq[1:]))
    return 100.0 * sum((b > a) if up else (b < a) for a, b in steps) / len(steps)


def _oe_peak(r):
    """Fig. 5's OE peak (OE shares in PCTS order): the highest inner share minus the larger end, in points."""
    inner = np.max(np.stack(r[1:-1]), axis=0)
    return 100 * np.minimum(inner - r[0], inner - r[-1])


def fig5(con, trace: str, short: str, key: str, double: bool, ms: MonthSums) -> list[Check]:
    """Fig. 5(a): the band values at p90, p85 and p80, and the trends over all percentiles;
    Fig. 5(b) (double key, when the log has groups): OE higher than the triple key below p90.
    The direction checks' intervals resample months (``ms``)."""
    g = grid(con, trace, key, 0.0)
    v = lambda st, k: (g.get(st) or {}).get(k)  # noqa: E731
    out = []
    for st in BAND:
        out += [
            Check(f"tang.fig5.{short}.{st}.acc", P.FIG5["acc"].ref, f"mean accuracy, {st}, key {key}", 0.6,
                  v(st, "acc_mean"), "above", trace=short),
            Check(f"tang.fig5.{short}.{st}.oe", P.FIG5["oe"].ref, f"OE share, {st}, key {key}", 50.0,
                  _pct(v(st, "oe")), "above", unit="%", trace=short),
            Check(f"tang.fig5.{short}.{st}.be", P.FIG5["be"].ref, f"BE share, {st}, key {key}", 1.2,
                  _pct(v(st, "be")), "range", paper_hi=2.2, unit="%", trace=short),
            Check(f"tang.fig5.{short}.{st}.ue", P.FIG5["ue"].ref, f"UE share, {st}, key {key}", 9.0,
                  _pct(v(st, "ue")), "range", paper_hi=17.0, unit="%", trace=short),
        ]
    seq = lambda k: [v(st, k) for st in PCTS]  # noqa: E731
    for k, up, words, paper, mode in (("na", False, "NA declines", 100.0, "value"),
                                      ("ue", True, "UE increases", 100.0, "value"),
                                      ("be", True, "BE increases", 100.0, "value"),
                                      ("acc_mean", True, "accuracy tends to increase", 50.0, "above")):
        out.append(Check(f"tang.fig5.{short}.trend.{k}", P.FIG5_TREND.ref,
                         f"{words} as the percentile gets smaller: share of the {len(PCTS) - 1} steps "
                         f"{' -> '.join(PCTS)} that do, key {key}", paper, steps_share(seq(k), up), mode,
                         0.0 if mode == "value" else None, rel=False, unit="%", trace=short,
                         paper_note="every step" if mode == "value" else "most steps"))
    oe = seq("oe")
    if None not in oe:
        inner = max(oe[1:-1])
        peak = min(inner - oe[0], inner - oe[-1])
    else:
        peak = None
    out.append(Check(f"tang.fig5.{short}.trend.oe", P.FIG5_TREND.ref,
                     f"OE first increases then drops: highest inner OE share minus the larger end (max, median), "
                     f"points, key {key}", 1.0, _pct(peak), "direction", unit="%", trace=short,
                     paper_note="positive", **ms.interval([((key, "all", 0.0, st), "oe") for st in PCTS], _oe_peak)))
    if double:
        d = grid(con, trace, "user_project", 0.0)
        for st in ("p85", "p80", "p70", "median"):
            a, b = (d.get(st) or {}).get("oe"), v(st, "oe")
            out.append(Check(f"tang.fig5b.{short}.{st}.oe", P.FIG5_DOUBLE.ref,
                             f"OE share, double minus triple key, {st} (below p90: double higher)", 1.0,
                             None if a is None or b is None else 100 * (a - b), "direction", unit="%",
                             trace=short, paper_note="positive",
                             **ms.interval([(("user_project", "all", 0.0, st), "oe"), ((key, "all", 0.0, st), "oe")],
                                           lambda r: 100 * (r[0] - r[1]))))
    return out


def _drop(r):
    """Percent drop from the first ratio to the second."""
    return 100 * (r[0] - r[1]) / r[0]


def fig7(con, trace: str, short: str, ms: MonthSums) -> list[Check]:
    """Fig. 7: the floor A >= 0.5 on the double key lowers the underestimated share at
    each percentile, with the mean accuracy slightly lower (intervals over months: ``ms``)."""
    no, fl = grid(con, trace, "user_project", 0.0), grid(con, trace, "user_project", 0.5)
    out = []
    both = lambda st, num: [(("user_project", "all", f, st), num) for f in (0.0, 0.5)]  # noqa: E731
    for st in PCTS:
        a, b = (no.get(st) or {}).get("under_rate"), (fl.get(st) or {}).get("under_rate")
        out.append(Check(f"tang.fig7.{short}.{st}.under", P.FIG7["under"].ref, f"{P.FIG7['under'].what}, {st}",
                         1.0, None if not a or b is None else 100 * (a - b) / a, "direction", unit="%",
                         trace=short, paper_note="reduced", **ms.interval(both(st, "under"), _drop)))
        a, b = (no.get(st) or {}).get("acc_mean"), (fl.get(st) or {}).get("acc_mean")
        drop = None if not a or b is None else 100 * (a - b) / a
        out.append(Check(f"tang.fig7.{short}.{st}.acc", P.FIG7["acc"].ref, f"{P.FIG7['acc'].what}, {st}",
                         1.0, drop, "direction", unit="%", trace=short, paper_note="decreased",
                         **ms.interval(both(st, "acc"), _drop)))
        out.append(Check(f"tang.fig7.{short}.{st}.acc_slight", P.FIG7["slight"].ref,
                         f"{P.FIG7['slight'].what}, {st}", P.FIG7["slight"].value, drop, "below", unit="%",
                         trace=short, paper_note=f"slight (< {P.FIG7['slight'].value:g}%)"))
    return out
