"""Mu'alem & Feitelson Figs. 4, 6 and 7 on models that are not the paper's: an
exploratory section of its own, tallied apart and kept out of the headline.
Registered as ``mualem-models`` (``--paper mualem`` includes it).

Why apart: the paper ran Feitelson's 1996 model and Jann's 1997 model, whose
code is not reachable here. What runs instead is (1) this project's workload
model and our modifications of it (the stand-in, mualem_models.py), with the
``Fw`` probe of our own making, and (2) the Lublin-Feitelson model's sample
that ships with the traces (``lublin_256``: 10,000 jobs on 256 processors, the
2003 successor of Feitelson's model; still not the paper's F). Their checks
test the paper's claims on these models; an agreement or a disagreement is
about them, not about the paper's experiment.

Sign stability: the stand-in's direction checks carry the same check computed
on the other set-up (``--quick``'s 10,000 jobs and 5 seeds beside the full
run's 20,000 and 10, both stored by the full run), and read "unstable" where
the two signs differ (core.py, SIGNED_MODES).

The Lublin-Feitelson sample: the paper's claim that allows it is Fig. 4's on
Feitelson's own model ("practically identical" EASY and conservative, exact
runtimes as estimates), checked at the stand-in's loads (interarrivals scaled,
the paper's Section 3.1); the 95% interval resamples blocks of consecutive
submissions (paired: the same jobs under both schemes), the sample having no
seeds. Its runtime distributions by size are set beside CTC's and the
stand-in's (Fig. 6's distance), and its conservative-vs-EASY differences beside
the stand-in F's.
"""

from __future__ import annotations

import numpy as np

from ..summary.compare import ratio_interval
from ..warehouse import Warehouse
from . import mualem_models as MM
from .common import CTC, rows
from .core import Check, Checks, Section, Table, Text, say

LUBLIN = "lublin_256"
LUBLIN_CAPACITY = 256  # its header's MaxNodes
BLOCKS = 10  # consecutive submission blocks the interval resamples (the sample has no seeds and ~3 months)
TRACES = {CTC: 512, LUBLIN: None}
QUICK = {LUBLIN: None}
TITLE = ("Mu'alem & Feitelson 2001, Figs. 4, 6 and 7 on models that are not the paper's: the stand-in, the Fw "
         "probe and the Lublin-Feitelson sample")


def compute(wh: Warehouse, traces: dict, quick: bool) -> None:
    """The stand-in's runs of this set-up; the full run also stores --quick's (for the sign-stability test)."""
    MM.compute(wh, quick)
    if not quick:
        MM.compute(wh, True)


def alt_label(quick: bool) -> str:
    """Which set-up a check's ``alt`` comes from (the other one)."""
    q = not quick
    return (f"{'--quick' if q else 'the full run'} ({MM.jobs_per_run(q):,} jobs, "
            f"{len(MM.QUICK_SEEDS if q else MM.SEEDS)} seeds)")


def other_diffs(con, quick: bool) -> dict | None:
    """The other set-up's differences, when all its runs are stored (the full run stores --quick's)."""
    runs = MM.stored(con, not quick)
    if len(runs) < 2 * len(MM.plan(not quick)):
        return None
    return MM.differences(runs)


def build(con, traces: dict, quick: bool) -> Section:
    s = Section("mualem-models", TITLE, exploratory=True)
    s.add(Text("Exploratory, not the paper's model: the paper's Figs. 4, 6 and 7 use Feitelson's 1996 and Jann's "
               "1997 workload models, whose code is not reachable here. This section runs the paper's claims on "
               "models we have instead; its checks are tallied here and not in Mu'alem & Feitelson's headline. "
               "Why and how: docs/reproduction-models.md."))
    MM.add_section(s, con, traces, quick, other=other_diffs(con, quick), other_label=alt_label(quick))
    if LUBLIN in traces:
        lublin(s, con, quick)
    return s


# --- the Lublin-Feitelson sample -------------------------------------------------

