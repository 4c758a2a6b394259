"""``walltime warm-up``: compile the simulator, the ingest tokenizers and the kernels left to Numba's JIT
now rather than at first use."""

from __future__ import annotations

import time

from ._app import app


@app.command("warm-up")
def warm_up() -> None:
    """Compile every kernel now rather than at first use (once per install and version; about 3 min of CPU).

    The event loop and the ingest tokenizers are compiled ahead of time; the
    node-aware, forecast, Slurm and estimator kernels into Numba's cache.
    `walltime ingest` at a terminal starts the event loop's build in the
    background; `walltime simulate` waits for it or builds it when needed; the
    other kernels compile at their first use. Run it after installing to make
    the first simulation start at once, every ingest skip loading Numba, and no
    first node-aware, forecast, Slurm or estimator run wait for a compile.
    """
    from .. import progress

    _warm_up_ingest()
    _warm_up_simulator()
    t = time.perf_counter()
    progress.note("the node-aware, forecast, Slurm and estimator kernels: loaded from Numba's cache, or compiled "
                  "once (about 90 s of CPU on an idle machine)")
    _warm_up_kernels()
    print(f"the node-aware, forecast, Slurm and estimator kernels are ready ({time.perf_counter() - t:.1f} s; "
          "Numba's cache)")


def _warm_up_simulator() -> None:
    """The event loop (pipeline/simulate/aot.py): the compiled-ahead module, built or loaded."""
    from .. import progress
    from ..simulate import aot

    t = time.perf_counter()
    if aot.load() is not None:
        print(f"the simulator is already compiled ({aot.module_path()})")
        return
    if not aot.enabled():
        print("WALLTIME_AOT=0: the simulator uses Numba's JIT (compiled at the first simulation)")
        return
    fn = aot.ensure(note=progress.note)
    if fn is None:
        print("the simulator could not be compiled ahead of time; simulations use Numba's JIT")
    else:
        print(f"compiled the simulator in {time.perf_counter() - t:.1f} s ({aot.module_path()})")


# The Slurm replay's warm-up cluster: two nodes of 4 cores, one partition, multifactor priority
_WARM_SLURM_CONF = """ClusterName=warmup
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=1000
SchedulerType=sched/backfill
NodeName=n1 CPUs=4 RealMemory=4000 State=UNKNOWN
NodeName=n2 CPUs=4 RealMemory=4000 State=UNKNOWN
PartitionName=batch Nodes=n1,n2 Default=YES MaxTime=UNLIMITED State=UP
"""


def _warm_up_kernels() -> None:
    """The kernels that stay under Numba's JIT, cached on disk (the compiled-ahead modules hold only the
    queue loop and the ingest tokenizers): the node-aware loop (no backfilling, conservative), the wait
    forecast on a predictor's run times, the Slurm replay, and the history estimators (Smith, Gibbons,
    Downey). Each runs once on six jobs through the function its command calls, with a real run's
    argument types (int64 arrays, the estimators' jobs frame as pipeline.estimates.load_jobs gives it), so
    Numba compiles what a command would; once cached, this loads them (a second or two)."""
    import numpy as np
    import polars as pl

    from ..estimates import parse_specs
    from ..estimates.compute import compute
    from ..ingest.slurm_cluster import read_cluster_texts
    from ..simulate import run_kernel
    from ..simulate.config import SimConfig
    from ..simulate.inputs import Inputs
    from ..simulate.slurm.replay import SlurmInputs

    i64 = np.int64
    submit = np.array([0, 5, 10, 20, 40, 60], i64)
    run = np.array([100, 30, 200, 10, 50, 5], i64)
    nodes = np.array([2, 1, 4, 1, 2, 1], i64)
    req = np.array([200, 60, 300, 60, 100, 60], i64)
    n = len(submit)

    def inputs(**extra) -> Inputs:
        return Inputs(job_id=np.arange(1, n + 1, dtype=i64), submit=submit.copy(), run=run.copy(),
                      nodes=nodes.copy(), req=req.copy(), est_wait=req.copy(), est_run=req.copy(),
                      month_idx=np.zeros(n, i64), months=["2024-01"], **extra)

    for backfill in ("none", "conservative"):  # two specialisations of the node loop
        run_kernel(inputs(), SimConfig(backfill=backfill, capacity=4, nodes_aware=True, pin_interval=3600))
    run_kernel(inputs(fc_run=run.copy()), SimConfig(capacity=4, forecast_with="actual"))

    cluster = read_cluster_texts(("slurm.conf", _WARM_SLURM_CONF))
    zeros = np.zeros(n, i64)
    arrays = {"part": zeros, "nn": np.ones(n, i64), "cpn": np.minimum(nodes, 4), "mem": zeros, "gpn": zeros,
              "excl": np.zeros(n, np.bool_), "assoc": np.full(n, 2, i64), "base": np.zeros(n),
              "rbase": np.zeros(n),
              "rjob": np.arange(n, dtype=i64), "rpart": zeros, "juser": zeros, "jq": zeros,
              "q_pre": np.zeros((1, 1), np.bool_), "q_mode": np.zeros(1, i64), "q_rank": np.zeros(1, i64),
              "q_level": np.zeros(1, i64), "requeue_delay": cluster.preemption.requeue_delay}
    tree = (np.array([-1, 0, 1], i64), np.ones(3, i64), np.array([False, False, True]))  # root, account, user
    run_kernel(inputs(slurm=SlurmInputs(cluster, arrays, tree)), SimConfig(capacity=8, scheduler="slurm"))

    ids = np.arange(1, n + 1, dtype=i64)
    jobs = pl.DataFrame({
        "job_id": ids, "submit": submit, "run": run, "req": req, "end": submit + run, "cut_short": [False] * n,
        "user_id": ids % 2, "group_id": ids % 2, "exe_id": ids % 3, "queue_id": zeros, "partition_id": zeros,
        "nodes": nodes, "procs": nodes, "gpus": zeros, "user": [f"u{k % 2}" for k in range(n)],
        "account": ["a"] * n, "partition": ["batch"] * n, "qos": ["normal"] * n,
        "job_name": [f"j{k % 3}" for k in range(n)], "submit_epoch": submit + 1_700_000_000, "tz": ["UTC"] * n,
    }).with_columns(pl.col(c).cast(pl.Categorical) for c in ("user", "account", "partition", "qos", "job_name"))
    for scheme in parse_specs(["smith:set=example", "gibbons", "downey"]):
        compute(jobs, scheme)


def _warm_up_ingest() -> None:
    """The ingest kernels (pipeline/ingest/aot.py): without them `walltime
    ingest` loads Numba and its cache (0.5-1.6 s) before reading a line."""
    from .. import aot_build, progress
    from ..ingest import aot

    if not aot_build.enabled():
        return
    t = time.perf_counter()
    target = aot.target()
    if target.load() is not None:
        print(f"the ingest tokenizers are already compiled ({target.module_path()})")
        return
    if target.ensure(note=progress.note) is None:
        print("the ingest tokenizers could not be compiled ahead of time; ingests use Numba's JIT")
    else:
        print(f"compiled the ingest tokenizers in {time.perf_counter() - t:.1f} s ({target.module_path()})")
