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


def unit_hours(x: float | None, unit: str = "CPU-hours") -> str:
    """An amount of resource-time with its unit: CPU-hours (processor-hours
    for SWF traces), node-hours or GPU-hours; two significant digits under
    10, so a small amount never reads as "0" (0.29 GPU-hours, 4.3 CPU-hours)."""
    if x is None:
        return "n/a"
    if x >= 1e6:
        return f"{x / 1e6:,.1f} million {unit}"
    if x >= 1e4:
        return f"{x / 1e3:,.0f} thousand {unit}"
    if x >= 10 or x == 0:
        return f"{x:,.0f} {unit}"
    if x >= 0.01:
        return f"{x:.2g} {unit}" if x < 1 else f"{x:.1f} {unit}"
    return f"under 0.01 {unit}"


def signed(p: float | None) -> str:
    return "n/a" if p is None else f"{p:+.1f}%"


def wrong_lines(s) -> list[str]:
    w = s.wrong
    if w is None:
        return ["1. How wrong are the requested times? " + "; ".join(n for n in s.notes if "request" in n) + "."]
    u = s.hours_unit
    out = ["1. How wrong are the requested times?",
           f"   Median R (run / requested time) {w['median_r']:.2f}, mean {w['mean_r']:.2f}: half the jobs use "
           f"at most {pct(w['median_r'], 0)} of the time they ask for ({w['jobs_r']:,} jobs with a request).",
           f"   {pct(w['share_r_lt_0_2'])} of jobs use under 20% of their request; "
           f"{pct(w['share_killed'])} run into the limit (R >= 0.99).",
           f"   Requested but not used: {unit_hours(w['unused_core_h'], u)}, "
           f"{pct(w['unused_share'])} of the {unit_hours(w['req_core_h'], u)} requested."]
    if w.get("req_node_h") is not None:  # the log has node counts (sacct, tables)
        out.append(f"   In nodes: {unit_hours(w['unused_node_h'], 'node-hours')} unused of the "
                   f"{unit_hours(w['req_node_h'], 'node-hours')} requested (each job counts its nodes whole, "
                   "so where jobs share a node its hours are counted once per job).")
    if s.cut_short:
        c = s.cut_short
        kinds = [f"{n:,} {word}" for n, word in ((c["preempted"], "preempted"), (c["node_fail"], "lost with a node"),
                                                 (c["cancelled_running"], "cancelled while running")) if n]
        out.append(f"   Left out of R, accuracy and unused hours: {c['jobs']:,} run{'s' if c['jobs'] != 1 else ''} "
                   f"cut short ({', '.join(kinds)}; {unit_hours(c['core_h'], u)}): they ran less than they would "
                   "have, so their run is not their runtime; the replays keep them.")
    for kind, top in s.owners.items():
        if not top:
            continue
        share = sum(t["share_of_unused"] or 0 for t in top)
        names = "; ".join(f"{kind} {t['owner']}: {unit_hours(t['unused_core_h'], u)}, mean R {t['mean_r']:.2f}"
                          for t in top)
        out.append(f"   The {len(top)} {kind}s with the most unused {u} ({pct(share, 0)} of all unused): "
                   f"{names}.")
    if s.gpus:
        parts = "; ".join(f"{g['partition'] or 'no partition'}: {unit_hours(g['req_gpu_h'], 'GPU-hours')} requested, "
                          f"{unit_hours(g['used_gpu_h'], 'GPU-hours')} used ({pct(_share(g['used_gpu_h'], g['req_gpu_h']))}, "
                          f"{g['gpu_jobs']:,} jobs)" for g in s.gpus)
        out.append(f"   GPU-hours per partition (jobs with GPUs): {parts}.")
    return out


def _share(part: float | None, whole: float | None) -> float | None:
    return None if part is None or not whole else part / whole


