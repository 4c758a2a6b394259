"""Generate docs/reproduction-klusacek-nodes.md: Klusacek & Soysal 2018 Figures 11-14.

    .venv/bin/python bench/reproduce_nodes.py [--warehouse DIR] [--out FILE] [--traces CTC,SDSC]

Every run goes through the simulate stage (`walltime simulate --nodes-aware`),
stored in the warehouse and reused when already there; the numbers are read
from the report_node_tnode / report_node_waits views, so each table is one
`walltime sql` away. Grid: FCFS without backfilling (the paper's scheduler for
this use case) x pinning none / 1 h / 2 h x walltime exact (actual) / user
request / klusacek predictor; CTC-SP2 at 512 nodes, SDSC-SP2 at its 128.
Every sentence that compares is generated from the numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pipeline.ingest import ingest  # noqa: E402
from pipeline.simulate import make_config, simulate  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402

TRACES_DIR = Path(os.environ.get("WALLTIME_TRACES", REPO.parent / "shared" / "traces"))
TRACES = {"CTC": ("CTC-SP2-1996-3.1-cln", 512), "SDSC": ("SDSC-SP2-1998-4.2-cln", None)}
ESTIMATES = [("actual", "exact"), ("request", "user request"), ("klusacek", "klusacek predictor")]
PINS = ["none", "1h", "2h"]
PIN_LABEL = {"none": "none", "1h": "1 h", "2h": "2 h"}


def run_grid(wh: Warehouse, keys: list[str], conservative: bool, overrun: str) -> list[tuple]:
    for key in keys:  # a no-op when the trace is loaded (same content)
        ingest([TRACES_DIR / f"{TRACES[key][0]}.swf.gz"], wh)
    done = []
    for key in keys:
        name, cap = TRACES[key]
        grid = [("none", e, p) for e, _ in ESTIMATES for p in PINS]
        if conservative:
            grid += [("conservative", "request", p) for p in ("none", "1h")]
        for backfill, est, pin in grid:
            t = time.perf_counter()
            cfg = make_config(policy="fcfs", backfill=backfill, estimate=est, capacity=cap, overrun=overrun,
                              nodes_aware=True, pin_interval=pin)
            res = simulate(wh, name, cfg)
            print(f"{key:5s} {backfill:12s} {est:9s} pin {pin:4s} run {res.run_id} "
                  f"{'reused' if res.reused else f'{time.perf_counter() - t:6.1f} s'}", flush=True)
            done.append((key, name, backfill, est, pin, res.run_id))
    return done


def fetch(wh: Warehouse, done: list[tuple]) -> dict:
    con = wh.reader()
    try:
        rows = {}
        for key, name, backfill, est, pin, run_id in done:
            cur = con.execute("SELECT * FROM report_node_tnode t JOIN report_node_waits w USING (run_id) "
                              "WHERE run_id = ?", [run_id])
            names = [d[0] for d in cur.description]
            rows[(key, backfill, est, pin)] = dict(zip(names, cur.fetchone()))
        return rows
    finally:
        con.close()


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def hours(s: float) -> str:
    return f"{s / 3600:,.2f}"


def tables(rows: dict, key: str, backfill: str = "none") -> list[str]:
    out = ["| walltime | pinning | T_node > 0 | > 10 min | > 1 h | strict > 0 | median T_node (waiting, min) "
           "| plan changes / job | mean wait (h) | median wait (h) | p90 wait (h) | waits <= 1 h | utilization |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for est, label in ESTIMATES:
        for pin in PINS:
            r = rows.get((key, backfill, est, pin))
            if r is None:
                continue
            med = r["median_tnode_waiting_s"]
            out.append(f"| {label} | {PIN_LABEL[pin]} | {pct(r['share_tnode_pos'])} | {pct(r['share_tnode_10min'])} "
                       f"| {pct(r['share_tnode_1h'])} | {pct(r['share_strict_pos'])} "
                       f"| {'-' if med is None else f'{med / 60:,.1f}'} | {r['mean_plan_changes']:.2f} "
                       f"| {hours(r['mean_wait_s'])} | {hours(r['median_wait_s'])} | {hours(r['p90_wait_s'])} "
                       f"| {pct(r['share_wait_1h'])} | {pct(r['utilization'])} |")
    return out


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def readings(rows: dict, key: str) -> list[str]:
    """The paper's findings checked on our numbers, every word of comparison computed."""
    g = lambda est, pin, col: rows[(key, "none", est, pin)][col]  # noqa: E731
    real = [e for e, _ in ESTIMATES if e != "actual"]
    # runs whose schedule collapsed (mean wait > 10x the same walltime without pinning) are named, and
    # the clean comparisons use the others: a collapsed queue makes almost every job wait long enough
    # to be pinned, which inflates T_node without being a better prediction
    collapsed = [(e, p) for e, _ in ESTIMATES for p in ("1h", "2h")
                 if g(e, p, "mean_wait_s") > 10 * g(e, "none", "mean_wait_s")]
    label = dict(ESTIMATES)
    ok = lambda e, p: (e, p) not in collapsed  # noqa: E731
    pin_gain = {p: [g(e, p, "share_tnode_pos") - g(e, "none", "share_tnode_pos") for e in real if ok(e, p)]
                for p in ("1h", "2h")}
    pred_gain = g("klusacek", "none", "share_tnode_pos") - g("request", "none", "share_tnode_pos")
    out = []
    if collapsed:
        out.append("- **Collapse.** " + "; ".join(
            f"{label[e]} with {PIN_LABEL[p]} pinning: mean wait {hours(g(e, p, 'mean_wait_s'))} h against "
            f"{hours(g(e, 'none', 'mean_wait_s'))} h unpinned, utilization {pct(g(e, p, 'utilization'))}"
            for e, p in collapsed) + ". Pinned jobs wait for their own nodes while a job there runs past its "
            "(short) estimate, and FCFS holds everyone behind them; these runs are left out of the "
            "comparisons below.")
    gains = [x for v in pin_gain.values() for x in v]
    if gains:
        best = max(gains)
        bigger = "more" if best > abs(pred_gain) else "less"
        agree = "agrees with" if bigger == "more" else "differs from"
        parts = [f"{PIN_LABEL[p]}: {', '.join(f'{100 * x:+.1f}' for x in v)} points" for p, v in pin_gain.items() if v]
        out.append(
            f"- **Pinning vs predictor (T_node > 0).** Pinning changes the share of jobs with T_node > 0 by "
            f"{'; '.join(parts)} (request, predictor; runs that did not collapse); without pinning, the klusacek "
            f"predictor instead of the user request changes it by {100 * pred_gain:+.1f} points. Pinning helps "
            f"node predictability {bigger} than the predictor: this {agree} the paper (\"the largest benefit is "
            f"evidently achieved through node-pinning rather than through improved walltime estimates\").")
    rise = {(e, p): g(e, p, "mean_wait_s") / g(e, "none", "mean_wait_s") - 1 for e, _ in ESTIMATES for p in ("1h", "2h")}
    agree_w = "agrees with" if all(v >= 0 for v in rise.values()) and any(v > 0.005 for v in rise.values()) \
        else "differs from"
    out.append(
        "- **Waits.** Mean wait against no pinning, 1 h / 2 h: " + "; ".join(
            f"{label[e]} {100 * rise[(e, '1h')]:+.1f}% / {100 * rise[(e, '2h')]:+.1f}%" for e, _ in ESTIMATES)
        + (". With exact runtimes pinning changes no wait (a plan never moves, so neither does a pinned job)"
           if abs(rise[("actual", "1h")]) < 1e-9 and abs(rise[("actual", "2h")]) < 1e-9 else "")
        + f"; this {agree_w} the paper (\"node-pinning added even more delays\").")
    exact = g("actual", "none", "share_tnode_pos")
    user = mean(g(e, "none", "share_tnode_pos") for e in real)
    rel = "higher" if exact > user else "lower"
    out.append(
        f"- **Exact walltimes.** Without pinning, {pct(exact)} of jobs have T_node > 0 with exact runtimes against "
        f"{pct(user)} (mean of request and predictor): {rel} with exact runtimes, as the paper expects (\"when "
        f"using accurate walltimes reasonable node predictions are achievable\"); jobs that start at submission "
        f"(T_node = 0 by definition: {pct(g('actual', 'none', 'share_wait_0'))} of jobs here) bound the share.")
    est_spread = max(g(e, "none", "mean_wait_s") for e, _ in ESTIMATES) / min(g(e, "none", "mean_wait_s")
                                                                             for e, _ in ESTIMATES) - 1
    out.append(
        f"- **Estimates and FCFS waits.** Without pinning the mean wait differs by {100 * est_spread:.1f}% between "
        f"the three walltimes (FCFS starts do not depend on estimates at all when nothing is pinned: the spread "
        f"is {'zero, as it must be' if est_spread < 1e-9 else 'not zero: check the run'}); the paper: \"the "
        f"accuracy of estimates plays smaller role in this use case\".")
    return out


