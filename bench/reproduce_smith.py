"""Times the Smith, Taylor & Foster reproduction stage as a whole command:
`walltime reproduce --paper smith [--quick]` (pipeline/reproduce/smith.py,
runs in smith_runs.py); the results are in the document it writes
(docs/reproduction.md when run without --out).

    .venv/bin/python bench/reproduce_smith.py [--warehouse DIR] [--out DIR] [--quick]

Prints the command's wall time and its throughput in job-simulations per
second (jobs x predictors x (forecast + scheduling runs) over all workloads).
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", type=Path, default=Path("/tmp/walltime-smith-repro"))
    ap.add_argument("--out", type=Path, default=None, help="output directory (default: a temporary one)")
    ap.add_argument("--quick", action="store_true", help="the --quick set (CTC two-month window, SDSC96)")
    args = ap.parse_args()
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