def lublin_jobs(con) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(submit s, run s, processors) of the sample's jobs that ran, in submission order."""
    got = con.execute("SELECT submit, run, procs FROM jobs WHERE trace = ? AND run >= 0 AND procs > 0 "
                      "ORDER BY submit, job_id", [LUBLIN]).fetchnumpy()
    if not len(got["run"]):
        return None
    return tuple(got[k].astype(np.int64) for k in ("submit", "run", "procs"))


def natural_load(submit: np.ndarray, run: np.ndarray, procs: np.ndarray, capacity: int = LUBLIN_CAPACITY) -> float:
    """Offered load: the jobs' processor-seconds over the machine's over the submission span."""
    return float((run.astype(np.float64) * procs).sum() / (capacity * max(int(submit[-1] - submit[0]), 1)))


def at_load(submit: np.ndarray, run: np.ndarray, procs: np.ndarray, load: float) -> np.ndarray:
    """The submit times with the interarrival times scaled so that the offered load is ``load``."""
    k = natural_load(submit, run, procs) / load
    return submit[0] + np.rint((submit - submit[0]) * k).astype(np.int64)


def blocks(n: int, k: int = BLOCKS) -> np.ndarray:
    """Each job's block of consecutive submissions (k blocks of equal size, the last taking the rest)."""
    return np.minimum(np.arange(n) * k // max(n, 1), k - 1)


def lublin_runs(jobs: tuple, loads) -> dict:
    """{load: {metric: (pct, lo, hi), ("easy", metric): mean, ("cons", metric): mean}}: conservative vs EASY
    over the sample at each load, exact runtimes as estimates, the interval over BLOCKS blocks of jobs."""
    from ..simulate.inputs import Inputs

    submit, run, procs = jobs
    n = len(run)
    blk = blocks(n)
    out = {}
    for ld in loads:
        sub = at_load(submit, run, procs, ld)
        inp = Inputs(job_id=np.arange(1, n + 1, dtype=np.int64), submit=sub, run=run, nodes=procs,
                     req=np.maximum(run, 1), est_wait=run.copy(), est_run=run.copy(),
                     month_idx=np.zeros(n, np.int64), months=["all"])
        per = {}
        for bf in MM.BACKFILLS:
            start = MM.replay_at(inp, bf, LUBLIN_CAPACITY)["start"]
            resp = (start - inp.submit + inp.run).astype(np.float64)
            bsld = np.maximum(1.0, resp / np.maximum(inp.run, 10))
            per[bf] = {"mean_response": np.bincount(blk, resp, BLOCKS),
                       "mean_bounded_slowdown": np.bincount(blk, bsld, BLOCKS)}
        d = {}
        for m in ("mean_response", "mean_bounded_slowdown"):
            d[m] = ratio_interval(per["easy"][m], per["conservative"][m])
            d["easy", m] = float(per["easy"][m].sum() / n)
            d["cons", m] = float(per["conservative"][m].sum() / n)
        out[ld] = d
    return out


def lublin(s: Section, con, quick: bool) -> None:
    jobs = lublin_jobs(con)
    if jobs is None:
        return
    submit, run, procs = jobs
    loads = MM.QUICK_LOADS if quick else MM.LOADS
    runs = lublin_runs(jobs, loads)
    stand_in = MM.differences(MM.stored(con, quick))
    s.add(Text(f"The Lublin-Feitelson model's sample ({LUBLIN}: {len(run):,} jobs on {LUBLIN_CAPACITY} processors, "
               f"offered load {natural_load(submit, run, procs):.2f} as shipped; the 2003 successor of Feitelson's "
               "model, not the paper's F): replayed at the stand-in's loads by scaling the interarrival times, FCFS "
               "with EASY and with conservative backfilling, exact runtimes as estimates; 95% interval: bootstrap "
               f"over {BLOCKS} blocks of consecutive submissions (paired)."))
    ctx = []
    for ld in loads:
        d, f = runs[ld], stand_in.get(("F", ld))
        ctx.append([ld, d["easy", "mean_response"], d["cons", "mean_response"],
                    MM._pct_text(d["mean_response"]), MM._pct_text(f["mean_response"]) if f else "-",
                    d["easy", "mean_bounded_slowdown"], d["cons", "mean_bounded_slowdown"],
                    MM._pct_text(d["mean_bounded_slowdown"]), MM._pct_text(f["mean_bounded_slowdown"]) if f else "-"])
    s.add(Table("Fig. 4's claim on the Lublin-Feitelson sample: EASY vs conservative, beside the stand-in F "
                "(conservative vs EASY: % of EASY's mean, 95% interval)",
                ["load", "response EASY (s)", "response cons (s)", "response cons vs EASY",
                 "stand-in F: response cons vs EASY", "bounded slowdown EASY", "bounded slowdown cons",
                 "bounded slowdown cons vs EASY", "stand-in F: bounded slowdown cons vs EASY"], ctx,
                f"jobs of {LUBLIN}, replayed in memory (pipeline/reproduce/mualem_probes.py); mualem_model_runs"))
    checks = []
    for ld in loads:
        for m, name in (("mean_response", "response time"), ("mean_bounded_slowdown", "bounded slowdown")):
            pct, lo, hi = runs[ld][m]
            checks.append(Check(f"mualem.fig4.LF.{m.split('_')[-1]}.{ld:g}", "Fig. 4 text",
                                f"Lublin-Feitelson sample at load {ld:g}: {name}, conservative vs EASY (%)", 0.0, pct,
                                "value", MM.SAME, rel=False, unit="%", trace="Lublin-Feitelson sample", lo=lo, hi=hi,
                                interval=f"{BLOCKS} blocks of submissions", paper_note="practically identical"))
    s.add(Checks(f"Fig. 4's claim on Feitelson's model, tested on the Lublin-Feitelson sample (\"practically "
                 f"identical\": within {MM.SAME:g}% of EASY, our reading)", checks))
    s.add(Text(" ".join(say(c) for c in checks)))
    ok = [c for c in checks if c.verdict == "reproduced"]
    f_ok = [ld for ld in loads if ("F", ld) in stand_in
            and all(abs(stand_in["F", ld][m][0] or 0) <= MM.SAME for m in ("mean_response", "mean_bounded_slowdown"))]
    s.add(Text(f"The sample keeps the two schemes within {MM.SAME:g}% in {len(ok)} of {len(checks)} load-metric "
               f"points; the stand-in F keeps them within {MM.SAME:g}% on both metrics at {len(f_ok)} of "
               f"{len(loads)} loads."))
    if CTC in {r["trace"] for r in rows(con, "SELECT trace FROM traces")}:
        ref = MM.ctc_jobs(con)
        if ref is not None:
            samples = {"Lublin-Feitelson sample": (run, procs), "stand-in F": MM.model_jobs("F")}
            d = MM.ks_table(samples, ref)
            to_lf = MM.ks_table({"stand-in F": samples["stand-in F"]}, (run, procs))["stand-in F"]
            s.add(Table("Fig. 6's distance: Kolmogorov-Smirnov distance of the runtime distribution by size class to "
                        "CTC's (weighted: by CTC's jobs per class), and of the stand-in F to the Lublin-Feitelson "
                        "sample (weighted: by the sample's)", ["pair", *MM.SIZE_CLASSES, "weighted"],
                        [*[[f"{k} to CTC", *[v[c] for c in MM.SIZE_CLASSES], v["weighted"]] for k, v in d.items()],
                         ["stand-in F to the Lublin-Feitelson sample", *[to_lf[c] for c in MM.SIZE_CLASSES],
                          to_lf["weighted"]]], "pipeline/reproduce/mualem_models.py: ks_table"))
            s.add(Text(f"Weighted distance to CTC's runtimes by size: the Lublin-Feitelson sample "
                       f"{d['Lublin-Feitelson sample']['weighted']:.3f}, the stand-in F {d['stand-in F']['weighted']:.3f}; "
                       f"the stand-in F to the sample {to_lf['weighted']:.3f} (0: the same distribution, 1: disjoint)."))
