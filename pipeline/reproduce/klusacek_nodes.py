"""Klusacek & Soysal 2018 Section 4 (JSSPP): where and when will my job run?

Figures 11-14 (T_node and waits under FCFS with node pinning none / 1 h / 2 h x
walltime exact / request / predictor), the Figure 10 point (backfilling
distorts node predictions: conservative backfilling against FCFS on the same
nodes) and Figure 9 (error of the wait predicted at submission, request
against predictor, under conservative backfilling).

The paper shows these as distribution plots without printed values, so every
"published" number is the direction its text states, checked by sign; the
runs are node-aware simulations (`walltime simulate --nodes-aware`, lowest
free node ids first) stored and reused like any other run.

Overrun: `double`, as the Figs. 5-7 runs of ``klusacek.py`` (the paper's
predictor doubles an underestimate up to the request), so both sections model
the same scheduler.
"""

from __future__ import annotations

from .. import derived
from ..simulate import make_config, simulate
from ..warehouse import Warehouse
from .common import CTC, KTH, SDSC, SHORT, boot_interval, pct_change, rows
from . import figs as FG
from .core import Check, Checks, Section, Table, Text, say

TRACES = {CTC: 512, SDSC: None}
QUICK = {KTH: None}
OVERRUN = "double"
ESTIMATES = {"actual": "exact runtime", "request": "user request", "klusacek": "Klusacek last 5"}
PINS = {"none": "none", "1h": "1 h", "2h": "2 h"}
CONSERVATIVE = (CTC, SDSC, KTH)
COLLAPSE = 10.0
REQ0, PRED0, REQ1 = ("none", "request", "none"), ("none", "klusacek", "none"), ("none", "request", "1h")
CONS0 = ("conservative", "request", "none")  # a pinned run whose mean wait is over 10x the unpinned one has collapsed


def grid(quick: bool, trace: str = "") -> list[tuple[str, str, str]]:
    """(backfill, estimate, pinning) of every run. --quick: request and predictor x none / 1 h, exact
    without pinning, and conservative with the request (Fig. 10). Conservative runs (request, predictor,
    request with 1 h pinning) on the traces of CONSERVATIVE: every trace since the node-level
    conservative loop finds a start by one sweep over the nodes' free windows (about 2.6 s per
    whole-trace run on CTC's 512 nodes; docs/speed.md, "Node-aware loops")."""
    if quick:
        runs = [("none", "actual", "none")] + [("none", e, p) for e in ("request", "klusacek") for p in ("none", "1h")]
        return runs + [("conservative", "request", "none")]
    runs = [("none", e, p) for e in ESTIMATES for p in PINS]
    if trace in CONSERVATIVE:
        runs += [("conservative", "request", "none"), ("conservative", "klusacek", "none"),
                 ("conservative", "request", "1h")]
    return runs


def _cfg(backfill: str, estimate: str, pin: str, capacity):
    return make_config(policy="fcfs", backfill=backfill, estimate=estimate, capacity=capacity, overrun=OVERRUN,
                       nodes_aware=True, pin_interval=pin)


def compute(wh: Warehouse, traces: dict, quick: bool) -> dict:
    """Run (or reuse) the grid; returns {(trace, backfill, estimate, pin): run_id}."""
    done = {}
    for trace, cap in traces.items():
        for b, e, p in grid(quick, trace):
            done[(trace, b, e, p)] = simulate(wh, trace, _cfg(b, e, p, cap)).run_id
    return done


def _numbers(con, run_ids: dict) -> dict:
    ids = list(run_ids.values())
    by_run = {r["run_id"]: r for r in rows(con, """
        SELECT t.run_id, t.jobs, t.share_tnode_pos, t.share_tnode_10min, t.share_tnode_1h, t.share_strict_pos,
               t.median_tnode_waiting_s, t.mean_plan_changes, w.mean_wait_s, w.median_wait_s, w.p90_wait_s,
               w.share_wait_0, w.share_wait_1h, w.utilization, t.machine_nodes,
               e.pred_err_h, e.predicted
        FROM report_node_tnode t JOIN report_node_waits w USING (run_id)
        JOIN (SELECT run_id, avg(abs(predicted_start - start)) / 3600 AS pred_err_h,
                     count(predicted_start) AS predicted
              FROM sim_jobs WHERE run_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY run_id) e USING (run_id)
        WHERE t.run_id IN (SELECT unnest(?::VARCHAR[]))""", ids, ids)}
    return {k: by_run.get(rid, {}) for k, rid in run_ids.items()}


