"""Tang et al. Figs. 14-17, panels (a)-(c): the month-by-month statements.

Why: panel (d)'s mean gain can hide months that go the other way, and the paper's
text makes month-level claims ("p85 performs more consistently well under the
baseline", "for p85 and p70 no performance degradation for a single month").
Our months are not Intrepid's, so each claim becomes the share of our months
(or of the plotted points) that behave as the paper says, from
report_tang_months (baseline wait and weighted wait = 100, slowdown = 10).
"""

from __future__ import annotations

from . import tang_published as P
from .common import SHORT, boot_interval, rows
from .core import Check, Checks, Section, Table, Text, tally

METRICS = ("wait", "slowdown", "weighted_wait")
BASE = {"wait": 100.0, "slowdown": 10.0, "weighted_wait": 100.0}
SCHEMES = ("p95", "p85", "p70")


def months(con, traces: list[str]) -> dict:
    """{(trace, policy, adjust, scheme): [row per month]} where all three metrics exist."""
    out: dict = {}
    for r in rows(con, "SELECT * FROM report_tang_months WHERE trace IN (SELECT unnest(?::VARCHAR[])) "
                       "AND wait IS NOT NULL AND slowdown IS NOT NULL AND weighted_wait IS NOT NULL "
                       "ORDER BY month", traces):
        out.setdefault((r["trace"], r["policy"], r["adjust"], r["scheme"]), []).append(r)
    return out


def share(points: list[float], ok) -> float | None:
    return None if not points else 100.0 * sum(bool(ok(v)) for v in points) / len(points)


def _check(cid: str, key: str, what: str, ours, short: str) -> Check:
    ref, words, lo, hi = P.MONTHS[key]
    if lo == 50.0 and hi == 100.0:  # "mostly", "most months": more than half
        return Check(cid, ref, f"{what} ({words})", 50.0, ours, "above", unit="%", trace=short)
    note = "every month" if lo == 100.0 else f"{lo:g}-{hi:g}% of months (at least {round(12 * lo / 100)} of 12)"
    return Check(cid, ref, f"{what} ({words})", lo, ours, "range", paper_hi=hi, unit="%", trace=short,
                 paper_note=note)


def fewer_above_interval(m: dict, trace: str, met: str) -> dict:
    """Check keywords (lo, hi, interval) for Fig. 15's count of points above the baseline, regular
    minus selective, over the months resampled: each month's count difference, summed over a draw."""
    by_month: dict[str, float] = {}
    for adj, sign in (("regular", 1), ("selective", -1)):
        for sch in SCHEMES:
            for r in m.get((trace, "wfp", adj, sch), []):
                by_month[r["month"]] = by_month.get(r["month"], 0) + sign * (r[met] > BASE[met])
    lo, hi = boot_interval([[by_month[k] for k in sorted(by_month)]], lambda x: x[0].sum(axis=-1))
    return {"lo": lo, "hi": hi, "interval": "months, paired (a month's points under both adjustments)"}


