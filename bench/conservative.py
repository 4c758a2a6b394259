"""Conservative backfilling on a whole trace (FCFS, requests, --overrun double:
the report's Klusacek & Soysal run), CPU of the loop, with FCFS + EASY on the
same jobs in the same run as the peer.

    .venv/bin/python bench/conservative.py --warehouse DIR [--trace CEA-Curie-2011-2.1-cln] [--repeat 3]

Reads the jobs of an ingested trace (e.g. the warehouse bench/report.py left)
with the simulator's own input SQL; prints the best of --repeat, jobs/s,
the ratio to EASY, and a checksum of the start times (equal before and after
a change of the loop that must keep the schedule).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline import sqlfiles  # noqa: E402
from pipeline.simulate import kernel  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402


def best(args, repeat):
    out, dt = None, None
    for _ in range(repeat):
        c = time.process_time()
        out = kernel.simulate(*args)
        d = time.process_time() - c
        dt = d if dt is None else min(dt, d)
    return out, dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--trace", default="CEA-Curie-2011-2.1-cln")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    con = Warehouse(Path(a.warehouse)).reader()
    cols = con.execute(sqlfiles.load("simulate_kernel_jobs"), [a.trace]).fetchnumpy()
    (cap,) = con.execute("SELECT capacity FROM traces WHERE trace = ?", [a.trace]).fetchone()
    con.close()
    w = {k: np.ascontiguousarray(np.asarray(v), dtype=np.int64) for k, v in cols.items()}
    req = np.where(w["req"] <= 0, np.maximum(w["run"], 1), w["req"])
    jobs = (w["submit"], w["job_id"], w["run"], w["nodes"], req, req, req)
    kernel.simulate(*[x[:100] for x in jobs], int(cap), 0, 2, 1, False)  # compiled / loaded
    cons, tc = best((*jobs, int(cap), 0, 2, 1, False), a.repeat)
    _, te = best((*jobs, int(cap), 0, 1, 1, False), a.repeat)
    n = len(req)
    print(f"{a.trace}: {n:,} jobs; conservative {tc:.2f} s CPU = {n / tc:,.0f} jobs/s; EASY {te:.3f} s CPU; "
          f"conservative / EASY {tc / te:.1f}x; start checksum {int(cons[0].sum())}, backfilled {int(cons[1].sum())}")


if __name__ == "__main__":
    main()
