"""Time `walltime reproduce` (the whole command: ingest, estimates, simulations,
document), cold (empty warehouse) or warm (a warehouse that holds the runs).

    .venv/bin/python bench/reproduce_papers.py [--quick] [--warehouse DIR] [--out DIR]

Prints the seconds of each paper's compute phase and of the whole command.
docs/reproduction.md is written by `walltime reproduce --out docs`, not here.
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

from pipeline.reproduce import reproduce  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the CI set-up (one trace per paper)")
    ap.add_argument("--warehouse", help="default: a fresh temporary one (cold)")
    ap.add_argument("--out", help="default: a temporary directory")
    args = ap.parse_args()
    os.environ.setdefault("WALLTIME_PROGRESS", "0")
    with tempfile.TemporaryDirectory() as tmp:
        wh = Warehouse(args.warehouse or Path(tmp) / "wh")
        cold = not wh.exists()
        t = time.perf_counter()
        res = reproduce(wh, None, args.out or Path(tmp) / "out", quick=args.quick)
        wall = time.perf_counter() - t
    print(f"walltime reproduce{' --quick' if args.quick else ''} ({'cold' if cold else 'warm'} warehouse): "
          f"{wall:.1f} s whole command, {res.checks} checks ({res.checks / wall:.1f} checks/s); "
          + ", ".join(f"{k} {v:.1f} s" for k, v in res.seconds.items())
          + f"; host load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