def _month_counts(con, run_ids: dict) -> dict:
    """{(trace, backfill, estimate, pin): {month of submission: counts}} of the node-aware runs, for the
    intervals over months: jobs, T_node > 0 / > 10 min / > 1 h, the wait sum, and the wait predicted at
    submission's absolute error sum and count (report_node_tnode's and _numbers' columns, split by month)."""
    ids = {rid: k for k, rid in run_ids.items()}
    out: dict = {}
    for r in rows(con, """
        SELECT j.run_id, j.month, count(*) AS jobs, count(s.job_id) AS tjobs, sum((s.t_node > 0)::INT) AS tnode_pos,
               sum((s.t_node > 600)::INT) AS tnode_10min, sum((s.t_node > 3600)::INT) AS tnode_1h,
               sum(j.wait) AS wait, coalesce(sum(abs(j.predicted_start - j.start)), 0) AS pred_err,
               count(j.predicted_start) AS predicted
        FROM sim_jobs j LEFT JOIN sim_nodes s USING (run_id, job_id)
        WHERE j.run_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY ALL""", list(ids)):
        out.setdefault(ids[r["run_id"]], {})[r["month"]] = r
    return out


MONTHS = "months of submission, paired"


def _series(mc: dict, keys: list, cols: list[str]) -> list[list[float]]:
    """cols of each run in keys, over the months all of them have (paired series for boot_interval)."""
    runs = [mc.get(k, {}) for k in keys]
    ms = sorted(set.intersection(*(set(r) for r in runs))) if runs and all(runs) else []
    return [[r[m][c] for m in ms] for r in runs for c in cols]


def _share_iv(mc: dict, a, b, col: str) -> dict:
    """The interval of share(a) - share(b) in points (col over the jobs with a node record), over the months."""
    lo, hi = boot_interval(_series(mc, [a, b], [col, "tjobs"]),
                           lambda v: 100 * (v[0].sum(-1) / v[1].sum(-1) - v[2].sum(-1) / v[3].sum(-1)))
    return {"lo": lo, "hi": hi, "interval": MONTHS}


def _wait_iv(mc: dict, a, b) -> dict:
    """The interval of run a's mean wait vs run b's (%), over the months (the same jobs in both)."""
    lo, hi = boot_interval(_series(mc, [a, b], ["wait"]),
                           lambda v: 100 * (v[0].sum(-1) / v[1].sum(-1) - 1))
    return {"lo": lo, "hi": hi, "interval": MONTHS}


def _pred_iv(mc: dict, a, b) -> dict:
    """The interval of the mean absolute wait-prediction error, run a minus run b (h), over the months."""
    lo, hi = boot_interval(_series(mc, [a, b], ["pred_err", "predicted"]),
                           lambda v: (v[0].sum(-1) / v[1].sum(-1) - v[2].sum(-1) / v[3].sum(-1)) / 3600)
    return {"lo": lo, "hi": hi, "interval": MONTHS}


