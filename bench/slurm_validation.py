"""The Slurm model beside repeated real runs (tests/data/slurm-replay): prints docs/slurm-replay.md's
Validation table and the whole command's time.

    python bench/slurm_validation.py [--lab tests/data/slurm-replay]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pipeline.simulate.slurm.validate import aims, preemption_lines, run_lab, table
from pipeline.warehouse import Warehouse

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--lab", default=str(Path(__file__).resolve().parent.parent / "tests/data/slurm-replay"))
    args = ap.parse_args()
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        slurm, pool = run_lab(Warehouse(d), args.lab)
    print(table(slurm, pool))
    print()
    print(aims(slurm))
    print(preemption_lines(slurm))
    print(f"\n{time.perf_counter() - t:.1f} s (ingest every run, replay each twice, compare)")
