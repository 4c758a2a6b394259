"""Ingest speed: HPC2N, SDSC-BLUE, a synthetic 5-million-line SWF, and a
sacct dump of 2 million lines built from the real lab dumps.

Each trace is loaded by the real library call (pipeline.ingest.ingest) into
one temporary warehouse (created first, so its schema set-up is not timed); the phases come from the call's own timings:
read = open + decompress + sha256, parse = tokenize + typed columns + derived
columns, write = one DuckDB transaction + the Parquet mirror. Also prints the
tokenizer alone against the naive Python reader (str.split + int/float per
field, the twin used by the tests), and the peak memory of this process.

    .venv/bin/python bench/ingest.py [--lines 5000000] [--sacct-lines 2000000] [--traces DIR]
    .venv/bin/python bench/ingest.py --only-sacct      # the sacct case alone
    .venv/bin/python bench/ingest.py --only-swf        # the SWF cases alone
    .venv/bin/python bench/ingest.py --only-sacct --cli --peer /work/main   # + the whole command, both trees

``--cli`` also times the whole ``walltime ingest`` command as a user waits for
it (a new process: start-up, imports, kernel load, a new warehouse), after
building the tree's ingest kernels ahead of time (pipeline/ingest/aot.py, as
`walltime warm-up` does; a tree without that module uses Numba's JIT); with
``--peer DIR`` the same command runs on the code in DIR (e.g. main's tree,
before a change) in the same run, alternating, for a before/after ratio.

Both big cases end with one line "N lines -> J jobs: ... X M lines/s end to
end" and one line with the naive twin's lines/s on the first 100,000 lines
of the same file and the ratio, measured in the same run.

The sacct case (bench/synth_sacct.py): copies of slurm-lab-sacct.txt, steps
included, each with job ids moved on by 1000 and dates by one day; lines/s
counts every line of the dump (steps too), end to end (read, parse, derive,
DuckDB + Parquet write). Its naive twin (tests/naive_sacct.py, a plain
Python line-by-line reader) runs on the first 100,000 lines for the ratio.

Speed depends on the machine and on what else runs; CPU seconds are printed
next to wall seconds so a busy machine shows as wall >> cpu.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests"))  # the naive twins

import naive_swf  # noqa: E402
import synth_sacct  # noqa: E402
import synth_swf  # noqa: E402

from pipeline.ingest import ingest, reader, swf, tokenizer  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402


def naive_parse(data: bytes) -> int:
    """The obvious Python loop: split each job line, convert each field."""
    n = 0
    for line in data.decode().splitlines():
        s = line.strip()
        if not s or s.startswith(";"):
            continue
        tokens = s.split()
        [int(t) if i not in tokenizer.FLOAT_FIELDS else float(t) for i, t in enumerate(tokens[:18])]
        n += 1
    return n


def _load() -> str:
    """The machine's load average: on a shared machine wall >> cpu when it is high."""
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def bench_one(path: Path, name: str, wh: Warehouse) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    [res] = ingest([path], wh, name=name)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"name": name, "jobs": res.jobs, "wall": wall, "cpu": cpu, **res.timings}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=5_000_000)
    ap.add_argument("--traces", type=Path,
                    default=Path(os.environ.get("WALLTIME_TRACES") or REPO.parent / "shared" / "traces"))
    ap.add_argument("--sacct-lines", type=int, default=2_000_000)
    ap.add_argument("--only-sacct", action="store_true")
    ap.add_argument("--epoch", action="store_true", help="sacct: also the dump with Unix-second times (SLURM_TIME_FORMAT=%%s)")
    ap.add_argument("--only-swf", action="store_true")
    ap.add_argument("--cli", action="store_true", help="also time the whole `walltime ingest` process")
    ap.add_argument("--peer", type=Path, help="with --cli: a second source tree timed the same way (before/after)")
    ap.add_argument("--repeat", type=int, default=2, help="with --cli: runs per tree (best and median printed)")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores; {_load()}", flush=True)
    if not args.only_swf:
        bench_sacct(args)
    if args.only_sacct:
        return

    tokenizer.run(np.frombuffer(b"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n", np.uint8))  # JIT/cache load
    with tempfile.TemporaryDirectory(prefix="walltime-bench-") as tmp:
        tmp = Path(tmp)
        big = tmp / "synthetic.swf"
        t = time.perf_counter()
        synth_swf.build(args.traces / "SDSC-BLUE-2000-4.2-cln.swf.gz", args.lines, big)
        print(f"built {big.name}: {args.lines:,} lines, {big.stat().st_size / 1e6:.0f} MB "
              f"from SDSC-BLUE in {time.perf_counter() - t:.1f}s", flush=True)

        wh = Warehouse(tmp / "wh")  # one warehouse, as a user would load them
        with wh.writer():
            pass  # create it and apply the migrations outside the timings
        runs = [
            (args.traces / "HPC2N-2002-2.2-cln.swf.gz", "HPC2N"),
            (args.traces / "SDSC-BLUE-2000-4.2-cln.swf.gz", "SDSC-BLUE"),
            (big, "synthetic-5M" if args.lines == 5_000_000 else f"synthetic-{args.lines}"),
        ]
        print(f"{'trace':<14}{'jobs':>11}{'wall s':>8}{'cpu s':>8}{'lines/s':>12}"
              f"{'read':>8}{'parse':>8}{'write':>8}   (phase lines/s)")
        for path, name in runs:
            r = bench_one(path, name, wh)
            rate = lambda s: f"{r['jobs'] / s / 1e6:.2f}M" if s >= 0.005 else "-"  # noqa: E731  (a mapped file: no read)
            print(f"{name:<14}{r['jobs']:>11,}{r['wall']:>8.2f}{r['cpu']:>8.2f}{rate(r['wall']):>12}"
                  f"{rate(r['read_s']):>8}{rate(r['parse_s']):>8}{rate(r['write_s']):>8}   "
                  f"{rate(r['cpu'])} per CPU-s; {_load()}", flush=True)
        # the whole 5M-line case against the naive twin (plain Python), in the same run
        lines = sum(1 for _ in open(big, "rb"))
        swf_rate = lines / r["wall"]
        head = tmp / "head.swf"
        with open(big, "rb") as src, open(head, "wb") as dst:
            for _, line in zip(range(100_000), src):
                dst.write(line)
        t = time.perf_counter()
        naive = len(naive_swf.naive_jobs(head.read_bytes()))
        slow = 100_000 / (time.perf_counter() - t)
        print(f"swf {lines:,} lines -> {r['jobs']:,} jobs: wall {r['wall']:.2f}s, cpu {r['cpu']:.2f}s, "
              f"{swf_rate / 1e6:.2f}M lines/s end to end (read {r['read_s']:.2f}s, parse {r['parse_s']:.2f}s, "
              f"write {r['write_s']:.2f}s wall{_write_parts(r)}; {_load()})", flush=True)
        print(f"naive twin (tests/naive_swf.py, plain Python, first 100,000 lines, {naive:,} jobs): "
              f"{slow / 1e6:.3f}M lines/s; ingest is {swf_rate / slow:.1f}x faster end to end", flush=True)
        if args.cli:
            cli_case(args, "swf", big, lines, [], tmp)

        # the tokenizer against its naive twin, on SDSC-BLUE
        data = reader.read_bytes(args.traces / "SDSC-BLUE-2000-4.2-cln.swf.gz")
        t = time.perf_counter()
        parsed = swf.parse(data)
        fast = time.perf_counter() - t
        t = time.perf_counter()
        n = naive_parse(data)
        slow = time.perf_counter() - t
        assert n == parsed.jobs.height
        print(f"parse SDSC-BLUE: swf.parse {n / fast / 1e6:.2f}M lines/s, naive Python "
              f"{n / slow / 1e6:.2f}M lines/s, ratio {slow / fast:.1f}x")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS of this process): {peak:,.0f} MB")