def build(con, traces: dict, quick: bool) -> Section:
    s = Section("klusacek-nodes", "Klusacek & Soysal 2018, Section 4: node predictions (T_node), pinning, "
                                  "and the wait predicted at submission")
    run_ids = _stored(con, traces, quick)
    num = _numbers(con, run_ids)
    mc = _month_counts(con, run_ids)
    pins = ["none", "1h"] if quick else list(PINS)
    s.add(Text("Node-aware replays (`walltime simulate --nodes-aware`): the machine's nodes are numbered, a job "
               "gets the lowest-numbered nodes free over its planned run, every waiting job has a planned node "
               "set, and T_node = start minus the last instant its planned node set changed (0 for a job that "
               "starts at submission). FCFS without backfilling (the paper's scheduler for this use case) with "
               f"pinning {' / '.join(PINS[p] for p in pins)} x walltime exact / request / predictor; conservative "
               f"backfilling on the same nodes for Figures 9-10. Overrun `{OVERRUN}`, as in the Figs. 5-7 runs."
               + (" `--quick`: KTH only; FCFS with exact runtimes (no pinning), request and predictor x no / 1 h pinning; conservative with the request." if quick else "")))
    checks, tn_rows, wait_rows = [], [], []
    for trace in traces:
        short = SHORT[trace]
        g = lambda b, e, p, col: num.get((trace, b, e, p), {}).get(col)  # noqa: E731
        for b, e, p in grid(quick, trace):
            r = num.get((trace, b, e, p), {})
            if not r:
                continue
            label = ("FCFS" if b == "none" else "conservative")
            tn_rows.append([short, label, ESTIMATES[e], PINS[p], _pct(r["share_tnode_pos"]),
                            _pct(r["share_tnode_10min"]), _pct(r["share_tnode_1h"]), _pct(r["share_strict_pos"]),
                            r["mean_plan_changes"]])
            wait_rows.append([short, label, ESTIMATES[e], PINS[p], r["mean_wait_s"] / 3600,
                              r["median_wait_s"] / 3600, r["p90_wait_s"] / 3600, _pct(r["share_wait_1h"]),
                              _pct(r["utilization"]), r["pred_err_h"] if b == "conservative" else None])
        fc = lambda e, p, col: g("none", e, p, col)  # noqa: E731
        K = lambda b, e, p: (trace, b, e, p)  # noqa: E731  (a run's key in _month_counts)
        ran = set(grid(quick, trace))

        def add(needs, check):  # a check only where its runs are in this trace's grid
            if all(r in ran for r in needs):
                checks.append(check)
        collapsed = [(e, p) for e in ESTIMATES for p in pins if p != "none"
                     and None not in (fc(e, p, "mean_wait_s"), fc(e, "none", "mean_wait_s"))
                     and fc(e, p, "mean_wait_s") > COLLAPSE * max(fc(e, "none", "mean_wait_s"), 1.0)]
        pts = lambda a, b_: None if None in (a, b_) else 100.0 * (a - b_)  # noqa: E731
        pin_gain = pts(fc("request", "1h", "share_tnode_pos"), fc("request", "none", "share_tnode_pos"))
        pred_gain = pts(fc("klusacek", "none", "share_tnode_pos"), fc("request", "none", "share_tnode_pos"))
        for p in pins[1:]:
            add([REQ0, ("none", "request", p)], Check(f"klusacek.fig11.{short}.pin_{p}", "Figs. 11-12 text",
                                f"jobs with T_node > 0, FCFS, request, pinning {PINS[p]} minus none (points)", 1.0,
                                pts(fc("request", p, "share_tnode_pos"), fc("request", "none", "share_tnode_pos")),
                                "direction", unit="points", trace=short, paper_note="rise",
                                **_share_iv(mc, K("none", "request", p), K(*REQ0), "tnode_pos")))
        add([REQ0, PRED0], Check(f"klusacek.fig11.{short}.predictor", "Figs. 11-12 text",
                            "jobs with T_node > 0, FCFS, no pinning, predictor minus request (points)", 1.0,
                            pred_gain, "direction", unit="points", trace=short, paper_note="moderate rise",
                            **_share_iv(mc, K(*PRED0), K(*REQ0), "tnode_pos")))
        for col, words in (("share_tnode_10min", "> 10 min"), ("share_tnode_1h", "> 1 h")):
            add([REQ0, PRED0], Check(f"klusacek.fig11.{short}.predictor_{col.rsplit('_', 1)[1]}", "Figs. 11-12 text",
                                f"jobs with T_node {words}, FCFS, no pinning, predictor minus request (points)", 1.0,
                                pts(fc("klusacek", "none", col), fc("request", "none", col)), "direction",
                                unit="points", trace=short, paper_note="moderate rise",
                                **_share_iv(mc, K(*PRED0), K(*REQ0), "tnode_" + col.rsplit("_", 1)[1])))
        add([REQ0, PRED0, REQ1], Check(f"klusacek.fig11.{short}.pin_vs_predictor", "Figs. 11-12 text",
                            "T_node > 0 gain from 1 h pinning minus gain from the predictor (points)", 1.0,
                            None if None in (pin_gain, pred_gain) else pin_gain - pred_gain, "direction",
                            unit="points", trace=short, paper_note="pinning larger",
                            **_share_iv(mc, K(*REQ1), K(*PRED0), "tnode_pos")))  # the request-only share cancels
        add([REQ0, ("none", "actual", "none")], Check(f"klusacek.sec43.{short}.exact", "Section 4.3",
                            "jobs with T_node > 0, FCFS, no pinning, exact runtimes minus request (points)", 1.0,
                            pts(fc("actual", "none", "share_tnode_pos"), fc("request", "none", "share_tnode_pos")),
                            "direction", unit="points", trace=short, paper_note="higher",
                            **_share_iv(mc, K("none", "actual", "none"), K(*REQ0), "tnode_pos")))
        for p in pins[1:]:
            add([REQ0, ("none", "request", p)], Check(f"klusacek.fig13.{short}.wait_pin_{p}", "Figs. 13-14 text",
                                f"mean wait, FCFS, request, pinning {PINS[p]} vs none (%)", 1.0,
                                pct_change(fc("request", p, "mean_wait_s"), fc("request", "none", "mean_wait_s")),
                                "direction", unit="%", trace=short, paper_note="more delays",
                                **_wait_iv(mc, K("none", "request", p), K(*REQ0))))
        add([REQ0, CONS0], Check(f"klusacek.fig13.{short}.fcfs_vs_conservative", "Figs. 13-14 text",
                            "mean wait, FCFS vs conservative backfilling, request, no pinning (%)", 1.0,
                            pct_change(fc("request", "none", "mean_wait_s"),
                                       g("conservative", "request", "none", "mean_wait_s")),
                            "direction", unit="%", trace=short, paper_note="FCFS worse",
                            **_wait_iv(mc, K(*REQ0), K(*CONS0))))
        cons_eff = pct_change(g("conservative", "klusacek", "none", "mean_wait_s"),
                              g("conservative", "request", "none", "mean_wait_s"))
        for p in pins:
            fc_eff = pct_change(fc("klusacek", p, "mean_wait_s"), fc("request", p, "mean_wait_s"))
            add([REQ0, PRED0, ("none", "request", p), ("none", "klusacek", p), CONS0,
                 ("conservative", "klusacek", "none")],
                Check(f"klusacek.fig13.{short}.estimates_role_{p}", "Figs. 13-14 text",
                      f"|mean wait change, predictor vs request| under FCFS with pinning {PINS[p]}, over the same "
                      "under conservative backfilling (ratio)", 1.0,
                      None if None in (fc_eff, cons_eff) or cons_eff == 0 else abs(fc_eff) / abs(cons_eff),
                      "below", trace=short, paper_note="< 1 (estimates play a smaller role)"))
        add([REQ0, ("none", "request", pins[-1])], Check(f"klusacek.sec43.{short}.utilization", "Section 4.3",
                            f"utilization, FCFS, request, pinning {PINS[pins[-1]]} minus none (points)", -1.0,
                            pts(fc("request", pins[-1], "utilization"), fc("request", "none", "utilization")),
                            "direction", unit="points", trace=short, paper_note="poorer",
                            interval="utilization of the whole run: no interval"))
        add([REQ0, CONS0], Check(f"klusacek.fig10.{short}.backfilling", "Fig. 10 text",
                            "jobs with T_node > 0, conservative backfilling minus FCFS, request, no pinning (points)",
                            -1.0, pts(g("conservative", "request", "none", "share_tnode_pos"),
                                      fc("request", "none", "share_tnode_pos")),
                            "direction", unit="points", trace=short, paper_note="fewer",
                            **_share_iv(mc, K(*CONS0), K(*REQ0), "tnode_pos")))
        add([REQ1, ("conservative", "request", "1h")], Check(f"klusacek.fig10.{short}.backfilling_pinned", "Fig. 10 text",
                            "jobs with T_node > 0, conservative backfilling minus FCFS, request, 1 h pinning (points)",
                            -1.0, pts(g("conservative", "request", "1h", "share_tnode_pos"),
                                      fc("request", "1h", "share_tnode_pos")),
                            "direction", unit="points", trace=short, paper_note="fewer",
                            **_share_iv(mc, K("conservative", "request", "1h"), K(*REQ1), "tnode_pos")))
        add([CONS0, ("conservative", "klusacek", "none")], Check(f"klusacek.fig9.{short}.wait_prediction", "Fig. 9 text",
                            "mean |wait predicted at submission - actual wait|, conservative, predictor minus "
                            "request (h)", -1.0,
                            None if None in (g("conservative", "klusacek", "none", "pred_err_h"),
                                             g("conservative", "request", "none", "pred_err_h"))
                            else g("conservative", "klusacek", "none", "pred_err_h")
                            - g("conservative", "request", "none", "pred_err_h"),
                            "direction", unit="h", trace=short, paper_note="decrease",
                            **_pred_iv(mc, K("conservative", "klusacek", "none"), K(*CONS0))))
        if collapsed:
            s.add(Text(f"{short}: " + "; ".join(
                f"{ESTIMATES[e]} with {PINS[p]} pinning has a mean wait of {fc(e, p, 'mean_wait_s') / 3600:,.1f} h "
                f"against {fc(e, 'none', 'mean_wait_s') / 3600:,.1f} h unpinned (utilization "
                f"{_pct(fc(e, p, 'utilization'))} against {_pct(fc(e, 'none', 'utilization'))})" for e, p in collapsed)
                + f": over {COLLAPSE:g}x, the queue collapsed. A pinned job waits for its own nodes while a job there "
                  "runs past its estimate, and FCFS holds every job behind it; almost every job then waits long "
                  "enough to be pinned, which raises T_node without a better prediction."))
    sat = _saturation(con, traces, run_ids, quick)
    if sat:
        s.add(Table("Is the unpinned FCFS run saturated? (request, no pinning, no backfilling)",
                    ["trace", "machine nodes", "months", "jobs", "offered load", "utilization of the run",
                     "mean wait (h)", "mean wait, last quarter of submissions (h)",
                     "last end after the last submission (days)", "largest queued work (machine-days)"],
                    [[r["short"], r["cap"], r["months"], r["jobs"], _pct(r["offered"]), _pct(r["util"]),
                      r["wait_h"], r["wait_last_h"], r["overhang_d"], r["backlog_d"]] for r in sat],
                    "jobs, sim_jobs of the FCFS request run"))
        hot = [r for r in sat if r["backlog_d"] > SATURATED_DAYS]
        s.add(Text("; ".join(
            f"{r['short']} ({r['months']} months at {r['cap']} nodes, offered load {_pct(r['offered'])}): the FCFS "
            f"run's mean wait is {r['wait_h']:,.1f} h ({r['wait_last_h']:,.1f} h for the last quarter of the "
            f"submissions); its queue holds up to {r['backlog_d']:,.1f} days of the whole machine's work and its "
            f"last job ends {r['overhang_d']:,.1f} days after the last submission — "
            + ("saturated" if r in hot else "not saturated") for r in sat)
            + f" (saturated: at some point the queue holds over {SATURATED_DAYS:g} days of the whole machine's work, "
              "so waits are set by a growing backlog, not by the schedule's decisions). "
            + ("A saturated FCFS run is not the paper's regime: without backfilling the machine cannot keep up "
               "with the trace's load, so every comparison of waits on it compares two growing queues. The paper "
               "replays the archive's whole CTC and SDSC-SP2 logs and states neither a machine size nor a load "
               "factor for them; ours are the whole logs at the sizes above." if hot else "")))
    s.add(Table("Figures 11-12 (and 10): T_node, ours", ["trace", "scheduler", "walltime", "pinning", "T_node > 0",
                "> 10 min", "> 1 h", "strict > 0", "plan changes / job"], tn_rows,
                "report_node_tnode (runs of `walltime simulate --nodes-aware`)"))
    s.add(Table("Figures 13-14 (and 9): waits, ours", ["trace", "scheduler", "walltime", "pinning", "mean wait (h)",
                "median wait (h)", "p90 wait (h)", "waits <= 1 h", "utilization",
                "mean |predicted - actual start| at submission (h)"], wait_rows,
                "report_node_waits; sim_jobs.predicted_start (first planned start)"))
    s.add(Checks("Section 4: the directions the paper reports", checks))
    for c in checks:
        if c.verdict != "same direction":
            s.add(Text(say(c)))
    s.add(*FG.klusacek_nodes(con, {(SHORT[t], ESTIMATES[e], PINS[p]): rid for (t, b, e, p), rid in run_ids.items()
                                   if b == "none"}))  # figs.py: Figs. 11-14 as curves
    return s


