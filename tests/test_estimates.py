"""Hand-checked estimator cases, storage and the `walltime estimate` command."""

from __future__ import annotations

import json

import duckdb
import polars as pl
import pytest
from conftest import run_cli

from pipeline.errors import WalltimeError
from pipeline.estimates import ensure_estimates, estimate, load_estimates
from pipeline.estimates.compute import compute
from pipeline.schemes import parse
from pipeline.warehouse import Warehouse, transaction

SCHEMA = {"job_id": pl.Int64, "submit": pl.Int64, "run": pl.Int64, "req": pl.Int64, "end": pl.Int64,
          "user_id": pl.Int64, "group_id": pl.Int64, "exe_id": pl.Int64, "nodes": pl.Int64}


def job(job_id, submit, run, req, wait=0, user=1, group=1, exe=1, nodes=1):
    """A job as the estimators see it (sql/estimates_jobs.sql): req <= 0 -> None."""
    end = None if wait is None or run is None else submit + wait + run
    return {"job_id": job_id, "submit": submit, "run": run, "req": req if req and req > 0 else None,
            "end": end, "user_id": user, "group_id": group, "exe_id": exe, "nodes": nodes}


def frame(jobs) -> pl.DataFrame:
    return pl.DataFrame(jobs, schema=SCHEMA)


def est(jobs, spec) -> dict:
    out = compute(frame(jobs), parse(spec))
    return {r["job_id"]: r["est"] for r in out.to_dicts()}


def hist(jobs, spec) -> dict:
    out = compute(frame(jobs), parse(spec))
    return {r["job_id"]: r["hist"] for r in out.to_dicts()}


TANG_MAX1 = "tang:key=user,window=all,stat=max,floor=0,min=1"


# -- history boundaries (all history-based schemes share them) ---------------

def test_job_ending_exactly_at_submission_is_history():
    jobs = [job(1, 0, 50, 100), job(2, 50, 10, 200)]
    assert est(jobs, TANG_MAX1) == {1: 100.0, 2: 100.0}  # 200 x R(1)=0.5
    assert hist(jobs, TANG_MAX1) == {1: 0, 2: 1}


def test_job_ending_one_second_after_submission_is_not_history():
    jobs = [job(1, 0, 51, 100), job(2, 50, 10, 200)]
    assert est(jobs, TANG_MAX1)[2] == 200.0
    assert hist(jobs, TANG_MAX1)[2] == 0


def test_zero_length_job_submitted_at_the_same_instant_is_not_history():
    # job 2 is submitted and ends at t=50 (wait 0, run 0): it is not history for
    # job 3, submitted at t=50 too, but it is for job 4 at t=51.
    jobs = [job(1, 0, 50, 100), job(2, 50, 0, 100), job(3, 50, 10, 200), job(4, 51, 10, 200)]
    h = hist(jobs, TANG_MAX1)
    assert h[3] == 1 and h[4] == 2
    e = est(jobs, "tang:key=user,window=all,stat=mean,floor=0,min=1")
    assert e[3] == 100.0            # mean R of job 1 only: 0.5
    assert e[4] == 200 * 0.25      # mean of 0.5 and 0.0


def test_ties_at_equal_times_are_all_history():
    # three jobs end at t=100; a job submitted at t=100 sees all three.
    jobs = [job(1, 0, 100, 400), job(2, 10, 90, 100), job(3, 20, 80, 800), job(4, 100, 5, 1000)]
    assert hist(jobs, TANG_MAX1)[4] == 3
    assert est(jobs, "tang:key=user,window=all,stat=median,floor=0,min=1")[4] == 1000 * 0.25


def test_unknown_end_is_never_history():
    jobs = [job(1, 0, 50, 100, wait=None), job(2, 0, None, 100), job(3, 500, 10, 200)]
    assert hist(jobs, TANG_MAX1)[3] == 0
    assert est(jobs, "ave2")[3] == 200.0


def test_empty_history_gives_the_request():
    jobs = [job(1, 0, 50, 100)]
    for spec in ("tang:user,30d,p95", "klusacek", "ave2", "feitelson", "request"):
        assert est(jobs, spec) == {1: 100.0}, spec


# -- tang ---------------------------------------------------------------------

