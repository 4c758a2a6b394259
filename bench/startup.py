"""Start-up time of the `walltime` command (issue 11: lazy imports).

    .venv/bin/python bench/startup.py [--repeat 7] [--warehouse DIR]

Times whole processes (`python -m pipeline ...`, the same code the `walltime`
script runs): `--help`, `traces`, `sql "SELECT count(*) FROM jobs"` and, for
reference, `python -c pass`, and prints the median and the best of --repeat
runs. `traces` and `sql` need a warehouse with at least one trace (default: a
fresh one with KTH-SP2 ingested). Aim: each under 0.3 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRACES = Path(os.environ.get("WALLTIME_TRACES", "/work/shared/traces"))


def _time(args: list[str], env: dict, repeat: int, cwd: str | None = None) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) seconds of each whole process. CPU time is
    printed because on this shared machine the wall time mostly measures the
    neighbours: CPU time moves much less with the load."""
    wall, cpu = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        p = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
        _, status, usage = os.wait4(p.pid, 0)
        wall.append(time.perf_counter() - t)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode:
            raise SystemExit(f"{' '.join(args)}: exit code {p.returncode}")
        cpu.append(usage.ru_utime + usage.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--warehouse", type=Path, default=None)
    ap.add_argument("--source", type=Path, action="append", default=[],
                    help="also time this source tree (e.g. an older checkout), in the same run (repeatable)")
    a = ap.parse_args()
    py = [sys.executable]
    with tempfile.TemporaryDirectory() as tmp:
        # An installed walltime has its bytecode compiled; a source tree run with
        # PYTHONDONTWRITEBYTECODE would compile every module at each start. So the
        # bytecode goes to a private cache, filled by one untimed run of each case.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        trees = [REPO, *[p.resolve() for p in a.source]]
        wh = a.warehouse or Path(tmp) / "wh"
        if a.warehouse is None:
            subprocess.run([*py, "-m", "pipeline", "ingest", str(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz"),
                            "--warehouse", str(wh)], env=env, check=True, stdout=subprocess.DEVNULL)
        load = os.getloadavg()[0]
        for tree in trees:
            tenv = dict(env, PYTHONPATH=str(tree))
            if len(trees) > 1:
                print(f"source: {tree}")
            cases = [("python -c pass", [*py, "-c", "pass"]),
                     ("walltime --help", [*py, "-m", "pipeline", "--help"]),
                     ("walltime traces", [*py, "-m", "pipeline", "traces", "--warehouse", str(wh)]),
                     ("walltime sql", [*py, "-m", "pipeline", "sql", "SELECT count(*) FROM jobs", "--warehouse",
                                       str(wh)])]
            # from a neutral directory: `python -m` puts the working directory first on sys.path
            for _, args in cases:
                _time(args, tenv, 1, cwd=tmp)
            for label, args in cases:
                ts, cpu = _time(args, tenv, a.repeat, cwd=tmp)
                verdict = "" if label.startswith("python") else ("  under 0.3 s" if statistics.median(ts) < 0.3
                                                               else "  OVER 0.3 s")
                print(f"{label:18s} median {statistics.median(ts):.3f} s  best {min(ts):.3f} s  "
                      f"CPU median {statistics.median(cpu):.3f} s  ({a.repeat} runs){verdict}")
        print(f"load average (1 min) at start: {load:.2f}, at end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
