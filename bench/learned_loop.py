"""Speed of the learned scheme inside the replay (``--history simulated``,
pipeline/simulate/_learned.py): the event loop evaluating each arrival's
walk-forward trees on features from the replay, against the same loop with
the log's estimates (kernel.simulate, the trees' output read from a column)
and against the naive twin (naive_sim.simulate_learned, LightGBM per arrival)
on a prefix, in one process, on the same inputs.

    .venv/bin/python bench/learned_loop.py [--trace CEA-Curie-2011-2.1-cln.swf.gz] [--spec SPEC]
                                           [--repeat 3] [--naive-max 20000]

Prints the training time (learned.fit: not part of the loop), the trees per
model and mean depth, the loop's jobs/s (best of --repeat, after a warm-up
call that compiles) and the ratios. EASY++ (fcfs, sjbf backfill scan),
overrun request, the trace's own capacity.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import naive_sim  # noqa: E402
from conftest import TRACES  # noqa: E402

from pipeline.estimates import learned as L  # noqa: E402
from pipeline.estimates import load_jobs  # noqa: E402
from pipeline.ingest import ingest  # noqa: E402
from pipeline.schemes import canonical, parse  # noqa: E402
from pipeline.simulate import _learned as K  # noqa: E402
from pipeline.simulate import kernel  # noqa: E402
from pipeline.simulate.inputs import load_inputs  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default="CEA-Curie-2011-2.1-cln.swf.gz")
    ap.add_argument("--spec", default="learned:loss=eloss,under=4")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--naive-max", type=int, default=20000)
    a = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as d:
        wh = Warehouse(Path(d) / "wh")
        name = ingest([TRACES / a.trace], wh)[0].trace
        from pipeline.estimates import ensure_estimates

        ensure_estimates(wh, name, [a.spec])
        con = wh.reader()
        try:
            cap = con.execute("SELECT capacity FROM traces WHERE trace = ?", [name]).fetchone()[0]
            inp = load_inputs(con, name, canonical(a.spec), cap, True, "regular")
            jobs = load_jobs(con, name)
        finally:
            con.close()
    s = parse(a.spec)
    t = time.perf_counter()
    frame, x, models, model_of, _ = L.fit(jobs, s["q"], s["loss"], s["under"], s["retrain"], s["window"],
                                          s["trees"])
    fit_s = time.perf_counter() - t
    args = K.loop_inputs(jobs, s, inp.job_id)
    forest = args[5]
    trees = len(forest[11])
    print(f"{name}: {inp.n:,} jobs, capacity {cap}; {len(models)} models, {trees:,} trees "
          f"({trees / max(len(models), 1):.0f} per model), {len(forest[0]):,} split nodes; training {fit_s:.1f} s")
    base = (inp.submit, inp.run, inp.nodes, inp.req, int(cap), 0, kernel.EASY_SJBF, 0)
    K.learned_sim(*[v[:10] if isinstance(v, np.ndarray) else v for v in base], *K_slice(args, 10))  # compile
    plain = (inp.submit, inp.job_id, inp.run, inp.nodes, inp.est_wait, inp.est_run, inp.req, int(cap), 0,
             kernel.EASY_SJBF, 0, False)
    kernel.simulate(*plain)
    best_l = best_p = float("inf")
    for _ in range(a.repeat):
        c = time.process_time()
        out = K.learned_sim(*base, *args)
        best_l = min(best_l, time.process_time() - c)
        c = time.process_time()
        kernel.simulate(*plain)
        best_p = min(best_p, time.process_time() - c)
    k = min(a.naive_max, inp.n)
    c = time.perf_counter()  # wall: LightGBM may use OpenMP threads
    ju_k, _, xs_k, model_k, _, _ = K_slice(args, k)
    slow = naive_sim.simulate_learned(inp.submit[:k], inp.job_id[:k], inp.run[:k], inp.nodes[:k], inp.req[:k],
                                      int(cap), 0, kernel.EASY_SJBF, 0, ju_k, xs_k, model_k, models)
    naive_s = time.perf_counter() - c
    c = time.perf_counter()
    fast = K.learned_sim(*[v[:k] if isinstance(v, np.ndarray) else v for v in base], *K_slice(args, k))
    prefix_s = max(time.perf_counter() - c, 1e-9)
    assert (fast[0] == slow[0]).all() and (fast[5] == slow[5]).all(), "the loop and the twin disagree"
    moved = (out[5] != inp.est_wait).mean() * 100
    print(f"learned in the loop: {inp.n / best_l:,.0f} jobs/s ({best_l:.2f} CPU-s, best of {a.repeat}); "
          f"the loop on the log's estimates: {inp.n / best_p:,.0f} jobs/s ({best_p:.2f} s), "
          f"{best_l / best_p:.1f}x the time; {moved:.1f}% of estimates differ from the log's")
    print(f"naive twin on the first {k:,} jobs ({(model_k >= 0).mean() * 100:.0f}% of them predicted by a model): "
          f"{k / naive_s:,.0f} jobs/s wall; the loop {k / prefix_s:,.0f} jobs/s ({naive_s / prefix_s:,.0f}x), "
          "same starts and estimates")
    print(f"Inside the replay, the learned scheme's trees run at {inp.n / best_l:,.0f} jobs/s on {name}, "
          f"{best_l / best_p:.1f} times the loop's time on stored estimates; training its {len(models)} "
          f"models takes {fit_s:.1f} s.")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def K_slice(args: tuple, k: int) -> tuple:
    ju, nusers, xs, model, jp, forest = args
    return ju[:k], nusers, np.ascontiguousarray(xs[:k]), model[:k], jp[:k], forest


if __name__ == "__main__":
    main()
