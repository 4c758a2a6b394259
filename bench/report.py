"""Time the full `walltime report` (compute phase from an empty warehouse,
then a second, all-reused run) on KTH-SP2 and CEA-Curie.

    .venv/bin/python bench/report.py [--traces KTH-SP2-1996-2.1-cln ...] [--warehouse DIR]

Ingest is not timed. Prints, per trace: jobs, the compute phase per section
(each section computed alone, in page order, so each line is that section's own
cost), the render time, and the time of a second report that reuses everything.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pipeline.ingest import ingest  # noqa: E402
from pipeline.report import SECTIONS, build_report  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402

TRACES = Path(os.environ.get("WALLTIME_TRACES", REPO.parent / "shared" / "traces"))
DEFAULT = ["KTH-SP2-1996-2.1-cln", "CEA-Curie-2011-2.1-cln"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", nargs="*", default=DEFAULT)
    ap.add_argument("--warehouse", default=None)
    args = ap.parse_args()
    os.environ.setdefault("WALLTIME_PROGRESS", "0")
    root = Path(args.warehouse or tempfile.mkdtemp(prefix="walltime-bench-report-"))
    wh = Warehouse(root)
    out = root / "report.html"
    print(f"warehouse {root}; host load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          "(CPU = this process's CPU seconds: DuckDB and Numba threads included)")
    for trace in args.traces:
        ingest([TRACES / f"{trace}.swf.gz"], wh)
        con = wh.reader()
        (jobs,) = con.execute("SELECT jobs FROM traces WHERE trace = ?", [trace]).fetchone()
        con.close()
        total = 0.0
        parts = []
        cpu0 = time.process_time()
        for key in SECTIONS:
            t, c = time.perf_counter(), time.process_time()
            res = build_report(wh, [trace], out, [key])
            dt, dc = time.perf_counter() - t, time.process_time() - c
            total += dt
            parts.append(f"{key} {dt:.1f} s ({len(res.computed)} steps)")
            print(f"  {trace}: section {key}: {dt:.1f} s wall, {dc:.1f} s CPU, {len(res.computed)} compute steps",
                  flush=True)
        cpu = time.process_time() - cpu0
        t = time.perf_counter()
        res = build_report(wh, [trace], out)
        again = time.perf_counter() - t
        print(f"{trace}: {jobs:,} jobs; full report from scratch {total:.1f} s wall, {cpu:.1f} s CPU "
              f"({jobs / total:,.0f} jobs/s): {'; '.join(parts)}; "
              f"second report (all reused) {again:.1f} s, {res.tables} tables, {res.figures} figures", flush=True)


if __name__ == "__main__":
    main()
