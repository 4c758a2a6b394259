"""The simulate stage on real traces: stored runs checked against the spec.

Library calls for the heavy work (one process), the real CLI for --json and
the error paths. Job-by-job comparison with the naive simulator lives in
test_simulate_naive.py.
"""

from __future__ import annotations

import json
import math
import re

import pytest

from conftest import run_cli, trace_path
from pipeline.errors import WalltimeError
from pipeline.ingest import ingest
from pipeline.metrics import METRIC_NAMES
from pipeline.simulate import make_config, simulate
from pipeline.warehouse import Warehouse
from simulate_checks import check_invariants, q

KTH = "KTH-SP2-1996-2.1-cln"
SDSC = "SDSC-SP2-1998-4.2-cln"
CTC = "CTC-SP2-1996-3.1-cln"
META = "METACENTRUM-2009-2"


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    w = Warehouse(tmp_path_factory.mktemp("simwh") / "wh")
    ingest([trace_path(f"{KTH}.swf.gz"), trace_path(f"{SDSC}.swf.gz"), trace_path(f"{CTC}.swf.gz"),
            trace_path(f"{META}.swf.gz")], w)
    return w


@pytest.mark.parametrize("trace,policy,backfill,cap", [
    (KTH, "fcfs", "easy", None), (KTH, "wfp", "conservative", None), (SDSC, "sjf", "none", None),
    (CTC, "lwf", "easy", 512),
])
def test_stored_run_keeps_invariants(wh, trace, policy, backfill, cap):
    res = simulate(wh, trace, make_config(policy=policy, backfill=backfill, estimate="request", capacity=cap))
    check_invariants(wh, res.run_id)
    (jobs_in_trace,), = q(wh, "SELECT jobs FROM traces WHERE trace = ?", [trace])
    c = res.counts
    assert c["jobs_in_trace"] == jobs_in_trace
    assert c["jobs_simulated"] + c["left_out_no_run"] + c["left_out_no_size"] + c["dropped_oversized"] == jobs_in_trace
    assert res.metrics["jobs"] == c["jobs_simulated"]


def test_input_rules_counted(wh):
    res = simulate(wh, SDSC, make_config(backfill="none"))
    (no_run, no_size, no_req), = q(wh, """
        SELECT count(*) FILTER (WHERE run IS NULL OR run < 0),
               count(*) FILTER (WHERE run >= 0 AND (nodes IS NULL OR nodes <= 0)),
               count(*) FILTER (WHERE run >= 0 AND nodes > 0 AND (req IS NULL OR req <= 0))
        FROM jobs WHERE trace = ?""", [SDSC])
    assert (res.counts["left_out_no_run"], res.counts["left_out_no_size"], res.counts["no_request"]) == (no_run, no_size, no_req)
    assert no_run > 0 and no_req > 0
    # req <= 0 became max(run, 1); the request estimate is the (fixed) request
    (bad,), = q(wh, """
        SELECT count(*) FROM sim_jobs s JOIN jobs j ON j.trace = ? AND j.job_id = s.job_id
        WHERE s.run_id = ? AND (s.req <> CASE WHEN j.req > 0 THEN j.req ELSE greatest(j.run, 1) END
                                OR s.est_wait <> s.req OR s.est_run <> s.req)""", [SDSC, res.run_id])
    assert bad == 0


def test_selective_runs_on_request(wh):
    res = simulate(wh, KTH, make_config(estimate="actual", adjust="selective"))
    (bad_wait, bad_run), = q(wh, """
        SELECT count(*) FILTER (WHERE est_wait <> greatest(run, 0)), count(*) FILTER (WHERE est_run <> req)
        FROM sim_jobs WHERE run_id = ?""", [res.run_id])
    assert bad_wait == 0 and bad_run == 0


def test_history_scheme_computed_first_and_used(wh):
    scheme = "tang:floor=0.5,key=user,min=10,stat=p85,window=30d"
    (before,), = q(wh, "SELECT count(*) FROM estimates WHERE trace = ? AND scheme = ?", [KTH, scheme])
    assert before == 0
    res = simulate(wh, KTH, make_config(policy="wfp", estimate="tang:user,30d,p85", adjust="selective"))
    assert res.config.estimate == scheme
    # est_wait = ceil(est), or the request where the scheme gave none; est_run = req (selective)
    (n, bad, adjusted), = q(wh, """
        SELECT count(*),
               count(*) FILTER (WHERE s.est_wait <> COALESCE(ceil(e.est)::BIGINT, s.req) OR s.est_run <> s.req),
               count(*) FILTER (WHERE s.est_wait < s.req)
        FROM sim_jobs s LEFT JOIN estimates e ON e.trace = ? AND e.scheme = ? AND e.job_id = s.job_id
        WHERE s.run_id = ?""", [KTH, scheme, res.run_id])
    assert n == res.metrics["jobs"] and bad == 0 and adjusted > 1000
    assert (wh.root / "parquet" / "estimates" / f"{KTH}.parquet").exists()
    check_invariants(wh, res.run_id)


