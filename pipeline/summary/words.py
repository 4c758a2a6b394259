"""The summary in plain words, with units. Every comparison here is generated
from the numbers (which is larger, by how much), never typed by hand."""

from __future__ import annotations


def pct(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{100 * x:.{digits}f}%"


def hours(h: float | None) -> str:
    """Hours for reading: seconds under a minute, minutes under one hour
    (one decimal under ten minutes), else hours with one decimal; so a short
    wait never reads as "0 min"."""
    if h is None:
        return "n/a"
    if h * 60 < 1:
        return f"{h * 3600:.0f} s"
    if h * 60 < 10:
        return f"{h * 60:.1f} min"
    if h < 1:
        return f"{h * 60:.0f} min"
    return f"{h:,.1f} h"


def node_hours(x: float | None) -> str:
    if x is None:
        return "n/a"
    if x >= 1e6:
        return f"{x / 1e6:,.1f} million node-hours"
    if x >= 1e4:
        return f"{x / 1e3:,.0f} thousand node-hours"
    return f"{x:,.0f} node-hours"


def change(p: float | None) -> str:
    """+12.3% / -4.0% as '12.3% longer' / '4.0% shorter'."""
    if p is None:
        return "n/a"
    if abs(p) < 0.05:
        return "unchanged"
    return f"{abs(p):.1f}% {'longer' if p > 0 else 'shorter'}"


def signed(p: float | None) -> str:
    return "n/a" if p is None else f"{p:+.1f}%"


def wrong_lines(s) -> list[str]:
    w = s.wrong
    if w is None:
        return ["1. How wrong are the requested times? " + "; ".join(n for n in s.notes if "request" in n) + "."]
    out = ["1. How wrong are the requested times?",
           f"   Median R (run / requested time) {w['median_r']:.2f}, mean {w['mean_r']:.2f}: half the jobs use "
           f"at most {pct(w['median_r'], 0)} of the time they ask for ({w['jobs_r']:,} jobs with a request).",
           f"   {pct(w['share_r_lt_0_2'])} of jobs use under 20% of their request; "
           f"{pct(w['share_killed'])} run into the limit (R >= 0.99).",
           f"   Requested but not used: {node_hours(w['unused_node_h'])}, "
           f"{pct(w['unused_share'])} of the {node_hours(w['req_node_h'])} requested."]
    for kind, top in s.owners.items():
        if not top:
            continue
        share = sum(t["share_of_unused"] or 0 for t in top)
        names = "; ".join(f"{kind} {t['owner']}: {node_hours(t['unused_node_h'])}, mean R {t['mean_r']:.2f}"
                          for t in top)
        out.append(f"   The {len(top)} {kind}s with the most unused node-hours ({pct(share, 0)} of all unused): "
                   f"{names}.")
    return out


def better_lines(s) -> list[str]:
    out = ["2. How much better can the system guess?"]
    b, r = s.best, s.request
    if b is None:
        return out + ["   No system estimator could be scored on this trace."]
    out.append(f"   Best of {len(s.estimators) - (r is not None)} estimators by mean accuracy "
               "(min(run, estimate) / max(run, estimate), 1 = exact): "
               f"{b['label']}, {b['acc_mean']:.2f}, underestimating {pct(b['under_rate'])} of jobs.")
    if r is not None and r["acc_mean"]:
        gain = 100 * (b["acc_mean"] / r["acc_mean"] - 1)
        out.append(f"   The requests score {r['acc_mean']:.2f} and underestimate {pct(r['under_rate'])}: "
                   f"the best estimator is {abs(gain):.0f}% {'more' if gain >= 0 else 'less'} accurate.")
    others = [e for e in s.estimators if e is not b and e is not r]
    if others:
        out.append("   Others: " + "; ".join(f"{e['label']} {_num(e['acc_mean'], 2)}" for e in others) + ".")
    out.append("   " + recommendation(s))
    return out


def recommendation(s) -> str:
    """One line: what to use, what it buys (the wait), what it costs (underestimates)."""
    b, r = s.best, s.request
    q = {(row.estimate, row.adjust): row for row in s.queue}
    if b is None or r is None:
        return "Recommendation: none (no requests to compare with)."
    reg, sel = q.get((b["scheme"], "regular")), q.get((b["scheme"], "selective"))
    cands = [x for x in (reg, sel) if x is not None and x.change_pct is not None]
    if not cands:
        return (f"Recommendation: {b['label']} guesses better than the requests, but its effect on the queue "
                "was not simulated (no machine size).")
    pick = min(cands, key=lambda x: x.change_pct)
    extra = b["under_rate"] - r["under_rate"]
    if pick.change_pct < 0:
        return (f"Recommendation: schedule with {b['label']} ({pick.adjust} adjustment): the mean wait is "
                f"{change(pick.change_pct)} under {s.policy.upper()} + {s.backfill.upper()}; the price is "
                f"{abs(100 * extra):.1f} points {'more' if extra >= 0 else 'fewer'} underestimated jobs "
                f"({pct(b['under_rate'])} vs {pct(r['under_rate'])}), which the scheduler must extend.")
    return (f"Recommendation: keep the requests for scheduling: even {b['label']} ({pick.adjust}) makes the "
            f"mean wait {change(pick.change_pct)} under {s.policy.upper()} + {s.backfill.upper()}, "
            f"although it guesses runtimes better.")


def queue_rows(s) -> tuple[list[str], list[tuple]]:
    cols = ["runtimes the scheduler uses", "mean wait (h)", "median wait (h)", "mean bounded slowdown",
            "mean wait vs requests"]
    rows = [(q.label, _num(q.mean_wait_h, 2), _num(q.median_wait_h, 2), _num(q.mean_bsld, 1), signed(q.change_pct))
            for q in s.queue]
    return cols, rows


def _num(x, d):
    return "n/a" if x is None else f"{x:,.{d}f}"


def queue_lines(s) -> list[str]:
    out = [f"3. What does it do to the queue? ({s.policy.upper()} + {s.backfill.upper()} backfilling"
           + (f", {s.capacity:,} processors)" if s.capacity else ")")]
    if not s.queue:
        return out + [f"   {n}." for n in s.notes if "machine size" in n]
    for q in s.queue:
        if q.run_id is None:
            out.append(f"   {q.label}: not simulated.")
            continue
        out.append(f"   {q.label}: mean wait {hours(q.mean_wait_h)}, median {hours(q.median_wait_h)}, "
                   f"mean bounded slowdown {q.mean_bsld:,.1f}"
                   + (f" ({change(q.change_pct)} mean wait than with the requests)" if q.change_pct is not None
                      and q.estimate != "request" else ""))
    m = s.months
    if m and m["total"]:
        out.append(f"   Month by month ({m['label']} vs the requests): shorter mean wait in "
                   f"{m['better']} of {m['total']} months, longer in {m['worse']}"
                   + (f", equal in {m['same']}" if m["same"] else "") + ".")
    return out


def sentences(s) -> list[str]:
    head = (f"{s.trace}: {s.jobs:,} jobs" + (f" submitted {s.first} .. {s.last}" if s.first else "")
            + (f", {s.capacity:,} processors" if s.capacity else "") + ".")
    return [head, "", *wrong_lines(s), "", *better_lines(s), "", *queue_lines(s)]
