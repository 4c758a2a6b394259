"""`walltime simulate --forecast-with SCHEME` through the real CLI on a real
trace: the scheduler keeps --estimate, the wait forecast uses the scheme's run
times (Smith, Taylor & Foster's set-up); the stored forecasts are the kernel's
on the same inputs, the schedule is the one without the option."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli, ingested_warehouse
from pipeline.simulate import kernel, make_config
from pipeline.simulate.inputs import load_inputs, with_forecast
from simulate_checks import q

KTH = "KTH-SP2-1996-2.1-cln"


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return ingested_warehouse(tmp_path_factory, "fcwh", KTH)


def _sim(wh, *args):
    proc = run_cli("simulate", KTH, *args, "--json", warehouse=wh.root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _starts(wh, run_id):
    rows = q(wh, "SELECT job_id, start, predicted_start FROM sim_jobs WHERE run_id = ? ORDER BY job_id", [run_id])
    return np.array([r[1] for r in rows]), np.array([r[2] for r in rows]), np.array([r[0] for r in rows])


@pytest.mark.slow
@pytest.mark.parametrize("backfill", ["conservative", "none"])
def test_forecast_with_actual_through_the_cli(wh, backfill):
    doc = _sim(wh, "--backfill", backfill, "--forecast-with", "actual")
    base = _sim(wh, "--backfill", backfill, "--predict-wait")
    cfg = json.loads(doc["config"])
    assert cfg["forecast_with"] == "actual" and cfg["predict_wait"] is True
    assert "forecast_with" not in json.loads(base["config"])  # runs without it keep their run ids
    assert doc["run_id"] != base["run_id"]
    start, pred, ids = _starts(wh, doc["run_id"])
    start0, pred0, ids0 = _starts(wh, base["run_id"])
    assert np.array_equal(ids, ids0) and np.array_equal(start, start0), "the schedule does not change"
    assert doc["metrics"]["predicted"] == doc["metrics"]["jobs"]
    # the stored forecasts are the kernel's on the same inputs
    con = wh.reader()
    try:
        cfg_ = make_config(backfill=backfill)
        inp = with_forecast(con, load_inputs(con, KTH, "request", 100, False, "regular"), KTH, "actual", 100,
                            False)
    finally:
        con.close()
    assert np.array_equal(inp.fc_run, inp.run)
    _, _, p, _, _ = kernel.simulate_forecast(inp.submit, inp.job_id, inp.run, inp.nodes, inp.est_wait,
                                             inp.est_run, inp.req, 100, 0, kernel.BACKFILLS[cfg_.backfill], 0,
                                             inp.fc_run)
    order = np.argsort(inp.job_id)
    assert np.array_equal(p[order], pred)
    # actual run times forecast better than the requests
    assert doc["metrics"]["prediction_error"] < base["metrics"]["prediction_error"]
    human = run_cli("simulate", KTH, "--backfill", backfill, "--forecast-with", "actual", warehouse=wh.root)
    assert "wait forecast on actual" in human.stdout
    assert "wait forecasts at submission (on actual) were off by" in human.stdout


def test_forecast_with_in_help():
    assert "--forecast-with" in run_cli("simulate", "--help").stdout


@pytest.mark.parametrize("args,message", [
    (["--forecast-with", "oracle"], '--forecast-with "oracle": unknown scheme'),
    (["--forecast-with", "actual", "--nodes-aware", "--backfill", "none"], "--forecast-with: not available"),
])
def test_bad_forecast_options_fail_cleanly(wh, args, message):
    proc = run_cli("simulate", KTH, *args, warehouse=wh.root)
    assert proc.returncode == 1 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


@pytest.mark.slow
def test_forecast_with_downey_re_predicts_running_jobs_through_the_cli(wh):
    """A predictor from history: the stored forecasts are the kernel's with the
    running jobs re-predicted at each instant (conditional.forecast_inputs),
    and differ from forecasts that keep each job's prediction at submission."""
    from pipeline.schemes import parse
    from pipeline.simulate.conditional import forecast_inputs, loop_frame

    doc = _sim(wh, "--backfill", "none", "--forecast-with", "downey:stat=median,key=user")
    start, pred, ids = _starts(wh, doc["run_id"])
    con = wh.reader()
    try:
        inp = with_forecast(con, load_inputs(con, KTH, "request", 100, False, "regular"), KTH,
                            "downey:stat=median,key=user", 100, False)
    finally:
        con.close()
    args = (inp.submit, inp.job_id, inp.run, inp.nodes, inp.est_wait, inp.est_run, inp.req, 100, 0, 0, 0)
    real = kernel.simulate(*args, False)[0]
    fc, table = forecast_inputs(loop_frame(inp), real, parse("downey:stat=median,key=user"), None)
    assert table.cjob.size > 10_000
    p = kernel.simulate_forecast_running(*args, fc, *table.args())[2]
    order = np.argsort(inp.job_id)
    assert np.array_equal(p[order], pred)
    assert not np.array_equal(kernel.simulate_forecast(*args, fc)[2][order], pred)