def better_lines(s) -> list[str]:
    out = ["2. How much better can the system guess?"]
    b, r = s.best, s.request
    if b is None:
        out.append("   No system estimator could be scored on this trace.")
    else:
        n = len(s.estimators) - (r is not None)
        out.append(f"   Best of {n} estimator{'s' if n != 1 else ''} by mean accuracy "
                   "(min(run, estimate) / max(run, estimate), 1 = exact): "
                   f"{b['label']}, {b['acc_mean']:.2f}, underestimating {pct(b['under_rate'])} of jobs.")
        same = s.same_jobs
        if r is not None and same and same["jobs"] and same["request_acc"]:
            gain = 100 * (same["best_acc"] / same["request_acc"] - 1)
            out.append(f"   On the {same['jobs']:,} jobs both score (those with a time limit), the requests score "
                       f"{same['request_acc']:.2f} and underestimate {pct(same['request_under'])}, {b['label']} "
                       f"{same['best_acc']:.2f}: the best estimator is {abs(gain):.0f}% "
                       f"{'more' if gain >= 0 else 'less'} accurate.")
        others = [e for e in s.estimators if e is not b and e is not r]
        if others:
            out.append("   Others: " + "; ".join(f"{e['label']} {_num(e['acc_mean'], 2)}" for e in others) + ".")
    for e in s.left_out:
        out.append(f"   Not a competitor: {e['label']}: {e['why']}.")
    out.append("   " + recommendation(s))
    return out


def objective_words(s) -> str:
    from .compare import DEFAULT_OBJECTIVE, OBJECTIVES
    from .compare import RESAMPLES

    return (f"objective {s.objective}: {OBJECTIVES[s.objective]}"
            + (", the default" if s.objective == DEFAULT_OBJECTIVE else "")
            + "; `--objective wait|bsld|balanced` chooses; 95% intervals from "
            + f"{RESAMPLES:,} bootstrap resamples of the {s.periods} {s.period}s")


NOUN = {"wait": ("mean wait", "shorter", "longer"), "bsld": ("mean bounded slowdown", "lower", "higher"),
        "balanced": ("the average of the two changes (mean wait, mean bounded slowdown)", "lower", "higher")}


def interval(c: dict) -> str:
    return f"95% interval {c['lo']:+.1f}% to {c['hi']:+.1f}%"


def spread(c: dict, metric: str) -> str:
    """'shorter in 7 of 9 months, longer in 2'."""
    _, down, up = NOUN[metric]
    return (f"{down} in {c['better']} of {c['periods']} {c['period']}s, {up} in {c['worse']}"
            + (f", equal in {c['same']}" if c["same"] else ""))


def change_words(c: dict, metric: str) -> str:
    """One change against the requests with its uncertainty; 'no clear change'
    where the interval includes 0."""
    noun, down, up = NOUN[metric]
    if c["pct"] is None:
        return f"{noun}: no change to measure (zero with the requests)"
    per = f"; {spread(c, metric)}" if metric != "balanced" else ""
    if c["lo"] is None:
        return f"{noun} {abs(c['pct']):.1f}% {down if c['pct'] < 0 else up} (no interval{per})"
    if not c["clear"]:
        return f"no clear change in {noun} ({c['pct']:+.1f}%, {interval(c)}{per})"
    return f"{noun} {abs(c['pct']):.1f}% {down if c['pct'] < 0 else up} ({interval(c)}{per})"


def worse_words(w: dict) -> str:
    m = w["metric"]
    if m == "wait":
        return f"mean wait {hours(w['base'])} -> {hours(w['value'])}: {change_words(w, 'wait')}"
    if m == "bsld":
        return f"mean bounded slowdown {w['base']:,.1f} -> {w['value']:,.1f}: {change_words(w, 'bsld')}"
    if m == "under":
        return (f"underestimated jobs {pct(w['base'])} -> {pct(w['value'])} "
                "(each one the scheduler must extend)")
    return f"utilisation {100 * w['base']:.2f}% -> {100 * w['value']:.2f}%"