def _tang_history():
    # R = 0.1, 0.2, 0.3, 0.4 and 1.0 (run over the request, capped), all ended by t=1000
    runs = [(10, 100), (20, 100), (30, 100), (40, 100), (150, 100)]
    return [job(i + 1, i, r, q) for i, (r, q) in enumerate(runs)]


def test_tang_percentile_is_linear_interpolation():
    jobs = _tang_history() + [job(9, 1000, 10, 1000)]
    e = est(jobs, "tang:key=user,window=all,stat=p90,floor=0,min=5")
    assert e[9] == pytest.approx(1000 * (0.4 + 0.6 * 0.6))  # h = 4 * 0.9 = 3.6
    assert est(jobs, "tang:key=user,window=all,stat=max,floor=0,min=5")[9] == 1000.0
    assert est(jobs, "tang:key=user,window=all,stat=mean,floor=0,min=5")[9] == pytest.approx(400.0)


def test_tang_floor_and_min():
    jobs = _tang_history() + [job(9, 1000, 10, 1000)]
    assert est(jobs, "tang:key=user,window=all,stat=median,floor=0,min=5")[9] == pytest.approx(300.0)
    assert est(jobs, "tang:key=user,window=all,stat=median,floor=0.5,min=5")[9] == 500.0
    assert est(jobs, "tang:key=user,window=all,stat=median,floor=0,min=6")[9] == 1000.0  # too few
    assert est(jobs, "tang:key=user,window=all,stat=median,floor=0,min=0")[9] == pytest.approx(300.0)


def test_tang_window_is_inclusive_of_its_start():
    day = 86400
    jobs = [job(1, 0, 100, 200), job(2, 0, 50, 200), job(3, 100 + 30 * day, 10, 1000)]
    # job 1 ended exactly 30 days before job 3's submission (in), job 2 50 s earlier (out)
    assert hist(jobs, "tang:key=user,window=30d,stat=max,floor=0,min=1")[3] == 1
    assert est(jobs, "tang:key=user,window=30d,stat=max,floor=0,min=1")[3] == 500.0
    assert hist(jobs, "tang:key=user,window=60d,stat=max,floor=0,min=1")[3] == 2


def test_tang_keys_separate_histories():
    jobs = [job(1, 0, 10, 100, user=1, group=1), job(2, 0, 90, 100, user=2, group=1),
            job(3, 0, 50, 300, user=1, group=2), job(4, 1000, 10, 100, user=1, group=1)]
    spec = "tang:key={},window=all,stat=max,floor=0,min=1"
    assert est(jobs, spec.format("user"))[4] == pytest.approx(100 * max(0.1, 50 / 300))
    assert est(jobs, spec.format("project"))[4] == pytest.approx(90.0)
    assert est(jobs, spec.format("user_project"))[4] == pytest.approx(10.0)
    assert hist(jobs, spec.format("user_project_req"))[4] == 1


def test_unknown_key_means_no_history():
    jobs = [job(1, 0, 10, 100, group=None), job(2, 1000, 10, 100, group=None)]
    assert est(jobs, "tang:key=project,window=all,stat=max,floor=0,min=1")[2] == 100.0
    assert est(jobs, "tang:key=user,window=all,stat=max,floor=0,min=1")[2] == 10.0


def test_no_request_gives_no_estimate_for_request_based_schemes():
    jobs = [job(1, 0, 10, 100), job(2, 1000, 30, 0), job(3, 2000, 40, None)]
    for spec in ("request", "factor:f=2", "tang:user,all,max,0,1", "klusacek"):
        e = est(jobs, spec)
        assert e[2] is None and e[3] is None, spec
    # history schemes capped at the request are simply not capped
    assert est(jobs, "ave2")[3] == 20.0   # mean of runs 10 and 30
    assert est(jobs, "actual")[3] == 40.0
    # and jobs without a request are not history for R-based schemes
    assert hist(jobs, "tang:user,all,max,0,1")[3] == 1


# -- klusacek, ave2, feitelson -------------------------------------------------

