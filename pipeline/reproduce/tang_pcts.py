"""Tang et al.'s statements about p70 and p95 in the text of Figs. 15 and 16,
each a check on report_tang_gain (the mean gain over the months):

- Fig. 15: "With selective adjustment, p70 performs better than with regular
  adjustment schemes while p95 remains the same (or worse in terms of weighted
  waiting)" (WFP);
- Fig. 16: "Using the 95th percentile realizes the highest gain ... using the
  70th percentile causes the biggest negative impact: -8% on slowdown" (FCFS,
  regular adjustment).

Why a module of its own: tang.py holds the paper's main gains; these are the
comparisons between percentiles the text makes around them.
"""

from __future__ import annotations

from .common import SHORT, boot_interval, diff_of_means, rows
from .core import Check, Checks, Text

METRICS = ("wait", "slowdown", "weighted_wait")
SAME = 3.0  # points of gain: our reading of p95 "remains the same" (the paper gives no number)


def _g(gain: dict, key: tuple, metric: str):
    return (gain.get(key) or {}).get(f"{metric}_gain_pct")


def _minus(a, b):
    return None if a is None or b is None else a - b


def _iv(mg: dict | None, keys: list[tuple], metric: str, stat) -> dict:
    """lo, hi and what they resample, for a statistic of per-month gains (tang.month_gains), paired by month."""
    if mg is None:
        return {}
    from .tang_months import paired

    lo, hi = boot_interval(paired(mg, keys, metric), stat)
    return {"lo": lo, "hi": hi, "interval": "months, paired"}


def _first_minus_max(x):
    return x[0].mean(axis=-1) - x[1:].mean(axis=-1).max(axis=0)


def _first_minus_min(x):
    return x[0].mean(axis=-1) - x[1:].mean(axis=-1).min(axis=0)


def checks_for(gain: dict, trace: str, mg: dict | None = None) -> list[Check]:
    """The checks of one trace from report_tang_gain rows keyed (trace, policy, adjust, scheme); ``mg``: the
    per-month gains (tang.month_gains) the direction checks' intervals resample."""
    short, out = SHORT[trace], []
    for m in METRICS:
        words = m.replace("_", " ")
        out.append(Check(f"tang.fig15.{short}.p70.sel_vs_reg.{m}", "Fig. 15 text",
                         f"WFP p70: {words} gain, selective minus regular (points)", 1.0,
                         _minus(_g(gain, (trace, "wfp", "selective", "p70"), m),
                                _g(gain, (trace, "wfp", "regular", "p70"), m)),
                         "direction", unit="points", trace=short, paper_note="selective better",
                         **_iv(mg, [(trace, "wfp", "selective", "p70"), (trace, "wfp", "regular", "p70")], m,
                               diff_of_means)))
        out.append(Check(f"tang.fig15.{short}.p95.sel_vs_reg.{m}", "Fig. 15 text",
                         f"WFP p95: {words} gain, selective minus regular (points)", 0.0,
                         _minus(_g(gain, (trace, "wfp", "selective", "p95"), m),
                                _g(gain, (trace, "wfp", "regular", "p95"), m)),
                         "value", SAME, rel=False, unit="points", trace=short))
    others = [_g(gain, (trace, "fcfs", "regular", s), "wait") for s in ("p85", "p70")]
    out.append(Check(f"tang.fig16.{short}.p95_best.wait", "Fig. 16 text",
                     "FCFS regular: p95's wait gain minus the best of p85 and p70 (points)", 1.0,
                     None if None in others else _minus(_g(gain, (trace, "fcfs", "regular", "p95"), "wait"),
                                                        max(others)),
                     "direction", unit="points", trace=short, paper_note="p95 highest",
                     **_iv(mg, [(trace, "fcfs", "regular", x) for x in ("p95", "p85", "p70")], "wait",
                           _first_minus_max)))
    others = [_g(gain, (trace, "fcfs", "regular", s), "slowdown") for s in ("p95", "p85")]
    out.append(Check(f"tang.fig16.{short}.p70_worst.slowdown", "Fig. 16 text",
                     "FCFS regular: p70's slowdown gain minus the worst of p95 and p85 (points)", -1.0,
                     None if None in others else _minus(_g(gain, (trace, "fcfs", "regular", "p70"), "slowdown"),
                                                        min(others)),
                     "direction", unit="points", trace=short, paper_note="p70 worst",
                     **_iv(mg, [(trace, "fcfs", "regular", x) for x in ("p70", "p95", "p85")], "slowdown",
                           _first_minus_min)))
    return out


def statements(s, con, names: list[str]) -> None:
    gain = {(r["trace"], r["policy"], r["adjust"], r["scheme"]): r
            for r in rows(con, "SELECT * FROM report_tang_gain WHERE trace IN (SELECT unnest(?::VARCHAR[]))", names)}
    from .tang_months import month_gains

    mg = month_gains(con, names)
    checks = [c for t in names for c in checks_for(gain, t, mg)]
    if not any(c.ours is not None for c in checks):
        return
    s.add(Checks(f"Figs. 15-16 text: p70 and p95 (\"the same\": within {SAME:g} points, our reading)", checks))
    for t in names:
        short = SHORT[t]
        mine = {c.id.split(".", 3)[3]: c for c in checks if c.trace == short}
        p70 = [mine[f"p70.sel_vs_reg.{m}"].ours for m in METRICS]
        p95 = [mine[f"p95.sel_vs_reg.{m}"].ours for m in METRICS]
        if None in p70 or None in p95:
            continue
        s.add(Text(f"{short}: selective minus regular adjustment under WFP, in points of gain (wait, slowdown, "
                   f"weighted wait): p70 {', '.join(f'{v:+.1f}' for v in p70)}; p95 "
                   f"{', '.join(f'{v:+.1f}' for v in p95)}; "
                   + ("p70 gains more from selective adjustment than p95 on every metric, as the paper reads it "
                      "(p70 underestimates more, so it loses more to underestimated running jobs)."
                      if all(a > b for a, b in zip(p70, p95)) else
                      "p70 does not gain more from selective adjustment than p95 on every metric.")))