def conservative_lines(rows: dict, key: str) -> list[str]:
    c = rows.get((key, "conservative", "request", "none"))
    f = rows.get((key, "none", "request", "none"))
    if c is None or f is None:
        return []
    d = c["share_tnode_pos"] - f["share_tnode_pos"]
    word = "fewer" if d < 0 else "more"
    return ["", f"Backfilling (Figure 10's point), {key}, user request, no pinning: conservative backfilling gives "
            f"{pct(c['share_tnode_pos'])} of jobs T_node > 0 against {pct(f['share_tnode_pos'])} under FCFS "
            f"({100 * abs(d):.1f} points {word}), with {c['mean_plan_changes']:.2f} plan changes per job against "
            f"{f['mean_plan_changes']:.2f}, and a mean wait of {hours(c['mean_wait_s'])} h against "
            f"{hours(f['mean_wait_s'])} h."]


def render(rows: dict, keys: list[str], elapsed: float, overrun: str) -> str:
    lines = [
        "# Klusacek & Soysal 2018, Section 4.2: where will my job run?",
        "",
        "Generated by `bench/reproduce_nodes.py` (do not edit by hand). Runs: `walltime simulate --nodes-aware "
        "--backfill none --pin-interval none|1h|2h --estimate actual|request|klusacek` (FCFS, lowest free node ids "
        "first; semantics in docs/simulate.md and docs/simulation-kernel.md). Numbers from the views "
        "`report_node_tnode` (Figures 11-12) and `report_node_waits` (Figures 13-14). "
        f"Overrun policy: `--overrun {overrun}`"
        + (" (the simulate default; the paper's predictor doubles an underestimate up to the request, which "
           "`--overrun double` models: rerun with it to compare)." if overrun == "request" else "."),
        "",
        "T_node = start minus the last instant at which the job's planned node set changed (the submission when it "
        "never did; 0 for a job that starts at submission). \"strict\" also requires the planned start to have been "
        "right (see docs/simulate.md for both readings against the paper's text).",
        "",
        "The paper's findings (Section 4.2-4.3): node-pinning has a clearly positive effect on T_node; the "
        "predictor's effect is moderate (clear only on FH1, moderate on FH2, CTC and SDSC); FCFS worsens waits and "
        "pinning adds delays; estimate accuracy matters less under FCFS than under conservative backfilling. The "
        "paper shows these as distribution plots without printed values, so the comparison below is qualitative.",
    ]
    for key in keys:
        name, cap = TRACES[key]
        machine = next(r["machine_nodes"] for (k, *_), r in rows.items() if k == key)
        lines += ["", f"## {key} ({name}, {machine} nodes)", ""]
        lines += tables(rows, key)
        lines += ["", "Readings:", ""]
        lines += readings(rows, key)
        lines += conservative_lines(rows, key)
    absent = [k for k in TRACES if k not in keys]
    if absent:
        lines += ["", f"Not in this generation: {', '.join(absent)} (`--traces` to add; under FCFS its queue holds "
                  "thousands of jobs and each run takes minutes)."]
    lines += ["", f"Whole grid computed or reused in {elapsed:,.0f} s.", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", default=str(REPO / "warehouse" / "repro-nodes"))
    ap.add_argument("--out", default=str(REPO / "docs" / "reproduction-klusacek-nodes.md"))
    ap.add_argument("--traces", default="CTC,SDSC")
    ap.add_argument("--overrun", default="request", choices=["request", "double"])
    ap.add_argument("--conservative", action="store_true",
                    help="also conservative backfilling (request; pinning none, 1h): slow, see docs")
    a = ap.parse_args()
    keys = [k.strip().upper() for k in a.traces.split(",") if k.strip()]
    t = time.perf_counter()
    wh = Warehouse(Path(a.warehouse))
    done = run_grid(wh, keys, a.conservative, a.overrun)
    rows = fetch(wh, done)
    Path(a.out).write_text(render(rows, keys, time.perf_counter() - t, a.overrun))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
