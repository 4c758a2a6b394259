"""Issue 39 (reliability round 4), the deployable model: `export-model`,
`predict` and docs/deploy.md's job_submit.lua, against hostile input built
here. Every refusal is one line on stderr, exit 1, nothing else changed:

- export-model never writes through a link (`<warehouse>/models` a link, a
  `spec.json` link planted in `--out`), and checks `--out` before it commits;
- two traces whose names once shared a model directory (`a+b`, `a_b`) keep
  two models; a model written by older code is found and sent to a re-run;
- a kill -9 at every point of export-model (WALLTIME_TEST_KILL_AT) is mended
  by the re-run: no `models/.tmp-model-*`, catalogue and files agree;
- predict checks the model directory before LightGBM sees it (a tampered
  tree, a cut file, a link cycle, a FIFO, a link to /etc/passwd, a spec.json
  of the wrong shape, a model without digests);
- predict's stdin: numbers too long or too large, a submit time past 9999;
  answers stream (line in, line out) with bounded memory;
- job_submit.lua never fails a submission (non-numeric time limit, a 200 KB
  job name, an open pipe on its stdin).

Everything runs the real CLI on the real Slurm log slurm-lab-sacct.txt.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from conftest import run_cli, trace_path
from test_reliability import one_line_error

REPO = Path(__file__).resolve().parent.parent
TRACE = "slurm-lab-sacct"
FILES = ["hi.txt", "lo.txt", "mid.txt", "spec.json"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A warehouse with the lab's log and its exported model (also in ``out``)."""
    d = tmp_path_factory.mktemp("models")
    wh, out = d / "wh", d / "out"
    run_cli("ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", warehouse=wh, check=True)
    run_cli("export-model", TRACE, "--out", str(out), warehouse=wh, check=True)
    return wh, out


@pytest.fixture
def wh(exported, tmp_path) -> Path:
    """A private copy of the exported warehouse."""
    dst = tmp_path / "wh"
    shutil.copytree(exported[0], dst, symlinks=True)
    return dst


@pytest.fixture
def out(exported, tmp_path) -> Path:
    """A private copy of the exported model directory."""
    dst = tmp_path / "model"
    shutil.copytree(exported[1], dst, symlinks=True)
    return dst


def predict(*args, stdin="", wh=None, timeout=60):
    cmd = [sys.executable, "-m", "pipeline", "predict", *args]
    if wh is not None:
        cmd += ["--warehouse", str(wh)]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "WALLTIME_PROGRESS": "0"})


def catalogue(wh: Path) -> list[tuple]:
    with duckdb.connect(str(wh / "walltime.duckdb"), read_only=True) as con:
        return con.execute("SELECT trace, scheme, dir, jobs, CAST(trained_at AS VARCHAR) FROM learned_models "
                           "ORDER BY trace").fetchall()


def tree(path: Path) -> dict:
    """Every path under ``path`` -> (kind, sha256 or link target)."""
    out = {}
    for p in sorted(path.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(path))] = ("link", os.readlink(p))
        elif p.is_file():
            out[str(p.relative_to(path))] = ("file", hashlib.sha256(p.read_bytes()).hexdigest())
        else:
            out[str(p.relative_to(path))] = ("dir", None)
    return out


def agrees(wh: Path) -> None:
    """Every catalogue row names a directory whose spec.json is that model,
    and no temporary is left under models/."""
    assert not [p.name for p in (wh / "models").iterdir() if p.name.startswith(".tmp-")]
    rows = catalogue(wh)
    assert rows
    for trace, scheme, rel, jobs, _ in rows:
        spec = json.loads((wh / rel / "spec.json").read_text())
        assert (spec["trace"], spec["scheme"], spec["jobs"]) == (trace, scheme, jobs)
        for name, digest in spec["sha256"].items():
            assert hashlib.sha256((wh / rel / name).read_bytes()).hexdigest() == digest


# -- 1. no write through a link ----------------------------------------------------------

def test_export_model_refuses_a_models_directory_that_is_a_link(wh, tmp_path):
    victim = tmp_path / "victim"
    (victim / TRACE).mkdir(parents=True)
    (victim / TRACE / "keep.txt").write_text("precious\n")
    shutil.rmtree(wh / "models")
    (wh / "models").symlink_to(victim)
    rows = catalogue(wh)
    one_line_error(run_cli("export-model", TRACE, warehouse=wh), "models", "symbolic link")
    assert tree(victim) == {TRACE: ("dir", None), f"{TRACE}/keep.txt":
                            ("file", hashlib.sha256(b"precious\n").hexdigest())}
    assert catalogue(wh) == rows


