"""The report and the reproduction read "the run with these options" from
`plain_runs` (sql/180_plain_runs.sql): a node-aware or --forecast-with run
made later with the same policy, backfill and estimate must not take the
place of the plain run in report_plan_runs (it once did: Klusacek & Soysal's
Fig. 5 rows on CTC read the node-aware conservative runs)."""

from __future__ import annotations

import pytest

from conftest import ingested_warehouse
from pipeline.simulate import simulate
from pipeline.simulate.config import make_config

KTH = "KTH-SP2-1996-2.1-cln"


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return ingested_warehouse(tmp_path_factory, "plainruns", KTH)


def _plan_run(wh, experiment, role, backfill):
    con = wh.reader()
    try:
        # policy too: the plan has an LWF row beside the FCFS one, and a view's row order is not defined
        return con.execute("SELECT run_id FROM report_plan_runs WHERE trace = ? AND experiment = ? AND role = ? "
                           "AND backfill = ? AND policy = 'fcfs'", [KTH, experiment, role, backfill]).fetchone()[0]
    finally:
        con.close()


def test_a_later_forecast_with_run_does_not_replace_the_plain_run(wh):
    plain = simulate(wh, KTH, make_config(policy="fcfs", backfill="none", estimate="request", predict_wait=True))
    other = simulate(wh, KTH, make_config(policy="fcfs", backfill="none", estimate="request", predict_wait=True,
                                          forecast_with="actual"))
    assert other.run_id != plain.run_id
    assert _plan_run(wh, "smith", "original", "none") == plain.run_id


def test_a_later_node_aware_run_does_not_replace_the_plain_run(wh):
    opts = dict(policy="fcfs", backfill="conservative", estimate="request", overrun="double")
    plain = simulate(wh, KTH, make_config(**opts))
    nodes = simulate(wh, KTH, make_config(**opts, nodes_aware=True))
    assert nodes.run_id != plain.run_id
    assert _plan_run(wh, "klusacek", "original", "conservative") == plain.run_id
