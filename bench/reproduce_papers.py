"""Generate docs/reproduction.md: the papers' tables beside ours.

    .venv/bin/python bench/reproduce_papers.py [--warehouse DIR] [--out docs/reproduction.md]

Everything goes through the report's compute phase (pipeline.report.compute.prepare:
characterize, estimates, simulations, reusing what the warehouse holds) and the
numbers are read from the report's warehouse views, so each table below is one
`walltime sql` away. Tang et al. Figs. 4-5 use the window-"all" slice of the
grid (4 key passes instead of the full grid's 24) computed in memory with the
estimate stage's own functions, unless the warehouse already holds the grid.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from mualem_tables import TABLE1, TABLE4  # noqa: E402

from pipeline.ingest import ingest  # noqa: E402
from pipeline.report.compute import prepare  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402

TRACES = REPO.parent / "shared" / "traces"
KTH, CTC, SDSC = "KTH-SP2-1996-2.1-cln", "CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln"
HPC2N, CEA, BLUE = "HPC2N-2002-2.2-cln", "CEA-Curie-2011-2.1-cln", "SDSC-BLUE-2000-4.2-cln"
MF = {"KTH": KTH, "CTC": CTC, "SDSC": SDSC}
TANG = [SDSC, HPC2N, CEA, BLUE]
CAPACITY = {CTC: 512}

# Mu'alem & Feitelson Table 3 (original and uniform [r, f r], f = 1 2 4 11 31 101 301)
MF_TABLE3 = {
    ("easy", "bounded slowdown"): {"CTC": [3.82, 4.10, 3.12, 3.04, 3.02, 3.06, 3.03, 3.01],
                                   "KTH": [84.0, 67.6, 67.0, 62.7, 63.7, 64.7, 64.9, 65.8],
                                   "SDSC": [84.2, 70.1, 72.7, 76.3, 76.3, 78.9, 82.0, 83.9]},
    ("easy", "response time"): {"CTC": [12053, 12234, 11976, 11923, 11896, 11895, 11889, 11890],
                                "KTH": [15568, 15001, 14717, 14645, 14880, 15028, 15110, 15127],
                                "SDSC": [24519, 21976, 21801, 22451, 23148, 23977, 24739, 24978]},
    ("conservative", "bounded slowdown"): {"CTC": [5.00, 3.71, 2.62, 2.39, 2.38, 2.37, 2.40, 2.37],
                                           "KTH": [89.7, 68.7, 50.0, 49.3, 47.5, 47.4, 49.4, 49.8],
                                           "SDSC": [96.0, 68.3, 56.0, 58.9, 63.9, 63.3, 67.8, 67.3]},
    ("conservative", "response time"): {"CTC": [12495, 12639, 12201, 12062, 11983, 11965, 11964, 11964],
                                        "KTH": [16288, 16098, 14940, 14878, 15095, 15391, 15538, 15651],
                                        "SDSC": [29422, 23239, 21550, 22800, 25220, 29284, 32999, 32862]},
}
# Mu'alem & Feitelson Table 2 (number, %)
MF_TABLE2 = {
    "total jobs": {"CTC": (79296, None), "KTH": (28490, None), "SDSC": (67665, None)},
    "killed jobs": {"CTC": (16671, 21.0), "KTH": (7948, 27.9), "SDSC": (11175, 16.5)},
    "100% peak": {"CTC": (4806, 6.1), "KTH": (3601, 12.6), "SDSC": (3006, 4.4)},
    "killed": {"CTC": (4547, 94.6), "KTH": (3590, 99.7), "SDSC": (2855, 95.0)},
    "0% peak": {"CTC": (9027, 11.4), "KTH": (2333, 8.2), "SDSC": (9553, 14.1)},
    "<90sec jobs": {"CTC": (18589, 23.4), "KTH": (9361, 32.9), "SDSC": (19719, 29.1)},
    "<2hr jobs": {"CTC": (35541, 44.8), "KTH": (16128, 56.6), "SDSC": (43515, 64.3)},
}
# Smith, Taylor & Foster, CTC rows: (utilization %, mean wait min) per algorithm
SMITH_CTC = {
    "exact runtime (Table 10)": {"LWF": (51.28, 11.15), "Backfill": (51.28, 23.75)},
    "maximum = request (Table 11)": {"LWF": (51.28, 10.48), "Backfill": (51.28, 26.86)},
    "their template predictor (Table 12)": {"LWF": (51.28, 13.40), "Backfill": (51.28, 22.54)},
}
# Smith et al. wait-time prediction error, CTC, percent of mean wait (Tables 4, 5, 6)
SMITH_CTC_WAIT = {
    "exact runtime (Table 4)": {"LWF": 39, "Backfill": 10},
    "maximum = request (Table 5)": {"FCFS": 128, "LWF": 94, "Backfill": 190},
    "their template predictor (Table 6)": {"FCFS": 37, "LWF": 53, "Backfill": 44},
}


def md(headers: list[str], rows: list[list]) -> str:
    def cell(v):
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:,.3g}" if abs(v) < 100 else f"{v:,.0f}"
        if isinstance(v, int):
            return f"{v:,}"
        return str(v)
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(out)


def q(con, sql: str, *params) -> list[dict]:
    cur = con.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def pct(a, b):
    return None if a is None or not b else round(100 * (a / b - 1), 1)


def ensure(wh: Warehouse) -> dict:
    have = set()
    if wh.exists():
        con = wh.reader()
        have = {t for (t,) in con.execute("SELECT trace FROM traces").fetchall()}
        con.close()
    todo = [TRACES / f"{t}.swf.gz" for t in {KTH, CTC, SDSC, HPC2N, CEA, BLUE} if t not in have]
    if todo:
        ingest(sorted(todo), wh)
    seconds = {}
    plan = [
        ("Mu'alem & Feitelson", [KTH, CTC, SDSC], ["estimates", "scheduling"], ["mualem"]),
        ("Klusacek & Soysal", [CTC, SDSC], ["estimates", "scheduling"], ["klusacek"]),
        ("Smith, Taylor & Foster", [CTC, SDSC], ["prediction"], ["smith"]),
        ("Tang et al.", TANG, ["estimates", "scheduling"], ["tang"]),
    ]
    for name, traces, sections, experiments in plan:
        t = time.perf_counter()
        prepare(wh, traces, sections, CAPACITY, experiments, grid=False)
        seconds[name] = time.perf_counter() - t
        print(f"{name}: {seconds[name]:.0f} s", file=sys.stderr, flush=True)
    return seconds


def tang_window_all(wh: Warehouse, trace: str) -> dict:
    """(key, stat) -> accuracy row at window all, floor 0 (Tang Figs. 4-5)."""
    con = wh.reader()
    try:
        stored = q(con, "SELECT key_type, stat, acc_mean, na, oe, ue, be FROM estimate_grid "
                        "WHERE trace = ? AND grid = 'tang' AND win = 'all' AND floor = 0", trace)
        if stored:
            return {(r["key_type"], r["stat"]): r for r in stored}
        from pipeline.estimates import load_jobs
        jobs = load_jobs(con, trace)
    finally:
        con.close()
    from pipeline.estimates.grid import _one_pass
    from pipeline.schemes import KEYS
    out = {}
    for key in KEYS:
        for r in _one_pass(jobs, key, "all").to_dicts():
            if r["floor"] == 0:
                out[(key, r["stat"])] = r
    return out


def mualem(con) -> list[str]:
    doc = ["## Mu'alem & Feitelson 2001 (KTH-SP2, CTC-SP2 at 512 nodes, SDSC-SP2)", "",
           "FCFS queue; EASY and conservative backfilling; each month simulated alone from an empty "
           "machine (their Section 3.2); the whole-trace figures are the job-weighted means of the months "
           "(`run_metrics` 'all' row of the monthly runs). Views: `report_mualem_table1`, "
           "`report_mualem_table2`, `report_mualem_table3`, `report_mualem_table4`.", ""]
    doc += ["### Table 2: the users' estimates", ""]
    rows = []
    ours = {(r["trace"], r["label"]): r for r in q(con, "SELECT * FROM report_mualem_table2")}
    for label, paper in MF_TABLE2.items():
        row = [label]
        for short, trace in MF.items():
            p, o = paper[short], ours.get((trace, label), {})
            row += [f"{p[0]:,}" + (f" ({p[1]}%)" if p[1] is not None else ""),
                    (f"{o.get('number'):,}" + (f" ({o.get('pct')}%)" if label != "total jobs" else "")) if o else "-"]
        rows.append(row)
    doc += [md(["row"] + [f"{short} {who}" for short in MF for who in ("paper", "ours")], rows), ""]
    doc += ["### Table 1: EASY vs conservative per month (response time s, bounded slowdown)", ""]
    for short, trace in MF.items():
        ours = {r["month"]: r for r in q(con, "SELECT * FROM report_mualem_table1 WHERE trace = ?", trace)}
        rows = []
        for month, load, jobs, re_, rc, be, bc in TABLE1[short]:
            o = ours.get(month, {})
            rows.append([month, load, o.get("load"), jobs, o.get("jobs"),
                         f"{pct(rc, re_):+.1f}%", None if not o else f"{o['resp_diff_pct']:+.1f}%",
                         f"{pct(bc, be):+.1f}%", None if not o or o["bsld_diff_pct"] is None else f"{o['bsld_diff_pct']:+.1f}%",
                         re_, o.get("resp_easy"), be, o.get("bsld_easy")])
        wins_p = sum(1 for m in TABLE1[short] if m[4] > m[3])
        wins_o = sum(1 for r in ours.values() if r["resp_cons"] > r["resp_easy"])
        doc += [f"**{short}** ({trace}): conservative has the longer response time in {wins_p} of "
                f"{len(TABLE1[short])} months in the paper, in {wins_o} of {len(ours)} months here.", "",
                md(["month", "load paper", "load ours", "jobs paper", "jobs ours", "resp diff paper",
                    "resp diff ours", "bsld diff paper", "bsld diff ours", "resp EASY paper", "resp EASY ours",
                    "bsld EASY paper", "bsld EASY ours"], rows), ""]
    doc += ["### Table 3: estimates uniform in [r, f r] (one seed here; the paper averages 10)", ""]
    t3 = {(r["trace"], r["backfill"], r["metric"]): r for r in q(con, "SELECT * FROM report_mualem_table3")}
    cols = ["original", "f1", "f2", "f4", "f11", "f31", "f101", "f301"]
    rows = []
    for (bf, metric), by in MF_TABLE3.items():
        for short, trace in MF.items():
            o = t3.get((trace, bf, metric))
            rows.append([bf, metric, short, "paper"] + by[short])
            rows.append([bf, metric, short, "ours"] + ([o[c] for c in cols] if o else [None] * 8))
    doc += [md(["backfill", "metric", "trace", "", *cols], rows), ""]
    doc += ["### Table 4: requests doubled", ""]
    t4 = {(r["trace"], r["metric"]): r for r in q(con, "SELECT * FROM report_mualem_table4")}
    rows = []
    for (metric, short), (eo, ed, co, cd) in TABLE4.items():
        o = t4.get((MF[short], metric), {})
        rows.append([metric, short, eo, o.get("easy_orig"), f"{pct(ed, eo):+.1f}%",
                     f"{o['easy_diff_pct']:+.1f}%" if o else None, co, o.get("cons_orig"),
                     f"{pct(cd, co):+.1f}%", f"{o['cons_diff_pct']:+.1f}%" if o else None])
    doc += [md(["metric", "trace", "EASY paper", "EASY ours", "x2 diff paper", "x2 diff ours",
                "cons paper", "cons ours", "x2 diff paper", "x2 diff ours"], rows), ""]
    return doc


def tang(con, grids: dict) -> list[str]:
    doc = ["## Tang et al. 2013 on traces with users, groups and requests", "",
           "Intrepid's log is not public. The same analysis on SDSC-SP2, HPC2N, CEA-Curie and SDSC-BLUE "
           "(SDSC-BLUE has no group ids, so its adjusted schemes use the user key). Schemes of Figs. 13-17: "
           "triple key, one-month window, floor 0.5, at least 10 history jobs, 95th/85th/70th percentile; "
           "EASY backfilling; each month simulated alone. Views: `report_r_summary`, `report_r_keys`, "
           "`report_role_accuracy`, `report_tang_gain`, `report_tang_months`.", ""]
    summ = {r["trace"]: r for r in q(con, "SELECT * FROM report_r_summary")}
    quart = {r["trace"]: r for r in q(con, "SELECT trace, min(mean_r) lo, max(mean_r) hi, count(*) n FROM "
                                           "report_r_quarters WHERE jobs >= 100 GROUP BY trace")}
    rows = [["jobs with R", "275,858"] + [summ.get(t, {}).get("jobs_r") for t in TANG],
            ["mean R (Fig. 1)", "0.50"] + [summ.get(t, {}).get("mean_r") for t in TANG],
            ["share R < 0.2", "28%"] + [summ.get(t, {}).get("share_r_lt_0_2") for t in TANG],
            ["share R > 0.8", "25%"] + [summ.get(t, {}).get("share_r_gt_0_8") for t in TANG],
            ["mean R per quarter (Fig. 2)", "0.42-0.59"] +
            [f"{quart[t]['lo']}-{quart[t]['hi']} ({quart[t]['n']})" if t in quart else None for t in TANG]]
    keys = {(r["trace"], r["key_type"]): r for r in q(con, "SELECT * FROM report_r_keys")}
    paper_keys = {"all": "0.335", "project": "0.308", "user": "0.294", "user_project": "0.285",
                  "user_project_req": "0.253"}
    for k, v in paper_keys.items():
        rows.append([f"avg std R, key {k} (Table 2)", v] + [keys.get((t, k), {}).get("avg_std_r") for t in TANG])
    doc += ["### Fig. 1, Fig. 2, Table 2: the users' estimates", "",
            md(["statistic", "Intrepid (paper)", *TANG], rows), ""]
    rows = []
    for stat in ("max", "p95", "p85", "p70", "median"):
        row = [stat, {"p70": "0.679"}.get(stat, "")]
        for t in TANG:
            g = grids.get(t, {})
            tri = g.get(("user_project_req", stat), {})
            base = summ.get(t) and q(con, "SELECT acc_mean FROM estimate_accuracy WHERE trace = ? AND scheme = 'request'", t)
            b = base[0]["acc_mean"] if base else None
            row.append(f"{tri.get('acc_mean', float('nan')):.3f} ({pct(tri.get('acc_mean'), b):+.0f}%)" if tri and b else None)
        rows.append(row)
    doc += ["### Fig. 4: mean accuracy, triple key, window all, no floor (gain over the requests)", "",
            "The paper's best is the 70th percentile: 0.679, +35% over the requests' 0.50.", "",
            md(["statistic", "Intrepid", *TANG], rows), ""]
    rows = []
    for t in TANG:
        g = grids.get(t, {}).get(("user_project_req", "p85"), {})
        if g:
            rows.append([t, round(g["na"], 3), round(g["oe"], 3), round(g["ue"], 3), round(g["be"], 3)])
    doc += ["### Fig. 5: shares at the 85th percentile, triple key, window all, no floor", "",
            "Intrepid: schemes at the 85th percentile or above keep underestimates (UE + BE) under 10% "
            "and BE under 1.5%.", "", md(["trace", "NA", "OE", "UE", "BE"], rows), ""]
    acc = q(con, "SELECT * FROM report_role_accuracy WHERE scheme IN ('user estimate (request)', 'p95', 'p85', 'p70') "
                 "ORDER BY trace, pos")
    rows = [[r["trace"], r["scheme"], r["acc_mean"], r["acc_median"], r["under_rate"], r["be"]] for r in acc
            if r["trace"] in TANG]
    doc += ["### Fig. 13: accuracy of the one-month schemes simulated below", "",
            "Intrepid: about 0.5 for the requests, above 0.6 for all three schemes.", "",
            md(["trace", "scheme", "mean accuracy", "median", "underestimated", "BE"], rows), ""]
    gain = q(con, "SELECT * FROM report_tang_gain ORDER BY trace, policy DESC, adjust, scheme DESC")
    paper = {("wfp", "selective", "p85"): "22 / 22 / 28", ("wfp", "regular", "p85"): "~15 / 16 / 19",
             ("fcfs", "selective", "p85"): "~20 / ~20 / >15", ("fcfs", "regular", "p95"): "-2 / <1 / <1"}
    rows = [[r["trace"], r["policy"], r["adjust"], r["scheme"], r["months"], r["wait_gain_pct"],
             r["slowdown_gain_pct"], r["weighted_wait_gain_pct"], paper.get((r["policy"], r["adjust"], r["scheme"]), "")]
            for r in gain if r["trace"] in TANG]
    doc += ["### Figs. 14-17 (d): average gain over the months, percent (positive = better than the requests)", "",
            md(["trace", "policy", "adjust", "scheme", "months", "wait", "slowdown", "weighted wait",
                "Intrepid wait / slowdown / weighted"], rows), ""]
    return doc


def klusacek(con) -> list[str]:
    doc = ["## Klusacek & Soysal 2018 on CTC-SP2 (512 nodes) and SDSC-SP2", "",
           "FCFS with conservative backfilling over the whole trace; walltimes: exact runtimes, the users' "
           "requests, and the predictor (request x largest R of the user's last 5 jobs, doubled on "
           "underestimate up to the request). Their FH1/FH2 logs are not public, and their figures give "
           "shapes, not tables. Views: `report_ks_backfill`, `report_ks_wait`, `report_user_error`.", ""]
    bf = q(con, "SELECT * FROM report_ks_backfill WHERE trace IN (?, ?) ORDER BY trace, pos", CTC, SDSC)
    doc += ["### Fig. 5: backfilled jobs", "",
            "Paper (CTC, SDSC): only a slight rise of the backfilled share with exact or predicted walltimes.", "",
            md(["trace", "walltime", "backfilled %", "mean wait (min)", "mean bounded slowdown"],
               [[r["trace"], r["walltime"], r["backfilled_pct"], r["mean_wait_min"], r["mean_bsld"]] for r in bf]), ""]
    w = q(con, "SELECT trace, walltime, wait, share FROM report_ks_wait WHERE trace IN (?, ?) ORDER BY trace, pos, bin",
          CTC, SDSC)
    bins = list(dict.fromkeys(r["wait"] for r in w))
    rows = {}
    for r in w:
        rows.setdefault((r["trace"], r["walltime"]), {})[r["wait"]] = r["share"]
    doc += ["### Figs. 6-7: distribution of wait times (share of jobs)", "",
            "Paper: the predictor shifts waits shorter on SDSC; on CTC it stays close to the requests.", "",
            md(["trace", "walltime", *bins], [[t, wt, *[v.get(b, 0) for b in bins]] for (t, wt), v in rows.items()]), ""]
    e = q(con, "SELECT trace, count(*) users, round(avg(mae_request_h), 2) req, round(avg(mae_predictor_h), 2) pred, "
               "count(*) FILTER (WHERE mae_predictor_h < mae_request_h) better FROM report_user_error "
               "WHERE trace IN (?, ?) GROUP BY trace ORDER BY trace", CTC, SDSC)
    doc += ["### Figs. 3-4: per-user mean absolute error (hours)", "",
            md(["trace", "users", "mean over users, request", "mean over users, predictor", "users improved"],
               [[r["trace"], r["users"], r["req"], r["pred"], r["better"]] for r in e]), ""]
    return doc


def smith(con) -> list[str]:
    doc = ["## Smith, Taylor & Foster 1999, Tables 4-15 layout, on CTC-SP2 (512 nodes) and SDSC-SP2", "",
           "Predicted start at submission by simulating the queue forward with the scheduler's estimates "
           "(no later arrivals). FCFS and LWF without backfilling, Backfill = FCFS + EASY; the scheduler runs on "
           "the predictor too. This is the project's own layout: the paper's set-up (scheduler on requests, "
           "forecast on the predictor, conservative backfill, their template predictor, Gibbons, Downey, "
           "two months of CTC) is in docs/reproduction-smith.md (`bench/reproduce_smith.py`). The paper's SDSC "
           "rows are from the 1995/96 SDSC Paragon, not the SP2. Views: `report_smith_prediction`, "
           "`report_smith_scheduling`.", ""]
    p = q(con, "SELECT * FROM report_smith_prediction WHERE trace IN (?, ?) ORDER BY trace, pos, apos", CTC, SDSC)
    doc += ["### Tables 4-9: run-time and wait-time prediction error", "",
            "CTC in the paper, wait-time error as percent of mean wait: " +
            "; ".join(f"{k}: " + ", ".join(f"{a} {v}%" for a, v in d.items()) for k, d in SMITH_CTC_WAIT.items()) + ".", "",
            md(["trace", "predictor", "algorithm", "run error (min)", "% of mean run", "wait error (min)",
                "% of mean wait"],
               [[r["trace"], r["predictor"], r["algorithm"], r["run_error_min"], r["run_error_pct"],
                 r["wait_error_min"], r["wait_error_pct"]] for r in p]), ""]
    s = q(con, "SELECT * FROM report_smith_scheduling WHERE trace IN (?, ?) ORDER BY trace, pos, apos", CTC, SDSC)
    doc += ["### Tables 10-15: scheduling performance", "",
            "CTC in the paper (utilization %, mean wait min): " +
            "; ".join(f"{k}: " + ", ".join(f"{a} {u}% / {w}" for a, (u, w) in d.items()) for k, d in SMITH_CTC.items()) + ".", "",
            md(["trace", "predictor", "algorithm", "utilization %", "mean wait (min)"],
               [[r["trace"], r["predictor"], r["algorithm"], r["utilization_pct"], r["mean_wait_min"]] for r in s]), ""]
    return doc


READINGS = {
    "mualem": """**Reading.** Table 2: KTH matches the paper to within the 14 jobs the cleaned log drops