def test_export_model_refuses_a_link_planted_in_out(wh, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "spec.json").symlink_to(victim)
    rows, files = catalogue(wh), tree(wh / "models")
    one_line_error(run_cli("export-model", TRACE, "--out", str(dest), warehouse=wh), "--out", "spec.json",
                   "symbolic link")
    assert victim.read_text() == "precious\n"
    assert tree(dest) == {"spec.json": ("link", str(victim))}
    assert catalogue(wh) == rows and tree(wh / "models") == files


# -- 2. one directory per trace ------------------------------------------------------------

def test_two_traces_with_one_sanitized_name_keep_two_models(tmp_path):
    wh = tmp_path / "wh"
    src = trace_path("slurm-lab-sacct.txt")
    short = tmp_path / "short.txt"
    short.write_text("".join(src.read_text().splitlines(keepends=True)[:-60]))
    run_cli("ingest", str(src), "--format", "sacct", "--name", "a+b", warehouse=wh, check=True)
    run_cli("ingest", str(short), "--format", "sacct", "--name", "a_b", warehouse=wh, check=True)
    run_cli("export-model", "a+b", warehouse=wh, check=True)
    run_cli("export-model", "a_b", warehouse=wh, check=True)
    dirs = {t: d for t, _, d, _, _ in catalogue(wh)}
    assert len(set(dirs.values())) == 2 and dirs["a_b"] == "models/a_b"  # a plain name keeps its directory
    for trace in ("a+b", "a_b"):
        proc = predict(trace, "--json", "--user", "u1", wh=wh)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["trace"] == trace
        assert json.loads((wh / dirs[trace] / "spec.json").read_text())["trace"] == trace


def test_a_model_written_by_older_code_is_found_and_sent_to_a_rerun(wh):
    """Before issue 39, "c+d"'s model lived in models/c_d, without digests."""
    run_cli("ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", "--name", "c+d",
            warehouse=wh, check=True)
    run_cli("export-model", "c+d", warehouse=wh, check=True)
    (new,) = [d for t, _, d, _, _ in catalogue(wh) if t == "c+d"]
    spec = json.loads((wh / new / "spec.json").read_text())
    del spec["sha256"], spec["trained_at"]
    (wh / new).rename(wh / "models" / "c_d")
    (wh / "models" / "c_d" / "spec.json").write_text(json.dumps(spec))
    one_line_error(predict("c+d", "--user", "u1", wh=wh), "models/c_d", "older walltime",
                   "re-run `walltime export-model c+d`")
    one_line_error(predict("c_d", "--user", "u1", wh=wh), 'trace "c_d": no trained model')
    run_cli("export-model", "c+d", warehouse=wh, check=True)
    assert not (wh / "models" / "c_d").exists()  # the old directory went with the re-run
    assert predict("c+d", "--user", "u1", wh=wh).returncode == 0


def test_ingest_replace_removes_an_old_style_model_of_that_trace_only(wh):
    """`ingest --replace` of "c+d" removes its old-style models/c_d (it says it is
    c+d's), and never the directory of another trace that holds another model."""
    run_cli("ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", "--name", "c+d",
            warehouse=wh, check=True)
    run_cli("export-model", "c+d", warehouse=wh, check=True)
    (new,) = [d for t, _, d, _, _ in catalogue(wh) if t == "c+d"]
    (wh / new).rename(wh / "models" / "c_d")
    other = Path(__file__).parent / "data" / "slurm-trust" / "trust-sacct.txt"  # new content: the trace is replaced
    run_cli("ingest", str(other), "--format", "sacct", "--name", "c+d", "--replace", warehouse=wh, check=True)
    assert not (wh / "models" / "c_d").exists()
    run_cli("ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", "--name", "e_f",
            warehouse=wh, check=True)
    run_cli("export-model", "e_f", warehouse=wh, check=True)
    run_cli("ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", "--name", "e+f",
            warehouse=wh, check=True)
    run_cli("ingest", str(other), "--format", "sacct", "--name", "e+f", "--replace", warehouse=wh, check=True)
    assert (wh / "models" / "e_f" / "spec.json").is_file()  # e_f's own model: not e+f's to remove


# -- 3. kill -9 anywhere in export-model: the re-run mends -------------------------------

