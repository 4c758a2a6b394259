"""Smith, Taylor & Foster 1999, Tables 4-15, with their set-up; writes
docs/reproduction-smith.md.

    .venv/bin/python bench/reproduce_smith.py [--warehouse DIR] [--out FILE] [--quick]

Workloads: CTC-SP2 restricted to two months of 1996 (the pair of consecutive
calendar months whose job count is closest to the paper's 13,217), the
whole SDSC Paragon 1996 log (per-queue maximum run times = the longest run in
the queue, as the paper derives them), the full CTC-SP2 log, and SDSC 1996
with interarrival times halved (the paper's "compressed" experiment).
Algorithms: FCFS, LWF (no backfilling) and the paper's "backfill" =
conservative backfilling in arrival order. Predictors: actual run times,
maximum run times (the requests), Smith (a template set found by
`search-templates` on the workload, 20 x 20, seed 0), Gibbons, Downey
conditional average and median (key queue).

Tables 4-9: the scheduler runs on the requests; the wait forecast at each
submission (kernel.simulate_forecast) uses the predictor. Tables 10-15: the
scheduler runs on the predictor. Every sentence comparing numbers is
generated from them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from conftest import TRACES  # noqa: E402

from pipeline.estimates import load_jobs  # noqa: E402
from pipeline.estimates.compute import compute  # noqa: E402
from pipeline.estimates.search import search  # noqa: E402
from pipeline.estimates.templates import set_text  # noqa: E402
from pipeline.ingest import ingest  # noqa: E402
from pipeline.schemes import parse  # noqa: E402
from pipeline.simulate import kernel  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402

CTC = "CTC-SP2-1996-3.1-cln"
SDSC = "SDSC-Par-1996-3.1-cln"
PAPER_CTC_JOBS = 13217
ALGS = {"FCFS": ("fcfs", "none"), "LWF": ("lwf", "none"), "Backfill": ("fcfs", "conservative")}
PREDICTORS = {"actual": "actual run times", "request": "maximum run times", "smith": "Smith (searched set)",
              "gibbons": "Gibbons", "downey_mean": "Downey cond. average", "downey_median": "Downey cond. median"}
WAIT_TABLE = {"actual": 4, "request": 5, "smith": 6, "gibbons": 7, "downey_mean": 8, "downey_median": 9}
SCHED_TABLE = {"actual": 10, "request": 11, "smith": 12, "gibbons": 13, "downey_mean": 14, "downey_median": 15}

# The paper's CTC and SDSC96 rows: (run err min, run %, wait err min, wait %) for Tables 4-9
# (Table 4 has no run-time columns) and (run err min, run %, utilisation %, mean wait min) for 10-15.
PAPER_WAIT = {
    ("CTC", "actual", "LWF"): (None, None, 4.05, 39), ("CTC", "actual", "Backfill"): (None, None, 2.62, 10),
    ("SDSC96", "actual", "LWF"): (None, None, 3.32, 42), ("SDSC96", "actual", "Backfill"): (None, None, 0.30, 3),
    ("CTC", "request", "FCFS"): (243.97, 143, 125.36, 128), ("CTC", "request", "LWF"): (254.57, 149, 9.86, 94),
    ("CTC", "request", "Backfill"): (264.36, 154, 51.16, 190),
    ("SDSC96", "request", "FCFS"): (394.66, 236, 47.83, 288), ("SDSC96", "request", "LWF"): (397.30, 238, 14.19, 180),
    ("SDSC96", "request", "Backfill"): (397.58, 238, 39.66, 350),
    ("CTC", "smith", "FCFS"): (127.09, 74, 36.60, 37), ("CTC", "smith", "LWF"): (145.30, 85, 5.58, 53),
    ("CTC", "smith", "Backfill"): (147.97, 86, 11.85, 44),
    ("SDSC96", "smith", "FCFS"): (57.69, 35, 10.75, 65), ("SDSC96", "smith", "LWF"): (56.97, 34, 5.01, 64),
    ("SDSC96", "smith", "Backfill"): (54.72, 33, 8.76, 77),
    ("CTC", "gibbons", "FCFS"): (207.03, 121, 81.45, 83), ("CTC", "gibbons", "LWF"): (245.92, 144, 32.34, 309),
    ("CTC", "gibbons", "Backfill"): (242.25, 142, 13.57, 50),
    ("SDSC96", "gibbons", "FCFS"): (157.93, 95, 22.36, 135), ("SDSC96", "gibbons", "LWF"): (158.80, 95, 6.88, 87),
    ("SDSC96", "gibbons", "Backfill"): (159.21, 95, 17.31, 153),
    ("CTC", "downey_mean", "FCFS"): (224.88, 131, 65.22, 66), ("CTC", "downey_mean", "LWF"): (255.56, 149, 14.78, 141),
    ("CTC", "downey_mean", "Backfill"): (253.00, 148, 17.22, 64),
    ("SDSC96", "downey_mean", "FCFS"): (439.33, 263, 83.62, 503),
    ("SDSC96", "downey_mean", "LWF"): (453.19, 271, 28.42, 361),
    ("SDSC96", "downey_mean", "Backfill"): (446.24, 267, 47.11, 415),
    ("CTC", "downey_median", "FCFS"): (219.93, 129, 83.33, 85),
    ("CTC", "downey_median", "LWF"): (260.71, 152, 15.47, 148),
    ("CTC", "downey_median", "Backfill"): (258.77, 151, 19.35, 72),
    ("SDSC96", "downey_median", "FCFS"): (259.48, 155, 34.23, 206),
    ("SDSC96", "downey_median", "LWF"): (265.44, 159, 12.65, 161),
    ("SDSC96", "downey_median", "Backfill"): (262.57, 157, 20.70, 183),
}
PAPER_SCHED = {
    ("CTC", "actual", "LWF"): (None, None, 51.28, 11.15), ("CTC", "actual", "Backfill"): (None, None, 51.28, 23.75),
    ("SDSC96", "actual", "LWF"): (None, None, 46.79, 6.80), ("SDSC96", "actual", "Backfill"): (None, None, 46.79, 10.42),
    ("CTC", "request", "LWF"): (319.82, 187, 51.28, 10.48), ("CTC", "request", "Backfill"): (75.92, 44, 51.28, 26.86),
    ("SDSC96", "request", "LWF"): (397.30, 238, 46.79, 7.88),
    ("SDSC96", "request", "Backfill"): (387.64, 232, 46.79, 11.34),
    ("CTC", "smith", "LWF"): (160.13, 98, 51.28, 13.40), ("CTC", "smith", "Backfill"): (163.61, 96, 51.28, 22.54),
    ("SDSC96", "smith", "LWF"): (72.58, 43, 46.79, 7.79), ("SDSC96", "smith", "Backfill"): (37.82, 23, 46.79, 10.10),
    ("CTC", "gibbons", "LWF"): (158.39, 93, 51.28, 11.04), ("CTC", "gibbons", "Backfill"): (63.17, 34, 51.28, 27.31),
    ("SDSC96", "gibbons", "LWF"): (178.12, 107, 46.79, 7.51),
    ("SDSC96", "gibbons", "Backfill"): (47.56, 28, 46.79, 10.82),
    ("CTC", "downey_mean", "LWF"): (167.32, 98, 51.28, 9.87),
    ("CTC", "downey_mean", "Backfill"): (36.19, 21, 51.28, 14.45),
    ("SDSC96", "downey_mean", "LWF"): (278.46, 167, 46.79, 7.88),
    ("SDSC96", "downey_mean", "Backfill"): (470.91, 282, 46.79, 8.25),
    ("CTC", "downey_median", "LWF"): (146.85, 86, 51.28, 11.54),
    ("CTC", "downey_median", "Backfill"): (30.06, 18, 51.28, 16.72),
    ("SDSC96", "downey_median", "LWF"): (138.44, 83, 46.79, 7.80),
    ("SDSC96", "downey_median", "Backfill"): (275.74, 165, 46.79, 8.02),
}


# -- workloads --------------------------------------------------------------------

class Workload:
    def __init__(self, label: str, paper: str | None, jobs: pl.DataFrame, capacity: int, note: str,
                 forecasts: bool = True, sched_algs: tuple[str, ...] = ("LWF", "Backfill")):
        self.label, self.paper, self.note, self.capacity = label, paper, note, capacity
        self.forecasts, self.sched_algs = forecasts, sched_algs
        ok = (pl.col("run") >= 0) & (pl.col("nodes") > 0) & (pl.col("nodes") <= capacity)
        self.dropped = jobs.height - jobs.filter(ok).height
        # no request: the simulator's rule, max(run, 1) (simulation spec)
        req = pl.when(pl.col("req") > 0).then(pl.col("req")).otherwise(pl.max_horizontal(pl.col("run"), pl.lit(1)))
        self.no_req = jobs.filter(ok & ~(pl.col("req") > 0).fill_null(False)).height
        self.jobs = jobs.filter(ok).with_columns(req.cast(pl.Int64).alias("req")).sort("submit", "job_id")
        self.n = self.jobs.height


def ctc_window(jobs: pl.DataFrame, months: pl.DataFrame) -> tuple[str, str, int]:
    """The two consecutive months of 1996 with the job count closest to 13,217."""
    m = months.filter(pl.col("month").str.starts_with("1996")).sort("month")
    best = None
    for a, b in zip(m.rows(), m.rows()[1:]):
        n = a[1] + b[1]
        if best is None or abs(n - PAPER_CTC_JOBS) < abs(best[2] - PAPER_CTC_JOBS):
            best = (a[0], b[0], n)
    return best


def per_queue_max(jobs: pl.DataFrame) -> pl.DataFrame:
    """SDSC: every job's request = the longest run in its queue (paper Section 3)."""
    qmax = pl.col("run").max().over("queue_id")
    return jobs.with_columns(pl.max_horizontal(qmax, pl.lit(1)).cast(pl.Int64).alias("req"))


