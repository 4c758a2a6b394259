"""Session 5 of issue 11: what a study's coordinator does beside its workers.

- The report's Tang grid runs in the coordinator while the worker processes
  simulate (``simulate_many(..., beside=...)``); the runs that finish
  meanwhile stay invisible until they commit after it.
- Finished runs are stored in a few statements per batch (``store.write_runs``),
  giving the same rows as storing them one by one (``store.write_run``).
- The last pieces of a sweep are cut into pairs (``executors.Dealer``).
"""

from __future__ import annotations

import datetime as dt
import shutil
import time

import pytest
from hypothesis import given, strategies as st

from pipeline.estimates import ensure_estimates
from pipeline.generate import generate_file
from pipeline.ingest import ingest
from pipeline.simulate import make_config, store
from pipeline.simulate.config import SimItem
from pipeline.simulate.many import simulate_many
from pipeline.simulate.tasks import SimTask
from pipeline.warehouse import Warehouse, transaction
from study_support import chunks, split_tail, stored_runs


def _tasks(groups: list[int]) -> list[SimTask]:
    return [SimTask("/wh", f"T{g % 2}", "{}", f"sha{g}", f"run{g}-{i}")
            for g, size in enumerate(groups) for i in range(size)]


@given(groups=st.lists(st.integers(1, 30), min_size=1, max_size=30), n=st.integers(1, 8))
def test_split_tail_keeps_every_task_once_in_order_and_cuts_only_the_last_pieces(groups, n):
    tasks = _tasks(groups)
    pieces = chunks(tasks, n)
    out = split_tail(pieces, n)
    assert [t for c in out for t in c] == tasks
    for c in out:
        assert len({(t.trace, t.in_sha) for t in c}) == 1
    if n == 1 or len(pieces) <= n:
        assert out == pieces
    else:
        head = len(pieces) - n
        assert out[:head] == pieces[:head]
        assert all(1 <= len(c) <= 2 for c in out[head:])


def test_the_sweeps_last_two_pieces_go_in_pairs():
    """bench/sweep.py's shape: 25 input sets of 8 runs on 2 workers."""
    out = split_tail(chunks(_tasks([8] * 25), 2), 2)
    assert [len(c) for c in out] == [8] * 23 + [2] * 8


@pytest.fixture(scope="module")
def small_wh(tmp_path_factory):
    """A real warehouse with one synthetic trace and its request estimates."""
    d = tmp_path_factory.mktemp("beside")
    generate_file(d / "w.swf", jobs=4000, seed=11, capacity=64, load=0.8)
    wh = Warehouse(d / "seed")
    ingest([d / "w.swf"], wh, name="W")
    ensure_estimates(wh, "W", ["request", "actual"])
    return wh


def _items() -> list[SimItem]:
    return [SimItem("W", make_config(policy=p, backfill=b, estimate=e))
            for p in ("fcfs", "sjf", "wfp") for b in ("easy", "conservative") for e in ("request", "actual")]


def test_work_beside_runs_while_the_workers_simulate_and_runs_commit_after_it(small_wh, tmp_path):
    """``beside`` starts after the pieces are sent: while it runs, worker
    processes write run files, and readers still see no run (nothing is
    committed until it returns). Afterwards every run is committed, equal to
    the same runs simulated in this process one after another."""
    ref, wh = Warehouse(tmp_path / "ref"), Warehouse(tmp_path / "wh")
    shutil.copytree(small_wh.root, ref.root)
    shutil.copytree(small_wh.root, wh.root)
    seen = {}
    files = wh.root / "parquet" / "sim_jobs"

    def beside():
        end = time.monotonic() + 120
        while time.monotonic() < end and not any(files.glob("*.parquet")):
            time.sleep(0.05)
        seen["files"] = len(list(files.glob("*.parquet")))
        con = wh.reader()
        try:
            seen["runs"] = con.execute("SELECT count(*) FROM runs").fetchone()[0]
            seen["visible"] = con.execute("SELECT count(*) FROM sim_jobs").fetchone()[0]
        finally:
            con.close()

    with wh.lock():
        runs = simulate_many(wh, _items(), workers=2, beside=beside)
    assert seen["files"] >= 1, "no worker wrote a run while the work beside ran"
    assert seen["runs"] == 0 and seen["visible"] == 0
    assert len(runs) == len(_items())
    assert len({r["pid"] for r in runs}) >= 1 and all(r["pid"] is not None for r in runs)
    with ref.lock():
        simulate_many(ref, _items(), workers=1)
    assert stored_runs(wh) == stored_runs(ref)
    assert len(stored_runs(wh)) > len(_items())


def test_beside_runs_when_every_simulation_is_stored(small_wh, tmp_path):
    wh = Warehouse(tmp_path / "wh")
    shutil.copytree(small_wh.root, wh.root)
    with wh.lock():
        simulate_many(wh, _items()[:2], workers=1)
        called = []
        assert simulate_many(wh, _items()[:2], workers=2, beside=lambda: called.append(1)) == []
    assert called == [1]


def test_batched_store_equals_one_by_one(small_wh, tmp_path):
    """store.write_runs (a few statements per batch) gives exactly the rows of
    store.write_run called per run, and replaces runs stored before."""
    src = Warehouse(tmp_path / "src")
    shutil.copytree(small_wh.root, src.root)
    with src.lock():
        simulate_many(src, _items(), workers=1)
    con = src.reader()
    try:
        cur = con.execute("SELECT * EXCLUDE (created_at) FROM runs ORDER BY run_id")
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
        cur = con.execute("SELECT * FROM run_metrics ORDER BY run_id, month NULLS FIRST")
        mnames = [d[0] for d in cur.description]
        metric_rows: dict[str, list[dict]] = {}
        for r in cur.fetchall():
            m = dict(zip(mnames, r))
            metric_rows.setdefault(m.pop("run_id"), []).append(m)
    finally:
        con.close()
    stamp = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    for r in rows:
        r["created_at"] = stamp
    out = {}
    for how in ("one", "many"):
        wh = Warehouse(tmp_path / how)
        shutil.copytree(src.root, wh.root)
        with wh.writer(attach_results=False) as con, transaction(con):
            if how == "one":
                for r in rows:
                    store.write_run(con, r, metric_rows[r["run_id"]])
            else:
                store.write_runs(con, rows[:3], metric_rows)  # replaced by the next call
                store.write_runs(con, rows, metric_rows)
        con = wh.reader()
        try:
            out[how] = (
                con.execute("SELECT * EXCLUDE (created_at), created_at::VARCHAR FROM runs ORDER BY ALL").fetchall(),
                con.execute("SELECT * FROM run_metrics ORDER BY ALL").fetchall(),
            )
        finally:
            con.close()
    assert out["one"] == out["many"]
    assert len(out["many"][0]) == len(rows) and len(out["many"][1]) == sum(map(len, metric_rows.values()))