@pytest.mark.parametrize("point", ["model-writing", "model-staged", "after-commit", "model-swap"])
def test_export_model_killed_anywhere_is_mended_by_the_rerun(wh, point):
    """The killed run trains another scheme (trees=20), so files and catalogue
    would disagree if only one of them had changed."""
    proc = run_cli("export-model", TRACE, "--scheme", "learned:trees=20", warehouse=wh,
                   env={"WALLTIME_TEST_KILL_AT": point})
    assert proc.returncode == -9, (proc.returncode, proc.stderr)
    run_cli("export-model", TRACE, "--scheme", "learned:trees=30", warehouse=wh, check=True)
    agrees(wh)
    (row,) = catalogue(wh)
    assert "trees=30" in row[1]
    assert predict(TRACE, "--user", "u1", wh=wh).returncode == 0


def test_an_export_of_another_trace_mends_a_killed_one(wh):
    """Killed between COMMIT and the swap: the row says trees=20, the files
    hold the old model; the next export (of any trace) makes the row say
    what the files hold."""
    proc = run_cli("export-model", TRACE, "--scheme", "learned:trees=20", warehouse=wh,
                   env={"WALLTIME_TEST_KILL_AT": "model-swap"})
    assert proc.returncode == -9
    run_cli("ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", "--name", "other",
            warehouse=wh, check=True)
    run_cli("export-model", "other", warehouse=wh, check=True)
    agrees(wh)
    assert [t for t, *_ in catalogue(wh)] == ["other"]  # the killed export's files had gone: row dropped


# -- 4. a refused command commits nothing ---------------------------------------------

def test_export_model_out_onto_a_file_commits_nothing(wh, tmp_path):
    target = tmp_path / "afile"
    target.write_text("mine\n")
    rows, files = catalogue(wh), tree(wh / "models")
    one_line_error(run_cli("export-model", TRACE, "--out", str(target), warehouse=wh), "--out", "is a file")
    assert catalogue(wh) == rows and tree(wh / "models") == files
    assert target.read_text() == "mine\n"


# -- 5. predict on a tampered model directory -------------------------------------------

def _rewrite_digest(out: Path, name: str) -> None:
    spec = json.loads((out / "spec.json").read_text())
    spec["sha256"][name] = hashlib.sha256((out / name).read_bytes()).hexdigest()
    (out / "spec.json").write_text(json.dumps(spec))


def _far_feature(out: Path) -> None:
    text = (out / "mid.txt").read_text()
    (out / "mid.txt").write_text(re.sub(r"(?m)^split_feature=\d+", "split_feature=5000", text, count=1))


