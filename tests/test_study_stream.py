"""Session 6 of issue 11: a study's runs go to the local workers as each input
set is prepared (``Workers.send``), not after all of them.

- The pieces dealt one input set at a time (``executors.Dealer``) are the
  pieces the whole list gives (``split_tail(chunks(...))``).
- ``_prepare_tasks`` has sent every piece but the last ``n`` when it returns,
  lowest load factor (the slowest runs) first; the study then stores exactly
  what one worker stores.
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import given, strategies as st

from pipeline.estimates import ensure_estimates
from pipeline.generate import generate_file
from pipeline.ingest import ingest
from pipeline.study import load_study, run_study, runner
from pipeline.simulate.executors import Dealer
from pipeline.simulate.tasks import SimTask
from pipeline.warehouse import Warehouse
from study_support import chunks, split_tail, stored_runs


def _groups(sizes: list[int]) -> list[list[SimTask]]:
    return [[SimTask("/wh", f"T{g % 2}", "{}", f"sha{g}", f"run{g}-{i}") for i in range(size)]
            for g, size in enumerate(sizes)]


@given(sizes=st.lists(st.integers(1, 30), min_size=1, max_size=30), n=st.integers(1, 8))
def test_dealing_input_sets_as_they_come_gives_the_pieces_of_the_whole_list(sizes, n):
    groups = _groups(sizes)
    tasks = [t for g in groups for t in g]
    dealer = Dealer(n, len(tasks))
    streamed, sent_before_the_end = [], 0
    for g in groups:
        now = dealer.add(g, inp=g[0].in_sha)
        assert all(inp == piece[0].in_sha for piece, inp in now)  # each piece with its own inputs
        streamed += [piece for piece, _ in now]
        sent_before_the_end += len(now)
    streamed += [piece for piece, _ in dealer.finish()]
    assert streamed == split_tail(chunks(tasks, n), n)
    # everything but the last n pieces went out before the last input set arrived
    assert sent_before_the_end == max(0, len(chunks(tasks, n)) - n)


STUDY = """\
[study]
name = "stream"

[[traces]]
path = "{w}"
name = "W"

[estimates]
schemes = ["request", "actual"]

[[simulations]]
policy = ["fcfs", "sjf"]
backfill = ["none", "easy"]
estimate = ["request", "actual"]
load_factor = [1.0, 0.8, 0.9]
"""


@pytest.fixture(scope="module")
def stream_study(tmp_path_factory):
    """A real warehouse with one synthetic trace and its estimates, and a
    study of 24 runs over 6 input sets (2 estimates x 3 load factors)."""
    d = tmp_path_factory.mktemp("stream")
    generate_file(d / "w.swf", jobs=3000, seed=5, capacity=64, load=0.8)
    cfg = d / "study.toml"
    cfg.write_text(STUDY.format(w=d / "w.swf"))
    wh = Warehouse(d / "seed")
    ingest([d / "w.swf"], wh, name="W")
    ensure_estimates(wh, "W", ["request", "actual"])
    return load_study(cfg), wh


def test_pieces_go_to_the_workers_while_the_rest_is_prepared(stream_study, tmp_path):
    study, seed = stream_study
    wh, ref = Warehouse(tmp_path / "wh"), Warehouse(tmp_path / "ref")
    shutil.copytree(seed.root, wh.root)
    shutil.copytree(seed.root, ref.root)
    from pipeline.simulate.many import early_sender, label, plan_runs

    res = runner.StudyResult(study.name, False)
    pools = []
    with wh.lock():
        con = wh.reader()
        try:
            plan = plan_runs(con, wh.root, study.simulations,
                             send=early_sender(len(study.simulations), "local", 2, pools))
        finally:
            con.close()
        tasks, prepared = plan.tasks, plan.prepared
        res.steps = [runner.Step("simulate", *s) for s in plan.steps]
        (pool,) = pools
        # 24 runs, pieces of at most 24 // 8 = 3: two per input set, 12 in all; all but the last 2 already sent
        assert len(tasks) == 24 and len(pool.futures) == 10
        assert [t.cfg.load_factor for t in tasks] == sorted(t.cfg.load_factor for t in tasks)
        # runs sharing inputs stay together; within them, no backfilling (the longer queue) first
        assert all(tasks[i].in_sha == tasks[i + 1].in_sha for i in range(0, 24, 4))
        assert [t.cfg.backfill for t in tasks[:4]] == ["none", "none", "easy", "easy"]
        # the steps keep the study's order, whatever order the runs were prepared in
        assert [s.target for s in res.steps] == [label(i) for i in study.simulations]
        runner.run_and_commit(wh, tasks, prepared, res.runs, lambda msg: None, "local", 2, None, pool=pool)
    assert len(res.runs) == 24 and len({r["pid"] for r in res.runs}) >= 1
    run_study(study, ref, workers=1)
    assert stored_runs(wh) == stored_runs(ref)
    assert len(stored_runs(wh)) > 24  # 'all' and one row per month, for every run


def test_a_two_worker_study_reuses_what_one_worker_stored(stream_study, tmp_path):
    study, seed = stream_study
    wh = Warehouse(tmp_path / "wh")
    shutil.copytree(seed.root, wh.root)
    first = run_study(study, wh, workers=2)
    assert sum(not r["reused"] for r in first.runs) == 24
    again = run_study(study, wh, workers=2)
    assert all(r["reused"] for r in again.runs) and len(again.runs) == 24
    assert {r["run_id"] for r in again.runs} == {r["run_id"] for r in first.runs}


def test_the_workers_forkserver_imports_no_duckdb_polars_or_numba():
    """What the forkserver preloads is what every local worker starts with,
    and what delays a sweep's first task: none of the heavy libraries a
    worker does not use (it gets its inputs from the coordinator)."""
    import subprocess
    import sys

    code = ("import sys, pipeline.simulate.orphans, pipeline.simulate.preload; "
            "print(sorted(m for m in ('duckdb', 'polars', 'numba', 'pipeline.study.runner', 'pipeline.ingest') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_workers_runs_come_back_only_with_their_files_in_place(stream_study, tmp_path):
    """compute_chunk leaves each file's fsync and rename to a thread while the
    next loop runs; when it returns, every run's file has its final name and
    no temporary is left (the coordinator commits what it gets back)."""
    from pipeline import sim_results
    from pipeline.simulate.many import plan_runs
    from pipeline.simulate.tasks import compute_chunk

    study, seed = stream_study
    wh = Warehouse(tmp_path / "wh")
    shutil.copytree(seed.root, wh.root)
    con = wh.reader()
    try:
        group = [i for i in study.simulations if i.config.load_factor == 1.0 and i.config.estimate == "request"]
        plan = plan_runs(con, wh.root, group, force=True)  # one input set: the requests at load 1.0
        tasks = plan.tasks
        inp = plan.prepared[tasks[0].run_id][2]
        assert len(tasks) == len(group) and all(plan.prepared[t.run_id][2] is inp for t in tasks)
    finally:
        con.close()
    outs = compute_chunk(tasks, inp)
    assert [o["run_id"] for o in outs] == [t.run_id for t in tasks] and all("written" not in o for o in outs)
    assert all(sim_results.run_file(wh.root, t.run_id).is_file() for t in tasks)
    assert not list((wh.root / "parquet" / "sim_jobs").glob(".tmp-*"))
