"""`walltime simulate --estimate ave2 --history simulated` through the stage
(issue 26): the canonical config (other run ids unchanged), the refusals, and
a stored run against the naive twin (tests/naive_sim.simulate_learn) on the
jobs and users read back from the warehouse. The loop: tests/test_kernel_learn.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

import naive_sim
from conftest import run_cli
from pipeline.errors import WalltimeError
from pipeline.simulate import make_config
from pipeline.simulate.config import SimConfig
from pipeline.warehouse import Warehouse
from test_reliability import one_line_error
from test_simulate_easypp import DEFAULT, wh  # noqa: F401  (wh: its generated trace 'g', a fixture)


def test_log_history_keeps_the_canonical_form():
    assert make_config(capacity=64, history="log").canonical() == DEFAULT
    cfg = make_config(capacity=64, estimate="ave2", history="simulated", backfill_order="sjbf")
    d = json.loads(cfg.canonical())
    assert d["history"] == "simulated" and d["estimate"] == "ave2"
    assert SimConfig(**d) == cfg  # how a study's worker reads its task


@pytest.mark.parametrize("options,needle", [
    (dict(history="simulated"), "--history simulated: learns ave2, learned inside the replay; not --estimate request"),
    (dict(history="simulated", estimate="learned", predict_wait=True), "--estimate learned: no --predict-wait"),
    (dict(history="simulated", estimate="ave2", backfill="conservative"), "needs --backfill none or easy"),
    (dict(history="simulated", estimate="ave2", adjust="selective"), "use --adjust regular"),
    (dict(history="simulated", estimate="ave2", split="month"), "not with --split"),
    (dict(history="replay", estimate="ave2"), '--history "replay": unknown; use one of log, simulated'),
])
def test_refusals_name_the_option(options, needle):
    with pytest.raises(WalltimeError, match="^--history") as e:
        make_config(capacity=64, **options)
    assert needle in str(e.value)


def test_stored_run_equals_the_naive_twin(wh):
    log = json.loads(run_cli("simulate", "g", "--estimate", "ave2", "--backfill-order", "sjbf", "--json",
                             warehouse=wh, check=True).stdout)
    doc = json.loads(run_cli("simulate", "g", "--estimate", "ave2", "--history", "simulated", "--backfill-order",
                             "sjbf", "--json", warehouse=wh, check=True).stdout)
    assert doc["run_id"] != log["run_id"]
    con = Warehouse(wh).reader()
    try:
        assert json.loads(con.execute("SELECT config FROM runs WHERE run_id = ?", [doc["run_id"]]).fetchone()[0])[
            "history"] == "simulated"
        cols = con.execute(
            "SELECT s.submit, s.job_id, s.run, s.nodes, s.req, s.est_wait, s.est_run, s.start, "
            "coalesce(j.user_id, -1) AS user_id FROM sim_jobs s JOIN jobs j ON j.trace = 'g' AND j.job_id = s.job_id "
            "WHERE s.run_id = ? ORDER BY s.submit, s.job_id", [doc["run_id"]]).fetchnumpy()
        log_est = con.execute("SELECT est_wait FROM sim_jobs WHERE run_id = ? ORDER BY submit, job_id",
                              [log["run_id"]]).fetchnumpy()["est_wait"]
    finally:
        con.close()
    a = {k: np.ascontiguousarray(v, dtype=np.int64) for k, v in cols.items()}
    user = np.unique(a["user_id"], return_inverse=True)[1].astype(np.int64)  # every generated job has a user
    start, *_, est = naive_sim.simulate_learn(a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], user, 64,
                                             0, 3, 0, False)
    assert (start == a["start"]).all()
    assert (est == a["est_wait"]).all() and (est == a["est_run"]).all(), "stored: the estimates the loop used"
    assert (est < a["req"]).mean() > 0.3 and (est != np.asarray(log_est)).any(), "not the log's ave2"
    text = run_cli("simulate", "g", "--estimate", "ave2", "--history", "simulated", "--backfill-order", "sjbf",
                   warehouse=wh, check=True).stdout
    assert "(fcfs/easy++, estimate ave2 learned in the replay" in text and doc["run_id"] in text


def test_cli_refusal_is_one_line(wh):
    before = run_cli("sql", "SELECT count(*) FROM runs", "--csv", warehouse=wh, check=True).stdout
    one_line_error(run_cli("simulate", "g", "--history", "simulated", warehouse=wh),
                   "--history simulated", "--estimate request")
    assert run_cli("sql", "SELECT count(*) FROM runs", "--csv", warehouse=wh, check=True).stdout == before


def test_study_grid_over_history(tmp_path):
    from pipeline.study.config import load_study

    (tmp_path / "g.swf").write_text("")
    base = '[[traces]]\npath = "g.swf"\nname = "g"\n[[simulations]]\ncapacity = 64\n'
    f = tmp_path / "s.toml"
    f.write_text(base + 'estimate = "ave2"\nhistory = ["log", "simulated"]\nbackfill_order = "sjbf"\n')
    assert [s.config.history for s in load_study(f).simulations] == ["log", "simulated"]
    f.write_text(base + 'history = "simulated"\n')
    with pytest.raises(WalltimeError, match=r": simulations\[0\]\.history: --history simulated: learns ave2, learned "):
        load_study(f)


LEARNED = "learned:loss=eloss,under=4,retrain=3d,window=2000,trees=20"


@pytest.mark.slow
def test_stored_learned_run_equals_the_naive_twin(wh):
    """--estimate learned --history simulated through the stage: the stored starts and estimates
    are the twin's (naive_sim.simulate_learned: LightGBM per arrival on features from its own
    replay), with the models trained walk-forward on the warehouse's jobs; not the log's estimates."""
    from pipeline.estimates import learned as L
    from pipeline.estimates import load_jobs
    from pipeline.schemes import parse
    from pipeline.simulate._learned import loop_inputs

    log = json.loads(run_cli("simulate", "g", "--estimate", LEARNED, "--backfill-order", "sjbf", "--json",
                             warehouse=wh, check=True).stdout)
    doc = json.loads(run_cli("simulate", "g", "--estimate", LEARNED, "--history", "simulated", "--backfill-order",
                             "sjbf", "--json", warehouse=wh, check=True).stdout)
    assert doc["run_id"] != log["run_id"]
    con = Warehouse(wh).reader()
    try:
        cols = con.execute("SELECT submit, job_id, run, nodes, req, est_wait, est_run, start FROM sim_jobs "
                           "WHERE run_id = ? ORDER BY submit, job_id", [doc["run_id"]]).fetchnumpy()
        log_est = con.execute("SELECT est_wait FROM sim_jobs WHERE run_id = ? ORDER BY submit, job_id",
                              [log["run_id"]]).fetchnumpy()["est_wait"]
        jobs = load_jobs(con, "g")
    finally:
        con.close()
    a = {k: np.ascontiguousarray(v, dtype=np.int64) for k, v in cols.items()}
    s = parse(LEARNED)
    ju, _, xs, model, _, _ = loop_inputs(jobs, s, a["job_id"])
    models = L.fit(jobs, s["q"], s["loss"], s["under"], s["retrain"], s["window"], s["trees"])[2]
    start, *_, est = naive_sim.simulate_learned(a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], 64,
                                                naive_sim.FCFS, naive_sim.EASY_SJBF, naive_sim.REQUEST, ju, xs,
                                                model, models)
    assert (model >= 0).mean() > 0.5
    assert (start == a["start"]).all()
    assert (est == a["est_wait"]).all() and (est == a["est_run"]).all()
    assert (est != np.asarray(log_est)).mean() > 0.1, "features from the replay, not the log"
