"""Smith, Taylor & Foster's replays on the planner (issue 41): derived traces (a trace whose jobs
are another trace's transformed, stored like any trace, stale when its source is replaced), and
`reproduce --paper smith`'s stored path (smith_plan.run_stored: the workloads as derived traces,
the replays through simulate_many, the searched sets and the estimates stored) giving the very
numbers of the in-memory path (smith_runs.run_all), and reusing everything the second time.

On a cut of CTC-SP2 (its first jobs, two months of 1996) ingested under CTC-SP2's own name, with a
smaller template search (the search is not what is tested here)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from conftest import trace_path
from ingest_support import swf_head
from pipeline.errors import WalltimeError
from pipeline.reproduce import smith_plan, smith_runs as R
from pipeline.reproduce.common import CTC
from pipeline.simulate.config import SimConfig, SimItem
from pipeline.simulate.derived_traces import Recipe, apply, derive, stored
from pipeline.simulate.many import simulate_many
from pipeline.warehouse import Warehouse

CUT = 3000  # CTC-SP2's first jobs: late June and July 1996


@pytest.fixture(scope="module")
def wh(tmp_path_factory) -> Warehouse:
    from pipeline.ingest import ingest

    d = tmp_path_factory.mktemp("smith-planner")
    swf_head(trace_path("CTC-SP2-1996-3.1-cln.swf.gz"), d / "ctc.swf", CUT)
    w = Warehouse(d / "wh")
    ingest([d / "ctc.swf"], w, name=CTC)
    return w


@pytest.fixture
def small_search(monkeypatch):
    monkeypatch.setattr(R, "SEARCH", (3, 6, 0))
    monkeypatch.setattr(smith_plan, "SEARCH", (3, 6, 0))


def _jobs(wh: Warehouse, trace: str) -> pl.DataFrame:
    con = wh.reader()
    try:
        return pl.from_arrow(con.sql("SELECT * EXCLUDE (trace) FROM jobs WHERE trace = $1 ORDER BY job_id",
                                     params=[trace]).to_arrow_table())
    finally:
        con.close()


def test_a_derived_trace_holds_its_recipe_applied_to_its_source(wh):
    recipe = Recipe(months=("1996-07",), drop_queues=(0,), req="queue_max", interarrival=0.5, capacity=300)
    assert derive(wh, "ctc-july", CTC, recipe) == "derived"
    src, got = _jobs(wh, CTC), _jobs(wh, "ctc-july")
    want = apply(src, recipe).sort("job_id")
    assert 0 < got.height < src.height
    assert got.equals(want.select(got.columns))
    assert got["submit"].min() == src.filter(pl.col("month") == "1996-07")["submit"].min()
    assert (got["nodes"] <= 300).all() and (got["req"] > 0).all()
    con = wh.reader()
    try:
        row = con.execute("SELECT jobs, capacity, sha256 FROM traces WHERE trace = 'ctc-july'").fetchone()
        assert row[:2] == (got.height, 300)
        assert stored(con, "ctc-july") | {"recipe": None} == {
            "trace": "ctc-july", "source": CTC, "recipe": None, "current": True,
            "source_sha256": con.execute("SELECT sha256 FROM traces WHERE trace = ?", [CTC]).fetchone()[0]}
    finally:
        con.close()
    assert derive(wh, "ctc-july", CTC, recipe) == "stored"  # same source, same recipe: nothing written


def test_a_derived_trace_refuses_an_ingested_name_a_missing_source_and_an_empty_result(wh):
    with pytest.raises(WalltimeError, match="an ingested trace has that name"):
        derive(wh, CTC, "ctc-july", Recipe())
    with pytest.raises(WalltimeError, match='no trace "nope"'):
        derive(wh, "x", "nope", Recipe())
    with pytest.raises(WalltimeError, match="keeps no job"):
        derive(wh, "x", CTC, Recipe(months=("1999",)))
    with pytest.raises(WalltimeError, match="interarrival"):
        Recipe(interarrival=0)


def test_replacing_the_source_makes_a_derived_trace_stale_and_deriving_it_again_forgets_its_results(
        wh, tmp_path):
    from pipeline.estimates import ensure_estimates
    from pipeline.ingest import ingest

    recipe = Recipe(capacity=512)
    derive(wh, "ctc-all", CTC, recipe)
    ensure_estimates(wh, "ctc-all", ["gibbons"])
    with wh.lock():
        simulate_many(wh, [SimItem("ctc-all", SimConfig(estimate="gibbons", capacity=512))], workers=1)
    swf_head(trace_path("CTC-SP2-1996-3.1-cln.swf.gz"), tmp_path / "ctc.swf", CUT - 500)
    ingest([tmp_path / "ctc.swf"], wh, name=CTC, replace=True)
    con = wh.reader()
    try:
        assert stored(con, "ctc-all")["current"] is False
        assert con.execute("SELECT count(*) FROM runs WHERE trace = 'ctc-all'").fetchone()[0] == 1
    finally:
        con.close()
    assert derive(wh, "ctc-all", CTC, recipe) == "replaced"
    con = wh.reader()
    try:
        assert stored(con, "ctc-all")["current"] is True
        assert con.execute("SELECT count(*) FROM runs WHERE trace = 'ctc-all'").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM estimates WHERE trace = 'ctc-all'").fetchone()[0] == 0
        assert con.execute("SELECT jobs FROM traces WHERE trace = 'ctc-all'").fetchone()[0] == _jobs(wh, CTC).filter(
            (pl.col("run") >= 0) & (pl.col("nodes") > 0) & (pl.col("nodes") <= 512)).height
    finally:
        con.close()
    swf_head(trace_path("CTC-SP2-1996-3.1-cln.swf.gz"), tmp_path / "ctc.swf", CUT)  # the module's content back, for the tests below
    ingest([tmp_path / "ctc.swf"], wh, name=CTC, replace=True)


def _same(a, b) -> None:
    """Two run_all results equal, number for number (the workload objects aside)."""
    assert [w.key for w in a["workloads"]] == [w.key for w in b["workloads"]]
    for wa, wb in zip(a["workloads"], b["workloads"]):
        assert wa.facts["sets"] == wb.facts["sets"] and wa.facts["set"] == wb.facts["set"]
    for kind in ("wait", "sched"):
        assert len(a[kind]) == len(b[kind])
        for ra, rb in zip(a[kind], b[kind]):
            assert ra.keys() == rb.keys()
            for k in ra:
                if k == "w":
                    continue
                if k == "weeks":
                    assert ra[k].keys() == rb[k].keys()
                    for c in ra[k]:
                        np.testing.assert_array_equal(ra[k][c], rb[k][c], err_msg=f"{kind} {ra['p']} {ra['alg']} {c}")
                elif isinstance(ra[k], float):
                    assert ra[k] == pytest.approx(rb[k], rel=1e-12, abs=1e-12), (kind, ra["p"], ra["alg"], k)
                else:
                    assert ra[k] == rb[k], (kind, ra["p"], ra["alg"], k)


def test_the_stored_path_gives_the_in_memory_numbers_and_reuses_everything_the_second_time(
        wh, small_search, monkeypatch):
    traces = {CTC: 512}
    con = wh.reader()
    try:
        mem = R.run_all(con, traces, True)
    finally:
        con.close()
    first = smith_plan.run_stored(wh, traces, True)
    _same(mem, first)
    con = wh.reader()
    try:
        runs = con.execute("SELECT count(*) FROM runs WHERE trace = 'smith-ctc2m'").fetchone()[0]
        sets = con.execute("SELECT count(*) FROM template_sets WHERE trace = 'smith-ctc2m'").fetchone()[0]
        assert con.execute("SELECT source FROM derived_traces WHERE trace = 'smith-ctc2m'").fetchone()[0] == CTC
    finally:
        con.close()
    # request replays fcfs/none, lwf/none, fcfs/conservative; schedules 6 predictors x (LWF, Backfill),
    # of which request x LWF and request x Backfill are two of the replays
    assert runs == 3 + 12 - 2
    assert sets == 1 + len(R.set_keys(first["workloads"][0]))

    def no_search(*a, **k):
        raise AssertionError("searched again")

    computed = []
    real = smith_plan.simulate_many
    monkeypatch.setattr(smith_plan, "search", no_search)
    monkeypatch.setattr(smith_plan, "simulate_many", lambda *a, **k: computed.extend(real(*a, **k)) or [])
    second = smith_plan.run_stored(wh, traces, True)
    assert computed == []
    _same(mem, second)


def test_the_report_leaves_derived_traces_out_unless_named(wh):
    from pipeline.report import _traces

    derive(wh, "ctc-july-report", CTC, Recipe(months=("1996-07",)))
    assert _traces(wh, None) == [t for t in _all_traces(wh) if t not in stored_names(wh)]
    assert CTC in _traces(wh, None) and "ctc-july-report" not in _traces(wh, None)
    assert _traces(wh, ["ctc-july-report"]) == ["ctc-july-report"]


def test_walltime_traces_says_what_a_derived_trace_was_made_from(wh):
    from pipeline.cli.readers import list_traces

    derive(wh, "ctc-july-listed", CTC, Recipe(months=("1996-07",)))
    columns, rows = list_traces(wh)
    source = {r[0]: r[columns.index("derived_from")] for r in rows}
    assert columns[-1] == "derived_from"
    assert source["ctc-july-listed"] == CTC and source[CTC] is None
    assert {t for t, s in source.items() if s} == stored_names(wh)


def _all_traces(wh: Warehouse) -> list[str]:
    con = wh.reader()
    try:
        return [t for (t,) in con.execute("SELECT trace FROM traces ORDER BY trace").fetchall()]
    finally:
        con.close()


def stored_names(wh: Warehouse) -> set[str]:
    con = wh.reader()
    try:
        return {t for (t,) in con.execute("SELECT trace FROM derived_traces").fetchall()}
    finally:
        con.close()
