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


def _time(args: list[str], env: dict, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--warehouse", type=Path, default=None)
    a = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    py = [sys.executable]
    with tempfile.TemporaryDirectory() as tmp:
        wh = a.warehouse or Path(tmp) / "wh"
        if a.warehouse is None:
            subprocess.run([*py, "-m", "pipeline", "ingest", str(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz"),
                            "--warehouse", str(wh)], env=env, check=True, stdout=subprocess.DEVNULL)
        cases = [("python -c pass", [*py, "-c", "pass"]),
                 ("walltime --help", [*py, "-m", "pipeline", "--help"]),
                 ("walltime traces", [*py, "-m", "pipeline", "traces", "--warehouse", str(wh)]),
                 ("walltime sql", [*py, "-m", "pipeline", "sql", "SELECT count(*) FROM jobs", "--warehouse", str(wh)])]
        load = os.getloadavg()[0]
        for label, args in cases:
            ts = _time(args, env, a.repeat)
            verdict = "" if label.startswith("python") else ("  under 0.3 s" if statistics.median(ts) < 0.3
                                                           else "  OVER 0.3 s")
            print(f"{label:18s} median {statistics.median(ts):.3f} s  best {min(ts):.3f} s  ({a.repeat} runs){verdict}")
        print(f"load average (1 min) at start: {load:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