def test_klusacek_takes_the_max_usage_of_the_last_n_finished():
    # end times 100 (R .9), 200 (R .1), 300 (R .2), 400 (R .3); submitted out of order
    jobs = [job(1, 0, 90, 100), job(2, 150, 50, 500), job(3, 100, 200, 1000), job(4, 0, 400, 1333),
            job(9, 1000, 10, 1000)]
    assert est(jobs, "klusacek:last=3")[9] == pytest.approx(1000 * max(0.1, 0.2, 400 / 1333))
    assert est(jobs, "klusacek:last=4")[9] == pytest.approx(900.0)
    assert hist(jobs, "klusacek:last=3")[9] == 3


def test_klusacek_ties_in_end_time_break_by_submit_then_job_id():
    # jobs 1-3 all end at t=100; the "last 1" is the latest submitted (job 2).
    jobs = [job(1, 0, 100, 1000), job(2, 50, 50, 100), job(3, 20, 80, 100), job(9, 500, 1, 1000)]
    assert est(jobs, "klusacek:last=1")[9] == pytest.approx(500.0)   # R(2) = 0.5
    jobs[2] = job(3, 50, 50, 200)                                    # same end and submit: id 3 wins
    assert est(jobs, "klusacek:last=1")[9] == pytest.approx(250.0)


def test_ave2_mean_of_last_two_capped():
    jobs = [job(1, 0, 100, 1000), job(2, 0, 300, 1000), job(3, 0, 500, 1000), job(9, 1000, 1, 350)]
    assert est(jobs, "ave2")[9] == 350.0  # mean(300, 500) = 400, capped at 350
    jobs[3] = job(9, 1000, 1, 5000)
    assert est(jobs, "ave2")[9] == 400.0
    assert hist(jobs, "ave2")[9] == 2


def test_feitelson_mean_plus_sd_on_exe_user_nodes_within_horizon():
    day = 86400
    jobs = [job(1, 0, 100, 10**6, exe=7, nodes=4), job(2, 0, 300, 10**6, exe=7, nodes=4),
            job(3, 0, 999, 10**6, exe=7, nodes=8),                # other size
            job(4, -8 * day, 5000, 10**6, exe=7, nodes=4),        # ended > 7 days before
            job(9, 7 * day, 1, 10**6, exe=7, nodes=4)]
    assert est(jobs, "feitelson")[9] == pytest.approx(200 + 1.5 * 100)
    assert est(jobs, "feitelson:sd=0,horizon=30d")[9] == pytest.approx((100 + 300 + 5000) / 3)
    jobs[4] = job(9, 7 * day, 1, 250, exe=7, nodes=4)
    assert est(jobs, "feitelson")[9] == 250.0


# -- request-free schemes -------------------------------------------------------

def test_uniform_is_in_range_reproducible_and_per_job():
    jobs = [job(i, i, 100 + i, 1000) for i in range(1, 400)]
    a = est(jobs, "uniform:f=4,seed=7")
    assert all(100 + i <= a[i] <= 4 * (100 + i) for i in a)
    assert a == est(jobs, "uniform:f=4,seed=7")
    assert a != est(jobs, "uniform:f=4,seed=8")
    assert est(jobs[::3], "uniform:f=4,seed=7") == {i: a[i] for i in range(1, 400, 3)}
    assert est([job(1, 0, 100, 1000)], "uniform:f=1,seed=0") == {1: 100.0}


def test_model_follows_mualem_feitelson_4_3():
    jobs = [job(i, i, 1000, 5000) for i in range(1, 5001)] + [job(9000 + i, i, 50, 5000) for i in range(200)]
    e = est(jobs, "model:seed=3")
    long_jobs = [e[i] for i in range(1, 5001)]
    exact = sum(1 for v in long_jobs if v == pytest.approx(990.0))
    assert 0.08 < exact / len(long_jobs) < 0.12            # 10% get 0.99 x run
    assert all(v == pytest.approx(990.0) or 1000 <= v <= 86400 for v in long_jobs)
    short = [e[9000 + i] for i in range(200)]
    assert all(v == pytest.approx(49.5) or 500 <= v <= 86400 for v in short)  # x10 under 90 s


# -- storage and API ----------------------------------------------------------

SWF_HEADER = "; MaxProcs: 64\n; UnixStartTime: 1000000000\n"


def swf_line(job_id, submit, wait, run, req, user=1, group=1, procs=1):
    return f"{job_id} {submit} {wait} {run} {procs} -1 -1 {procs} {req} -1 1 {user} {group} 1 1 -1 -1 -1\n"


