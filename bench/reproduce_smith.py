"""Times the Smith, Taylor & Foster reproduction stage as a whole command:
`walltime reproduce --paper smith [--quick]` (pipeline/reproduce/smith.py,
runs in smith_runs.py); the results are in the document it writes
(docs/reproduction.md when run without --out).

    .venv/bin/python bench/reproduce_smith.py [--warehouse DIR] [--out DIR] [--quick]
    .venv/bin/python bench/reproduce_smith.py --forecast-cost [--warehouse DIR]

Prints the command's wall time and its throughput in job-simulations per
second (jobs x predictors x (forecast + scheduling runs) over all workloads).

--forecast-cost: on the --quick workloads (CTC two months, SDSC96; the
warehouse must hold them, e.g. after one run of the command), the cost of
the wait forecast against its own loop, per algorithm: the loop alone
(kernel.simulate), the forecast on actual run times (simulate_forecast), and
with Downey's median re-predicting running jobs (conditional.forecast_inputs
+ simulate_forecast_running), with what makes it cost: the job ends that fall
inside a job's wait (a forecast replays the scheduler up to the job's start,
one event per end) and the running-job pairs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pipeline.reproduce import smith  # noqa: E402
from pipeline.reproduce.smith_runs import PREDICTORS, workloads  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402


def best(fn, repeat=3):
    """Shortest of ``repeat`` timed calls (s) and the last result."""
    out, t = None, float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def forecast_cost(warehouse: Path) -> None:
    import numpy as np

    from pipeline.reproduce.smith_runs import ALGS, arrays
    from pipeline.schemes import parse
    from pipeline.simulate import kernel
    from pipeline.simulate.conditional import forecast_inputs

    con = Warehouse(warehouse).reader()
    try:
        ws = workloads(con, smith.QUICK, True)
    finally:
        con.close()
    downey = parse("downey:stat=median,key=queue")
    for w in ws:
        a = arrays(w)
        for alg in w.forecast_algs:
            pol, bf = ALGS[alg]
            args = (a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], a["req"], a["req"], w.capacity,
                    kernel.POLICIES[pol], kernel.BACKFILLS[bf], 0)
            loop, (start, *_) = best(lambda: kernel.simulate(*args, False))
            fa, _ = best(lambda: kernel.simulate_forecast(*args, a["run"]), 1)
            ti, (fc, table) = best(lambda: forecast_inputs(w.jobs, start, downey), 1)
            tc, _ = best(lambda: kernel.simulate_forecast_running(*args, fc, *table.args()), 1)
            ends = np.sort(start + a["run"])
            during = (np.searchsorted(ends, start, "right") - np.searchsorted(ends, a["submit"], "right")).mean()
            print(f"{w.label} {alg}: loop {loop:.3f} s ({w.n / loop:,.0f} jobs/s); forecast on actual run times "
                  f"{fa:.2f} s = {fa / loop:.0f}x the loop; job ends inside a job's wait: {during:.0f} on average; "
                  f"Downey median with running jobs re-predicted: inputs {ti:.2f} s ({len(table.cval):,} pairs) + "
                  f"forecast {tc:.2f} s = {(ti + tc) / loop:.0f}x the loop", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", type=Path, default=Path("/tmp/walltime-smith-repro"))
    ap.add_argument("--out", type=Path, default=None, help="output directory (default: a temporary one)")
    ap.add_argument("--quick", action="store_true", help="the --quick set (CTC two-month window, SDSC96)")
    ap.add_argument("--forecast-cost", action="store_true", help="the forecast's cost against its loop (see above)")
    args = ap.parse_args()
    if args.forecast_cost:
        forecast_cost(args.warehouse)
        return
    out = args.out or Path(tempfile.mkdtemp(prefix="smith-repro-"))
    cmd = [sys.executable, "-m", "pipeline", "reproduce", "--paper", "smith", "--warehouse", str(args.warehouse),
           "--out", str(out)] + (["--quick"] if args.quick else [])
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": str(REPO), "WALLTIME_PROGRESS": "0"})
    wall = time.perf_counter() - t0
    if r.returncode:
        sys.exit(r.returncode)
    traces = smith.QUICK if args.quick else smith.TRACES
    con = Warehouse(args.warehouse).reader()
    try:
        ws = workloads(con, traces, args.quick)
    finally:
        con.close()
    sims = sum(w.n * len(PREDICTORS) * (len(w.forecast_algs) + len(w.sched_algs)) for w in ws)
    print(f"walltime reproduce --paper smith{' --quick' if args.quick else ''}: {wall:.0f} s wall, "
          f"{sims:,} job-simulations ({', '.join(f'{w.label} {w.n:,} jobs' for w in ws)}), "
          f"{sims / wall:,.0f} jobs/s; document in {out}")


if __name__ == "__main__":
    main()