(the 100% peak and zero-jobs rows are discussed in docs/characterize.md); CTC and SDSC differ
mostly because the archive's cleaned logs remove flurries (CTC: user 135's 2,080 jobs; SDSC:
13,771 jobs of four users and 5,671 jobs that never ran). Table 1: with CTC at 512 nodes our
offered loads are the paper's to within a few hundredths, and the paper's finding holds on all
three traces: on these SP2 workloads conservative backfilling mostly gives longer response
times than EASY; it is weaker on SDSC (17 of 24 months against 23 of 24), whose months differ
most in job counts (September 1998: 12,646 jobs in the paper, 2,086 in the cleaned log). The
bounded-slowdown differences are as noisy month to month as the paper's. Table 3 (one seed, the
paper averages ten): both of the paper's conclusions hold: exact estimates (f = 1) are not the
best (f = 2 and f = 4 beat them on every trace, metric and backfill), and the real requests
are worse than any of the random ones, except f = 1 on CTC response time, as in the paper.
Table 4: doubling the requests shortens response time and bounded slowdown in all 12 cells here
(11 of 12 in the paper, whose exception, SDSC EASY bounded slowdown, is -9.3% here); the gain is
larger under conservative backfilling on KTH and SDSC, as in the paper.""",
    "tang": """**Reading.** The users' estimates: see docs/characterize.md; HPC2N is closest to Intrepid
