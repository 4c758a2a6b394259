"""`walltime simulate --nodes-aware` end to end: the real CLI, a real warehouse, KTH-SP2.

Stored node sets are re-read from `sim_nodes` (ranges text) and checked: the
right number of nodes per job, no node holding two jobs at once, the stored
starts equal to the loop run again on the stored inputs; bad options fail in
one line and leave the warehouse as it was.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli, ingested_warehouse
from simulate_checks import q
from pipeline.simulate._nodes import run_nodes

KTH = "KTH-SP2-1996-2.1-cln"
ARGS = [KTH, "--capacity", "200", "--backfill", "none", "--nodes-aware", "--node-size", "2", "--pin-interval", "1h"]


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return ingested_warehouse(tmp_path_factory, "nodeswh", KTH)


def parse(ranges: str) -> list[int]:
    out = []
    for part in ranges.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def test_stored_node_sets(wh):
    proc = run_cli("simulate", *ARGS, "--json", warehouse=wh.root)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    run_id = doc["run_id"]
    nm = doc["nodes"]
    assert nm["machine_nodes"] == 100 and nm["node_size"] == 2 and nm["pin_interval"] == 3600
    assert 0 < nm["share_t_node_pos"] <= 1 and nm["jobs"] == doc["metrics"]["jobs"]
    rows = q(wh, """SELECT j.submit, j.run, j.nodes, j.est_wait, j.est_run, j.req, j.start, n.node_count, n.node_ranges,
                           n.t_node, n.plan_changes, n.pinned_at
                    FROM sim_jobs j JOIN sim_nodes n USING (run_id, job_id) WHERE run_id = ?
                    ORDER BY j.submit, j.job_id""", [run_id])
    assert len(rows) == doc["metrics"]["jobs"]
    cols = list(zip(*rows))
    submit, run, procs, est_wait, est_run, req, start, count = (np.array(c, dtype=np.int64) for c in cols[:8])
    assert (count == -(-procs // 2)).all()
    sets = [parse(r) for r in cols[8]]
    assert [len(s) for s in sets] == count.tolist()
    # no node holds two jobs at once
    node = np.concatenate([np.array(s) for s in sets])
    job = np.repeat(np.arange(len(sets)), count)
    s, e = start[job], start[job] + run[job]
    pos = e > s
    order = np.lexsort((s[pos], node[pos]))
    ns, ss, es = node[pos][order], s[pos][order], e[pos][order]
    same = ns[1:] == ns[:-1]
    assert (ss[1:][same] >= es[:-1][same]).all()
    assert ((node >= 0) & (node < 100)).all()
    # the stored run is the loop's output on the stored inputs
    again = run_nodes(submit, run, count, est_wait, est_run, req, 100, 0, 0, 3600)
    assert (again["start"] == start).all()
    assert (again["t_node"] == np.array(cols[9])).all()
    assert (again["changes"] == np.array(cols[10])).all()
    assert ((again["pinned_at"] >= 0) == np.array([p is not None for p in cols[11]])).all()
    # a second call reuses it, and the human form says the answer in words
    human = run_cli("simulate", *ARGS, warehouse=wh.root)
    assert human.returncode == 0 and "reused the stored run" in human.stdout
    assert "Node predictions (100 nodes of 2 processors, pinning 1 h)" in human.stdout
    (n_rows,), = q(wh, "SELECT count(*) FROM sim_nodes WHERE run_id = ?", [run_id])[0:1]
    assert n_rows == len(rows)


@pytest.mark.parametrize("extra,message", [
    (["--nodes-aware", "--pin-interval", "soon"], '--pin-interval "soon"'),
    (["--node-size", "2"], "--node-size and --pin-interval need --nodes-aware"),
    (["--nodes-aware", "--policy", "sjf"], "--policy sjf: --nodes-aware"),
    (["--nodes-aware", "--backfill", "easy"], "--backfill easy: --nodes-aware supports none or conservative"),
    (["--nodes-aware", "--backfill", "none", "--node-size", "0"], "--node-size 0"),
    (["--nodes-aware", "--backfill", "none", "--node-size", "3"], "--node-size 3: job"),
    (["--nodes-aware", "--backfill", "none", "--split", "month"], "--split"),
])
def test_bad_node_options_fail_cleanly(wh, extra, message):
    def counts():
        return q(wh, "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM sim_nodes), "
                     "(SELECT count(*) FROM node_runs)")
    before = counts()
    proc = run_cli("simulate", KTH, *extra, warehouse=wh.root)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert counts() == before