SATURATED_DAYS = 7.0


def _saturation(con, traces: dict, run_ids: dict, quick: bool) -> list[dict]:
    """Per trace: offered load, the unpinned FCFS request run's utilization, mean wait (all and the last
    quarter of the submissions) and how long after the last submission its last job ends."""
    out = []
    for trace, cap in traces.items():
        rid = run_ids.get((trace, *REQ0))
        if rid is None:
            continue
        got = rows(con, """
            WITH j AS (SELECT submit, start, wait, run, nodes FROM sim_jobs WHERE run_id = ?),
                 b AS (SELECT min(submit) AS t0, max(submit) AS t1 FROM j)
            SELECT count(*) AS jobs, sum(nodes * run) AS work, any_value(b.t0) AS t0, any_value(b.t1) AS t1,
                   max(start + run) AS last_end, avg(wait) / 3600 AS wait_h,
                   avg(wait) FILTER (WHERE submit >= b.t0 + 0.75 * (b.t1 - b.t0)) / 3600 AS wait_last_h
            FROM j, b""", rid)[0]
        # the queued work over time: + a job's node-seconds at its submission, - at its start
        (backlog,) = con.execute("""
            WITH j AS (SELECT submit, start, nodes::DOUBLE * run AS w FROM sim_jobs WHERE run_id = ?),
                 e AS (SELECT submit AS t, w FROM j UNION ALL SELECT start AS t, -w FROM j)
            SELECT max(q) FROM (SELECT sum(w) OVER (ORDER BY t, w ROWS UNBOUNDED PRECEDING) AS q FROM e)""",
                                 [rid]).fetchone()
        capacity = cap or (con.execute("SELECT capacity FROM traces WHERE trace = ?", [trace]).fetchone() or [None])[0]
        (months,) = con.execute("SELECT count(DISTINCT month) FROM jobs WHERE trace = ?", [trace]).fetchone()
        span = max(got["t1"] - got["t0"], 1)
        util = _numbers(con, {0: rid}).get(0, {}).get("utilization")
        out.append({"short": SHORT[trace], "cap": capacity, "months": months, "jobs": got["jobs"],
                    "offered": got["work"] / (capacity * span), "util": util, "wait_h": got["wait_h"],
                    "wait_last_h": got["wait_last_h"], "overhang_d": (got["last_end"] - got["t1"]) / 86400,
                    "backlog_d": (backlog or 0) / (capacity * 86400)})
    return out


def _stored(con, traces: dict, quick: bool) -> dict:
    """The grid's run_ids: the newest stored run with each configuration (compute ran them)."""
    out = {}
    for trace, cap in traces.items():
        if cap is None:
            cap = (con.execute("SELECT capacity FROM traces WHERE trace = ?", [trace]).fetchone() or [None])[0]
        if cap is None:
            continue
        for b, e, p in grid(quick, trace):
            r = derived.stored_run(con, trace, _cfg(b, e, p, None).with_capacity(int(cap)).canonical())
            if r:
                out[(trace, b, e, p)] = r
    return out


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"
