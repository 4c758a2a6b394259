"""Speed and properties of `walltime generate` (1M jobs by default).

    .venv/bin/python bench/generate.py [--jobs 1000000] [--capacity 256] [--load 0.7]

Prints jobs/s for each phase (model, EASY wait times, SWF text + write, gzip)
and the EASY kernel's speed-up over its plain Python twin (tests/).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from pipeline.generate import generate, offered_load, swf_header, write_swf
from pipeline.generate.waits import easy_waits


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=1_000_000)
    ap.add_argument("--capacity", type=int, default=256)
    ap.add_argument("--load", type=float, default=0.7)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    n = a.jobs

    easy_waits(np.zeros(1, np.int64), np.ones(1, np.int64), np.ones(1, np.int64), np.ones(1, np.int64), 1)  # JIT
    clock = []

    def tick() -> None:
        clock.append((time.perf_counter(), time.process_time()))

    tick()
    df = generate(n, a.seed, a.capacity, a.load, waits="none")
    tick()
    wait = easy_waits(df["submit"].to_numpy(), df["run"].to_numpy(), df["req"].to_numpy(), df["procs"].to_numpy(), a.capacity)
    tick()
    df = df.with_columns(pl.Series("wait", wait))
    header = swf_header(df, seed=a.seed, capacity=a.capacity, load=a.load)
    with tempfile.TemporaryDirectory() as tmp:
        tick()
        _, size = write_swf(df, header, Path(tmp) / "w.swf")
        tick()
        _, gz_size = write_swf(df, header, Path(tmp) / "w.swf.gz")
        tick()
    (w0, c0), (w1, c1), (w2, c2), (w3, c3), (w4, c4), (w5, c5) = clock
    print(f"jobs {n:,}  capacity {a.capacity}  load {a.load}  seed {a.seed}  (wall and CPU seconds; "
          f"host load average {os.getloadavg()[0]:.1f})")
    for name, w, c in [("model (no waits)", w1 - w0, c1 - c0), ("EASY wait times", w2 - w1, c2 - c1),
                       ("write .swf", w4 - w3, c4 - c3), ("write .swf.gz", w5 - w4, c5 - c4),
                       ("total, plain .swf", (w2 - w0) + (w4 - w3), (c2 - c0) + (c4 - c3))]:
        print(f"  {name:<18} wall {w:6.2f} s  cpu {c:6.2f} s  {n / w:12,.0f} jobs/s")
    print(f"  file {size / 1e6:.1f} MB, gzip {gz_size / 1e6:.1f} MB")

    r = df["run"] / df["req"]
    span = int(df["submit"].max())
    print("properties:")
    print(f"  span {span / 86400:.1f} days, offered load {offered_load(df, a.capacity):.4f}, "
          f"users {df['user_id'].n_unique()}, projects {df['group_id'].n_unique()}, templates (exe) {df['exe_id'].n_unique()}")
    print(f"  R: mean {r.mean():.3f}, median {r.median():.3f}, share < 0.5 {(r < 0.5).mean():.3f}; "
          f"killed at limit {((df['status'] == 0) & (df['run'] == df['req'])).mean():.3f}; "
          f"run < 90 s {(df['run'] < 90).mean():.3f}")
    print(f"  sizes: serial {(df['procs'] == 1).mean():.3f}, mean {df['procs'].mean():.1f}, max {df['procs'].max()}; "
          f"waits: mean {df['wait'].mean():,.0f} s, median {df['wait'].median():,.0f} s, zero {(df['wait'] == 0).mean():.3f}")


if __name__ == "__main__":
    main()
