"""Mu'alem & Feitelson Figs. 4/7 on the stand-in model (pipeline/reproduce/mualem_models.py):
the cost of one point of the plan, per stage, as `reproduce` runs it: generating the
workload, then replaying it under EASY and under conservative backfilling
(simulate.run_kernel, 512 processors, exact runtimes). Prints jobs/s of each stage
and conservative's time against EASY's on the same jobs (a peer in the same run),
and the whole plan's extrapolated time. The kernels are warmed up on a small
workload first, so compile time is not counted.

    .venv/bin/python bench/mualem_models.py [--jobs 20000] [--seeds 3] [--load 0.9]
"""

from __future__ import annotations

import argparse
import time

from pipeline.reproduce import mualem_models as MM


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=MM.RUN_JOBS)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--load", type=float, default=0.9)
    a = ap.parse_args()
    warm = MM.inputs(MM.workload("F", 500, 0, a.load))
    for bf in MM.BACKFILLS:
        MM.replay(warm, bf)
    t = {"generate": 0.0, "easy": 0.0, "conservative": 0.0}
    n = 0
    for v in MM.VARIANTS:
        for seed in range(a.seeds):
            t0 = time.perf_counter()
            inp = MM.inputs(MM.workload(v, a.jobs, seed, a.load))
            t["generate"] += time.perf_counter() - t0
            for bf in MM.BACKFILLS:
                t0 = time.perf_counter()
                MM.replay(inp, bf)
                t[bf] += time.perf_counter() - t0
            n += inp.n
    for k, s in t.items():
        print(f"{k:>12}: {n / s:,.0f} jobs/s ({s:.2f} s for {n:,} jobs)")
    print(f"conservative / EASY time on the same jobs: {t['conservative'] / t['easy']:.2f}")
    points = len(MM.plan(False))
    print(f"the full plan ({points} workloads x {MM.RUN_JOBS:,} jobs) at this rate: about "
          f"{points * MM.RUN_JOBS * sum(t.values()) / n:.0f} s")


if __name__ == "__main__":
    main()