@pytest.fixture
def small_wh(tmp_path):
    """A real warehouse with one small ingested trace."""
    from pipeline.ingest import ingest
    lines = [swf_line(i, i * 100, 5, 30 + i % 50, 200 + 60 * (i % 3), user=1 + i % 3) for i in range(1, 121)]
    lines.append(swf_line(121, 20000, 0, 40, -1))
    path = tmp_path / "small.swf"
    path.write_text(SWF_HEADER + "".join(lines))
    wh = Warehouse(tmp_path / "wh")
    ingest([path], wh)
    return wh


def test_ensure_and_load_round_trip(small_wh):
    names = ensure_estimates(small_wh, "small", ["tang:stat=p85,key=user,window=30d", "request"])
    assert names == ["tang:floor=0.5,key=user,min=10,stat=p85,window=30d", "request"]
    con = small_wh.reader()
    df = load_estimates(con, "small", "tang:key=user,window=30d,stat=p85")
    assert df.columns == ["job_id", "est"] and df.height == 121
    assert df.filter(pl.col("job_id") == 121)["est"].to_list() == [None]
    n = con.execute("SELECT count(*) FROM estimate_accuracy WHERE trace = 'small'").fetchone()[0]
    con.close()
    assert n == 2
    assert small_wh.parquet_path("estimates", "small").exists()


def test_ensure_inside_callers_transaction_rolls_back(small_wh):
    with small_wh.writer() as con:
        with pytest.raises(RuntimeError):
            with transaction(con):
                ensure_estimates(small_wh, "small", ["klusacek"], con=con)
                assert con.execute("SELECT count(*) FROM estimates").fetchone()[0] == 121
                raise RuntimeError("caller fails")
        assert con.execute("SELECT count(*) FROM estimates").fetchone()[0] == 0


def test_schemes_spooled_one_by_one_then_stored_together(small_wh, monkeypatch):
    """Each scheme's estimates go to a Parquet file of their own as computed (issue 43: not held to
    the commit); a failure in a later scheme stores none of them and leaves no spool; a spool a
    killed command left is removed by the next writer; a stored run leaves none."""
    import pipeline.estimates as E

    real, calls = E.compute, []

    def failing(jobs, s, ts=None):
        calls.append(s.name)
        if s.name == "ave2":
            spools = list(small_wh.root.glob(".tmp-estimates-*"))
            assert len(spools) == 1 and len(list(spools[0].iterdir())) == 1  # the first scheme's file
            raise RuntimeError("killed")
        return real(jobs, s, ts)

    monkeypatch.setattr(E, "compute", failing)
    with pytest.raises(RuntimeError):
        estimate(small_wh, "small", ["request", "ave2"])
    assert calls == ["request", "ave2"] and not list(small_wh.root.glob(".tmp-estimates-*"))
    con = small_wh.reader()
    assert con.execute("SELECT count(*) FROM estimates").fetchone()[0] == 0
    con.close()
    monkeypatch.setattr(E, "compute", real)
    (small_wh.root / ".tmp-estimates-0123").mkdir()
    (small_wh.root / ".tmp-estimates-0123" / "0.parquet").write_bytes(b"half")
    report = estimate(small_wh, "small", ["request", "ave2"])
    assert [r["computed"] for r in report.schemes] == [True, True]
    assert not list(small_wh.root.glob(".tmp-estimates-*"))
    con = small_wh.reader()
    rows = con.execute("SELECT scheme, count(*), count(est) FROM estimates GROUP BY scheme ORDER BY scheme").fetchall()
    mirror = pl.read_parquet(small_wh.parquet_path("estimates", "small"))
    con.close()
    assert rows == [("ave2", 121, 121), ("request", 121, 120)]
    assert mirror.height == 242 and mirror["scheme"].unique().sort().to_list() == ["ave2", "request"]


def test_second_call_reuses_stored_schemes(small_wh):
    first = estimate(small_wh, "small", ["ave2"])
    second = estimate(small_wh, "small", ["ave2", "actual"])
    assert [r["computed"] for r in first.schemes] == [True]
    assert [r["computed"] for r in second.schemes] == [False, True]
    assert second.schemes[1]["acc_mean"] == 1.0 and second.schemes[1]["under_rate"] == 0.0