def test_predict_wait_forecasts_every_job(wh):
    res = simulate(wh, SDSC, make_config(policy="fcfs", backfill="easy", predict_wait=True))
    (n, early), = q(wh, """SELECT count(predicted_start), count(*) FILTER (WHERE predicted_start < submit)
                          FROM sim_jobs WHERE run_id = ?""", [res.run_id])
    assert n == res.metrics["jobs"] == res.metrics["predicted"] and early == 0
    plain = simulate(wh, SDSC, make_config(policy="fcfs", backfill="easy"))
    # forecasting does not change the schedule
    (diff,), = q(wh, """SELECT count(*) FROM sim_jobs a JOIN sim_jobs b USING (job_id)
                       WHERE a.run_id = ? AND b.run_id = ? AND a.start <> b.start""", [res.run_id, plain.run_id])
    assert diff == 0 and res.run_id != plain.run_id


def test_same_options_same_run(wh):
    cfg = make_config(policy="wfp", backfill="easy", estimate="request")
    first = simulate(wh, KTH, cfg)
    before = q(wh, "SELECT job_id, start, backfilled FROM sim_jobs WHERE run_id = ? ORDER BY job_id", [first.run_id])
    again = simulate(wh, KTH, make_config(policy="WFP", backfill="easy", estimate="request", capacity=100))
    assert again.run_id == first.run_id and again.reused and again.metrics == first.metrics
    forced = simulate(wh, KTH, cfg, force=True)
    assert forced.run_id == first.run_id and not forced.reused
    after = q(wh, "SELECT job_id, start, backfilled FROM sim_jobs WHERE run_id = ? ORDER BY job_id", [first.run_id])
    assert after == before
    (runs,), = q(wh, "SELECT count(*) FROM runs WHERE run_id = ?", [first.run_id])
    assert runs == 1


def test_other_options_other_run(wh):
    a = simulate(wh, KTH, make_config(backfill="easy"))
    b = simulate(wh, KTH, make_config(backfill="easy", overrun="double"))
    c = simulate(wh, KTH, make_config(backfill="easy", capacity=120))
    assert len({a.run_id, b.run_id, c.run_id}) == 3


def test_split_month_runs_each_month_alone(wh):
    whole = simulate(wh, KTH, make_config(backfill="easy"))
    res = simulate(wh, KTH, make_config(backfill="easy", split="month"))
    months = [m for (m,) in q(wh, "SELECT DISTINCT month FROM jobs WHERE trace = ? ORDER BY 1", [KTH])]
    assert [m["month"] for m in res.months] == months
    assert sum(m["jobs"] for m in res.months) == res.metrics["jobs"]
    check_invariants(wh, res.run_id)
    # each month starts from an empty machine: its first job starts on arrival
    firsts = q(wh, """SELECT month, wait FROM sim_jobs WHERE run_id = ?
                      QUALIFY row_number() OVER (PARTITION BY month ORDER BY submit, job_id) = 1""", [res.run_id])
    assert len(firsts) == len(months) and all(w == 0 for _, w in firsts)
    # months with a queue that spans the month boundary differ from the continuous run
    assert res.metrics["mean_wait"] != whole.metrics["mean_wait"]


def test_load_factor_compresses_interarrivals(wh):
    base = simulate(wh, KTH, make_config(backfill="easy"))
    res = simulate(wh, KTH, make_config(backfill="easy", load_factor=0.5))
    check_invariants(wh, res.run_id)
    (bad,), = q(wh, """
        WITH a AS (SELECT job_id, submit FROM sim_jobs WHERE run_id = ?),
             b AS (SELECT job_id, submit FROM sim_jobs WHERE run_id = ?),
             f AS (SELECT min(submit) AS first FROM a)
        SELECT count(*) FROM a JOIN b USING (job_id), f
        WHERE b.submit <> f.first + floor((a.submit - f.first) * 0.5)""", [base.run_id, res.run_id])
    assert bad == 0
    assert res.metrics["mean_wait"] > base.metrics["mean_wait"]
    assert res.metrics["makespan"] < base.metrics["makespan"]