def _cut(out: Path) -> None:
    data = (out / "mid.txt").read_bytes()
    (out / "mid.txt").write_bytes(data[:len(data) // 2])


def _cycle(out: Path) -> None:
    (out / "mid.txt").unlink()
    (out / "mid.txt").symlink_to("loop.txt")
    (out / "loop.txt").symlink_to("mid.txt")


def _fifo(out: Path) -> None:
    (out / "mid.txt").unlink()
    os.mkfifo(out / "mid.txt")


def _passwd(out: Path) -> None:
    (out / "mid.txt").unlink()
    (out / "mid.txt").symlink_to("/etc/passwd")


def _spec(out: Path, doc) -> None:
    (out / "spec.json").write_text(json.dumps(doc))


def _edit_spec(change):
    def edit(out: Path) -> None:
        spec = json.loads((out / "spec.json").read_text())
        change(spec)
        _spec(out, spec)
    return edit


TAMPERED = {
    "feature out of range": (_far_feature, ["mid.txt", "sha256"]),
    "feature out of range, digest rewritten": (lambda o: (_far_feature(o), _rewrite_digest(o, "mid.txt")),
                                               ["mid.txt", "feature 5000"]),
    "truncated": (_cut, ["mid.txt", "sha256"]),
    "truncated, digest rewritten": (lambda o: (_cut(o), _rewrite_digest(o, "mid.txt")),
                                    ["mid.txt", "not a whole LightGBM model"]),
    "link cycle": (_cycle, ["mid.txt", "symbolic link"]),
    "fifo": (_fifo, ["mid.txt", "not a regular file"]),
    "link to /etc/passwd": (_passwd, ["mid.txt", "symbolic link"]),
    "spec a list": (lambda o: _spec(o, [1, 2]), ["spec.json", "not a JSON object"]),
    "spec without features": (_edit_spec(lambda s: s.pop("features")), ["spec.json", 'no "features"']),
    "spec users not a history": (_edit_spec(lambda s: s["users"].update(u1=[1])), ["spec.json", 'users "u1"']),
    "spec init a string": (_edit_spec(lambda s: s.update(init="x")), ["spec.json", '"init" is not a dict']),
    "older export, no digests": (_edit_spec(lambda s: s.pop("sha256")),
                                 ["older walltime", "without file digests", "export-model TRACE --out DIR"]),
}


@pytest.mark.parametrize("case", TAMPERED)
def test_predict_refuses_a_tampered_model_in_one_line(out, case):
    tamper, needles = TAMPERED[case]
    tamper(out)
    try:
        proc = predict("--model", str(out), "--user", "u1", "--request", "600", timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: predict hung")
    one_line_error(proc, *needles)
    assert proc.stdout == ""


def test_predict_refuses_a_trace_model_directory_that_is_a_link(wh, out):
    shutil.rmtree(wh / "models" / TRACE)
    (wh / "models" / TRACE).symlink_to(out)
    one_line_error(predict(TRACE, "--user", "u1", wh=wh), "models/slurm-lab-sacct", "symbolic link")


# -- 6. predict's stdin: numbers beyond range ----------------------------------------------

GOOD = '{"user": "u1", "request": 600}\n'


@pytest.mark.parametrize("line,needles", [
    ('{"processors": %s}' % ("9" * 400), ['field "processors"', "a number of 400 digits"]),
    ('{"processors": %s}' % ("9" * 5000), ['field "processors"', "a number of 5,000 digits"]),
    ('{"request": "%s"}' % ("9" * 5000), ['request "9999', "at most 200 years"]),
    ('{"request": %s}' % ("9" * 5000), ["request a number of 5,000 digits", "at most 200 years"]),
    ('{"request": 1e308}', ["request 1e+308", "at most 200 years"]),
    ('{"request": "99999999-00:00:00"}', ['request "99999999-00:00:00"', "at most 200 years"]),
    ('{"submit": 253402300800}', ['field "submit"', "before the year 10000"]),
    ('{"submit": 1e300}', ['field "submit"', "before the year 10000"]),
    ('{"user": %s}' % ("7" * 5000), ['field "user" must be a name', "a number of 5,000 digits"]),
], ids=["400 digits", "5000 digits", "request string of 5000 digits", "request of 5000 digits",
        "request 1e308", "request of 99999999 days", "submit past 9999", "submit 1e300", "user of 5000 digits"])
def test_predict_stdin_numbers_out_of_range_one_line(exported, line, needles):
    proc = predict("--model", str(exported[1]), stdin=GOOD + line + "\n")
    one_line_error(proc, "stdin line 2", *needles)


def test_predict_option_submit_past_9999_one_line(exported):
    one_line_error(predict("--model", str(exported[1]), "--submit", "300000000000"), "options", 'field "submit"')


@pytest.mark.parametrize("option", ["--processors", "--submit", "--nodes"])
@pytest.mark.parametrize("digits", [400, 5000])
def test_predict_option_of_thousands_of_digits_one_line(exported, option, digits):
    """Python refuses int() past 4,300 digits: the option is refused before, in one line."""
    one_line_error(predict("--model", str(exported[1]), option, "9" * digits), option,
                   "expected a whole number of at most 18 digits")


# -- 7. predict streams: line in, line out, bounded memory ----------------------------

def test_predict_answers_each_line_before_stdin_closes(exported):
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "predict", "--model", str(exported[1])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "WALLTIME_PROGRESS": "0"})
    try:
        for n in (1, 2):
            proc.stdin.write(b'{"user": "u1", "request": 600}\n')
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready, f"no answer to line {n} while stdin is open"
            assert proc.stdout.readline().decode().startswith(f"line {n}: ")
        proc.stdin.close()
        rest = proc.stdout.read().decode()
        assert proc.wait(timeout=30) == 0, proc.stderr.read()
        assert rest.startswith("Predicted 2 jobs")
    finally:
        proc.kill()
        proc.wait()


PEAK = """
import resource, subprocess, sys
with open(sys.argv[1], "rb") as f:
    rc = subprocess.run(sys.argv[2:], stdin=f, stdout=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_kb(model: Path, stdin: Path, *args) -> int:
    proc = subprocess.run([sys.executable, "-c", PEAK, str(stdin), sys.executable, "-m", "pipeline", "predict",
                           "--model", str(model), *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "WALLTIME_PROGRESS": "0"})
    rc, kb = proc.stdout.split()
    assert rc == "0", proc.stderr
    return int(kb)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", [(), ("--json",)], ids=["text", "json"])
def test_predict_memory_stays_bounded_on_many_lines(exported, tmp_path, fmt):
    one = tmp_path / "one.jsonl"
    one.write_text(GOOD)
    many = tmp_path / "many.jsonl"
    with many.open("w") as f:
        for i in range(200_000):
            f.write(json.dumps({"user": f"u{1 + i % 4}", "request": 60 * (1 + i % 30), "processors": 1 + i % 4})
                    + "\n")
    base = _peak_kb(exported[1], one, *fmt)
    peak = _peak_kb(exported[1], many, *fmt)
    assert peak < base + 60_000, (base, peak)  # (before issue 39: base + 270 MB, + 460 MB with --json)


def test_predict_json_streamed_is_one_document(exported):
    jobs = "".join(json.dumps({"user": f"u{i % 5}", "request": 60 + i}) + "\n" for i in range(5000))
    proc = predict("--model", str(exported[1]), "--json", stdin=jobs)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert proc.stdout == json.dumps(doc, indent=2) + "\n"
    assert [j["line"] for j in doc["jobs"]] == list(range(1, 5001))
    empty = predict("--model", str(exported[1]), "--json", stdin="")
    assert empty.stdout == json.dumps(json.loads(empty.stdout), indent=2) + "\n"
    assert json.loads(empty.stdout)["jobs"] == []


# -- 8. job_submit.lua never fails a submission ------------------------------------------

HARNESS = r"""
slurm = { SUCCESS = 0, ERROR = -1, logged = {} }
function slurm.log_info(fmt, ...) slurm.logged[#slurm.logged + 1] = string.format(fmt, ...) end
dofile(arg[1])
local job
if arg[2] == "time" then
  job = { user_name = "u1", time_limit = "two hours", min_cpus = 4 }
elseif arg[2] == "name" then
  job = { user_name = "u1", name = string.rep("x", 200000), time_limit = 120 }
else -- nothing set: walltime would read its stdin
  job = { min_nodes = 4294967294 }
end
local before = job.name
local rc = slurm_job_submit(job, {}, 1001)
print(rc)
print(job.comment or "")
print(slurm.logged[#slurm.logged] or "")
print(job.name == before)
"""


def _lua_block() -> str:
    blocks = re.findall(r"```lua\n(.*?)```", (REPO / "docs" / "deploy.md").read_text(), re.S)
    assert len(blocks) == 1
    return blocks[0]


@pytest.mark.parametrize("case", ["time", "name", "stdin"])
def test_job_submit_lua_never_fails_a_submission(exported, tmp_path, case):
    lua = shutil.which("lua5.4")
    assert lua, "lua5.4 is missing: apt-get install -y lua5.4 (.ci/run installs it)"
    (tmp_path / "job_submit.lua").write_text(_lua_block())
    (tmp_path / "harness.lua").write_text(HARNESS)
    env = {**os.environ, "WALLTIME_BIN": f"{sys.executable} -m pipeline", "WALLTIME_MODEL": str(exported[1]),
           "WALLTIME_PROGRESS": "0", "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([lua, str(tmp_path / "harness.lua"), str(tmp_path / "job_submit.lua"), case],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            text=True, cwd=tmp_path)  # stdin: a pipe left open, as slurmctld's may be
    try:
        stdout, stderr = proc.communicate(timeout=30) if case != "stdin" else _wait_open(proc)
    except subprocess.TimeoutExpired:
        pytest.fail("job_submit.lua blocked")
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, stderr
    rc, comment, logged, same = stdout.splitlines()
    assert rc == "0" and same == "true"
    assert re.fullmatch(r"(walltime: predicted \d+ s \(band \d+-\d+ s\))?", comment), comment
    assert logged in (f"job_submit/lua: {comment}", "job_submit/lua: walltime predict failed; job unchanged")
    if case == "time":
        assert comment  # the job is still predicted, without its request


def _wait_open(proc):
    """Wait for the harness with its stdin pipe still open (never closed)."""
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    if not ready:
        raise subprocess.TimeoutExpired(proc.args, 30)
    out = proc.stdout.read()
    proc.wait(timeout=30)
    return out, proc.stderr.read()