def test_reingested_content_makes_stored_estimates_stale(small_wh, tmp_path):
    from pipeline.ingest import ingest
    first = estimate(small_wh, "small", ["actual"])
    path = tmp_path / "small.swf"
    path.write_text(SWF_HEADER + swf_line(1, 0, 0, 10, 100) + swf_line(2, 500, 0, 20, 100))
    ingest([path], small_wh, replace=True)
    again = estimate(small_wh, "small", ["actual"])
    assert first.schemes[0]["scored"] == 121 and first.schemes[0]["computed"]
    assert again.schemes[0]["scored"] == 2 and again.schemes[0]["computed"]
    con = small_wh.reader()
    assert con.execute("SELECT count(*) FROM estimates").fetchone()[0] == 2
    con.close()


def test_load_estimates_of_unknown_scheme_is_a_user_error(small_wh):
    ensure_estimates(small_wh, "small", ["request"])
    con = small_wh.reader()
    with pytest.raises(WalltimeError, match="no estimates stored"):
        load_estimates(con, "small", "ave2")
    con.close()


# -- CLI -----------------------------------------------------------------------

def test_cli_json_shape(small_wh):
    proc = run_cli("estimate", "small", "--scheme", "request", "--scheme", "tang:user,all,p85",
                   "--json", warehouse=small_wh.root, check=True)
    doc = json.loads(proc.stdout)
    assert set(doc) == {"trace", "jobs", "schemes", "grid"}
    assert doc["trace"] == "small" and doc["jobs"] == 121 and doc["grid"] is None
    assert [s["scheme"] for s in doc["schemes"]] == ["request", "tang:floor=0.5,key=user,min=10,stat=p85,window=all"]
    for s in doc["schemes"]:
        assert {"scored", "acc_mean", "acc_median", "acc_mean_not_under", "under_rate",
                "na", "oe", "ue", "be", "above", "computed"} <= set(s)
        assert s["scored"] == 120
        assert s["na"] + s["oe"] + s["ue"] + s["be"] + s["above"] == pytest.approx(1.0)
    assert doc["schemes"][0]["na"] == 1.0


def test_cli_grid_json(small_wh):
    proc = run_cli("estimate", "small", "--grid", "tang", "--json", warehouse=small_wh.root, check=True)
    doc = json.loads(proc.stdout)
    rows = doc["grid"]["rows"]
    assert doc["grid"]["name"] == "tang" and doc["schemes"] == []
    assert len(rows) == 4 * 6 * 9 * 2
    assert {r["floor"] for r in rows} == {0.5, 0.0}
    assert len({r["scheme"] for r in rows}) == len(rows)
    assert doc["grid"]["computed"] is True
    again = json.loads(run_cli("estimate", "small", "--grid", "tang", "--json",
                               warehouse=small_wh.root, check=True).stdout)
    assert again["grid"]["computed"] is False and again["grid"]["rows"] == rows


@pytest.mark.parametrize("args, needle", [
    (["--scheme", "tang:key=user"], "tang needs window="),
    (["--scheme", "bogus"], 'unknown scheme "bogus"'),
    (["--scheme", "request", "--scheme", "factor:f=0"], "f=0 must be > 0"),
    (["--grid", "smith"], '--grid "smith"'),
    ([], "give at least one --scheme"),
])
def test_cli_bad_input_is_one_line_and_stores_nothing(small_wh, args, needle):
    proc = run_cli("estimate", "small", *args, warehouse=small_wh.root)
    assert proc.returncode == 1
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    con = duckdb.connect(str(small_wh.db_path), read_only=True)
    tables = {t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if "estimates" in tables:
        assert con.execute("SELECT count(*) FROM estimates").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM estimate_accuracy").fetchone()[0] == 0
    con.close()


def test_cli_without_a_warehouse_creates_nothing(tmp_path):
    proc = run_cli("estimate", "x", "--scheme", "request", warehouse=tmp_path / "none")
    assert proc.returncode == 1 and "no warehouse here yet" in proc.stderr
    assert not (tmp_path / "none").exists()


def test_cli_unknown_trace(small_wh):
    proc = run_cli("estimate", "nope", "--scheme", "request", warehouse=small_wh.root)
    assert proc.returncode == 1 and 'trace "nope"' in proc.stderr
