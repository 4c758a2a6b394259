"""How much the Slurm replay's per-job agreement with a log moves with the phase of its timers.

    python bench/slurm_timer_phase.py [--lab tests/data/slurm-replay] [--runs W1-r1 W3-r1]

Real slurmctld runs its priority recalculation, main and backfill passes on timers whose phase against a
workload is an accident of when the daemon started; the replay starts them at the first submission. A
zero-length job placed `offset` seconds before the log moves every tick of the replay by that much (nothing
else: it holds one CPU for no time). For each offset over one PriorityCalcPeriod this prints the replayed mean
wait and the share of jobs whose replayed start is within sched_interval + bf_interval of the log's.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from pipeline.ingest.formats import IngestOptions
from pipeline.ingest.load import ingest
from pipeline.simulate.inputs import load_inputs
from pipeline.simulate.slurm import replay
from pipeline.simulate.slurm._kernel import no_preemption, slurm_replay
from pipeline.warehouse import Warehouse


def shifted(sl, inp, offset: int) -> np.ndarray:
    """The replayed waits of the log's jobs with a zero-length job ``offset`` s before the first."""
    c, a, (parent, shares, is_user) = sl.cluster, sl.arrays, sl.assoc
    w, s = c.priority, c.scheduler

    def ahead(x, v):
        return np.concatenate([[v], x]).astype(x.dtype)
    sub = ahead(inp.submit.astype(np.int64), int(inp.submit[0]) - offset)
    start = slurm_replay(
        c.node_units, c.node_tpu, c.node_mem if c.mem_consumable else np.zeros_like(c.node_mem), c.node_gpus,
        c.part_nodes, c.part_tier, parent, shares, is_user, sub, ahead(inp.run.astype(np.int64), 0),
        ahead(np.maximum(inp.est_run, 1).astype(np.int64), 1), ahead(a["rpart"], a["rpart"][0]), ahead(a["nn"], 1),
        ahead(a["cpn"], 1), ahead(a["mem"], 0), ahead(a["gpn"], 0), ahead(a["excl"], False),
        ahead(a["assoc"], a["assoc"][0]), ahead(a["rbase"], 0.0), np.concatenate([[0], a["rjob"] + 1]),
        ahead(a["juser"], a["juser"][0]),
        float(w.w_age), int(max(w.max_age, 1)), float(w.w_fairshare), int(max(w.calc_period, 1)), int(w.half_life),
        bool(c.fair_tree), int(s.sched_interval), int(s.queue_depth), int(s.bf_interval), int(s.bf_window),
        int(s.bf_max_job_test), int(s.bf_resolution), int(s.kill_wait), int(s.bf_max_job_user),
        *no_preemption(len(sub)),
        **({"shapes": [a["xjob"] + 1, *(a[k] for k in ("xnn", "xcpn", "xmem", "xgpn"))]} if len(a.get("xjob", ()))
           else {}))[0]
    return (start[1:] - sub[1:]).astype(float)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", default=str(Path(__file__).resolve().parent.parent / "tests/data/slurm-replay"))
    ap.add_argument("--runs", nargs="+", default=["W1-r1", "W2-r1", "W3-r1"])
    args = ap.parse_args()
    lab = Path(args.lab)
    t0 = time.perf_counter()
    opts = IngestOptions(format="sacct", tz="UTC", slurm_conf=str(lab / "slurm.conf"),
                         gres_conf=str(lab / "gres.conf"), assoc=str(lab / "assoc.txt"))
    with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        wh = Warehouse(d)
        for run in args.runs:
            ingest([lab / "runs" / run / "sacct.txt"], wh, name=run.lower(), options=opts)
            con = wh.reader()
            try:
                inp = load_inputs(con, run.lower(), "request", 24, False, "regular")
                sl = replay.load(con, run.lower(), inp.job_id)
                logged = dict(con.execute("SELECT job_id, wait FROM jobs WHERE trace = ?", [run.lower()]).fetchall())
            finally:
                con.close()
            log = np.array([logged[int(j)] for j in inp.job_id], float)
            slack = sl.cluster.scheduler.sched_interval + sl.cluster.scheduler.bf_interval
            period = sl.cluster.priority.calc_period
            rows = []
            for offset in range(0, period, max(period // 10, 1)):
                rep = shifted(sl, inp, offset)
                rows.append((offset, rep.mean(), float(np.mean(np.abs(rep - log) <= slack))))
            shares = [r[2] for r in rows]
            print(f"{run}: logged mean wait {log.mean():.0f} s; over timer offsets 0-{rows[-1][0]} s the replayed "
                  f"mean wait is {min(r[1] for r in rows):.0f}-{max(r[1] for r in rows):.0f} s and the jobs within "
                  f"{slack} s of the log {100 * min(shares):.0f}%-{100 * max(shares):.0f}%")
    print(f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
