"""The generator's wait times (FCFS + EASY, requested times as estimates) against a plain twin."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import trace_path
from pipeline.generate import generate
from pipeline.generate.waits import easy_waits
from pipeline.ingest import reader, swf


def naive_easy(submit, run, req, nodes, capacity):
    """specs/simulation.md, fcfs + easy, est = req, written for reading, not speed."""
    n = len(submit)
    start = [-1] * n
    running, queue, i = [], [], 0
    while i < n or running:
        t = min(([submit[i]] if i < n else []) + [start[j] + run[j] for j in running])
        running = [j for j in running if start[j] + run[j] > t]
        while i < n and submit[i] <= t:
            queue.append(i)
            i += 1
        free = capacity - sum(nodes[j] for j in running)
        while queue and nodes[queue[0]] <= free:
            j = queue.pop(0)
            start[j] = t
            free -= nodes[j]
            running.append(j)
        if not queue:
            continue
        head = queue[0]
        avail, shadow = free, None
        for j in sorted(running, key=lambda j: (start[j] + req[j], j)):
            if avail >= nodes[head]:
                break
            avail += nodes[j]
            shadow = start[j] + req[j]
        extra = free + sum(nodes[j] for j in running if start[j] + req[j] <= shadow) - nodes[head]
        for j in list(queue[1:]):
            if nodes[j] > free:
                continue
            if t + req[j] <= shadow:
                pass
            elif nodes[j] <= extra:
                extra -= nodes[j]
            else:
                continue
            queue.remove(j)
            start[j] = t
            free -= nodes[j]
            running.append(j)
    return [s - b for s, b in zip(start, submit)]


def _check(submit, run, req, nodes, capacity):
    fast = easy_waits(np.array(submit), np.array(run), np.array(req), np.array(nodes), capacity)
    slow = naive_easy(list(submit), list(run), list(req), list(nodes), capacity)
    assert fast.tolist() == slow


@st.composite
def workloads(draw):
    n = draw(st.integers(1, 60))
    capacity = draw(st.integers(1, 16))
    gaps = draw(st.lists(st.integers(0, 50), min_size=n, max_size=n))
    runs = draw(st.lists(st.integers(1, 200), min_size=n, max_size=n))
    slack = draw(st.lists(st.integers(0, 300), min_size=n, max_size=n))
    sizes = draw(st.lists(st.integers(1, capacity), min_size=n, max_size=n))
    return list(np.cumsum(gaps)), runs, [r + s for r, s in zip(runs, slack)], sizes, capacity


@settings(max_examples=200, deadline=None)
@given(workloads())
def test_kernel_matches_twin_on_random_workloads(w):
    _check(*w)


def test_kernel_matches_twin_on_a_generated_workload():
    df = generate(2500, seed=3, capacity=64, load=0.9, waits="none")
    _check(*(df[c].to_list() for c in ("submit", "run", "req", "procs")), 64)


def test_kernel_matches_twin_on_kth():
    jobs = swf.parse(reader.read_bytes(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"))).jobs
    d = jobs.filter((pl.col("run") >= 1) & (pl.col("req") >= 1) & (pl.col("procs") >= 1)).head(3000)
    d = d.with_columns(pl.max_horizontal("req", "run").alias("req"),
                       (pl.col("submit") - pl.col("submit").min()).alias("submit")).sort("submit", "job_id", maintain_order=True)
    _check(*(d[c].to_list() for c in ("submit", "run", "req", "procs")), 100)


def test_generated_waits_are_a_schedule_that_fits(tmp_path):
    df = generate(3000, seed=8, capacity=32, load=0.85)
    assert (df["wait"] >= 0).all() and (df["wait"] > 0).any()
    start = (df["submit"] + df["wait"]).to_numpy()
    end = start + df["run"].to_numpy()
    events = np.concatenate([start, end])
    delta = np.concatenate([df["procs"].to_numpy(), -df["procs"].to_numpy()])
    order = np.lexsort((delta, events))  # ends before starts at the same instant
    assert np.cumsum(delta[order]).max() <= 32
