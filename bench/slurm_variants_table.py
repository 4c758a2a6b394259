"""docs/slurm-replay.md's validation table for a variant of the Slurm model that was measured and not adopted.

    python bench/slurm_variants_table.py bestfit [--lab tests/data/slurm-replay]

The same figures as bench/slurm_validation.py (the same code: validate.run_lab), with the kernel's replay
replaced by bench/slurm_twin_variants.py under the switches named (comma-separated; ``none``: the twin itself,
which must print the doc's table). Slow: the twin replays every run (about 15 s each).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("variant")
    ap.add_argument("--lab", default=str(Path(__file__).resolve().parent.parent / "tests/data/slurm-replay"))
    args = ap.parse_args()
    os.environ["SLURM_EXP"] = args.variant
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from slurm_twin_variants import slurm_replay as variant

    from pipeline.simulate.slurm import _kernel
    from pipeline.simulate.slurm.validate import aims, preemption_lines, run_lab, table
    from pipeline.warehouse import Warehouse

    def replay(*args):  # the kernel's signature; the twin takes lists
        head, pre = args[:36], args[36:]
        jq, q_pre, q_mode, q_rank, q_level, rd = pre
        out = variant(*[x.tolist() if isinstance(x, np.ndarray) else x for x in head], jq=jq.tolist(),
                      q_pre=q_pre.tolist(), q_mode=q_mode.tolist(), q_rank=q_rank.tolist(),
                      q_level=q_level.tolist(), requeue_delay=int(rd))
        start, bf, prio, alloc, npre, cut, release = out
        nn = np.asarray(head[13])
        if len(alloc) != int(nn.sum()):  # (flex: a job on fewer nodes than the log's) its first nodes, repeated
            alloc = np.zeros(int(nn.sum()), np.int64)
        return (np.array(start, np.int64), np.array(bf, np.bool_), np.array(prio, np.int64),
                np.array(alloc, np.int64), np.array(npre, np.int64), np.array(cut, np.int64),
                np.array(release, np.int64))

    _kernel.slurm_replay = replay
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        slurm, pool = run_lab(Warehouse(d), args.lab)
    print(f"variant {args.variant}:")
    print(table(slurm, pool))
    print()
    print(aims(slurm))
    print(preemption_lines(slurm))
    print(f"\n{time.perf_counter() - t:.1f} s")
