"""Sweep benchmark: a 200-simulation study on CTC-SP2 with 1 and 2 local workers.

Prints simulations per second for each, the speed-up, and the CPU time per
run (the coordinator's and the workers'). Each worker count
gets a fresh warehouse with the trace and its estimates already stored, so
only the simulations are timed (loop, jobs file and metrics in the workers; the
runs and run_metrics rows committed by the coordinator). Aims (issue 11): with
1 worker, wall time at most 1.5x the sum of the loops; 2 workers at least 1.8x
faster than 1. The machine's load average is printed with each line: on a
shared machine the ratio says as much about the neighbours as about us. The
machine's own ceiling is measured in the same run: N processes of pure Python
arithmetic (nothing shared, no I/O) against the same work done serially; a
sweep cannot scale better than that.

    python bench/sweep.py [--workers 1,2] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

TRACES = Path(os.environ.get("WALLTIME_TRACES") or Path(__file__).resolve().parents[2] / "shared" / "traces")
CTC = TRACES / "CTC-SP2-1996-3.1-cln.swf.gz"
ESTIMATES = ["request", "actual", "factor:f=2", "klusacek:last=5", "ave2"]
STUDY = """\
[study]
name = "sweep"

[[traces]]
path = "{ctc}"
name = "CTC"

[estimates]
schemes = {estimates}

[[simulations]]
policy = ["fcfs", "sjf", "lwf", "wfp"]
backfill = ["none", "easy"]
estimate = {estimates}
load_factor = [0.6, 0.7, 0.8, 0.9, 1.0]
capacity = 512
"""


def _cpu() -> float:
    """CPU seconds of this process and its reaped children (with 1 worker: the
    whole study; with 2, the workers are the forkserver's children, so their CPU
    is counted per task instead). With the load printed, it tells whether a
    slow wall time was ours or the neighbours'."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _burn(n: int) -> float:
    t = time.perf_counter()
    s = 0
    for i in range(n):
        s += i * i
    return time.perf_counter() - t


def machine_ceiling(workers: int, n: int = 20_000_000) -> float:
    """Speed-up of `workers` independent CPU-bound processes over running their work serially."""
    import multiprocessing as mp

    t = time.perf_counter()
    for _ in range(workers):
        _burn(n)
    serial = time.perf_counter() - t
    with mp.get_context("spawn").Pool(workers) as pool:
        pool.map(_burn, [1] * workers * 4)  # the workers started and this module imported before timing
        t = time.perf_counter()
        pool.map(_burn, [n] * workers)
        parallel = time.perf_counter() - t
    return serial / parallel


def _loops_part(root: str, study_file: str, picks: list[int], barrier, out) -> None:
    """In a fresh process: prepare the study's runs ``picks`` (inputs as the
    coordinator makes them; not timed), wait for the others, then time their
    event loops alone, one after another."""
    from pipeline.simulate import run_segments, warm_up
    from pipeline.study import load_study, runner
    from pipeline.warehouse import Warehouse

    warm_up()
    study = load_study(Path(study_file))
    con, cache = Warehouse(Path(root)).reader(), {}
    runs = []
    for i in picks:
        cfg, inp, _ = runner._prepare(con, study.simulations[i], cache)
        runs.append((i, cfg, inp))
    con.close()
    barrier.wait()
    t0, c0, times = time.time(), time.process_time(), {}
    for i, cfg, inp in runs:
        t = time.perf_counter()
        run_segments(inp, cfg)
        times[i] = time.perf_counter() - t
    out.put((t0, time.time(), time.process_time() - c0, times))


