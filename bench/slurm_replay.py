"""Speed of the Slurm-shaped replay's kernel (pipeline/simulate/slurm/_kernel.py, docs/slurm-replay.md).

    .venv/bin/python bench/slurm_replay.py [--jobs 1000000] [--seed 1] [--load 0.9] [--ranges 0.5]

A synthetic site: 4,000 nodes of 64 cores (2 threads each, 128 CPUs) and 256,000 MB, the last 500 with 4 GPUs;
four overlapping partitions (all nodes; nodes 0-1999; nodes 1000-3999; the 500 GPU nodes, PriorityTier 1);
50 users in 10 accounts. Jobs drawn with a fixed seed: Poisson arrivals at a core load near --load, 1-256 CPUs
mostly small (above 128 CPUs: several nodes), some multi-node exclusive, some GPU jobs, limits over-estimating
runs. Slurm parameters like a real site: calc period 300 s, sched interval 60 s, default_queue_depth 100,
bf_interval 30 s, bf_window 1 day, bf_max_job_test 500, decay half-life and max age 7 days.
``--ranges F``: a share F of the jobs that are neither exclusive nor GPU jobs and need two cores or more get a
node range (docs/slurm-replay.md "A node range"; replay.py's rule: k nodes of ceil(CPUs / k) CPUs for every k
from its node count up whose shape holds no more cores in all).
The kernel is called once on a small input (compile or load the cache), then timed on the whole workload.
Aim: >= 100,000 jobs/s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pipeline.simulate.slurm._kernel import no_preemption, slurm_replay  # noqa: E402

K, CORES, TPU, MEM, GPU_NODES = 4000, 64, 2, 256_000, 500
DAY = 86_400


def cluster():
    """(node_units, node_tpu, node_mem, node_gpus, part_nodes, part_tier)."""
    units = np.full(K, CORES, np.int64)
    tpu = np.full(K, TPU, np.int64)
    mem = np.full(K, MEM, np.int64)
    gpus = np.zeros(K, np.int64)
    gpus[K - GPU_NODES:] = 4
    parts = np.zeros((4, K), np.bool_)
    parts[0] = True
    parts[1, :2000] = True
    parts[2, 1000:] = True
    parts[3, K - GPU_NODES:] = True
    return units, tpu, mem, gpus, parts, np.array([0, 0, 0, 1], np.int64)


def associations():
    """Root, 10 accounts, 5 users under each: (parent, shares, is_user)."""
    parent = [-1] + [0] * 10 + [1 + a for a in range(10) for _ in range(5)]
    rng = np.random.default_rng(7)
    shares = [1] + list(rng.integers(1, 11, 10)) + [1] * 50
    user = [False] * 11 + [True] * 50
    return np.array(parent, np.int64), np.array(shares, np.int64), np.array(user, np.bool_)


def workload(n: int, seed: int, load: float):
    """The job arrays (elig, run, limit, part, nn, cpn, mem, gpn, excl, assoc, base, rjob: one queue record per
    job, juser: the user of its association), sorted by eligible time."""
    rng = np.random.default_rng(seed)
    kind = rng.random(n)
    gpu = kind < 0.08
    wide = (kind >= 0.08) & (kind < 0.12)  # multi-node exclusive
    excl = wide | ((kind >= 0.12) & (kind < 0.14))
    cpus = np.where(rng.random(n) < 0.7, rng.integers(1, 9, n), rng.integers(9, 257, n))
    cpus = np.where(gpu, rng.integers(4, 33, n), cpus)
    nn = np.where(cpus > CORES * TPU, -(-cpus // (CORES * TPU)), 1)
    nn = np.where(wide, rng.integers(2, 17, n), nn)
    cpn = -(-cpus // nn)
    gpn = np.where(gpu, rng.integers(1, 5, n), 0)
    mem = np.minimum(cpn * rng.choice([1000, 2000, 4000], n), MEM)
    part = rng.choice(3, n, p=[0.5, 0.25, 0.25])
    part = np.where(gpu, 3, part)
    run = np.minimum(np.exp(rng.normal(np.log(1800), 1.5, n)), 2 * DAY).astype(np.int64)
    limit = np.maximum(run * rng.uniform(1.0, 6.0, n), run + 60)
    limit = np.minimum(-(-limit // 900) * 900, 3 * DAY).astype(np.int64)
    limit = np.maximum(limit, np.maximum(run, 1))
    cores = np.where(excl, CORES, -(-cpn // TPU)) * nn
    rate = load * K * CORES / float((cores * run).mean())  # arrivals per second
    elig = np.floor(np.cumsum(rng.exponential(1.0 / rate, n))).astype(np.int64)
    assoc = 11 + np.minimum(rng.zipf(1.5, n) - 1, 49)
    base = (1000.0 * (nn / K + cpn * nn / (K * CORES * TPU)) / 2 + np.where(part == 3, 500.0, 0.0))
    return (elig, run, limit, part.astype(np.int64), nn.astype(np.int64), cpn.astype(np.int64),
            mem.astype(np.int64), gpn.astype(np.int64), excl, assoc.astype(np.int64), base.astype(np.float64),
            np.arange(n, dtype=np.int64), (assoc - 11).astype(np.int64))


PARAMS = (1000.0, 7 * DAY, 10000.0, 300, 7 * DAY, True, 60, 100, 30, DAY, 500, 60, 30, 0)  # w_age .. bf_max_job_user


def node_ranges(jobs, share: float, seed: int):
    """Further shapes (xjob, xnn, xcpn, xmem, xgpn) for a share of the jobs that can spread."""
    rng = np.random.default_rng(seed + 1)
    _, _, _, _, nn, cpn, mem, gpn, excl = jobs[:9]
    x = []
    for j in np.flatnonzero((rng.random(len(nn)) < share) & ~excl & (gpn == 0)):
        c, first = int(nn[j] * cpn[j]), int(nn[j])
        cores = first * -(-(-(-c // first)) // TPU)
        for k in range(first + 1, min(K, -(-c // TPU)) + 1):
            per = -(-c // k)
            if k * -(-per // TPU) == cores:
                x.append((j, k, per, -(-int(mem[j]) * first // k), 0))
    return [np.array(c, np.int64) for c in zip(*x)] if x else None


def call(jobs, shapes=None):
    units, tpu, mem, gpus, parts, tiers = cluster()
    parent, shares, user = associations()
    more = {} if shapes is None else {"shapes": shapes}
    return slurm_replay(units, tpu, mem, gpus, parts, tiers, parent, shares, user, *jobs, *PARAMS,
                        *no_preemption(len(jobs[0])), **more)


def main() -> None:
    global PARAMS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--twin-jobs", type=int, default=300, help="jobs the naive twin replays beside the kernel")
    ap.add_argument("--bf-max-job-test", type=int, default=PARAMS[10], help="jobs each backfill pass tests")
    ap.add_argument("--bf-interval", type=int, default=PARAMS[8], help="seconds between backfill passes (0: none)")
    ap.add_argument("--ranges", type=float, default=0.0, help="share of the jobs that may spread with a node range")
    args = ap.parse_args()
    PARAMS = PARAMS[:8] + (args.bf_interval, PARAMS[9], args.bf_max_job_test) + PARAMS[11:]
    jobs = workload(args.jobs, args.seed, args.load)
    shapes = node_ranges(jobs, args.ranges, args.seed) if args.ranges > 0 else None
    if shapes is not None:
        print(f"node ranges: {len(np.unique(shapes[0])):,} jobs with {len(shapes[0]):,} further shapes")
    t = time.perf_counter()
    call(tuple(a[:1000] for a in jobs))
    print(f"warm-up (compile or cache load, 1,000 jobs): {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    start, backfilled, prio, alloc = call(jobs, shapes)[:4]
    dt = time.perf_counter() - t
    elig, run = jobs[0], jobs[1]
    wait = start - elig
    span = (start + run).max() - elig[0]
    print(f"{args.jobs:,} jobs over {span / DAY:.1f} days: {dt:.2f} s, {args.jobs / dt:,.0f} jobs/s")
    print(f"mean wait {wait.mean() / 60:.1f} min, median {np.median(wait) / 60:.1f} min, "
          f"max {wait.max() / 3600:.1f} h; backfilled {backfilled.mean():.1%}")
    if args.twin_jobs:
        beside_twin(tuple(a[:args.twin_jobs] for a in jobs), shapes)


def beside_twin(jobs, shapes=None) -> None:
    """The naive twin (tests/naive_slurm.py) and the kernel on the same first jobs: rates, ratio, equality."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    from naive_slurm import slurm_replay as twin

    n = len(jobs[0])
    if shapes is not None:
        keep = shapes[0] < n
        shapes = [c[keep] for c in shapes] if keep.any() else None
    more = {} if shapes is None else {"shapes": [c.tolist() for c in shapes]}
    t = time.perf_counter()
    k_out = call(jobs, shapes)
    k_dt = time.perf_counter() - t
    units, tpu, mem, gpus, parts, tiers = cluster()
    parent, shares, user = associations()
    t = time.perf_counter()
    t_out = twin(*(a.tolist() for a in (units, tpu, mem, gpus, parts, tiers, parent, shares, user)),
                 *(a.tolist() for a in jobs), *PARAMS, **more)
    t_dt = time.perf_counter() - t
    same = all(list(a) == list(b) for a, b in zip((x.tolist() for x in k_out), t_out))
    print(f"the first {n:,} jobs: kernel {n / k_dt:,.0f} jobs/s, naive twin {n / t_dt:,.1f} jobs/s "
          f"({t_dt / k_dt:,.0f}x); equal on every job: {same}")


if __name__ == "__main__":
    main()