def _write_parts(tm: dict) -> str:
    """The write phase's parts, when the code reports them (jobs files, then the catalogue's COMMIT)."""
    if "files_s" in tm and "commit_s" in tm:
        return f" = jobs files {tm['files_s']:.2f}s + catalogue {tm['commit_s']:.2f}s"
    return ""


def cli_case(args, kind: str, path: Path, lines: int, extra: list[str], tmp: Path) -> None:
    """The whole command in a new process, as a user runs it (new warehouse each
    time; the input file is in the page cache after the first read). With
    --peer, the peer tree alternates with this one."""
    import statistics
    import subprocess

    trees = [("this tree", REPO)] + ([("peer " + str(args.peer), args.peer.resolve())] if args.peer else [])
    for name, tree in trees:  # the steady state after install: the ingest kernels compiled ahead, where a tree has them
        if (tree / "pipeline" / "ingest" / "aot.py").exists() and os.environ.get("WALLTIME_AOT", "1") != "0":
            out = subprocess.run([sys.executable, "-m", "pipeline.ingest.aot"], cwd=tmp, capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": str(tree)})
            print(f"  {name}: ingest kernels {out.stdout.strip().rsplit('/', 1)[-1]}", flush=True)
        else:
            print(f"  {name}: ingest kernels by Numba's JIT (no ahead-of-time module in this tree)", flush=True)
    walls: dict[str, list[float]] = {name: [] for name, _ in trees}
    cpus: dict[str, list[float]] = {name: [] for name, _ in trees}
    for i in range(args.repeat):
        for name, tree in trees:
            wh = tmp / f"cli-wh-{i}-{len(walls[name])}-{tree.name}"
            env = {**os.environ, "PYTHONPATH": str(tree), "WALLTIME_PROGRESS": "0"}
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pipeline", "ingest", str(path), *extra, "--warehouse", str(wh)],
                           cwd=tmp, env=env, check=True, capture_output=True)
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            walls[name].append(wall)
            cpus[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            import shutil

            shutil.rmtree(wh, ignore_errors=True)
            print(f"  {kind} whole command ({name}): wall {wall:.2f}s, cpu {cpus[name][-1]:.2f}s, "
                  f"{lines / wall / 1e6:.2f}M lines/s; {_load()}", flush=True)
    for name, _ in trees:
        best, med = min(walls[name]), statistics.median(walls[name])
        print(f"{kind} `walltime ingest` whole command, {name}: best {best:.2f}s wall = {lines / best / 1e6:.2f}M "
              f"lines/s, median {med:.2f}s, cpu median {statistics.median(cpus[name]):.2f}s", flush=True)
    if args.peer:
        a, b = statistics.median(walls[trees[0][0]]), statistics.median(walls[trees[1][0]])
        print(f"{kind}: this tree takes {a / b:.2f}x the peer's wall time (median of {args.repeat} each, "
              f"alternating); {b / a:.2f}x faster", flush=True)


def bench_sacct(args) -> None:
    import naive_sacct

    from pipeline.ingest.formats import IngestOptions

    with tempfile.TemporaryDirectory(prefix="walltime-bench-sacct-") as tmp:
        tmp = Path(tmp)
        big = tmp / "sacct-big.txt"
        t = time.perf_counter()
        lines = synth_sacct.build(args.traces / "slurm-lab-sacct.txt", args.sacct_lines, big)
        print(f"built {big.name}: {lines:,} lines, {big.stat().st_size / 1e6:.0f} MB from the lab dump "
              f"in {time.perf_counter() - t:.1f}s", flush=True)
        wh = Warehouse(tmp / "wh")
        with wh.writer():
            pass
        opts = IngestOptions(format="sacct", tz="Europe/Berlin", slurm_conf=str(args.traces / "slurm-lab.conf"))
        ingest([args.traces / "slurm-lab-sacct-X.txt"], wh, name="warm", options=opts)  # JIT caches, imports
        t0, c0 = time.perf_counter(), time.process_time()
        [res] = ingest([big], wh, name="sacct-big", options=opts)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        tm = res.timings
        print(f"sacct {lines:,} lines -> {res.jobs:,} jobs ({res.counts['steps_skipped']:,} steps skipped): "
              f"wall {wall:.2f}s, cpu {cpu:.2f}s, {lines / wall / 1e6:.2f}M lines/s end to end "
              f"({lines / cpu / 1e6:.2f}M lines per CPU-second; read {tm['read_s']:.2f}s, "
              f"parse {tm['parse_s']:.2f}s, write {tm['write_s']:.2f}s wall{_write_parts(tm)}; {_load()})", flush=True)
        head = tmp / "sacct-head.txt"
        with open(big) as src, open(head, "w") as dst:
            for _, line in zip(range(100_001), src):
                dst.write(line)
        t = time.perf_counter()
        naive_sacct.parse(head, "Europe/Berlin")
        slow = 100_000 / (time.perf_counter() - t)
        print(f"naive twin (plain Python, first 100,000 lines): {slow / 1e6:.3f}M lines/s; "
              f"ingest is {lines / wall / slow:.1f}x faster end to end", flush=True)
        if args.epoch:  # the same dump with SLURM_TIME_FORMAT=%s: the times read by Polars, not the scan
            epoch = tmp / "sacct-big-epoch.txt"
            synth_sacct.to_epoch(big, epoch, "Europe/Berlin")
            t0 = time.perf_counter()
            [res_e] = ingest([epoch], wh, name="sacct-big-epoch", options=opts)
            wall_e = time.perf_counter() - t0
            print(f"sacct {lines:,} lines, Unix-second times (detected): {res_e.jobs:,} jobs, wall {wall_e:.2f}s, "
                  f"{lines / wall_e / 1e6:.2f}M lines/s; {wall_e / wall:.2f}x the ISO dump's time ({_load()})",
                  flush=True)
        if args.cli:
            cli_case(args, "sacct", big, lines, ["--format", "sacct", "--tz", "Europe/Berlin", "--slurm-conf",
                                                 str(args.traces / "slurm-lab.conf")], tmp)


if __name__ == "__main__":
    main()