(mean R 0.47 against 0.50) and the paper's central observation, the spread of R shrinking as
the key gets finer, holds on every trace. Fig. 4: the triple key raises accuracy on every trace
with group ids, most at the 70th percentile or the median as in the paper, but the absolute
accuracies stay below Intrepid's 0.679 (HPC2N 0.59, SDSC-SP2 0.53, CEA-Curie 0.45): the relative
gain over the requests (+27% on HPC2N, the paper's +35%) is larger where the requests are worse
(CEA-Curie +159%). SDSC-BLUE has no group ids, so its triple key finds no history (+0%). Fig. 5:
at the 85th percentile 14-16% of the jobs are underestimated (Intrepid: under 10%) and 3-4.5%
badly (Intrepid: under 1.5%): these logs' histories predict less well. Figs. 14-17: the paper's
qualitative results hold where adjustment raises accuracy: selective adjustment beats regular
adjustment almost everywhere (WFP p85 wait gain: CEA-Curie 19.3% against 2.5%, SDSC-BLUE 13.6%
against 4.1%, SDSC-SP2 10.0% against 6.2%), and regular adjustment under FCFS changes little
(-1.6% to +2.7% on wait), as the paper found. The paper's headline (WFP, selective, p85: -22%
wait, -22% slowdown, -28% weighted wait) is approached on CEA-Curie (19% and 16%) and SDSC-BLUE
(14% and 20%) for wait and slowdown, less on SDSC-SP2 (10% wait) and not on HPC2N (2%), where
the one-month schemes raise accuracy least (0.465 to 0.526). The weighted wait goes the other way under WFP here: its weights are
each run's own WFP scores at start, (wait / estimate)^3 x nodes, which grow when the estimates
shrink, so the adjusted runs weight their long waits more; under FCFS (weights = waits) it moves
little. Gains are means of monthly ratios, so a month with a tiny baseline can dominate (HPC2N
WFP regular p85 slowdown).""",
    "klusacek": """**Reading.** The predictor lowers the per-user error for most users (561 of 679 on CTC,
346 of 428 on SDSC), as in Figs. 3-4. Fig. 5: the predictor backfills more jobs than the
requests (CTC 33.8% against 30.1%, SDSC 85.5% against 79.8%), but exact runtimes backfill fewer:
the paper's own caveat, that better estimates also shrink the holes in the schedule, shows
more strongly here. Figs. 6-7: as in the paper, the predictor moves SDSC waits shorter (42.3% of
the jobs start at once instead of 39.3%, and fewer wait over 12 hours) while CTC stays close to
the requests' distribution.""",
    "smith": """**Reading.** On CTC, the one log both studies share, the wait-time prediction errors match
the paper closely: with exact runtimes LWF 34% (paper 39%) and backfill 9% (10%); with the
requests FCFS 117% (128%), LWF 96% (94%) and backfill 176% (190%). Every predictor we have
lowers the FCFS and backfill errors against the requests, ave2 the most; none reaches the
template predictor's 37% / 44% (Table 6) on CTC. Utilization does not depend on the predictor
(55.5% here against 51.3% in the paper's CTC log version), and the mean wait changes by a few
minutes, as in Tables 10-15. SDSC-SP2 is far more loaded than the paper's SDSC Paragon logs:
FCFS without backfilling lets the queue grow for weeks, so its errors are in days.""",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", default="/tmp/walltime-repro")
    ap.add_argument("--out", default=str(REPO / "docs" / "reproduction.md"))
    args = ap.parse_args()
    os.environ.setdefault("WALLTIME_PROGRESS", "0")
    wh = Warehouse(args.warehouse)
    t0 = time.perf_counter()
    seconds = ensure(wh)
    t = time.perf_counter()
    grids = {tr: tang_window_all(wh, tr) for tr in TANG}
    seconds["Tang Figs. 4-5 (window all)"] = time.perf_counter() - t
    con = wh.reader()
    try:
        body = (mualem(con) + [READINGS["mualem"], ""] + tang(con, grids) + [READINGS["tang"], ""]
                + klusacek(con) + [READINGS["klusacek"], ""] + smith(con) + [READINGS["smith"], ""])
    finally:
        con.close()
    total = time.perf_counter() - t0
    head = ["# Reproduction: the papers' numbers beside ours", "",
            "Generated by `.venv/bin/python bench/reproduce_papers.py` (do not edit by hand; the readings "
            "under each paper are part of the script). Every table of ours comes from a `report_*` view of the warehouse the "
            "script fills, through the same compute phase as `walltime report`.", "",
            "A cold run (empty warehouse: ingest, characterize, estimates and about 150 simulations of six "
            "traces) took 196 s on 2026-11-22 on the project's shared 2-core machine (host load about 2; "
            "an earlier cold run under load 6, with an older build of the simulation kernel, took 893 s "
            "and gave the same tables). " +
            f"This generation: {total:.0f} s (host load {os.getloadavg()[0]:.1f}); " +
            ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items()) + ".", ""]
    Path(args.out).write_text("\n".join(head + body) + "\n")
    print(f"{args.out}: written in {total:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
