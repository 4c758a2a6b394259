"""Time `walltime evaluate` as a user runs it (a fresh process, fresh warehouse),
and its tuning and replay-noise steps beside one whole-trace replay in the same run.

    .venv/bin/python bench/evaluate.py [--trace KTH-SP2] [--estimator klusacek:last=2 ...]

Prints the whole command's wall and CPU seconds, then, in-process on the
warehouse it left, the noise step (DRAWS replays of every chosen
configuration, pipeline/evaluate replay_noise) in jobs/s against one plain
whole-trace replay of the baseline (run_kernel): the noise step should cost
about DRAWS x configurations replays, nothing more; and the tuning step (tune:
every candidate's 2 x (1 + DRAWS) replays of the first third) likewise.
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default="KTH-SP2")
    ap.add_argument("--estimator", action="append", default=None)
    args = ap.parse_args()
    ests = args.estimator or ["klusacek:last=2", "ave2"]
    root = Path(tempfile.mkdtemp(prefix="bench-evaluate-")) / "wh"
    cmd = [sys.executable, "-m", "pipeline", "evaluate", args.trace, "--warehouse", str(root), "--json"]
    for e in ests:
        cmd += ["--estimator", e]
    env = {**os.environ, "PYTHONPATH": str(REPO), "WALLTIME_PROGRESS": "0"}
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    import json

    res = json.loads(proc.stdout)
    tr = res["traces"][0]
    print(f"walltime evaluate {args.trace} ({', '.join(ests)}): {wall:.2f} s wall, {cpu:.2f} s CPU, "
          f"{tr['jobs']:,} jobs; seconds by stage {res['seconds']}")

    from pipeline.evaluate import BASELINE, DRAWS, _config, parse_families, replay_noise, tune
    from pipeline.simulate import resolve_capacity, run_kernel, warm_up
    from pipeline.simulate.inputs import load_inputs, trace_info
    from pipeline.warehouse import Warehouse

    warm_up()
    chosen = {(r["family"], r["scheduler"]): (r["scheme"], r["overrun"]) for r in tr["tuning"] if r["chosen"]}
    con = Warehouse(root).reader(attach_results=False)
    try:
        cfg = resolve_capacity(_config(tr["trace"], BASELINE[1], "request"), trace_info(con, tr["trace"]))
        inp = load_inputs(con, tr["trace"], "request", cfg.capacity, False, "regular")
        t = time.perf_counter()
        run_kernel(inp, cfg)
        one = time.perf_counter() - t
        t = time.perf_counter()
        rows = replay_noise(con, tr["trace"], chosen, tr["tune_jobs"])
        noise = time.perf_counter() - t
        t = time.perf_counter()
        _, tuning = tune(con, tr["trace"], parse_families(ests))
        tuned = time.perf_counter() - t
    finally:
        con.close()
    replays = len(rows) // 2  # two periods per replay
    print(f"one whole replay (requests, EASY): {one:.3f} s, {inp.n / one:,.0f} jobs/s")
    print(f"noise step: {replays} replays ({len(chosen)} configurations x {DRAWS} draws) in {noise:.2f} s, "
          f"{replays * inp.n / noise:,.0f} jobs/s; {noise / (replays * one):.2f}x the plain replay per replay; "
          f"{100 * noise / wall:.1f}% of the whole command's wall time")
    n_tune = sum(len(r["replays"]) for r in tuning)
    print(f"tuning step: {n_tune} first-third replays ({len(tuning)} candidate x scheduler x correction rows) in "
          f"{tuned:.2f} s, {n_tune * tr['tune_jobs'] / tuned:,.0f} jobs/s; "
          f"{100 * tuned / wall:.1f}% of the whole command's wall time")


if __name__ == "__main__":
    main()