def compress(jobs: pl.DataFrame, factor: float) -> pl.DataFrame:
    """Interarrival times x factor; each job keeps its trace wait and run, so its
    history end moves with its submission."""
    first = jobs["submit"].min()
    sub = (first + ((pl.col("submit") - first) * factor).floor()).cast(pl.Int64)
    return jobs.with_columns(sub.alias("new_submit")).with_columns(
        (pl.col("end") - pl.col("submit") + pl.col("new_submit")).alias("end"),
        pl.col("new_submit").alias("submit")).drop("new_submit")


def workloads(wh: Warehouse, quick: bool) -> list[Workload]:
    con = wh.reader()
    try:
        ctc = load_jobs(con, CTC).join(pl.from_arrow(con.sql(
            "SELECT job_id, month FROM jobs WHERE trace = $1", params=[CTC]).to_arrow_table()), on="job_id")
        sdsc = load_jobs(con, SDSC).join(pl.from_arrow(con.sql(
            "SELECT job_id, month FROM jobs WHERE trace = $1", params=[SDSC]).to_arrow_table()), on="job_id")
    finally:
        con.close()
    months = ctc.group_by("month").len().rename({"len": "n"})
    a, b, n = ctc_window(ctc, months)
    win = ctc.filter(pl.col("month").is_in([a, b]))
    sd96 = per_queue_max(sdsc.filter(pl.col("month").str.starts_with("1996")))
    out = [
        Workload("CTC 2 months", "CTC", win, 512,
                 f"CTC-SP2 jobs submitted in {a} and {b} (the two consecutive months of 1996 whose count, "
                 f"{n:,}, is closest to the paper's {PAPER_CTC_JOBS:,}: {n - PAPER_CTC_JOBS:+,})"),
        Workload("SDSC96", "SDSC96", sd96, 400,
                 f"SDSC Paragon jobs submitted in 1996 ({sd96.height:,}; the paper: 22,337); requests = "
                 "longest run per queue"),
    ]
    if not quick:
        out.append(Workload("CTC full", "CTC", ctc, 512, f"all {ctc.height:,} CTC-SP2 jobs (Jun 1996 - May 1997)"))
        out.append(Workload("SDSC96 x0.5", None, compress(sd96, 0.5), 400,
                            "SDSC96 with interarrival times halved (the paper's compressed experiment, which "
                            "reports mean waits only); here the offered load exceeds the machine, the queue "
                            "grows to thousands of jobs, and conservative backfilling (which re-places every "
                            "waiting job at each early end) does not finish in reasonable time, so only LWF "
                            "scheduling is run", forecasts=False, sched_algs=("LWF",)))
    return out


