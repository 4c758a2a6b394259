"""`walltime run` and `walltime demo`: validation, incremental re-runs, cron
safety (lock, log, kill -9), and the Dask executor against the local one."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from conftest import run_cli
from pipeline.generate import generate_file
from pipeline.warehouse import Warehouse

STUDY = """\
[study]
name = "t"
log = "{log}"

[[traces]]
path = "{a}"
name = "A"

[[traces]]
path = "{b}"
name = "B"

[estimates]
schemes = ["request", "klusacek"]

[[simulations]]
policy = ["fcfs", "wfp"]
backfill = ["easy", "conservative"]
estimate = ["request", "klusacek"]
split = "month"
"""


def _swf_lines(path: Path) -> tuple[list[str], list[str]]:
    lines = path.read_text().splitlines(keepends=True)
    return [l for l in lines if l.startswith(";")], [l for l in lines if not l.startswith(";")]


@pytest.fixture(scope="module")
def workloads(tmp_path_factory):
    """Two small synthetic traces; A also as a shorter first version."""
    d = tmp_path_factory.mktemp("workloads")
    generate_file(d / "a_full.swf", jobs=3000, seed=3, capacity=64, load=0.7)
    generate_file(d / "b.swf", jobs=1500, seed=4, capacity=32, load=0.6)
    head, jobs = _swf_lines(d / "a_full.swf")
    (d / "a_first.swf").write_text("".join(head + jobs[:2000]))
    return d


def _study(tmp_path: Path, workloads: Path, a: str = "a_first.swf", body: str = STUDY) -> Path:
    trace_a = tmp_path / "A.swf"
    trace_a.write_bytes((workloads / a).read_bytes())
    cfg = tmp_path / "study.toml"
    cfg.write_text(body.format(a=trace_a, b=workloads / "b.swf", log=tmp_path / "study.log"))
    return cfg


def _run(cfg, wh, *extra, check=True):
    p = run_cli("run", str(cfg), "--json", "--workers", "1", *extra, warehouse=wh)
    if check:
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    return p


def _actions(doc, stage=None, target_prefix=None):
    return [s["action"] for s in doc["steps"]
            if (stage is None or s["stage"] == stage) and (target_prefix is None or s["target"].startswith(target_prefix))]


def _sim_table(wh: Path) -> list[tuple]:
    # sim_jobs is a view over the per-run files that Warehouse connections attach
    con = Warehouse(wh).reader()
    try:
        return con.execute(
            "SELECT r.trace, r.config, s.job_id, s.start, s.backfilled FROM sim_jobs s JOIN runs r USING (run_id) "
            "ORDER BY ALL").fetchall()
    finally:
        con.close()


def test_rerun_does_only_what_changed(tmp_path, workloads):
    wh = tmp_path / "wh"
    cfg = _study(tmp_path, workloads)
    first = _run(cfg, wh)
    assert set(_actions(first)) == {"run"}
    assert len(_actions(first, "simulate")) == 16
    again = _run(cfg, wh)
    assert set(_actions(again)) == {"skip"}, again["steps"]
    # trace A grows by new months: A is re-ingested and everything of A recomputed; B untouched
    (tmp_path / "A.swf").write_bytes((workloads / "a_full.swf").read_bytes())
    dry = _run(cfg, wh, "--dry-run")
    grown = _run(cfg, wh)
    for doc in (dry, grown):
        assert set(_actions(doc, target_prefix="A")) == {"run"}, doc["steps"]
        assert set(_actions(doc, target_prefix="B")) == {"skip"}, doc["steps"]
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    assert con.execute("SELECT jobs FROM traces WHERE trace = 'A'").fetchone()[0] == 3000
    con.close()
    log = (tmp_path / "study.log").read_text()
    assert "ingest A: replaced" in log and "dry-run" not in log  # a dry run writes no log (issue 9)


def test_dry_run_changes_nothing(tmp_path, workloads):
    wh = tmp_path / "wh"
    cfg = _study(tmp_path, workloads)
    doc = _run(cfg, wh, "--dry-run")
    assert set(_actions(doc)) == {"run"}
    assert not (wh / "walltime.duckdb").exists()


@pytest.mark.parametrize("body, where", [
    (STUDY + "\n[bogus]\nx = 1\n", "bogus: unknown key"),
    (STUDY.replace('policy = ["fcfs", "wfp"]', 'policy = ["fcfs", "fcsf"]'), "simulations[0].policy"),
    (STUDY.replace('"klusacek"]\n\n[[sim', '"tang:key=user"]\n\n[[sim'), "estimates.schemes[1]"),
    (STUDY.replace('split = "month"', 'split = "month"\nload_factor = -1'), "simulations[0].load_factor"),
    (STUDY.replace('split = "month"', 'spilt = "month"'), "simulations[0].spilt: unknown key"),
    (STUDY.replace("[[traces]]", "[[traces]]\nlenient = true\npathh = 'x'", 1), "traces[0].pathh"),
    (STUDY.replace('name = "t"', 'name = "t'), "study.toml"),
])
def test_bad_config_is_one_line_error(tmp_path, workloads, body, where):
    wh = tmp_path / "wh"
    cfg = _study(tmp_path, workloads, body=body)
    p = _run(cfg, wh, check=False)
    assert p.returncode == 1
    assert where in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert not (wh / "walltime.duckdb").exists()


def test_second_run_is_refused_while_one_runs(tmp_path, workloads):
    wh = tmp_path / "wh"
    cfg = _study(tmp_path, workloads)
    env = {**os.environ, "WALLTIME_PROGRESS": "0"}
    first = subprocess.Popen([sys.executable, "-m", "pipeline", "run", str(cfg), "--workers", "1",
                              "--warehouse", str(wh)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        log = tmp_path / "study.log"
        _wait_for(lambda: log.exists() and "ingest A" in log.read_text(), 120, first)  # inside the lock
        # paused while it holds the lock: the study is now fast enough to finish before
        # a second process has started, which would leave nothing to refuse
        first.send_signal(signal.SIGSTOP)
        try:
            p = _run(cfg, wh, check=False)
        finally:
            first.send_signal(signal.SIGCONT)
        assert p.returncode == 1 and "busy" in p.stderr, p.stderr
    finally:
        first.wait(timeout=300)
    assert first.returncode == 0


def test_kill_mid_run_keeps_finished_steps_and_resumes(tmp_path, workloads):
    ref_wh, wh = tmp_path / "ref", tmp_path / "wh"
    cfg = _study(tmp_path, workloads)
    _run(cfg, ref_wh)
    log = tmp_path / "study.log"
    before = len(log.read_text())  # the reference run logged here too
    # runs commit one by one here (not batched each second), so a kill can fall between them
    env = {**os.environ, "WALLTIME_PROGRESS": "0", "WALLTIME_COMMIT_EVERY_S": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "run", str(cfg), "--workers", "1",
                             "--warehouse", str(wh)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def sims_logged():
        new = log.read_text()[before:]
        return new.count("simulate A ") + new.count("simulate B ")

    _wait_for(lambda: sims_logged() >= 3, 300, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = _run(cfg, wh, "--dry-run")
    sims = _actions(done, "simulate")
    assert "skip" in sims and "run" in sims  # some finished, some not
    _run(cfg, wh)
    assert _sim_table(wh) == _sim_table(ref_wh)
    assert not list(wh.rglob(".tmp-*"))


def test_a_kill_before_a_batched_commit_loses_only_uncommitted_runs(tmp_path, workloads):
    """Runs commit in batches (pipeline/simulate/many.py): a kill after some runs
    wrote their jobs files but before their batch committed leaves those files
    invisible to readers; the next run deletes them, computes the runs again,
    and ends equal to an uninterrupted run."""
    ref_wh, wh = tmp_path / "ref", tmp_path / "wh"
    cfg = _study(tmp_path, workloads)
    _run(cfg, ref_wh)
    # killed right after the 3rd run's file, before the batch (one at the end here) commits
    p = run_cli("run", str(cfg), "--workers", "1", warehouse=wh,
                env={"WALLTIME_TEST_KILL_AT": "after-run-file:3", "WALLTIME_COMMIT_EVERY_S": "1000"})
    assert p.returncode == -signal.SIGKILL, p.stderr
    files = wh / "parquet" / "sim_jobs"
    assert len(list(files.glob("*.parquet"))) == 3  # written, not committed
    con = Warehouse(wh).reader()
    try:
        assert con.execute("SELECT count(*) FROM sim_jobs").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    finally:
        con.close()
    sims = _actions(_run(cfg, wh, "--dry-run"), "simulate")
    assert sims and set(sims) == {"run"}
    _run(cfg, wh)
    assert _sim_table(wh) == _sim_table(ref_wh)
    assert sorted(f.name for f in files.iterdir()) == sorted(f.name for f in (ref_wh / "parquet" / "sim_jobs").iterdir())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(cond, timeout, proc=None):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the run ended early ({proc.returncode}): {proc.stderr.read().decode()}")
        time.sleep(0.2)
    raise AssertionError("timed out waiting")


def test_dask_cluster_gives_the_local_results(tmp_path, workloads):
    pytest.importorskip("distributed")
    dask = Path(sys.executable).with_name("dask")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen([str(dask), "worker", address, "--nworkers", "1", "--nthreads", "1",
                                           "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from distributed import Client
        client = Client(address, timeout="60s")
        client.wait_for_workers(2, timeout=120)
        client.close()
        cfg = _study(tmp_path, workloads)
        local, remote = tmp_path / "local", tmp_path / "remote"
        _run(cfg, local)
        doc = _run(cfg, remote, "--executor", "dask", "--scheduler", address)
        assert len([r for r in doc["runs"] if not r["reused"]]) == 16
        assert _sim_table(remote) == _sim_table(local)
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_dask_without_scheduler_is_an_option_error(tmp_path, workloads):
    cfg = _study(tmp_path, workloads)
    p = _run(cfg, tmp_path / "wh", "--executor", "dask", check=False)
    assert p.returncode == 1 and "--scheduler" in p.stderr


def test_demo_runs_the_whole_pipeline(tmp_path):
    wh, out = tmp_path / "wh", tmp_path / "demo.html"
    p = run_cli("demo", "--jobs", "3000", "--out", str(out), "--json", warehouse=wh)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert len([r for r in doc["runs"] if not r["reused"]]) == 16
    assert out.exists() and out.stat().st_size > 10_000
    assert (wh / "demo" / "demo.toml").exists()
    again = json.loads(run_cli("demo", "--jobs", "3000", "--out", str(out), "--json", warehouse=wh).stdout)
    assert set(_actions(again)) == {"skip"}
    # the demo ends with the summary: the same answers as `walltime summary demo`
    assert doc["summary"]["trace"] == "demo" and len(doc["summary"]["queue"]) == 4
    human = run_cli("demo", "--jobs", "3000", "--out", str(out), warehouse=wh)
    assert human.returncode == 0 and "up to date" in human.stdout
    tail = human.stdout.strip().splitlines()
    assert "bounded slowdown" in tail[-1]  # answer 3 (a run, or who wins and who loses) ends it
    assert "1. How wrong are the requested times?" in human.stdout
    assert human.stdout.index("report:") < human.stdout.index("1. How wrong")
    page = out.read_text()
    assert page.index('id="summary"') < page.index('id="runs"') < page.index('id="overview"')


FORECAST_STUDY = """\
[[traces]]
path = "{b}"
name = "B"