def build(s: Section, con, traces: list[str]) -> None:
    m = months(con, traces)
    pts = lambda t, pol, adj, sch, met: [r[met] for r in m.get((t, pol, adj, sch), [])]  # noqa: E731
    ctx, checks = [], []
    for t in traces:
        short = SHORT[t]
        for pol, adj in (("wfp", "regular"), ("wfp", "selective"), ("fcfs", "regular"), ("fcfs", "selective")):
            for sch in SCHEMES:
                w = [100 - v for v in pts(t, pol, adj, sch, "wait")]
                if w:
                    ctx.append([short, pol, adj, sch, len(w), sum(g > 0 for g in w), min(w), max(w)])
        # Fig. 14 (WFP regular)
        for sch in SCHEMES:
            checks.append(_check(f"tang.m14.{short}.{sch}.wait", f"wfp.regular.{sch}.wait.under",
                                 f"WFP regular {sch}: months with the wait under the baseline, %",
                                 share(pts(t, "wfp", "regular", sch, "wait"), lambda v: v < 100), short))
        for met in ("slowdown", "weighted_wait"):
            p = [v for sch in SCHEMES for v in pts(t, "wfp", "regular", sch, met)]
            checks.append(_check(f"tang.m14.{short}.{met}", f"wfp.regular.{met}.under",
                                 f"WFP regular, all three schemes: months with the {met.replace('_', ' ')} under "
                                 "the baseline, %", share(p, lambda v, b=BASE[met]: v < b), short))
        best = pts(t, "wfp", "regular", "p85", "wait")
        ref, words, val = P.MONTHS_BEST
        checks.append(Check(f"tang.m14.{short}.p85.best", ref, words, val, (100 - min(best)) if best else None,
                            "value", 10.0, rel=False, unit="%", trace=short))
        # Fig. 15 (WFP selective)
        for met in METRICS:
            above = {adj: sum(v > BASE[met] for sch in SCHEMES for v in pts(t, "wfp", adj, sch, met))
                     for adj in ("regular", "selective")}
            n = sum(len(pts(t, "wfp", "regular", sch, met)) for sch in SCHEMES)
            ref, words = P.MONTHS_FEWER_ABOVE
            checks.append(Check(f"tang.m15.{short}.fewer_above.{met}", ref,
                                f"{words}: {met.replace('_', ' ')}, points above regular minus selective "
                                f"(of {n})", 1.0, (above["regular"] - above["selective"]) if n else None,
                                "direction", trace=short, paper_note="positive", min_abs=1.0,  # one month
                                **fewer_above_interval(m, t, met)))
            checks.append(_check(f"tang.m15.{short}.p85.over20.{met}", "wfp.selective.p85.over20",
                                 f"WFP selective p85: months over 20% better on {met.replace('_', ' ')}, %",
                                 share(pts(t, "wfp", "selective", "p85", met), lambda v, b=BASE[met]: v < 0.8 * b),
                                 short))
        # Fig. 16 (FCFS regular)
        for met in METRICS:
            p = [v for sch in SCHEMES for v in pts(t, "fcfs", "regular", sch, met)]
            checks.append(_check(f"tang.m16.{short}.within10.{met}", "fcfs.regular.within10",
                                 f"FCFS regular, all three schemes: months within 10% of the baseline on "
                                 f"{met.replace('_', ' ')}, %",
                                 share(p, lambda v, b=BASE[met]: abs(v - b) <= 0.1 * b), short))
        # Fig. 17 (FCFS selective)
        for sch in SCHEMES:
            checks.append(_check(f"tang.m17.{short}.{sch}.wait", "fcfs.selective.wait.under",
                                 f"FCFS selective {sch}: months with the wait under the baseline, %",
                                 share(pts(t, "fcfs", "selective", sch, "wait"), lambda v: v < 100), short))
        for sch in ("p85", "p70"):
            for met in METRICS:
                checks.append(_check(f"tang.m17.{short}.{sch}.none_worse.{met}", "fcfs.selective.none_worse",
                                     f"FCFS selective {sch}: months not worse than the baseline on "
                                     f"{met.replace('_', ' ')}, %",
                                     share(pts(t, "fcfs", "selective", sch, met), lambda v, b=BASE[met]: v <= b),
                                     short))
    s.add(Table("Figs. 14-17 (a), month by month: the wait gain over the requests (percent; positive = better)",
                ["trace", "policy", "adjust", "scheme", "months", "months better", "worst month", "best month"],
                ctx, "report_tang_months"))
    s.add(Checks("Figs. 14-17 (a)-(c): the paper's month-by-month statements, as the share of our months that "
                 "behave so", checks))
    for fig, words in (("m14", "Fig. 14 (WFP regular)"), ("m15", "Fig. 15 (WFP selective)"),
                       ("m16", "Fig. 16 (FCFS regular)"), ("m17", "Fig. 17 (FCFS selective)")):
        s.add(Text(f"{words}, month by month: " + tally([c for c in checks if c.id.startswith(f"tang.{fig}.")])
                   + "; by trace: " + "; ".join(
                       f"{SHORT[t]} " + tally([c for c in checks if c.id.startswith(f"tang.{fig}.{SHORT[t]}.")])
                       .split(" checks")[0] for t in traces) + "."))


GAIN_OF = {"wait": lambda r: 100 - r["wait"], "slowdown": lambda r: 100 - 10 * r["slowdown"],
           "weighted_wait": lambda r: 100 - r["weighted_wait"]}  # report_tang_gain's per-month terms


def month_gains(con, names: list[str]) -> dict:
    """{(trace, policy, adjust, scheme): {"months": [...], metric: [gain per month]}}: the terms whose mean
    report_tang_gain prints (the months where all three metrics exist), for the intervals over months."""
    out: dict = {}
    for k, rs in months(con, names).items():
        out[k] = {"months": [r["month"] for r in rs], **{m: [f(r) for r in rs] for m, f in GAIN_OF.items()}}
    return out


def paired(mg: dict, keys: list[tuple], metric: str) -> list[list[float]]:
    """The per-month gains of ``keys`` on the months they all have (paired series for boot_interval)."""
    if any(k not in mg for k in keys):
        return []
    common = set.intersection(*(set(mg[k]["months"]) for k in keys))
    return [[g for m, g in zip(mg[k]["months"], mg[k][metric]) if m in common] for k in keys]
