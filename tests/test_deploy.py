"""`walltime export-model` and `walltime predict` on a real Slurm log
(slurm-lab-sacct.txt): names as categoricals, the user's history from the
warehouse (checked by SQL), predictions against LightGBM's own Python
package, bad input, `ingest --replace` forgetting the model, and
docs/deploy.md's job_submit.lua run by a real Lua interpreter."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import duckdb
import pytest
from conftest import run_cli, trace_path
from test_reliability import one_line_error

from pipeline.warehouse import Warehouse

REPO = Path(__file__).resolve().parent.parent
TRACE = "slurm-lab-sacct"
# a job is learned from when it ended with a true runtime: not a run cut short (preempted, lost with
# its node, cancelled after it started: docs/estimates.md), spelled out here rather than the schema's macro
TRUE_RUN = ("\"end\" IS NOT NULL AND run IS NOT NULL AND NOT (split_part(state, ' ', 1) IN "
            "('PREEMPTED', 'NODE_FAIL') OR (split_part(state, ' ', 1) = 'CANCELLED' AND wait IS NOT NULL))")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("deploy")
    wh, out = d / "wh", d / "model"
    # (read as Berlin time, not the lab host's UTC: a zone that differs from UTC checks that predict's hour is the
    # trace zone's, as in training)
    run_cli("ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", "--tz", "Europe/Berlin",
            warehouse=wh, check=True)
    proc = run_cli("export-model", TRACE, "--out", str(out), "--json", warehouse=wh, check=True)
    return wh, out, json.loads(proc.stdout)


def predict(*args, stdin=None, wh=None):
    cmd = [sys.executable, "-m", "pipeline", "predict", *args]
    if wh is not None:
        cmd += ["--warehouse", str(wh)]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                          env={**os.environ, "WALLTIME_PROGRESS": "0"}, timeout=120)


def test_export_model_spec_from_the_log(model):
    wh, out, res = model
    spec = json.loads((out / "spec.json").read_text())
    con = Warehouse(wh).reader()
    done = con.execute(f"SELECT count(*) FROM jobs WHERE trace = ? AND {TRUE_RUN}", [TRACE]).fetchone()[0]
    users = [u for (u,) in con.execute(
        "SELECT \"user\" FROM jobs WHERE trace = ? AND \"user\" IS NOT NULL "
        "GROUP BY \"user\" ORDER BY min(submit), min(job_id)", [TRACE]).fetchall()]
    last = con.execute(
        "SELECT run, run / CASE WHEN req > 0 THEN req END, epoch(submit_ts) - submit + \"end\" FROM jobs "
        f"WHERE trace = ? AND \"user\" = 'u1' AND {TRUE_RUN} "
        "ORDER BY \"end\" DESC, submit DESC, job_id DESC LIMIT 3", [TRACE]).fetchall()
    row = con.execute("SELECT scheme, jobs FROM learned_models WHERE trace = ?", [TRACE]).fetchone()
    con.close()
    assert res["jobs"] == spec["jobs"] == done == row[1]
    assert spec["vocab"]["user"] == users and set(users) == {"u1", "u2", "u3", "u4"}
    assert set(spec["vocab"]["partition"]) == {"short", "long", "unlim"}
    assert spec["users"]["u1"]["runs"] == [r[0] for r in last]
    assert spec["users"]["u1"]["ratios"] == pytest.approx([r[1] for r in last])
    assert spec["users"]["u1"]["last_end"] == last[0][2]
    assert row[0] == spec["scheme"] == "learned:loss=quantile,q=0.5,retrain=30d,trees=50,under=4,window=20000"
    assert sorted(p.name for p in out.iterdir()) == ["hi.txt", "lo.txt", "mid.txt", "spec.json"]


def test_predict_matches_lightgbm_python(model):
    """The same job through `walltime predict --json` (LightGBM's C API) and
    through the lightgbm package with a feature row built here by hand."""
    import lightgbm as lgb

    wh, out, _ = model
    spec = json.loads((out / "spec.json").read_text())
    submit = 1795356408 + 7200 + 3 * 86400  # a known instant after the log
    job = {"user": "u1", "account": "proj_a", "partition": "long", "qos": "normal", "name": "sleep-x",
           "request": "02:00:00", "processors": 4, "nodes": 1, "submit": submit}
    proc = predict(TRACE, "--json", stdin=json.dumps(job) + "\n", wh=wh)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)["jobs"][0]
    u1 = spec["users"]["u1"]
    with duckdb.connect(str(wh / "walltime.duckdb"), read_only=True) as con:
        tz, mean_run, mean_procs = con.execute(
            "SELECT (SELECT tz FROM traces WHERE trace = ?), avg(run), avg(procs) FROM jobs WHERE trace = ? "
            f"AND \"user\" = 'u1' AND {TRUE_RUN}", [TRACE, TRACE]).fetchone()
    assert spec["tz"] == tz == "Europe/Berlin"  # (the hour is the trace zone's, as in training)
    assert u1["mean_run"] == pytest.approx(mean_run) and u1["mean_procs"] == pytest.approx(mean_procs)
    local = datetime.fromtimestamp(submit, ZoneInfo(tz))
    vals = {"user": spec["vocab"]["user"].index("u1"), "account": spec["vocab"]["account"].index("proj_a"),
            "partition": spec["vocab"]["partition"].index("long"), "qos": spec["vocab"]["qos"].index("normal"),
            "job_name": None, "req": 7200.0, "procs": 4.0, "nodes": 1.0, "gpus": None,
            "hour": float(local.hour), "weekday": float(local.weekday()),
            "running": 0.0, "since_last": submit - u1["last_end"],
            # Gaussier et al.'s user features, from the user's history in the trace
            "user_mean_run": mean_run, "procs_ratio": 4.0 / mean_procs, "running_procs": 0.0}
    for i in range(3):
        vals[f"last_run_{i + 1}"] = u1["runs"][i]
        vals[f"last_ratio_{i + 1}"] = u1["ratios"][i]
    row = [[math.nan if vals[f] is None else float(vals[f]) for f in spec["features"]]]
    for part in ("lo", "mid", "hi"):
        raw = lgb.Booster(model_file=str(out / f"{part}.txt")).predict(row)[0] + spec["init"][part]
        want = min(math.expm1(max(raw, 0.0)), 7200.0)
        key = {"mid": "est"}.get(part, part)
        if part == "lo":
            want = min(want, got["est"])
        if part == "hi":
            want = max(want, got["est"])
        assert got[key] == pytest.approx(want, rel=1e-9), part
    assert got["lo"] <= got["est"] <= got["hi"] <= 7200
    assert got["request"] == 7200


def test_predict_options_and_sentence(model):
    wh, out, _ = model
    proc = predict("--model", str(out), "--user", "u3", "--request", "120", "--processors", "1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    m = re.fullmatch(r"job: (\d+) s \(.*\), band (\d+)-(\d+) s \(quantiles 0.1-0.9\), request 2 min", lines[0])
    assert m, lines[0]
    est, lo, hi = map(int, m.groups())
    assert lo <= est <= hi <= 120
    assert lines[-1].startswith("Predicted runtime ") and f"({est} s)" in lines[-1]
    js = json.loads(predict("--model", str(out), "--user", "u3", "--request", "120", "--processors", "1",
                            "--json").stdout)
    assert round(js["jobs"][0]["est"]) == est


def test_predict_many_lines(model):
    wh, out, _ = model
    jobs = [{"user": f"u{1 + i % 4}", "request": 60 * (1 + i % 30), "processors": 1 + i % 4} for i in range(300)]
    text = "\n".join(json.dumps(j) for j in jobs) + "\n"
    proc = predict("--model", str(out), "--json", stdin=text)
    got = json.loads(proc.stdout)["jobs"]
    assert [g["line"] for g in got] == list(range(1, 301))
    assert all(g["est"] <= j["request"] for g, j in zip(got, jobs))
    # the same job alone gives the same number (rows do not affect each other)
    alone = json.loads(predict("--model", str(out), "--json", stdin=json.dumps(jobs[7]) + "\n").stdout)
    assert alone["jobs"][0]["est"] == got[7]["est"]


@pytest.mark.parametrize("stdin,args,needles", [
    ('{"user": "u1"}\n{"user": "u2", "colour": 3}\n', (), ['stdin line 2', 'unknown field "colour"']),
    ('{"user": "u1"}\n\n{"user": \n', (), ["stdin line 3", "not JSON (Expecting value at column 10)"]),
    ('[1, 2]\n', (), ["stdin line 1", "not a JSON object"]),
    ('{"request": "soon"}\n', (), ["stdin line 1", 'request "soon"']),
    ('{"processors": -4}\n', (), ["stdin line 1", 'field "processors"']),
    ("", ("--request", "x1"), ["options", 'request "x1"']),
])
def test_predict_bad_input_one_line(model, stdin, args, needles):
    wh, out, _ = model
    proc = predict("--model", str(out), *args, stdin=stdin)
    one_line_error(proc, *needles)


def test_predict_and_export_errors(model, tmp_path):
    wh, out, _ = model
    one_line_error(predict("nosuch", stdin="{}\n", wh=wh), 'trace "nosuch": no trained model')
    one_line_error(predict(stdin="{}\n", wh=wh), "give a TRACE or --model")
    before = sorted(p.name for p in Path(wh).rglob("*"))
    one_line_error(run_cli("export-model", TRACE, "--scheme", "learned:q=1.5", warehouse=wh),
                   "--scheme", "q=1.5 must be a quantile strictly between 0 and 1")
    one_line_error(run_cli("export-model", TRACE, "--scheme", "learned:colour=red", warehouse=wh),
                   'learned has no parameter "colour"')
    one_line_error(run_cli("export-model", TRACE, "--scheme", "tang:user,all,p95", warehouse=wh),
                   "export-model needs a learned")
    one_line_error(run_cli("export-model", "nosuch", warehouse=wh), 'trace "nosuch": not in the warehouse')
    assert sorted(p.name for p in Path(wh).rglob("*")) == before


@pytest.mark.slow
def test_replace_forgets_the_model(tmp_path):
    wh = tmp_path / "wh"
    src = tmp_path / "slurm-lab-sacct.txt"
    shutil.copyfile(trace_path("slurm-lab-sacct.txt"), src)
    run_cli("ingest", str(src), "--format", "sacct", "--tz", "UTC", warehouse=wh, check=True)
    run_cli("export-model", TRACE, warehouse=wh, check=True)
    assert predict(TRACE, "--user", "u1", wh=wh).returncode == 0
    lines = src.read_text().splitlines(keepends=True)
    src.write_text("".join(lines[:-40]))
    run_cli("ingest", str(src), "--format", "sacct", "--tz", "UTC", "--replace", warehouse=wh, check=True)
    one_line_error(predict(TRACE, "--user", "u1", wh=wh), 'trace "slurm-lab-sacct": no trained model')
    con = Warehouse(wh).reader()
    assert con.execute("SELECT count(*) FROM learned_models").fetchone()[0] == 0
    con.close()


# -- docs/deploy.md's job_submit.lua under a real Lua -------------------------------

HARNESS = r"""
slurm = { SUCCESS = 0, ERROR = -1, logged = {} }
function slurm.log_info(fmt, ...) slurm.logged[#slurm.logged + 1] = string.format(fmt, ...) end
dofile(arg[1])
local job = { user_name = "u1", account = "proj_a", partition = "long", qos = "normal",
              name = arg[2], time_limit = 120, min_cpus = 4, min_nodes = 4294967294 }
local rc = slurm_job_submit(job, {}, 1001)
print(rc)
print(job.comment or "")
print(slurm.logged[1])
"""


def lua_block() -> str:
    text = (REPO / "docs" / "deploy.md").read_text()
    blocks = re.findall(r"```lua\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    return blocks[0]


@pytest.mark.parametrize("name", ["analysis", "it's $(rm -rf /) `x`"])
def test_job_submit_lua_from_docs(model, tmp_path, name):
    lua = shutil.which("lua5.4")
    assert lua, "lua5.4 is missing: apt-get install -y lua5.4 (.ci/run installs it)"
    wh, out, _ = model
    (tmp_path / "job_submit.lua").write_text(lua_block())
    (tmp_path / "harness.lua").write_text(HARNESS)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    wrapper = bindir / "walltime"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -m pipeline \"$@\"\n")
    wrapper.chmod(0o755)
    env = {**os.environ, "WALLTIME_BIN": str(wrapper), "WALLTIME_MODEL": str(out), "WALLTIME_PROGRESS": "0",
           "PYTHONPATH": str(REPO)}
    proc = subprocess.run([lua, str(tmp_path / "harness.lua"), str(tmp_path / "job_submit.lua"), name],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rc, comment, logged = proc.stdout.splitlines()
    assert rc == "0"
    m = re.fullmatch(r"walltime: predicted (\d+) s \(band (\d+)-(\d+) s\)", comment)
    assert m, comment
    assert logged == f"job_submit/lua: {comment}"
    want = json.loads(predict("--model", str(out), "--json", "--user", "u1", "--account", "proj_a",
                              "--partition", "long", "--qos", "normal", "--name", name, "--request", "7200",
                              "--processors", "4").stdout)["jobs"][0]
    assert [int(x) for x in m.groups()] == [math.floor(want[k] + 0.5) for k in ("est", "lo", "hi")]


def test_job_submit_lua_never_blocks(model, tmp_path):
    """walltime failing (no model there): the job is accepted unchanged."""
    lua = shutil.which("lua5.4")
    assert lua, "lua5.4 is missing: apt-get install -y lua5.4 (.ci/run installs it)"
    (tmp_path / "job_submit.lua").write_text(lua_block())
    (tmp_path / "harness.lua").write_text(HARNESS)
    env = {**os.environ, "WALLTIME_BIN": f"{sys.executable} -m pipeline", "WALLTIME_MODEL": str(tmp_path / "none"),
           "PYTHONPATH": str(REPO)}
    proc = subprocess.run([lua, str(tmp_path / "harness.lua"), str(tmp_path / "job_submit.lua"), "x"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["0", "", "job_submit/lua: walltime predict failed; job unchanged"]


def test_batch_rows_equal_row_by_row(model):
    """Model.matrix (the batch builder `predict` uses, each user's history
    looked up once) gives, job by job and feature by feature, what Model.row
    (one job, the plain statement) gives: known and unknown users, names,
    missing fields, `running` given, absent or null, `submit` given or not."""
    from pipeline.learned_model import Model, check_job

    wh, out, _ = model
    m = Model(out, "test")
    users = [*m.spec["users"], "nobody", None]
    jobs = []
    for i in range(400):
        job = {"user": users[i % len(users)], "request": None if i % 7 == 0 else 60 * (1 + i % 50),
               "processors": None if i % 5 == 0 else i % 9, "nodes": i % 3 or None,
               "account": ["proj_a", "zzz", None][i % 3], "name": ["x", None][i % 2],
               "partition": [None, "debug", "batch"][i % 3], "qos": [None, "normal"][i % 2]}
        if i % 4 == 1:
            job["running"] = i % 6
        if i % 4 == 2:
            job["running"] = None
        if i % 3 == 0:
            job["submit"] = 1_600_000_000 + 977 * i
        jobs.append(check_job(job, f"job {i}"))
    flat = m.matrix(jobs, 1_700_000_123.5)
    n = len(m.features)
    assert len(flat) == n * len(jobs)
    seen_hist = 0
    for i, job in enumerate(jobs):
        want = m.row(job, 1_700_000_123.5)
        got = list(flat[i * n:(i + 1) * n])
        assert [None if math.isnan(v) else v for v in got] == [None if math.isnan(v) else v for v in want], i
        seen_hist += not math.isnan(want[m.features.index("last_run_1")])
    assert seen_hist > 100  # users with a history were among them


PLAIN_LINES = [
    ["{trace}", "--user", "u1", "--request", "120", "--processors", "2", "--warehouse", "{wh}"],
    ["--model", "{out}", "--user=u3", "--request=01:00:00", "--nodes", "1", "--json"],
    ["--model={out}", "--account", "proj_a", "--name", "x", "--gpus", "0", "--submit", "1700000000"],
    ["{trace}", "--json", "--warehouse={wh}"],  # JSON lines on stdin
    ["--model", "{out}", "--request", "soon"],  # bad request: exit 1, one line
    ["nosuch", "--user", "u1", "--warehouse", "{wh}"],  # no model: exit 1
    ["--user", "u1", "--warehouse", "{wh}"],  # neither TRACE nor --model
]
TYPER_PREDICT = [["{trace}", "--help"], ["{trace}", "--processors", "-3"], ["{trace}", "--processors", "two"],
                 ["{trace}", "--user", "a", "--user", "b"], ["{trace}", "extra"], ["{trace}", "--colour", "red"],
                 ["{trace}", "--json", "--json"], ["{trace}", "--user"]]


def _inproc(monkeypatch, capsys, argv, stdin, typer_only):
    import io

    from pipeline.cli import fast, main

    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    with monkeypatch.context() as m:
        if typer_only:
            m.setattr(fast, "command", lambda a: None)
        with pytest.raises(SystemExit) as e:
            main(argv)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.mark.parametrize("line", PLAIN_LINES + TYPER_PREDICT, ids=lambda a: " ".join(a))
def test_plain_predict_prints_what_typer_prints(model, monkeypatch, capsys, line):
    """pipeline/cli/fast.py runs the plain `predict` lines without Typer, and
    the rest goes to Typer; either way the output (exit code, stdout, stderr)
    is Typer's own. The time stamp `now` is pinned so both see the same clock."""
    from pipeline.cli import fast

    wh, out, _ = model
    argv = ["predict", *(a.format(trace=TRACE, wh=wh, out=out) for a in line)]
    monkeypatch.setenv("WALLTIME_WAREHOUSE", str(wh))
    monkeypatch.setattr("time.time", lambda: 1_700_000_000.0)
    assert (fast.command(argv) is not None) == (line in PLAIN_LINES)
    stdin = '{"user": "u2", "request": 600}\n{"user": "u9", "running": 2}\n'
    quick = _inproc(monkeypatch, capsys, argv, stdin, False)
    slow = _inproc(monkeypatch, capsys, argv, stdin, True)
    assert quick == slow
    assert quick[1] or quick[2]


def test_predict_process_imports_nothing_heavy(model):
    """The real one-job `walltime predict` process: no Typer, Rich, Polars,
    DuckDB, NumPy, Numba or the lightgbm Python package (SciPy) — only
    LightGBM's C library through ctypes."""
    wh, out, _ = model
    code = ("import atexit, json, sys\n"
            "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
            "from pipeline.cli import main\n"
            f"main(['predict', '--model', {str(out)!r}, '--user', 'u1', '--request', '600'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "WALLTIME_PROGRESS": "0"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("job: ") and "Predicted runtime" in proc.stdout
    mods = {m.split(".")[0] for m in json.loads(proc.stderr.strip().splitlines()[-1])}
    assert not mods & {"typer", "click", "rich", "pydantic", "polars", "duckdb", "numpy", "numba", "pyarrow",
                       "lightgbm", "scipy"}
