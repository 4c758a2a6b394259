"""The Slurm model beside repeated real runs (tests/data/slurm-replay): prints docs/slurm-replay.md's
Validation table and the whole command's time; ``--write`` also puts the table into docs/slurm-replay.md between
its markers (tests/test_slurm_replay.py checks that the doc's table is the lab's).

    python bench/slurm_validation.py [--lab tests/data/slurm-replay] [--write]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from pipeline.simulate.slurm.validate import aims, preemption_lines, run_lab, table
from pipeline.warehouse import Warehouse

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--lab", default=str(Path(__file__).resolve().parent.parent / "tests/data/slurm-replay"))
    ap.add_argument("--write", action="store_true", help="rewrite docs/slurm-replay.md's validation table")
    args = ap.parse_args()
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        slurm, pool = run_lab(Warehouse(d), args.lab)
    block = table(slurm, pool) + "\n\n" + aims(slurm) + "\n" + preemption_lines(slurm)
    print(block)
    if args.write:
        doc = Path(__file__).resolve().parent.parent / "docs/slurm-replay.md"
        head = "<!-- validation table: python bench/slurm_validation.py -->\n"
        text, n = re.subn(re.escape(head) + r".*?\n<!-- end -->", lambda _: head + block + "\n<!-- end -->",
                          doc.read_text(), flags=re.S)
        if n != 1:
            raise SystemExit(f"{doc}: the validation table's markers are missing")
        doc.write_text(text)
        print(f"(written into {doc})")
    print(f"\n{time.perf_counter() - t:.1f} s (ingest every run, replay each twice, compare)")