# -- predictors and runs -------------------------------------------------------------

def predictions(w: Workload, seed: int = 0) -> tuple[dict, str, float]:
    jobs = w.jobs
    t0 = time.perf_counter()
    best, err, _ = search(jobs, np.ones(jobs.height, bool), 20, 20, seed)
    search_s = time.perf_counter() - t0
    specs = {"actual": "actual", "request": "request", "smith": "smith:set=searched", "gibbons": "gibbons",
             "downey_mean": "downey:stat=mean,key=queue", "downey_median": "downey:stat=median,key=queue"}
    out = {}
    req = jobs["req"].cast(pl.Float64).to_numpy()
    for k, spec in specs.items():
        e = compute(jobs, parse(spec), best if k == "smith" else None)["est"].cast(pl.Float64).to_numpy()
        e = np.where(np.isnan(e), req, e)
        out[k] = np.clip(np.round(e), 0, 2 ** 40).astype(np.int64)
    return out, set_text(best), search_s


def arrays(w: Workload) -> dict:
    j = w.jobs
    return {c: np.ascontiguousarray(j[c].to_numpy().astype(np.int64)) for c in ("submit", "job_id", "run", "nodes")} | {
        "req": np.ascontiguousarray(j["req"].fill_null(0).to_numpy().astype(np.int64).clip(1))}