[[simulations]]
backfill = "none"
forecast_with = ["none", "downey:stat=median,key=user", "smith:set=example"]
predict_wait = true
"""


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_forecast_with_is_a_study_key(tmp_path, workloads, workers):
    """`forecast_with` in [[simulations]]: the runs are the ones `walltime simulate
    --forecast-with` stores (same config, same forecasts), in the coordinator's
    process (1 worker) and in worker processes that read the Parquet mirrors (2)."""
    cfg = _study(tmp_path, workloads, body=FORECAST_STUDY)
    wh = tmp_path / "wh"
    p = run_cli("run", str(cfg), "--json", "--workers", workers, warehouse=wh)
    assert p.returncode == 0, p.stderr
    con = Warehouse(wh).reader()
    try:
        got = {json.loads(c).get("forecast_with"): (rid, pe) for rid, c, pe in con.execute(
            "SELECT run_id, config, (SELECT sum(predicted_start) FROM sim_jobs s WHERE s.run_id = r.run_id) "
            "FROM runs r").fetchall()}
    finally:
        con.close()
    assert set(got) == {None, "downey:key=user,stat=median", "smith:set=example"}
    for scheme in ("downey:stat=median,key=user", "smith:set=example"):
        doc = json.loads(run_cli("simulate", "B", "--backfill", "none", "--forecast-with", scheme, "--json",
                                 warehouse=wh).stdout)
        key = json.loads(doc["config"])["forecast_with"]
        assert doc["run_id"] == got[key][0]  # the study's run: reused, not recomputed
    assert len({pe for _, pe in got.values()}) == 3  # three different forecasts
