"""Full real traces through the stage vs the naive simulator, job by job.

The stage (SQL + Arrow inputs, Numba loop, stored sim_jobs) is compared with
tests/naive_sim.py fed by inputs built here, in plain Python, from the
`jobs` table and the input rules of simulation.md -- so the stage's input
handling is checked too, not only the loop. KTH-SP2, SDSC-SP2 and CTC-SP2 at
512 nodes, fcfs/wfp x easy/none, users' requests as estimates.
"""

from __future__ import annotations

import numpy as np
import pytest

import naive_sim
from conftest import trace_path
from pipeline.ingest import ingest
from pipeline.simulate import kernel, make_config, simulate
from pipeline.warehouse import Warehouse
from simulate_checks import check_invariants, q

TRACES = {"KTH-SP2-1996-2.1-cln": None, "SDSC-SP2-1998-4.2-cln": None, "CTC-SP2-1996-3.1-cln": 512}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    w = Warehouse(tmp_path_factory.mktemp("naivewh") / "wh")
    ingest([trace_path(f"{t}.swf.gz") for t in TRACES], w)
    return w


def naive_inputs(wh, trace, capacity):
    """simulation.md "Inputs, per job", one job at a time. Estimate = request."""
    rows = q(wh, "SELECT job_id, submit, run, nodes, req, month FROM jobs WHERE trace = ?", [trace])
    jobs = []
    for job_id, submit, run, nodes, req, month in rows:
        if run is None or run < 0 or nodes is None or nodes <= 0:
            continue  # left out
        assert nodes <= capacity
        if req is None or req <= 0:
            req = max(run, 1)  # "no request"
        jobs.append((submit, job_id, run, nodes, req, month))
    jobs.sort()
    return jobs


def naive_run(jobs, cap, policy, backfill):
    """The naive simulator over the jobs (tuples from naive_inputs), in loop order."""
    cols = list(zip(*jobs))
    w = {k: np.array(v, dtype=np.int64) for k, v in zip(("submit", "job_id", "run", "nodes", "req"), cols)}
    return w["job_id"], naive_sim.simulate(
        w["submit"], w["job_id"], w["run"], w["nodes"], w["req"], w["req"], w["req"], cap,
        kernel.POLICIES[policy], kernel.BACKFILLS[backfill], kernel.OVERRUNS["request"], False)


@pytest.mark.parametrize("trace", list(TRACES))
@pytest.mark.parametrize("policy", ["fcfs", "wfp"])
@pytest.mark.parametrize("backfill", ["easy", "none"])
def test_stored_run_equals_naive_simulator(wh, trace, policy, backfill):
    split = "month" if backfill == "none" else None
    res = simulate(wh, trace, make_config(policy=policy, backfill=backfill, estimate="request",
                                          capacity=TRACES[trace], split=split))
    cap = res.config.capacity
    jobs = naive_inputs(wh, trace, cap)
    if split:  # each month alone, then back in loop order
        months = sorted({j[5] for j in jobs})
        parts = [naive_run([j for j in jobs if j[5] == m], cap, policy, backfill) for m in months]
        by_id = {}
        for ids, out in parts:
            for i, jid in enumerate(ids):
                by_id[jid] = [col[i] for col in out]
        want_ids = np.array([j[1] for j in jobs])
        want = [np.array([by_id[jid][k] for jid in want_ids]) for k in range(5)]
    else:
        want_ids, want = naive_run(jobs, cap, policy, backfill)
    got = q(wh, """SELECT job_id, start, backfilled, COALESCE(predicted_start, -1), score, COALESCE(first_bound, -1)
                   FROM sim_jobs WHERE run_id = ? ORDER BY submit, job_id""", [res.run_id])
    assert len(got) == len(want_ids)
    job_id, start, backfilled, predicted, score, bound = (np.array(c) for c in zip(*got))
    assert (job_id == want_ids).all()
    for name, a, b in (("start", start, want[0]), ("backfilled", backfilled, want[1]),
                       ("predicted_start", predicted, want[2]), ("score", score, want[3]),
                       ("first_bound", bound, want[4])):
        bad = np.flatnonzero(a != b)
        assert bad.size == 0, f"{name} differs for jobs {job_id[bad[:5]].tolist()}: stage {a[bad[:5]]} naive {b[bad[:5]]}"
    check_invariants(wh, res.run_id)