def loops_ceiling(root: Path, study_file: Path, count: int, n: int) -> tuple[float, float, float, float]:
    """The sweep's event loops alone (no coordinator, no files, no metrics):
    all of them in one process, then split over ``n`` processes started
    together (longest first, each to the least loaded process, by the first
    pass's times). Returns (serial s, parallel s, speed-up, CPU of the loops
    in n processes / CPU in one): what the loops themselves gain from n
    processes on this machine now, the ceiling of the whole sweep's speed-up;
    the CPU ratio is their slowdown from sharing the machine's caches and
    memory (the neighbours' load does not enter CPU time, only the wall)."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")

    def once(parts):
        barrier, out = ctx.Barrier(len(parts)), ctx.Queue()
        procs = [ctx.Process(target=_loops_part, args=(str(root), str(study_file), p, barrier, out)) for p in parts]
        for p in procs:
            p.start()
        got = [out.get() for _ in procs]
        for p in procs:
            p.join()
        return (max(g[1] for g in got) - min(g[0] for g in got), sum(g[2] for g in got),
                {k: v for g in got for k, v in g[3].items()})

    serial, cpu1, times = once([list(range(count))])
    loads, parts = [0.0] * n, [[] for _ in range(n)]
    for i in sorted(times, key=times.get, reverse=True):
        k = loads.index(min(loads))
        parts[k].append(i)
        loads[k] += times[i]
    parallel, cpu_n, _ = once(parts)
    return serial, parallel, serial / parallel, cpu_n / cpu1


def timeline(runs: list[dict], epoch0: float, epoch1: float, n: int) -> str:
    """Where the workers were idle (issue 11: what is serial with 2 workers):
    the seconds before the first task began, after the last one ended, and the
    share of n x the wall time the tasks were running."""
    spans = [(r["began"], r["ended"]) for r in runs if r.get("began") is not None]
    if not spans:
        return "timeline: none"
    busy = sum(b - a for a, b in spans)
    wall = epoch1 - epoch0
    last_by_worker = {}
    for r in runs:
        if r.get("ended") is not None:
            last_by_worker[r["pid"]] = max(last_by_worker.get(r["pid"], 0.0), r["ended"])
    ends = sorted(last_by_worker.values())
    return (f"timeline: first task began after {min(a for a, _ in spans) - epoch0:.1f} s, the last ended "
            f"{epoch1 - max(b for _, b in spans):.1f} s before the study did; tasks ran {busy:.1f} s of "
            f"{n} x {wall:.1f} s ({100 * busy / (n * wall):.0f}%); workers' last tasks ended "
            f"{ends[-1] - ends[0]:.1f} s apart")


def main() -> None:
    # imported here, not at the top: every local worker runs this file again as
    # __mp_main__ (multiprocessing's spawn preparation), and `walltime run`'s
    # workers import only the light CLI module; top-level imports would charge
    # each worker ~1 s the real command does not pay
    from pipeline.characterize import compute as characterize_compute
    from pipeline.estimates import ensure_estimates
    from pipeline.ingest import ingest
    from pipeline.study import load_study, run_study
    from pipeline.warehouse import Warehouse, transaction

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="1,2", help="worker counts, in the order they run (default 1,2)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="rounds of the worker counts, alternating (a shared machine's load drifts: the best "
                         "wall of each count, and each round's ratio, are printed)")
    ap.add_argument("--no-loops-ceiling", dest="loops_ceiling", action="store_false",
                    help="skip timing the event loops alone in 1 and N processes (~30 s)")
    args = ap.parse_args()
    if not CTC.exists():
        sys.exit(f"{CTC} not found: set WALLTIME_TRACES to the folder with the PWA traces")
    tmp = Path(tempfile.mkdtemp(prefix="walltime-sweep-"))
    try:
        cfg = tmp / "sweep.toml"
        cfg.write_text(STUDY.format(ctc=CTC, estimates=str(ESTIMATES).replace("'", '"')))
        study = load_study(cfg)
        print(f"{len(study.simulations)} simulations of CTC-SP2 (77,222 jobs, 512 nodes)")
        seed = Warehouse(tmp / "seed")
        ingest([CTC], seed, name="CTC")
        ensure_estimates(seed, "CTC", ESTIMATES)
        with seed.writer() as con, transaction(con):  # so the study has only simulations to do
            characterize_compute(con, "CTC")
        counts = [int(w) for w in args.workers.split(",")]
        walls: dict[int, list[float]] = {n: [] for n in counts}
        busy: dict[int, list[float]] = {n: [] for n in counts}
        for rnd in range(args.repeat):
            for n in counts:
                wh_dir = tmp / f"wh{n}-{rnd}"
                shutil.copytree(seed.root, wh_dir)
                load0 = os.getloadavg()[0]
                t0, c0, epoch0 = time.perf_counter(), _cpu(), time.time()
                res = run_study(study, Warehouse(wh_dir), workers=n)
                dt, cpu, epoch1 = time.perf_counter() - t0, _cpu() - c0, time.time()
                ran = sum(1 for r in res.runs if not r["reused"])
                loop = sum(r.get("simulate_s", 0.0) for r in res.runs)
                worker_cpu = sum(r.get("cpu_s") or 0.0 for r in res.runs)
                loop_cpu = sum(r.get("loop_cpu_s") or 0.0 for r in res.runs)
                inputs_s = sum(r.get("load_s") or 0.0 for r in res.runs)
                walls[n].append(dt)
                busy[n].append(sum(r["ended"] - r["began"] for r in res.runs if r.get("began") is not None))
                db_mb = (wh_dir / "walltime.duckdb").stat().st_size / 1e6
                print(f"workers {n}{f' (round {rnd + 1})' if args.repeat > 1 else ''}: {ran} simulations in "
                      f"{dt:.1f} s = {ran / dt:.2f} simulations/s "
                      f"(event loops {loop:.1f} s in total; wall / loops = {dt / loop:.2f}; "
                      f"inputs loaded by the workers {inputs_s:.1f} s in total; "
                      f"CPU per run {worker_cpu / max(ran, 1):.3f} s in the workers' tasks, "
                      f"{cpu / max(ran, 1):.3f} s in this process and its reaped children; "
                      f"DuckDB file {db_mb:.0f} MB; load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end)")
                print("  " + timeline(res.runs, epoch0, epoch1, n))
                if n == 1:  # the whole study ran in this process: its CPU against the loops' CPU
                    print(f"  CPU of the whole sweep / CPU of its loops = {cpu:.1f} s / {loop_cpu:.1f} s "
                          f"= {cpu / max(loop_cpu, 1e-9):.2f} (the aim's ratio, less sensitive to the load)")
                else:  # the workers are the forkserver's children: this is the coordinator alone
                    print(f"  coordinator CPU {cpu:.1f} s ({100 * cpu / (n * dt):.0f}% of the {n} cores' time)")
                shutil.rmtree(wh_dir, ignore_errors=True)
        if 1 in walls:
            one = min(walls[1])
            for n in counts:
                if n == 1:
                    continue
                ceiling = machine_ceiling(n)
                up = None
                if args.loops_ceiling:
                    load0 = os.getloadavg()[0]
                    ser, par, up, cpu_ratio = loops_ceiling(seed.root, cfg, len(study.simulations), n)
                    print(f"the {len(study.simulations)} event loops alone (no coordinator, files or metrics): "
                          f"{ser:.1f} s in 1 process, {par:.1f} s split over {n} (longest first): {up:.2f}x, "
                          f"the ceiling of the sweep's speed-up on this machine now; their CPU time in {n} "
                          f"processes was {cpu_ratio:.2f}x that in 1 (load average {load0:.2f} at start, "
                          f"{os.getloadavg()[0]:.2f} at end)")
                best = min(walls[n])
                pairs = ", ".join(f"{a / b:.2f}x" for a, b in zip(walls[1], walls[n]))
                k = walls[n].index(best)
                slow = busy[n][k] / busy[1][walls[1].index(one)]
                print(f"speed-up with {n} workers: {one / best:.2f}x (best wall of each: {one:.1f} s / {best:.1f} s"
                      f"{f'; round by round {pairs}' if args.repeat > 1 else ''}); this machine's ceiling, {n} "
                      f"independent CPU-bound processes against the same work serially: {ceiling:.2f}x "
                      f"(the sweep reaches {100 * one / best / ceiling:.0f}% of it); with no worker ever idle "
                      f"it would be {one / (busy[n][k] / n):.2f}x: the tasks themselves took {slow:.2f}x as "
                      f"long with {n} processes (load average {os.getloadavg()[0]:.2f})"
                      + (f"; the sweep reaches {100 * one / best / up:.0f}% of its loops' own speed-up" if up else ""))
        print(f"cores: {os.cpu_count()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
