"""From templates to jobs: repeat bursts, runtimes, requests, kills, submit times.

The job stream is drawn without looking at the load, so the same seed at a
different ``load`` gives the same jobs with stretched or squeezed arrivals --
Mu'alem & Feitelson's interarrival scaling, done at generation time.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from . import arrivals
from . import model as md
from .population import Templates, pick_templates

SHORT_QUEUE, NORMAL_QUEUE, LONG_QUEUE = 1, 2, 3
QUEUES = {SHORT_QUEUE: "short (request <= 1 h)", NORMAL_QUEUE: "normal (request <= 12 h)",
          LONG_QUEUE: "long (request > 12 h)"}


def bursts(rng: np.random.Generator, t: Templates, jobs: int) -> tuple[np.ndarray, np.ndarray]:
    """(template per burst, jobs per burst), the sizes summing to exactly ``jobs``."""
    tmpl_parts, size_parts, total = [], [], 0
    mean = float(np.mean(t.burst_mean))
    while total < jobs:
        count = int((jobs - total) / mean * 1.1) + 16
        tm = pick_templates(rng, t, count)
        sz = rng.geometric(1.0 / t.burst_mean[tm])
        tmpl_parts.append(tm)
        size_parts.append(sz)
        total += int(sz.sum())
    tmpl = np.concatenate(tmpl_parts)
    size = np.concatenate(size_parts)
    ends = np.cumsum(size)
    keep = int(np.searchsorted(ends, jobs, side="left")) + 1
    tmpl, size = tmpl[:keep], size[:keep].copy()
    size[-1] -= int(ends[keep - 1]) - jobs
    return tmpl, size


def job_table(rng: np.random.Generator, t: Templates, jobs: int, m: md.Model) -> dict[str, np.ndarray]:
    """Every per-job column except the submit time, in burst order."""
    b_tmpl, b_size = bursts(rng, t, jobs)
    burst = np.repeat(np.arange(b_tmpl.shape[0]), b_size)
    tj = b_tmpl[burst]

    run = np.exp(t.ln_median[tj] + t.spread[tj] * rng.standard_normal(jobs))
    run = np.clip(np.rint(run), 1, m.max_request).astype(np.int64)
    fail = rng.random(jobs) < m.fail_share
    run = np.where(fail, rng.integers(1, m.fail_max_run + 1, jobs), run)

    habit = rng.random(jobs) < m.habit_share
    req = np.where(habit, t.request[tj], md.mf_request(rng, run.astype(np.float64), m))
    under = (rng.random(jobs) < m.under_share) & ~fail
    req = np.where(under, np.minimum(req, md.round_down_below(run)), req)
    killed = run >= req  # reaching the limit is being killed at it
    run = np.where(killed, req, run)
    status = np.where(fail | killed, 0, 1)

    gaps = np.exp(t.gap_ln[tj] + 0.7 * rng.standard_normal(jobs))
    first = np.concatenate(([0], np.cumsum(b_size)[:-1]))
    gaps[first] = 0.0
    since = np.cumsum(gaps)
    offset = since - np.repeat(since[first], b_size)
    queue = np.where(req <= md.HOUR, SHORT_QUEUE, np.where(req <= 12 * md.HOUR, NORMAL_QUEUE, LONG_QUEUE))
    return {
        "burst": burst, "offset": offset, "n_bursts": np.int64(b_tmpl.shape[0]),
        "run": run, "procs": t.size[tj], "req": req, "status": status,
        "user_id": t.user[tj], "group_id": t.project[tj], "exe_id": tj + 1, "queue_id": queue,
    }


def submit_times(rng: np.random.Generator, cols: dict, span: float, unix_start: int, tz: str,
                 m: md.Model) -> np.ndarray:
    """Integer submit seconds: burst starts on the cyclic clock plus in-burst gaps."""
    unit = arrivals.unit_order_statistics(rng, int(cols["n_bursts"]))
    starts = arrivals.burst_starts(unit, span, unix_start, tz, m)
    return np.floor(starts[cols["burst"]] + cols["offset"]).astype(np.int64)


def to_frame(cols: dict, submit: np.ndarray) -> pl.DataFrame:
    """The 18 SWF columns, sorted by submit, job ids 1..N (-1 = unknown)."""
    order = np.argsort(submit, kind="stable")
    n = submit.shape[0]
    minus = np.full(n, -1, dtype=np.int64)
    procs = cols["procs"][order]
    return pl.DataFrame({
        "job_id": np.arange(1, n + 1, dtype=np.int64),
        "submit": submit[order],
        "wait": minus,
        "run": cols["run"][order],
        "procs": procs,
        "avg_cpu": minus,
        "used_mem": minus,
        "req_procs": procs,
        "req": cols["req"][order],
        "req_mem": minus,
        "status": cols["status"][order].astype(np.int64),
        "user_id": cols["user_id"][order].astype(np.int64),
        "group_id": cols["group_id"][order].astype(np.int64),
        "exe_id": cols["exe_id"][order].astype(np.int64),
        "queue_id": cols["queue_id"][order].astype(np.int64),
        "partition_id": np.ones(n, dtype=np.int64),
        "prev_job_id": minus,
        "think_time": minus,
    })