def wait_forecast(a: dict, cap: int, alg: str, fc: np.ndarray) -> dict:
    pol, bf = ALGS[alg]
    start, _, pred, _, _ = kernel.simulate_forecast(
        a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], a["req"], a["req"], cap,
        kernel.POLICIES[pol], kernel.BACKFILLS[bf], kernel.OVERRUNS["request"], fc)
    wait = start - a["submit"]
    err = np.abs(pred - start)
    return {"wait_err": err.mean() / 60, "wait_pct": 100 * err.mean() / max(wait.mean(), 1e-9),
            "mean_wait": wait.mean() / 60}


def schedule(a: dict, cap: int, alg: str, est: np.ndarray) -> dict:
    pol, bf = ALGS[alg]
    start, *_ = kernel.simulate(a["submit"], a["job_id"], a["run"], a["nodes"], est, est, a["req"], cap,
                                kernel.POLICIES[pol], kernel.BACKFILLS[bf], kernel.OVERRUNS["request"], False)
    end = start + a["run"]
    span = end.max() - a["submit"].min()
    return {"util": 100 * float((a["run"] * a["nodes"]).sum()) / (cap * span),
            "mean_wait": (start - a["submit"]).mean() / 60}


def run_error(a: dict, est: np.ndarray) -> tuple[float, float]:
    e = np.abs(est - a["run"]).mean()
    return e / 60, 100 * e / a["run"].mean()


# -- the document ------------------------------------------------------------------

def fmt(v, d=2):
    return "" if v is None else f"{v:,.{d}f}"


