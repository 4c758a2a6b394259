"""First simulation and first study in a fresh install (issue 11: compile under
8 s, or compiled ahead with the user told).

    python bench/compile.py [--trace KTH-SP2-1996-2.1-cln.swf.gz] [--workers 2] [--peer /work/main]

A fresh install is an empty NUMBA_CACHE_DIR (Numba's cache and the
compiled-ahead module, pipeline/simulate/aot.py, both live there). Each case is
a whole process (`python -m pipeline ...`, what `walltime` runs) on a copy of
one warehouse holding the trace, its characterization and its estimates, so only
the loop's compilation differs:

- `simulate`, fresh: the compiled-ahead module is built in the foreground (the
  user is told), then the run; `WALLTIME_AOT=0`: Numba's JIT compiles instead.
- `simulate` again on the same cache: what every later run costs.
- `run` of a 4-simulation study with --workers local processes, fresh: the
  coordinator builds the module once before the workers start (they load it);
  `WALLTIME_AOT=0`: the coordinator JIT-compiles once, the workers load Numba's
  cache. With --peer (another checkout, e.g. the code before this change) the
  same study runs on that code too: there every worker JIT-compiled on its own.

Prints wall and CPU seconds (the process and the children it reaped) and the
machine's load average, since wall time on a shared machine measures the
neighbours too. A study's CPU is its coordinator's only: the workers are the
forkserver's children, and the forkserver is never reaped by the coordinator,
so their CPU (where the peer's per-worker JIT compiles happen) is not counted. Takes a few minutes: every fresh case compiles for 25-50 CPU-s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRACES = Path(os.environ.get("WALLTIME_TRACES") or REPO.parent / "shared" / "traces")
STUDY = """\
[study]
name = "first"

[[traces]]
path = "{trace}"
name = "{name}"

[estimates]
schemes = ["request"]

[[simulations]]
policy = ["fcfs", "sjf"]
backfill = ["none", "easy"]
estimate = ["request"]
"""


def run(args: list[str], env: dict, cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of one whole process (with the children it reaped), and its stderr."""
    t = time.perf_counter()
    p = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, text=True)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(args)}: failed\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, err


def seed(tmp: Path, trace: Path) -> Path:
    """A warehouse with the trace ingested, characterized and its request estimates stored."""
    from pipeline.characterize import compute as characterize_compute
    from pipeline.estimates import ensure_estimates
    from pipeline.ingest import ingest
    from pipeline.warehouse import Warehouse, transaction

    wh = Warehouse(tmp / "seed")
    name = ingest([trace], wh)[0].trace
    with wh.writer() as con, transaction(con):
        characterize_compute(con, name)
    ensure_estimates(wh, name, ["request"])
    return wh.root


def uptime() -> str:
    try:
        return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default="KTH-SP2-1996-2.1-cln.swf.gz")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--peer", type=Path, help="another checkout whose study runs the same way, for comparison")
    ap.add_argument("--only", default="", help="comma-separated case names to run (default: all)")
    args = ap.parse_args()
    trace = TRACES / args.trace
    with tempfile.TemporaryDirectory(prefix="walltime-compile-") as d:
        tmp = Path(d)
        root = seed(tmp, trace)
        name = trace.name.removesuffix(".gz").removesuffix(".swf")
        (tmp / "study.toml").write_text(STUDY.format(trace=trace, name=name))
        cases = [  # label, code checkout, extra env, argv, fresh cache
            ("simulate, fresh install (builds the module)", REPO, {}, ["simulate", name], True),
            ("simulate again (module built)", REPO, {}, ["simulate", name, "--force"], False),
            ("simulate, fresh install, WALLTIME_AOT=0 (JIT)", REPO, {"WALLTIME_AOT": "0"},
             ["simulate", name], True),
            (f"run study (4 sims, {args.workers} workers), fresh install", REPO, {},
             ["run", str(tmp / "study.toml"), "--workers", str(args.workers)], True),
            (f"run study (4 sims, {args.workers} workers), fresh, WALLTIME_AOT=0", REPO, {"WALLTIME_AOT": "0"},
             ["run", str(tmp / "study.toml"), "--workers", str(args.workers)], True),
        ]
        if args.peer:
            cases.append((f"run study (4 sims, {args.workers} workers), fresh, peer {args.peer}", args.peer, {},
                          ["run", str(tmp / "study.toml"), "--workers", str(args.workers)], True))
        only = [s for s in args.only.split(",") if s]
        cache = None
        for i, (label, code, extra, argv, fresh) in enumerate(cases):
            if only and str(i) not in only:
                continue
            if fresh or cache is None:
                cache = tmp / f"cache{i}"
            wh = tmp / f"wh{i}"
            shutil.copytree(root, wh)
            env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(code), "WALLTIME_PROGRESS": "0",
                   **extra}
            if argv[0] == "run":
                env["WALLTIME_WAREHOUSE"] = str(wh)
                cmd = [sys.executable, "-m", "pipeline", *argv]
            else:
                cmd = [sys.executable, "-m", "pipeline", *argv, "--warehouse", str(wh)]
            load = uptime()
            wall, cpu, err = run(cmd, env, code)
            told = [ln for ln in err.splitlines() if "compil" in ln]
            who = " (coordinator)" if argv[0] == "run" else ""
            print(f"[{i}] {label:<62} {wall:7.1f} s wall {cpu:7.1f} s CPU{who}  ({load})", flush=True)
            for ln in told:
                print(f"      told: {ln.strip()[:150]}")
    print(f"at the end: {uptime()}")


if __name__ == "__main__":
    main()