def recommendation(s) -> str:
    """One line: what to use on the site's objective, with its uncertainty,
    and every metric that gets worse; or keep the requests; or why none."""
    rec = s.recommendation or {}
    if s.request is None:
        return "Recommendation: none (no requests to compare with)."
    if s.too_small is not None:
        return "Recommendation: none: the trace is too small to conclude (see the warning at the top)."
    if s.no_machine is not None:
        return "Recommendation: none yet: the queue was not simulated, the machine size is unknown (see answer 3)."
    if rec.get("action") == "schedule":
        q = s.queue[rec["pick"]]
        worse = rec["worse"]
        head = (f"Recommendation ({objective_words(s)}): schedule with {q.label.rsplit(', ', 1)[0]} "
                f"({q.adjust} adjustment): {change_words(q.changes[s.objective], s.objective)}")
        if s.objective == "balanced":
            head += f"; {change_words(q.changes['wait'], 'wait')}; {change_words(q.changes['bsld'], 'bsld')}"
        sure = [w for w in worse if w.get("clear", True)]
        noise = [w for w in worse if not w.get("clear", True)]
        tail = " ".join(
            [("What gets worse: " + "; ".join(worse_words(w) for w in sure) + ".") if sure else "",
             ("Worse, within the noise: " + "; ".join(worse_words(w) for w in noise) + ".") if noise else ""]
        ).strip() or ("Nothing measured gets worse (mean wait, mean bounded slowdown, underestimated jobs, "
                      "utilisation).")
        return f"{head}. {tail}"
    if rec.get("action") == "keep":
        parts = "; ".join(f"{s.queue[i].adjust}: {change_words(s.queue[i].changes[s.objective], s.objective)}"
                          for i in rec["candidates"])
        return (f"Recommendation ({objective_words(s)}): keep the requests: neither regular nor selective "
                f"use of {s.best['label']} is clearly better on the objective ({parts}).")
    return "Recommendation: none (the queue was not simulated)."


def queue_rows(s) -> tuple[list[str], list[tuple]]:
    cols = ["runtimes the scheduler uses", "mean wait (h)", "median wait (h)", "mean bounded slowdown",
            "utilisation (%)", "mean wait vs requests"]
    rows = [(q.label, _num(q.mean_wait_h, 2), _num(q.median_wait_h, 2), _num(q.mean_bsld, 1),
             _num(None if q.utilisation is None else 100 * q.utilisation, 1), signed(q.change_pct))
            for q in s.queue]
    return cols, rows


def _num(x, d):
    return "n/a" if x is None else f"{x:,.{d}f}"


def _delta_h(h: float) -> str:
    return ("-" if h < 0 else "+") + hours(abs(h))


def queue_lines(s) -> list[str]:
    from .compare import RESAMPLES, SEED

    if s.scheduler == "slurm":
        out = ["3. What does it do to the queue? (the site's Slurm, modelled from its slurm.conf"
               + _option_words(s) + ")"]
    else:
        out = [f"3. What does it do to the queue? ({s.policy.upper()} + {s.backfill.upper()} backfilling"
               + (f", {s.capacity:,} processors" if s.capacity else "") + _option_words(s) + ")"]
    if s.no_machine is not None:
        return out + ["   The machine size is not known, so nothing was simulated; "
                      f"`{s.no_machine}` (N: the machine's processors) simulates it."]
    if not s.queue:
        return out + ["   Nothing was simulated."]
    compared = s.too_small is None and any(q.changes for q in s.queue)
    if compared:
        out.append(f"   Each run replays the same jobs; changes against the requests are paired over the "
                   f"{s.periods} {s.period}s of submission, with 95% intervals from {RESAMPLES:,} bootstrap "
                   f"resamples of the {s.period}s (seed {SEED}).")
    for q in s.queue:
        if q.run_id is None:
            out.append(f"   {q.label}: not simulated.")
            continue
        line = (f"   {q.label}: mean wait {hours(q.mean_wait_h)}, median {hours(q.median_wait_h)}, "
                f"mean bounded slowdown {q.mean_bsld:,.1f}"
                + (f", utilisation {100 * q.utilisation:.1f}%" if q.utilisation is not None else ""))
        if compared and q.changes:
            line += f"; against the requests: {change_words(q.changes['wait'], 'wait')}"
        if q.estimate == "request":
            line += _replayed_words(q)
        out.append(line + ".")
    if s.calibration and s.scheduler == "slurm":
        from ..calibration import SLURM_LEFT_OUT, sentence
        from ..simulate.slurm.replay import SITE_MODEL

        out.append("   " + sentence(s.calibration, "the users' requests replayed in the site's Slurm", SITE_MODEL,
                                    SLURM_LEFT_OUT)
                   + " Every what-if above is replayed in that model, the estimate as each job's time limit: a job "
                     "that runs past it keeps running, and backfill expects it to end KillWait later, as Slurm "
                     "does.")
    elif s.calibration:
        from ..calibration import sentence

        model = (f"one pool of {s.capacity:,} processors in {s.policy.upper()} + {s.backfill.upper()} order"
                 if s.capacity else f"{s.policy.upper()} + {s.backfill.upper()} on one pool of processors")
        out.append("   " + sentence(s.calibration, "the users' requests replayed", model))
    return out + winners_lines(s)


