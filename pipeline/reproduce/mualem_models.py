"""Mu'alem & Feitelson Figs. 4 (F), 6 (the models' curves) and 7 (EASY vs
conservative on the model modified to emphasize small jobs, Fs, long runtimes,
Fl, and both, Fsl), run on a STAND-IN: this project's workload model
(``walltime generate``, pipeline/generate/model.py), not Feitelson's 1996 model.

Why a stand-in: the Feitelson 1996 and Jann 1997 model codes are not reachable
from here, and the paper does not say how Fs and Fl were made. So the paper's
experiment is run on the model we have, and its *claims* are checked on it:
the variants change a few :class:`~pipeline.generate.model.Model` fields
(:data:`VARIANTS`), chosen, as the paper did, so that the runtime
distributions by job size move toward CTC's (a Kolmogorov-Smirnov distance per
size class, :func:`ks_table`); then each variant is replayed at several loads
(interarrival times scaled, as the paper's Section 3.1) through FCFS with EASY
and with conservative backfilling, exact runtimes as estimates (as the paper's
model runs), several seeds per point (:func:`compute`, stored in
``mualem_model_runs``, migration 300).
"""

from __future__ import annotations

import json
import time
from dataclasses import replace

import numpy as np

from ..generate import Model, generate
from ..sqlfiles import load
from .common import CTC, rows
from .core import Check, Checks, Explanation, Figure, Table, Text, fmt, say

CAPACITY = 512  # CTC's nodes (the paper's CTC set-up): the models' machine
# Fs: more serial jobs (serial_share 0.30 -> 0.50 of the templates). Fl: templates' median runtimes from the
# long gamma component more often (short_p_serial 0.25 -> 0.10: the short component's probability for a
# serial template; its slope of -0.035 per doubling then keeps every size at the floor 0.10). Chosen on
# CHOICE_GRID (below) as the pair with the smallest job-weighted KS distance to CTC's runtimes by size (the
# reproduction prints the grid; tests/test_mualem_models.py checks the choice is its minimum).
FS = {"serial_share": 0.50}
FL = {"short_p_serial": 0.10}
CHOICE_GRID = {"serial_share": (0.30, 0.40, 0.50, 0.55, 0.60), "short_p_serial": (0.25, 0.20, 0.15, 0.10)}
VARIANTS = {"F": {}, "Fs": FS, "Fl": FL, "Fsl": {**FS, **FL}}
# The probe behind the reading of F (not a paper variant): wider parallel jobs, half of them from the size
# distribution's upper stage instead of 15%, run at every load (checked at the top one).
PROBES = {"Fw": {"small_share": 0.50}}
SIZE_CLASSES = ("1 node", "2-8 nodes", "9-32 nodes", "over 32 nodes")  # as sql/reproduce_fig_runtime_cdf.sql
FIG6_JOBS, FIG6_SEEDS = 20_000, (0, 1, 2, 3)
RUN_JOBS, QUICK_JOBS = 20_000, 10_000
LOADS, QUICK_LOADS = (0.6, 0.7, 0.8, 0.9), (0.6, 0.9)
SEEDS, QUICK_SEEDS = tuple(range(10)), tuple(range(5))
BACKFILLS = ("easy", "conservative")
SAME = 5.0  # percent: our reading of "practically identical" / "a small difference" (the paper gives no number)


def model(variant: str) -> Model:
    """The default Model with the variant's fields changed."""
    return replace(Model(), **{**VARIANTS, **PROBES}[variant])


def workload(variant: str, jobs: int, seed: int, load: float):
    """The variant's jobs (a Polars frame of SWF columns) on CAPACITY processors at offered ``load``."""
    return generate(jobs, seed, CAPACITY, load, model=model(variant), waits="none")


def size_class(nodes: np.ndarray) -> np.ndarray:
    """Index into SIZE_CLASSES (the SQL's CASE, for the KS distances)."""
    return np.select([nodes <= 1, nodes <= 8, nodes <= 32], [0, 1, 2], 3)


# --- Fig. 6: runtime distributions by size ------------------------------------

def sample(m: Model) -> tuple[np.ndarray, np.ndarray]:
    """(run s, processors) of a model's Fig. 6 sample: FIG6_SEEDS x FIG6_JOBS jobs pooled."""
    run, procs = [], []
    for seed in FIG6_SEEDS:
        df = generate(FIG6_JOBS, seed, CAPACITY, 0.7, model=m, waits="none")  # the load only moves arrivals
        run.append(df["run"].to_numpy())
        procs.append(df["procs"].to_numpy())
    return np.concatenate(run), np.concatenate(procs)


