"""The generated log's wait times are a real schedule: the project's own EASY
loop (pipeline.simulate.kernel, tested against tests/naive_sim.py) on the
generated jobs; here, the schedule fits the machine and equals the naive twin."""

from __future__ import annotations

import numpy as np

from naive_sim import simulate as naive_simulate
from pipeline.generate import generate


def test_generated_waits_are_a_schedule_that_fits(tmp_path):
    df = generate(3000, seed=8, capacity=32, load=0.85)
    assert (df["wait"] >= 0).all() and (df["wait"] > 0).any()
    start = (df["submit"] + df["wait"]).to_numpy()
    end = start + df["run"].to_numpy()
    events = np.concatenate([start, end])
    delta = np.concatenate([df["procs"].to_numpy(), -df["procs"].to_numpy()])
    order = np.lexsort((delta, events))  # ends before starts at the same instant
    assert np.cumsum(delta[order]).max() <= 32


def test_generated_waits_equal_the_naive_simulator():
    df = generate(800, seed=5, capacity=32, load=0.9)
    submit, run, req, procs = (df[c].to_numpy() for c in ("submit", "run", "req", "procs"))
    ids = np.arange(1, len(submit) + 1)
    start = naive_simulate(submit, ids, run, procs, req, req, req, 32, 0, 1, 0, False)[0]
    assert (np.asarray(start) - submit == df["wait"].to_numpy()).all()