def test_drop_oversized(wh):
    with pytest.raises(WalltimeError, match="--capacity 64: job .* needs"):
        simulate(wh, KTH, make_config(capacity=64))
    res = simulate(wh, KTH, make_config(capacity=64, drop_oversized=True))
    (wide,), = q(wh, "SELECT count(*) FROM jobs WHERE trace = ? AND run >= 0 AND nodes > 64", [KTH])
    assert res.counts["dropped_oversized"] == wide > 0
    check_invariants(wh, res.run_id)


def test_predicted_start_and_error(wh):
    cons = simulate(wh, KTH, make_config(backfill="conservative", estimate="request"))
    assert cons.metrics["predicted"] == cons.metrics["jobs"]
    assert cons.metrics["prediction_error"] >= 0 and cons.metrics["prediction_error_pct"] > 0
    easy = simulate(wh, KTH, make_config(backfill="easy"))
    assert easy.metrics["predicted"] == 0 and easy.metrics["prediction_error"] is None


@pytest.mark.parametrize("backfill", ["easy", "conservative"])
def test_start_no_later_than_first_bound(wh, backfill):
    """FCFS with exact estimates: no estimate undershoots, so EASY starts each job no
    later than the shadow time computed when it became head, and conservative no
    later than its first reservation."""
    res = simulate(wh, KTH, make_config(policy="fcfs", backfill=backfill, estimate="actual"))
    (bounded, late), = q(wh, """SELECT count(first_bound), count(*) FILTER (WHERE start > first_bound)
                             FROM sim_jobs WHERE run_id = ?""", [res.run_id])
    assert bounded > 0 and late == 0
    check_invariants(wh, res.run_id)


def _stored_counts(wh_dir):
    w = Warehouse(wh_dir)
    if not w.exists():
        return None
    con = w.reader()
    try:
        return tuple(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                     for t in ("runs", "sim_jobs", "run_metrics", "estimates"))
    finally:
        con.close()


@pytest.mark.parametrize("args,message", [
    ([KTH, "--policy", "lifo"], '--policy "lifo": unknown'),
    ([KTH, "--estimate", "oracle"], '--estimate "oracle": unknown scheme'),
    ([KTH, "--capacity", "50"], "--capacity 50: job"),
    (["NO-SUCH-TRACE"], 'trace "NO-SUCH-TRACE": not in the warehouse'),
    ([META], 'trace "METACENTRUM-2009-2" has no capacity'),
    ([META, "--capacity", "100000", "--estimate", "request"], "has no requested times"),
])
def test_bad_options_fail_cleanly(wh, args, message):
    """Through the real CLI: exit 1, one line naming the option, nothing stored.
    (Every option's validation is unit-tested in test_simulate_inputs.py.)"""
    before = _stored_counts(wh.root)
    proc = run_cli("simulate", *args, warehouse=wh.root)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert proc.stdout == ""
    assert _stored_counts(wh.root) == before


def test_json_document(wh):
    proc = run_cli("simulate", KTH, "--backfill", "conservative", "--split", "month", "--json", warehouse=wh.root)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert {"run_id", "metrics", "months", "timings"} <= set(doc)
    assert tuple(doc["metrics"]) == METRIC_NAMES
    assert all(len(m["month"]) == 7 and m["month"][4] == "-" for m in doc["months"])
    for k in ("load_s", "simulate_s", "write_s"):
        assert isinstance(doc["timings"][k], float) and math.isfinite(doc["timings"][k])
    (n,), = q(wh, "SELECT count(*) FROM sim_jobs WHERE run_id = ?", [doc["run_id"]])
    assert n == doc["metrics"]["jobs"]
    assert (wh.root / "parquet" / "sim_jobs" / f"{doc['run_id']}.parquet").exists()
    human = run_cli("simulate", KTH, "--backfill", "none", warehouse=wh.root)
    assert human.returncode == 0 and "stored run" in human.stdout and "mean wait" in human.stdout
    assert re.search(r"mean wait [\d.,]+ (h|min|s), median wait", human.stdout)  # units in the sentence
    reused = run_cli("simulate", KTH, "--backfill", "none", warehouse=wh.root)
    assert "reused the stored run" in reused.stdout and "simulate 0.0" not in reused.stdout
    first = json.loads(run_cli("simulate", KTH, "--backfill", "none", "--policy", "sjf", "--json",
                               warehouse=wh.root).stdout)
    again = json.loads(run_cli("simulate", KTH, "--backfill", "none", "--policy", "sjf", "--json",
                               warehouse=wh.root).stdout)
    assert "months" not in first and first["reused"] is False and first["timings"]["simulate_s"] > 0
    assert again["reused"] is True and again["run_id"] == first["run_id"] and again["metrics"] == first["metrics"]
