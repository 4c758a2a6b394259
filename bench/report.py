"""Time the whole `walltime report` from an empty warehouse (after ingest) on
KTH-SP2 and CEA-Curie, with where the time went.

    .venv/bin/python bench/report.py [--traces KTH-SP2-1996-2.1-cln ...] [--warehouse DIR]
                                     [--workers N] [--per-section]

Ingest is not timed, nor is building the compiled loop (`walltime warm-up`,
done first and said). Per trace it prints the whole command's wall time and
CPU (this process plus the simulation workers), the compute phase by kind
(characterize, estimates, the Tang grid, the summary's estimates, the
simulations with their loops' CPU), the render time of each section, and a
second report that reuses everything. The peer in the same run: the
simulations' own CPU (the sum over runs), i.e. what one worker would need
at least; the ratio says what the workers saved. ``--per-section`` also
builds each section alone first (the older measurement: each line is that
section's own compute + render, in page order).
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
    ap.add_argument("--workers", type=int, default=None, help="simulation processes (default: the report's)")
    ap.add_argument("--per-section", action="store_true", help="also build each section alone first")
    args = ap.parse_args()
    os.environ.setdefault("WALLTIME_PROGRESS", "0")
    from pipeline.simulate import warm_up

    t = time.perf_counter()
    warm_up()
    print(f"compiled loop ready in {time.perf_counter() - t:.1f} s (not timed below)", flush=True)
    for trace in args.traces:
        root = Path(args.warehouse or tempfile.mkdtemp(prefix="walltime-bench-report-")) / trace
        wh = Warehouse(root)
        out = root / "report.html"
        ingest([TRACES / f"{trace}.swf.gz"], wh)
        con = wh.reader()
        (jobs,) = con.execute("SELECT jobs FROM traces WHERE trace = ?", [trace]).fetchone()
        con.close()
        print(f"warehouse {root}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on "
              f"{os.cpu_count()} cores", flush=True)
        if args.per_section:
            _per_section(wh, trace, out, args.workers)
        t, c = time.perf_counter(), time.process_time()
        res = build_report(wh, [trace], out, workers=args.workers)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        runs = res.seconds["runs"]
        workers_cpu = sum(r.get("cpu_s") or 0 for r in runs if r.get("pid") != os.getpid())  # not in `cpu`
        sims_cpu = sum(r.get("cpu_s") or 0 for r in runs)
        loops_cpu = sum(r.get("loop_cpu_s") or 0 for r in runs)
        comp = res.seconds["compute"]
        print(f"{trace}: {jobs:,} jobs; whole report from an empty warehouse {wall:.1f} s wall, "
              f"{cpu + workers_cpu:.1f} s CPU ({cpu:.1f} s this process + {workers_cpu:.1f} s simulation workers)",
              flush=True)
        print("  compute " + f"{res.seconds['compute_s']:.1f} s: "
              + ", ".join(f"{k} {v:.1f} s" for k, v in comp.items())
              + f"; {len(runs)} simulations: {sims_cpu:.1f} s CPU in all ({loops_cpu:.1f} s in their loops)")
        print("  render " + f"{res.seconds['render_s']:.1f} s: "
              + ", ".join(f"{k} {v:.1f} s" for k, v in res.seconds["sections"].items()))
        sims_wall = comp.get("simulations", 0.0)
        if sims_wall:
            print(f"  simulations: {sims_wall:.1f} s wall for {sims_cpu:.1f} s of their CPU: "
                  f"{sims_cpu / sims_wall:.2f}x what one process running them one after another needs at least")
        top = sorted(runs, key=lambda r: -(r.get("cpu_s") or 0))[:5]
        for r in top:
            print(f"    {r.get('cpu_s') or 0:6.1f} s CPU ({r.get('loop_cpu_s') or 0:.1f} s loop)  {r['config'][:150]}")
        t = time.perf_counter()
        res = build_report(wh, [trace], out)
        print(f"  second report (all reused) {time.perf_counter() - t:.1f} s, {res.tables} tables, "
              f"{res.figures} figures", flush=True)


def _per_section(wh, trace, out, workers) -> None:
    for key in SECTIONS:
        t, c = time.perf_counter(), time.process_time()
        res = build_report(wh, [trace], out, [key], workers=workers)
        dt, dc = time.perf_counter() - t, time.process_time() - c
        wc = sum(r.get("cpu_s") or 0 for r in res.seconds["runs"] if r.get("pid") not in (None, os.getpid()))
        print(f"  {trace}: section {key} alone: {dt:.1f} s wall, {dc + wc:.1f} s CPU, "
              f"{len(res.computed)} compute steps", flush=True)


if __name__ == "__main__":
    main()