def _replayed_words(q) -> str:
    """What of the log the requests' replay holds: jobs not replayed, jobs held until the dump, jobs without a limit."""
    parts = []
    if q.jobs_in_trace is not None and q.jobs_simulated is not None and q.jobs_in_trace > q.jobs_simulated:
        n = q.jobs_in_trace - q.jobs_simulated
        parts.append(f"{q.jobs_simulated:,} of the {q.jobs_in_trace:,} jobs replayed; {n:,} not (never started, "
                     "or no run time or size)")
    if q.held_running:
        one = q.held_running == 1
        parts.append(f"{q.held_running:,} job{'' if one else 's'} running at the dump replayed holding "
                     f"{'its' if one else 'their'} CPUs until the dump")
    if q.no_request:
        one = q.no_request == 1
        parts.append(f"{q.no_request:,} job{'' if one else 's'} without a time limit replayed with "
                     f"{'its' if one else 'their'} own run time as the request")
    return f" ({'; '.join(parts)})" if parts else ""


def _option_words(s) -> str:
    o = s.options or {}
    words = []
    if o.get("partitions"):
        words.append("partition " + ", ".join(o["partitions"]))
    if o.get("split") == "month":
        words.append("each month simulated alone")
    else:
        words.append("the whole trace replayed at once")
    if o.get("load_factor", 1.0) != 1.0:
        words.append(f"interarrival times x {o['load_factor']:g}")
    return "".join(f", {w}" for w in words)


def winners_lines(s) -> list[str]:
    w = s.winners
    if not w or not w.get("kinds"):
        return []
    out = [f"   Who wins and who loses under {w['label']} against the requests (change in mean wait and in mean "
           "bounded slowdown; ranked by the total change in hours of waiting, jobs x change in mean wait):"]
    for kind, g in w["kinds"].items():
        for side, word in (("gain", "gain most"), ("loss", "lose most")):
            rows = g[side]
            if not rows:
                continue
            out.append(f"   The {len(rows)} {kind}{'s' if len(rows) != 1 else ''} that {word}: "
                       + "; ".join(f"{r['owner']} ({r['jobs']:,} jobs): mean wait {_delta_h(r['wait_change_h'])}, "
                                   f"bounded slowdown {r['bsld_change']:+,.1f}" for r in rows) + ".")
    return out


def warning_lines(s) -> list[str]:
    from .compare import MIN_JOBS, MIN_PERIODS

    if s.too_small is None:
        return []
    return ["", f"Warning: too small to conclude: {s.too_small}. The numbers below describe this log only; "
                f"no change is claimed and nothing is recommended (the rule: at least {MIN_JOBS:,} jobs and "
                f"{MIN_PERIODS} periods of submission; periods are months, weeks for a trace under 6 months, "
                "days under 6 weeks)."]


def sentences(s) -> list[str]:
    head = (f"{s.trace}: {s.jobs:,} jobs"
            + (f" submitted {s.first} .. {s.last}" + (f" ({s.tz} time)" if s.tz else "") if s.first else "")
            + (f", {s.capacity:,} processors" if s.capacity else "") + ".")
    if s.lost:  # sacct --duplicates: work cut short by requeues (characterize.lost_attempts)
        from ..characterize import lost_sentence

        head += " " + lost_sentence(s.lost)
    return [head, *warning_lines(s), "", *wrong_lines(s), "", *better_lines(s), "", *queue_lines(s)]
