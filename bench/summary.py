"""Time the whole `walltime summary` command, cold (estimates and simulations
computed) and warm (all reused), as a user runs it: a fresh process each time.

    .venv/bin/python bench/summary.py [--traces CEA-Curie-2011-2.1-cln ...] [--warehouse DIR]

Ingest is not timed. Budget (issue 12): on CEA-Curie (313k jobs), cold under
60 s and warm under 2 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pipeline.ingest import ingest  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402

TRACES = Path(os.environ.get("WALLTIME_TRACES", REPO.parent / "shared" / "traces"))
DEFAULT = ["CEA-Curie-2011-2.1-cln"]


def timed_summary(root: Path, trace: str) -> tuple[float, float, str]:
    """(wall s, CPU s of the child process, its stdout)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "WALLTIME_PROGRESS": "0"}
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pipeline", "summary", trace, "--warehouse", str(root)],
                         env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime), out.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", nargs="*", default=DEFAULT)
    ap.add_argument("--warehouse", default=None, help="default: a new temporary directory")
    args = ap.parse_args()
    root = Path(args.warehouse or tempfile.mkdtemp(prefix="walltime-bench-summary-"))
    wh = Warehouse(root)
    print(f"warehouse {root}; host load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    for trace in args.traces:
        ingest([TRACES / f"{trace}.swf.gz"], wh)
        con = wh.reader()
        (jobs,) = con.execute("SELECT jobs FROM traces WHERE trace = ?", [trace]).fetchone()
        con.close()
        cold, cold_cpu, text = timed_summary(root, trace)
        warm, warm_cpu, _ = timed_summary(root, trace)
        print(f"{trace}: {jobs:,} jobs; summary cold {cold:.1f} s wall / {cold_cpu:.1f} s CPU "
              f"({jobs / cold:,.0f} jobs/s, budget 60 s), warm {warm:.2f} s wall / {warm_cpu:.2f} s CPU "
              f"(budget 2 s); warm is {cold / warm:.0f}x faster; host load {os.getloadavg()[0]:.1f}", flush=True)
        print("   " + "\n   ".join(text.strip().splitlines()[:3]))


if __name__ == "__main__":
    main()