def model_jobs(variant: str) -> tuple[np.ndarray, np.ndarray]:
    return sample(model(variant))


def model_cdf(samples: dict[str, tuple[np.ndarray, np.ndarray]], grid: list[float]) -> list[dict]:
    """The rows of sql/reproduce_fig_runtime_cdf.sql over the models' jobs (the same query as CTC's: a
    DuckDB connection of its own where ``jobs`` is the pooled samples, one "trace" per variant)."""
    import duckdb
    import pyarrow as pa

    names = list(samples)
    tab = pa.table({"trace": np.repeat(names, [len(samples[n][0]) for n in names]),
                    "run": np.concatenate([samples[n][0] for n in names]).astype(np.int64),
                    "nodes": np.concatenate([samples[n][1] for n in names]).astype(np.int64)})
    con = duckdb.connect()
    try:
        con.register("jobs", tab)
        return rows(con, load("reproduce_fig_runtime_cdf"), names, [float(x) for x in grid])
    finally:
        con.close()


def ks(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov statistic: the largest gap between the two empirical CDFs.
    Written here (six lines) rather than importing SciPy for one function."""
    a, b = np.sort(a), np.sort(b)
    if not len(a) or not len(b):
        return float("nan")
    v = np.union1d(a, b)
    return float(np.abs(np.searchsorted(a, v, "right") / len(a) - np.searchsorted(b, v, "right") / len(b)).max())


def ks_table(samples: dict, ref: tuple[np.ndarray, np.ndarray]) -> dict[str, dict]:
    """{variant: {size class: KS to ref, ..., "weighted": the mean weighted by ref's jobs per class}}."""
    r_run, r_nodes = ref
    rc = size_class(r_nodes)
    w = np.array([(rc == k).mean() for k in range(len(SIZE_CLASSES))])
    out = {}
    for name, (run, nodes) in samples.items():
        c = size_class(nodes)
        d = [ks(run[c == k], r_run[rc == k]) for k in range(len(SIZE_CLASSES))]
        out[name] = {**dict(zip(SIZE_CLASSES, d)), "weighted": float(np.nansum(np.array(d) * w))}
    return out


def grid_distances(ref: tuple[np.ndarray, np.ndarray]) -> list[tuple[float, float, float]]:
    """(serial_share, short_p_serial, weighted KS distance to ref) over CHOICE_GRID, each point a FIG6 sample."""
    out = []
    for ss in CHOICE_GRID["serial_share"]:
        for sp in CHOICE_GRID["short_p_serial"]:
            d = ks_table({"x": sample(replace(Model(), serial_share=ss, short_p_serial=sp))}, ref)["x"]
            out.append((ss, sp, d["weighted"]))
    return out


def ctc_jobs(con) -> tuple[np.ndarray, np.ndarray] | None:
    got = con.execute("SELECT run, nodes FROM jobs WHERE trace = ? AND run >= 0 AND nodes > 0", [CTC]).fetchnumpy()
    if not len(got["run"]):
        return None
    return got["run"].astype(np.int64), got["nodes"].astype(np.int64)


# --- Fig. 7: EASY vs conservative ----------------------------------------------

def inputs(df):
    """The loop's input arrays of a generated frame, exact runtimes as estimates (the paper's model runs)."""
    from ..simulate.inputs import Inputs

    run = df["run"].to_numpy().astype(np.int64)
    req = np.maximum(run, 1)
    n = len(run)
    return Inputs(job_id=df["job_id"].to_numpy().astype(np.int64), submit=df["submit"].to_numpy().astype(np.int64),
                  run=run, nodes=df["procs"].to_numpy().astype(np.int64), req=req, est_wait=run.copy(),
                  est_run=run.copy(), month_idx=np.zeros(n, np.int64), months=["all"])


def metrics(inp, start: np.ndarray) -> dict:
    """Mean response time (s) and mean bounded slowdown (10 s threshold): pipeline/metrics.py's definitions."""
    resp = (start - inp.submit + inp.run).astype(np.float64)
    return {"mean_response": float(resp.mean()),
            "mean_bounded_slowdown": float(np.maximum(1.0, resp / np.maximum(inp.run, 10)).mean())}


def replay(inp, backfill: str) -> dict:
    """The project's event loop (simulate.run_kernel) over ``inp``: FCFS, this backfilling, CAPACITY."""
    return replay_at(inp, backfill, CAPACITY)


def replay_at(inp, backfill: str, capacity: int) -> dict:
    """The project's event loop over ``inp``: FCFS, this backfilling, ``capacity`` processors."""
    from ..simulate import make_config, run_kernel

    return run_kernel(inp, make_config(policy="fcfs", backfill=backfill, estimate="actual", capacity=capacity))


def run_point(variant: str, load_: float, seed: int, jobs: int = RUN_JOBS) -> list[dict]:
    """One workload replayed under EASY and under conservative backfilling: one row per backfill."""
    inp = inputs(workload(variant, jobs, seed, load_))
    out = []
    for bf in BACKFILLS:
        t = time.perf_counter()
        res = replay(inp, bf)
        out.append({"variant": variant, "load": load_, "seed": seed, "backfill": bf, "jobs": inp.n,
                    **metrics(inp, res["start"]), "backfilled": int(res["backfilled"].sum()),
                    "seconds": time.perf_counter() - t})
    return out


def setup_key(jobs: int = RUN_JOBS) -> str:
    """What a stored row depends on: the variants' models, the jobs, the machine, the loop's code."""
    import hashlib

    from ..simulate import code_version

    doc = {"models": {v: model(v).as_dict() for v in (*VARIANTS, *PROBES)}, "jobs": jobs, "capacity": CAPACITY,
           "code": code_version()}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


def jobs_per_run(quick: bool) -> int:
    return QUICK_JOBS if quick else RUN_JOBS


def plan(quick: bool) -> list[tuple[str, float, int]]:
    """(variant, load, seed) of the runs; --quick: fewer loads, seeds and jobs (a few seconds)."""
    loads, seeds = (QUICK_LOADS, QUICK_SEEDS) if quick else (LOADS, SEEDS)
    return [(v, ld, s) for v in VARIANTS for ld in loads for s in seeds] + \
        [(v, ld, s) for v in PROBES for ld in loads for s in seeds]


def compute(wh, quick: bool) -> None:
    """Run the plan's missing points and store them (mualem_model_runs)."""
    from ..transactions import transaction

    jobs = jobs_per_run(quick)
    key = setup_key(jobs)
    todo = plan(quick)
    with wh.writer(attach_results=False) as con:
        have = set(con.execute("SELECT variant, load, seed FROM mualem_model_runs WHERE setup = ?", [key]).fetchall())
    new = [r for v, ld, s in todo if (v, ld, s) not in have for r in run_point(v, ld, s, jobs)]
    if not new:
        return
    with wh.writer(attach_results=False) as con, transaction(con):
        con.executemany(
            "INSERT OR REPLACE INTO mualem_model_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())",
            [[key, r["variant"], r["load"], r["seed"], r["backfill"], r["jobs"], r["mean_response"],
              r["mean_bounded_slowdown"], r["backfilled"], r["seconds"]] for r in new])


def stored(con, quick: bool) -> list[dict]:
    """The plan's stored rows (of the current set-up)."""
    want = set(plan(quick))
    got = rows(con, "SELECT * FROM mualem_model_runs WHERE setup = ? ORDER BY variant, load, seed, backfill",
               setup_key(jobs_per_run(quick)))
    return [r for r in got if (r["variant"], r["load"], r["seed"]) in want]


def differences(runs: list[dict]) -> dict:
    """{(variant, load): {metric: (pct, lo, hi), ("easy", metric): mean over the seeds, ("cons", metric): ...,
    ("seeds", metric): (EASY per seed, conservative per seed), "seeds": n}}: conservative vs EASY in percent of
    EASY over the seeds (paired by seed: the same jobs under both; summary/compare.py's bootstrap)."""
    from ..summary.compare import ratio_interval

    by: dict = {}
    for r in runs:
        by.setdefault((r["variant"], r["load"]), {}).setdefault(r["seed"], {})[r["backfill"]] = r
    out = {}
    for k, seeds in by.items():
        pairs = [s for s in seeds.values() if "easy" in s and "conservative" in s]
        if not pairs:
            continue
        d = {"seeds": len(pairs)}
        for m in ("mean_response", "mean_bounded_slowdown"):
            e = [p["easy"][m] for p in pairs]
            c = [p["conservative"][m] for p in pairs]
            d[m] = ratio_interval(e, c)
            d["seeds", m] = (e, c)
            d["easy", m] = float(np.mean(e))
            d["cons", m] = float(np.mean(c))
        out[k] = d
    return out


# --- the section ---------------------------------------------------------------

STAND_IN = ("Stand-in, not the paper's model: F is this project's workload model (`walltime generate`, "
            "pipeline/generate/model.py, Lublin-Feitelson in spirit), not Feitelson's 1996 model, whose code (like "
            "Jann's) is not reachable here; Fs, Fl and Fsl are our modifications of it, since the paper does not "
            "say how it made its own.")


def variant_text(v: str) -> str:
    d = {**VARIANTS, **PROBES}[v]
    base = Model()
    return "the default Model" if not d else ", ".join(f"{k} {getattr(base, k):g} -> {x:g}" for k, x in d.items())


def add_section(s, con, traces: dict, quick: bool, other: dict | None = None, other_label: str = "") -> None:
    """Figs. 6 (with CTC in the set-up), 4 (F) and 7 on the stand-in model: tables, figures, checks, readings.
    ``other``: :func:`differences` of the other set-up (--quick beside the full run, or the reverse), whose
    same checks give each direction check its ``alt`` (opposite signs: "unstable")."""
    s.add(Text("Figs. 4, 6 and 7 on a model. " + STAND_IN + " Variants: " + "; ".join(
        f"{v}: {variant_text(v)}" for v in VARIANTS) + "; and a probe behind the reading of F, not a paper "
        "variant: " + "; ".join(f"{v}: {variant_text(v)}" for v in PROBES) + ". Every variant generated at " + f"{CAPACITY} processors "
        "(CTC's machine); the load set by scaling the interarrival times (the same jobs at every load, as the "
        "paper's Section 3.1); FCFS with EASY and with conservative backfilling, exact runtimes as estimates."))
    if CTC in traces:
        _fig6(s, con)
    else:
        s.add(Text("Fig. 6 on the models (their runtime distributions beside CTC's, and the distance that chose "
                   "Fs and Fl) needs CTC, which this set-up (--quick) does not ingest: it is in the full run."))
    _fig7(s, con, quick, other, other_label)


def _fig6(s, con) -> None:
    from .figs import GRID

    ref = ctc_jobs(con)
    if ref is None:
        return
    grid = grid_distances(ref)
    best = min(grid, key=lambda g: g[2])
    chosen = (VARIANTS["Fsl"].get("serial_share", Model().serial_share),
              VARIANTS["Fsl"].get("short_p_serial", Model().short_p_serial))
    sps = CHOICE_GRID["short_p_serial"]
    s.add(Table("Choosing Fs and Fl: job-weighted KS distance to CTC's runtimes by size over the grid "
                "(rows: serial_share; columns: short_p_serial)", ["serial_share", *[f"{x:g}" for x in sps]],
                [[ss, *[g[2] for g in grid if g[0] == ss]] for ss in CHOICE_GRID["serial_share"]],
                "pipeline/reproduce/mualem_models.py: grid_distances"))
    s.add(Text(f"The grid's smallest distance, {best[2]:.3f}, is at serial_share {best[0]:g} and short_p_serial "
               f"{best[1]:g}; " + ("Fs and Fl use them" if (best[0], best[1]) == chosen else
                                   f"Fs and Fl use serial_share {chosen[0]:g} and short_p_serial {chosen[1]:g} "
                                   "(not the minimum on this machine: see tests/test_mualem_models.py)")
               + f"; the default model (F) is at {next(g[2] for g in grid if (g[0], g[1]) == (Model().serial_share, Model().short_p_serial)):.3f}."))
    samples = {v: model_jobs(v) for v in VARIANTS}
    d = ks_table(samples, ref)
    s.add(Table("Fig. 6 on the stand-in model: Kolmogorov-Smirnov distance of the runtime distribution to CTC's, "
                f"per size class ({len(FIG6_SEEDS)} seeds x {FIG6_JOBS:,} jobs pooled per variant; weighted: by "
                "CTC's jobs per class)", ["variant", *SIZE_CLASSES, "weighted"],
                [[v, *[d[v][c] for c in SIZE_CLASSES], d[v]["weighted"]] for v in VARIANTS],
                "pipeline/reproduce/mualem_models.py: ks_table"))
    s.add(Text(f"KS distance to CTC, weighted over the size classes: F {d['F']['weighted']:.3f}, Fs "
               f"{d['Fs']['weighted']:.3f}, Fl {d['Fl']['weighted']:.3f}, Fsl {d['Fsl']['weighted']:.3f} (0: the "
               "same distribution, 1: disjoint). Not a check: Fs and Fl were chosen as the grid's point nearest "
               "CTC, on a grid that holds F, so Fsl's being nearer than F is true by construction."))
    cdf = model_cdf(samples, GRID)
    panels: dict = {}
    for r in rows(con, load("reproduce_fig_runtime_cdf"), [CTC], [float(x) for x in GRID]):
        xs, ys = panels.setdefault(r["size"], {}).setdefault("CTC", ([], []))
        xs.append(r["x"] / 3600)
        ys.append(r["share"])
    for r in cdf:
        xs, ys = panels.setdefault(r["size"], {}).setdefault(r["trace"], ([], []))
        xs.append(r["x"] / 3600)
        ys.append(r["share"])
    from ..report.figures import line_chart

    chart = line_chart({}, "Mu'alem & Feitelson Fig. 6 on the stand-in model: runtime CDFs by job size, "
                       "F, Fs, Fl, Fsl beside CTC", "runtime (h, log)", "share of jobs with runtime <= x",
                       step=True, xlog=True, ylim=(0, 1),
                       panels={k: panels[k] for k in SIZE_CLASSES if k in panels})
    s.add(Figure("mualem-fig6-models", chart,
                 "The paper's Fig. 6 draws Feitelson's and Jann's models beside CTC and prints no curve values; "
                 "these are our model's variants (a stand-in), same size classes and grid as the traces' Fig. 6.",
                 "sql/reproduce_fig_runtime_cdf.sql over the generated jobs and CTC's"))


def _pct_text(t) -> str:
    pct, lo, hi = t
    if pct is None:
        return "-"
    return f"{pct:+.1f}%" + ("" if lo is None else f" ({lo:+.1f} to {hi:+.1f})")


def _fig7(s, con, quick: bool, other: dict | None = None, other_label: str = "") -> None:
    from ..report.figures import line_chart

    diffs = differences(stored(con, quick))
    if not diffs:
        return
    loads = sorted({ld for _, ld in diffs})
    top = loads[-1]
    n = max(d["seeds"] for d in diffs.values())
    s.add(Table(f"Figs. 4 (F) and 7 on the stand-in model: EASY vs conservative, {jobs_per_run(quick):,} jobs per "
                f"workload, {n} seeds per point (conservative vs EASY: % of EASY's mean, 95% bootstrap interval "
                "over the seeds)",
                ["variant", "load", "seeds", "response EASY (s)", "response cons (s)", "response cons vs EASY",
                 "bounded slowdown EASY", "bounded slowdown cons", "bounded slowdown cons vs EASY"],
                [[v, ld, d["seeds"], d["easy", "mean_response"], d["cons", "mean_response"],
                  _pct_text(d["mean_response"]), d["easy", "mean_bounded_slowdown"],
                  d["cons", "mean_bounded_slowdown"], _pct_text(d["mean_bounded_slowdown"])]
                 for (v, ld), d in sorted(diffs.items(), key=lambda kv: ([*VARIANTS, *PROBES].index(kv[0][0]),
                                                                         kv[0][1]))],
                "mualem_model_runs"))
    for m, label, name in (("mean_response", "mean response time (s)", "response"),
                           ("mean_bounded_slowdown", "mean bounded slowdown", "bsld")):
        panels = {}
        for v in VARIANTS:
            pts = [(ld, diffs[v, ld]) for ld in loads if (v, ld) in diffs]
            if pts:
                panels[v] = {"EASY": ([p[0] for p in pts], [p[1]["easy", m] for p in pts]),
                             "conservative": ([p[0] for p in pts], [p[1]["cons", m] for p in pts])}
        s.add(Figure(f"mualem-fig7-models-{name}", line_chart(
            {}, f"Mu'alem & Feitelson Figs. 4 (F) and 7 on the stand-in model: {label} by load, EASY vs "
            "conservative (mean over the seeds)", "offered load", label, panels=panels),
            "The paper's Figs. 4 and 7 draw Feitelson's model and its variants and print no values; these are "
            "our model's variants (a stand-in).", "mualem_model_runs"))
    checks = _checks(diffs, loads, top)
    if other:
        with_alt(checks, other, other_label)
    s.add(Checks(f"Figs. 4 and 7 on the stand-in model: the paper's claims (\"identical\" / \"small\": within "
                 f"{SAME:g}% of EASY, our reading; a difference: its 95% interval excludes 0)", checks))
    s.add(Text(" ".join(say(c) for c in checks)))
    _reading(s, diffs, loads, top, checks)


def _check_pct(cid, what, t, paper, mode, **kw) -> Check:
    pct, lo, hi = t
    return Check(cid, kw.pop("ref", "Fig. 7 text"), what, paper, pct, mode, unit="%",
                 trace="stand-in model", lo=lo, hi=hi, **kw)


def _checks(diffs: dict, loads: list, top: float) -> list[Check]:
    out = []
    for ld in loads:  # (a) F: practically identical, both metrics, every load
        if ("F", ld) in diffs:
            for m, name in (("mean_response", "response time"), ("mean_bounded_slowdown", "bounded slowdown")):
                out.append(_check_pct(f"mualem.fig4.F.{m.split('_')[-1]}.{ld:g}",
                                      f"F at load {ld:g}: {name}, conservative vs EASY (%)", diffs["F", ld][m],
                                      0.0, "value", tol=SAME, rel=False, ref="Fig. 4 text",
                                      paper_note="practically identical"))
    for m, name in (("mean_response", "response time"), ("mean_bounded_slowdown", "bounded slowdown")):
        if ("Fw", top) in diffs and ("F", top) in diffs:  # the probe: does widening the jobs shrink F's gap?
            f, w = diffs["F", top][m], diffs["Fw", top][m]
            sign = 1.0 if (f[0] or 0) >= 0 else -1.0
            gap, lo, hi = gap_interval(diffs["Fw", top]["seeds", m], diffs["F", top]["seeds", m])  # F minus Fw
            out.append(Check(f"mualem.fig4.Fw.{m.split('_')[-1]}.{top:g}", "Fig. 4 text (probe)",
                             f"load {top:g}: {name}, conservative vs EASY, how much nearer 0 on Fw (wider jobs) "
                             "than on F (points of %)", 1.0, sign * gap, "direction", unit="points", min_abs=SAME,
                             trace="stand-in model", lo=min(sign * lo, sign * hi), hi=max(sign * lo, sign * hi),
                             paper_note="identical on the paper's F (so: nearer 0)"))
    if ("Fl", top) in diffs:  # (b) Fl: a small difference to the response time
        out.append(_check_pct(f"mualem.fig7.Fl.response.{top:g}",
                              f"Fl at load {top:g}: response time, conservative vs EASY (%)",
                              diffs["Fl", top]["mean_response"], 0.0, "value", tol=SAME, rel=False,
                              paper_note="a small difference"))
    if ("Fsl", top) in diffs:  # (c) Fsl: EASY better under high load, and considerably more than on F
        f = diffs["Fsl", top]["mean_response"]
        out.append(_check_pct(f"mualem.fig7.Fsl.response.{top:g}",
                              f"Fsl at load {top:g}: response time, conservative vs EASY (%)", f, 1.0, "direction",
                              paper_note="EASY better (conservative longer)"))
        if ("F", top) in diffs:
            gap, lo, hi = gap_interval(diffs["F", top]["seeds", "mean_response"],
                                       diffs["Fsl", top]["seeds", "mean_response"])
            out.append(Check(f"mualem.fig7.Fsl_vs_F.response.{top:g}", "Fig. 7 text",
                             f"load {top:g}: response time, conservative vs EASY, Fsl minus F (points of %)", 1.0,
                             gap, "direction", unit="points",
                             min_abs=SAME, trace="stand-in model", lo=lo, hi=hi,
                             paper_note="enlarged considerably"))
    if ("Fs", top) in diffs:  # (d) Fs alone makes a difference to the bounded slowdown
        pct, lo, hi = diffs["Fs", top]["mean_bounded_slowdown"]
        near = None if lo is None else (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi)))
        out.append(Check(f"mualem.fig7.Fs.bsld.{top:g}", "Fig. 7 text",
                         f"Fs at load {top:g}: bounded slowdown, conservative vs EASY: the 95% interval's end "
                         f"nearest 0, in absolute value (%; the estimate is {_pct_text((pct, lo, hi))})", SAME,
                         near, "above", unit="%", trace="stand-in model",
                         paper_note=f"a difference (sign not stated; ours must exceed {SAME:g}%)"))
    return out


def with_alt(checks: list[Check], other: dict, label: str) -> None:
    """Give each direction check of ``checks`` the same check computed on ``other`` (the other set-up's
    differences, at its own top load) as ``alt``: opposite signs make it "unstable" (core.SIGNED_MODES)."""
    loads = sorted({ld for _, ld in other})
    alt = {c.id: c for c in _checks(other, loads, loads[-1])} if loads else {}
    for c in checks:
        a = alt.get(c.id)
        if c.mode in ("direction", "half") and a is not None and a.ours is not None:
            c.alt, c.alt_label = a.ours, label


def gap_interval(a: tuple[list, list], b: tuple[list, list]) -> tuple[float, float, float]:
    """(pct_b - pct_a, lo, hi): the change of "conservative vs EASY (%)" from workload a to workload b, with a
    95% bootstrap interval that resamples each one's seeds independently (different workloads: no pairing).
    a, b: (EASY means per seed, conservative means per seed)."""
    from ..summary.compare import RESAMPLES

    def pct(e, c, idx):
        return 100.0 * (c[idx].sum(axis=-1) / e[idx].sum(axis=-1) - 1)

    (ea, ca), (eb, cb) = [(np.asarray(x, float), np.asarray(y, float)) for x, y in (a, b)]
    rng = np.random.default_rng(0)
    boot = (pct(eb, cb, rng.integers(0, len(eb), (RESAMPLES, len(eb))))
            - pct(ea, ca, rng.integers(0, len(ea), (RESAMPLES, len(ea)))))
    lo, hi = np.percentile(boot, [2.5, 97.5])
    whole = pct(eb, cb, np.arange(len(eb))) - pct(ea, ca, np.arange(len(ea)))
    return float(whole), float(lo), float(hi)


def _clear(t, sign: int) -> bool:
    """A percentage with its interval: of this sign, and the interval excluding 0."""
    pct, lo, hi = t
    return pct is not None and lo is not None and (lo > 0 if sign > 0 else hi < 0)


def _loads(lds: list) -> str:
    return "no load" if not lds else ("load " if len(lds) == 1 else "loads ") + ", ".join(f"{x:g}" for x in lds)


def _probe(ids: dict, diffs: dict, top: float) -> str:
    """The probe's sentence (Fw: wider parallel jobs), from its two checks and the runs' means."""
    r, b = ids.get(f"mualem.fig4.Fw.response.{top:g}"), ids.get(f"mualem.fig4.Fw.slowdown.{top:g}")
    if r is None or b is None or r.ours is None or b.ours is None:
        return ""
    f, w = diffs["F", top], diffs["Fw", top]
    per = [ld for ld in sorted(x for v, x in diffs if v == "Fw") if ("F", ld) in diffs]
    smaller = [ld for ld in per if all(abs(diffs["Fw", ld][m][0]) < abs(diffs["F", ld][m][0])
                                       for m in ("mean_response", "mean_bounded_slowdown"))]
    head = (f" The probe Fw ({variant_text('Fw')}: wider parallel jobs) at load {top:g}: conservative vs EASY "
            f"{_pct_text(w['mean_response'])} on the response time and {_pct_text(w['mean_bounded_slowdown'])} on "
            f"the bounded slowdown, against F's {_pct_text(f['mean_response'])} and "
            f"{_pct_text(f['mean_bounded_slowdown'])}: {r.ours:+.1f} and {b.ours:+.1f} points nearer 0 ({r.verdict}, "
            f"{b.verdict}). Load by load, both of its gaps are smaller than F's at {_loads(smaller)} of "
            f"{_loads(per).split(' ', 1)[-1]} (response: " + ", ".join(
                f"{ld:g} {diffs['Fw', ld]['mean_response'][0]:+.1f}% vs {diffs['F', ld]['mean_response'][0]:+.1f}%"
                for ld in per) + "; bounded slowdown: " + ", ".join(
                f"{ld:g} {diffs['Fw', ld]['mean_bounded_slowdown'][0]:+.1f}% vs "
                f"{diffs['F', ld]['mean_bounded_slowdown'][0]:+.1f}%" for ld in per) + ")"
            f"; EASY's mean response on Fw is {w['easy', 'mean_response']:,.0f} s against F's "
            f"{f['easy', 'mean_response']:,.0f} s at load {top:g} (wider jobs pack worse).")
    if r.verdict == b.verdict == "same direction":
        return (head + " Much of the gap on our F goes with its narrow parallel jobs; the paper (after Talby et "
                "al.) names lower parallelism as a trait of the SP2 workloads, on which the schemes differ.")
    return head + " Wider jobs do not clearly shrink the gap on both metrics here."


def _reading(s, diffs: dict, loads: list, top: float, checks: list[Check]) -> None:
    """What our numbers say where they disagree with the paper, generated from them."""
    ids = {c.id: c for c in checks}
    f_bad = [c for c in checks if c.id.startswith("mualem.fig4.F.") and c.verdict != "reproduced"]
    if f_bad:
        easy_resp = [ld for ld in loads if ("F", ld) in diffs and _clear(diffs["F", ld]["mean_response"], +1)]
        cons_bsld = [ld for ld in loads if ("F", ld) in diffs and _clear(diffs["F", ld]["mean_bounded_slowdown"], -1)]
        worst = max(f_bad, key=lambda c: abs(c.ours))
        s.add(Explanation(
            f"Our F is not Feitelson's 1996 model, and on it the two schemes differ in {len(f_bad)} of "
            f"{sum(c.id.startswith('mualem.fig4.F.') for c in checks)} load-metric points (largest: "
            f"{worst.what.split(' (')[0]} {worst.ours:+.1f}%). EASY has the clearly lower response time at "
            f"{_loads(easy_resp)} and conservative the clearly lower bounded slowdown at {_loads(cons_bsld)} (95% "
            "intervals over the seeds excluding 0): the pattern the paper reports for the Jann model (Fig. 4: "
            "EASY better response under high load, worse bounded slowdown), not for Feitelson's." + _probe(ids, diffs, top),
            [c.id for c in f_bad] + [i for i in (f"mualem.fig4.Fw.response.{top:g}", f"mualem.fig4.Fw.slowdown.{top:g}")
                                     if i in ids]))
    resp = {v: diffs[v, top]["mean_response"][0] for v in VARIANTS if (v, top) in diffs}
    bsld = {v: diffs[v, top]["mean_bounded_slowdown"][0] for v in VARIANTS if (v, top) in diffs}
    numbers = (f"At load {top:g}, conservative vs EASY on the response time: "
               + ", ".join(f"{v} {x:+.1f}%" for v, x in resp.items()) + "; on the bounded slowdown: "
               + ", ".join(f"{v} {x:+.1f}%" for v, x in bsld.items()) + ". ")
    why = {
        f"mualem.fig7.Fl.response.{top:g}": lambda c: (
            f"Fl's difference is not small ({c.ours:+.1f}%, more than {SAME:g}%), and F's is "
            f"{resp.get('F', float('nan')):+.1f}% before the runtimes change: the modification moves it by "
            f"{c.ours - resp.get('F', float('nan')):+.1f} points, the gap being F's own."),
        f"mualem.fig7.Fsl_vs_F.response.{top:g}": lambda c: (
            f"Fsl's difference is {c.ours:+.1f} points from F's (95% interval {fmt(c.lo)} to {fmt(c.hi)}"
            + (f", under the {SAME:g} points we read as considerable" if abs(c.ours) < SAME else "")
            + (f"; {c.alt_label} gives {c.alt:+.1f}, the other sign, so neither set-up's sign is the result"
               if c.verdict == "unstable" else "")
            + f"): the paper's F had no difference to start from, ours already has {resp.get('F', float('nan')):+.1f}%"
            + (", and whether the modifications add to it is not settled on the stand-in."
               if c.verdict == "unstable" else ", and over these seeds the modifications do not clearly add to it.")),
        f"mualem.fig7.Fsl.response.{top:g}": lambda c: (
            f"Fsl's difference is {c.ours:+.1f}% with a 95% interval from {fmt(c.lo)}% to {fmt(c.hi)}%."),
        f"mualem.fig7.Fs.bsld.{top:g}": lambda c: (
            f"Fs's bounded-slowdown difference has an interval end at {fmt(c.ours)}% from 0 (needs more than "
            f"{SAME:g}%)."),
    }
    for cid, text in why.items():
        c = ids.get(cid)
        if c is None or c.ours is None or c.verdict in ("reproduced", "same direction"):
            continue
        s.add(Explanation(f"{c.id.split('.')[2]} ({c.verdict}): " + numbers + text(c), [c.id]))