def diff(ours, paper):
    return "" if paper is None or ours is None else f"{ours - paper:+,.2f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", type=Path, default=Path("/tmp/walltime-smith-repro"))
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "reproduction-smith.md")
    ap.add_argument("--quick", action="store_true", help="only the CTC window and SDSC96")
    args = ap.parse_args()
    t_all = time.perf_counter()
    wh = Warehouse(args.warehouse)
    have = set()
    if wh.exists():
        con = wh.reader()
        have = {t for (t,) in con.execute("SELECT trace FROM traces").fetchall()}
        con.close()
    todo = [TRACES / f"{t}.swf.gz" for t in (CTC, SDSC) if t not in have]
    if todo:
        ingest(todo, wh)
    wait_rows, sched_rows, notes = [], [], []
    for w in workloads(wh, args.quick):
        t0 = time.perf_counter()
        est, tset, search_s = predictions(w)
        a = arrays(w)
        mean_run = a["run"].mean() / 60
        over = int((a["run"] > a["req"]).sum())
        q = w.jobs.group_by("queue_id").agg(pl.len().alias("n"), pl.col("req").max().alias("req")).sort("n")
        big = q.row(-1, named=True)
        notes.append(f"- **{w.label}**: {w.note}; {w.n:,} jobs simulated on {w.capacity} nodes "
                     f"({w.dropped:,} without a run time or size, or wider than the machine, left out; "
                     f"{w.no_req:,} without a request get max(run, 1 s); {over:,} ran past their request, and "
                     f"their forecast durations are capped at it; the largest queue, {big['queue_id']}, has "
                     f"{big['n']:,} jobs and request {big['req']:,} s); mean run "
                     f"time {mean_run:.2f} min. Smith's set (search 20 x 20, seed 0, on this workload, "
                     f"{search_s:.0f} s): `{tset}`.")
        for p in PREDICTORS:
            re_min, re_pct = run_error(a, est[p])
            for alg in ALGS if w.forecasts else ():
                r = wait_forecast(a, w.capacity, alg, est[p])
                wait_rows.append({"w": w, "p": p, "alg": alg, "run_err": re_min, "run_pct": re_pct, **r})
            for alg in w.sched_algs:
                s = schedule(a, w.capacity, alg, est[p])
                sched_rows.append({"w": w, "p": p, "alg": alg, "run_err": re_min, "run_pct": re_pct, **s})
        print(f"{w.label}: {w.n:,} jobs, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    doc = render(wait_rows, sched_rows, notes, time.perf_counter() - t_all)
    args.out.write_text(doc)
    print(f"wrote {args.out} in {time.perf_counter() - t_all:.0f} s")


def render(wait_rows, sched_rows, notes, seconds) -> str:
    L = ["# Smith, Taylor & Foster 1999: Tables 4-15 with the paper's set-up", "",
         f"Generated by `bench/reproduce_smith.py` ({seconds:.0f} s on the shared 2-core machine). Do not edit "
         "by hand: every number and every comparing sentence below is computed.", "",
         "Set-up (paper Sections 2.1.4 and 3): the scheduler runs on the requests (maximum run times); at each "
         "submission the wait is forecast by simulating the queue forward with the predictor's run times and no "
         "later arrivals (`kernel.simulate_forecast`). Running jobs enter the forecast at start + prediction, or, "
         "once past it, at their request. \"Backfill\" is conservative backfilling (every queued job holds a "
         "reservation). Tables 10-15 schedule on the predictor itself (overrun: a job past its prediction is "
         "expected to run to its request). Run-time error = mean |prediction - run| over the jobs, each predicted "
         "once at submission (the paper's also counts re-predictions of running jobs). Utilisation = work / "
         "(nodes x time from the first submission to the last end).", "", "Workloads:", "", *notes, ""]
    L += ["## Tables 4-9: wait-time prediction (scheduler on requests, forecast on the predictor)", ""]
    for p, tno in WAIT_TABLE.items():
        L += [f"### Table {tno}: {PREDICTORS[p]}", "",
              "| workload | algorithm | run err (min) paper | ours | diff | run % paper | ours | wait err (min) paper "
              "| ours | diff | wait % paper | ours |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in (r for r in wait_rows if r["p"] == p):
            pp = PAPER_WAIT.get((r["w"].paper, p, r["alg"]), (None,) * 4) if r["w"].label != "SDSC96 x0.5" else (None,) * 4
            L.append(f"| {r['w'].label} | {r['alg']} | {fmt(pp[0])} | {fmt(r['run_err'])} | {diff(r['run_err'], pp[0])} "
                     f"| {fmt(pp[1], 0)} | {fmt(r['run_pct'], 0)} | {fmt(pp[2])} | {fmt(r['wait_err'])} "
                     f"| {diff(r['wait_err'], pp[2])} | {fmt(pp[3], 0)} | {fmt(r['wait_pct'], 0)} |")
        L.append("")
    L += ["## Tables 10-15: scheduling on each predictor", ""]
    for p, tno in SCHED_TABLE.items():
        L += [f"### Table {tno}: {PREDICTORS[p]}", "",
              "| workload | algorithm | run err (min) paper | ours | util % paper | ours | mean wait (min) paper "
              "| ours | diff |", "|---|---|---|---|---|---|---|---|---|"]
        for r in (r for r in sched_rows if r["p"] == p):
            pp = PAPER_SCHED.get((r["w"].paper, p, r["alg"]), (None,) * 4) if r["w"].label != "SDSC96 x0.5" else (None,) * 4
            L.append(f"| {r['w'].label} | {r['alg']} | {fmt(pp[0])} | {fmt(r['run_err'])} | {fmt(pp[2])} "
                     f"| {fmt(r['util'])} | {fmt(pp[3])} | {fmt(r['mean_wait'])} | {diff(r['mean_wait'], pp[3])} |")
        L.append("")
    L += ["## Readings (generated)", ""] + readings(wait_rows, sched_rows)
    L += ["", "## Where this set-up still differs from the paper's", "",
          "- Each job is predicted once, at its submission; in a forecast a running job keeps that prediction "
          "(the paper re-predicts running jobs, with Smith's running-time ranges and Downey's age `a`; our "
          "predictors support the age only as 0, i.e. `a = t_min` for Downey).",
          "- The predictors' history is the trace's recorded completions (estimates are computed before the "
          "simulation), not the simulated ones; the paper inserts a job when it completes in its simulation.",
          "- Conservative \"backfill\" forecasts are reservations in a profile rebuilt with the predicted "
          "durations (docs/simulation-kernel.md), not a forward replay of the reservations the real scheduler "
          "makes with the requests: the Table 4 Backfill row measures how far that approximation is off.",
          "- Forecast durations are capped at the request (a job cannot outlast the end the scheduler expects "
          "of it in a forecast); this is why FCFS with actual run times is not exactly 0 where jobs overran.",
          "- The template search's fitness is the mean absolute error at submission over the workload it is "
          "then evaluated on (the paper searched each workload too, over its own prediction events); one "
          "search (20 x 20, seed 0) per workload serves all three algorithms, where the paper searched per "
          "algorithm.",
          "- No ANL or SDSC95 rows (the traces are not in the shared set); the PWA SDSC Paragon 1996 log holds "
          "more jobs than the paper's SDSC96 (22,337).",
          "- Utilisation is our own definition (see above); the paper's is the same for every predictor of a "
          "workload, ours moves slightly with the schedule's makespan."]
    return "\n".join(L) + "\n"


def _pct(a, b):
    return 100 * (a - b) / b if b else float("nan")


def readings(wait_rows, sched_rows) -> list[str]:
    out = []
    labels = sorted({r["w"].label for r in wait_rows}, key=[r["w"].label for r in wait_rows].index)
    W = {(r["w"].label, r["p"], r["alg"]): r for r in wait_rows}
    S = {(r["w"].label, r["p"], r["alg"]): r for r in sched_rows}
    for lab in labels:
        # Smith vs the others on wait-time forecast error
        for other in ("request", "gibbons", "downey_mean", "downey_median"):
            better = [(alg, _pct(W[(lab, other, alg)]["wait_err"], W[(lab, "smith", alg)]["wait_err"]))
                      for alg in ALGS]
            n_better = sum(1 for _, d in better if d > 0)
            rng = ", ".join(f"{alg} {d:+.0f}%" for alg, d in better)
            out.append(f"- {lab}: the wait forecast with {PREDICTORS[other]} has a larger error than with "
                       f"Smith's predictor in {n_better} of 3 algorithms (its error relative to Smith's: {rng}).")
        rt = {p: W[(lab, p, "FCFS")]["run_pct"] for p in PREDICTORS}
        best = min((p for p in rt if p != "actual"), key=rt.get)
        out.append(f"- {lab}: the most accurate run-time predictor is {PREDICTORS[best]} "
                   f"({rt[best]:.0f}% of the mean run time; Smith {rt['smith']:.0f}%, Gibbons {rt['gibbons']:.0f}%, "
                   f"requests {rt['request']:.0f}%).")
        lwf = W[(lab, "actual", "LWF")]["wait_pct"]
        bfw = W[(lab, "actual", "Backfill")]["wait_pct"]
        fcfs = W[(lab, "actual", "FCFS")]["wait_pct"]
        out.append(f"- {lab}: with actual run times the built-in forecast error is {fcfs:.0f}% of the mean wait "
                   f"for FCFS, {lwf:.0f}% for LWF and {bfw:.0f}% for Backfill (paper: 0, 34-43% and 3-10%).")
        for alg in (a for a in ("LWF", "Backfill") if (lab, "smith", a) in S):
            waits = {p: S[(lab, p, alg)]["mean_wait"] for p in PREDICTORS}
            best = min((p for p in waits if p != "actual"), key=waits.get)
            out.append(f"- {lab}, {alg} scheduling: the lowest mean wait among the predictors is with "
                       f"{PREDICTORS[best]} ({waits[best]:.2f} min); Smith's gives {waits['smith']:.2f} min, "
                       f"{_pct(waits['smith'], waits['actual']):+.0f}% against actual run times and "
                       f"{_pct(waits['smith'], waits['request']):+.0f}% against the requests.")
    if any(r["w"].label == "SDSC96 x0.5" for r in sched_rows):
        ds = []
        for alg in (a for a in ("LWF", "Backfill") if ("SDSC96 x0.5", "smith", a) in S):
            for other in ("gibbons", "downey_mean", "downey_median"):
                ds.append(_pct(S[("SDSC96 x0.5", "smith", alg)]["mean_wait"], S[("SDSC96 x0.5", other, alg)]["mean_wait"]))
        out.append(f"- Compressed SDSC96 (x0.5): Smith's mean waits are {np.mean(ds):+.0f}% on average against "
                   f"Gibbons' and Downey's ({min(ds):+.0f}% to {max(ds):+.0f}%); the paper: 8% lower on average, "
                   "43% lower to 31% higher.")
    return out


if __name__ == "__main__":
    main()
