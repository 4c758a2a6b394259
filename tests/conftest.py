"""Shared fixtures: where the real traces are, fresh warehouses, running the CLI;
the fast loop's set-up (docs/architecture.md, "The test loop").

Traces come from $WALLTIME_TRACES (default ../shared/traces). Where a trace is
missing the test skips with instructions -- or fails, when
WALLTIME_REQUIRE_TRACES=1 (CI).

- One Numba cache for the run: NUMBA_CACHE_DIR, when not set, is set here
  (before anything imports Numba) to one directory that this process and every
  ``walltime`` it starts share, kept between runs.
- Compiled once, up front: a session fixture runs `walltime warm-up`'s steps
  (the simulator and the ingest tokenizers compiled ahead of time; the
  node-aware, forecast, Slurm and estimator kernels under Numba's JIT) and
  loads or compiles the event loop's JIT forms, so no test pays that cold
  compile inside its own time (a Hypothesis test's examples included).
- Fewer Hypothesis examples by default: each test's ``max_examples`` (its own
  ``@settings`` or the profile's) divided by HYPOTHESIS_SHARE, at least
  HYPOTHESIS_FLOOR; the tests marked slow, and every test under
  WALLTIME_HYPOTHESIS=long, run the numbers written in the test.
- ``run_cli`` runs the command in this process (pipeline.cli.main, its
  stdout and stderr captured, its exit code from SystemExit), unless the test
  asks for the process boundary (``process=True``, or an ``env`` or
  ``timeout`` of its own): a real process's exit code, kills, signals, pipes,
  a terminal, variables read at start-up.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TRACES = Path(os.environ.get("WALLTIME_TRACES") or REPO.parent / "shared" / "traces")
PWA = "https://www.cs.huji.ac.il/labs/parallel/workload/logs.html"

# One Numba cache (and compiled-ahead modules, pipeline/aot_build.py) for this run and every process
# it starts; kept between runs, so only a kernel edit compiles again (Numba and the modules' names
# check their sources).
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / f"walltime-tests-numba-{os.getuid()}"))

HYPOTHESIS_SHARE = 5   # the fast loop runs 1/5 of each Hypothesis test's examples ...
HYPOTHESIS_FLOOR = 10  # ... and at least this many (a test asking fewer runs its own number)
LONG = os.environ.get("WALLTIME_HYPOTHESIS") == "long"


def pytest_collection_modifyitems(config, items):
    """Fewer Hypothesis examples outside the slow tier (see the module docstring): the test's
    settings, with max_examples scaled, set on the test function Hypothesis reads them from."""
    if LONG:
        return
    from hypothesis import settings

    done = set()
    for item in items:
        fn = getattr(item, "obj", None)
        fn = getattr(fn, "__func__", fn)
        if fn is None or not getattr(fn, "is_hypothesis_test", False) or id(fn) in done:
            continue
        done.add(id(fn))
        if item.get_closest_marker("slow") is not None:
            continue
        own = getattr(fn, "_hypothesis_internal_use_settings", None) or settings.default
        fewer = min(own.max_examples, max(HYPOTHESIS_FLOOR, own.max_examples // HYPOTHESIS_SHARE))
        fn._hypothesis_internal_use_settings = settings(own, max_examples=fewer)


@pytest.fixture(scope="session", autouse=True)
def compiled_once():
    """`walltime warm-up`'s steps once per run, before the first test: the simulator and the ingest
    tokenizers compiled ahead of time (or loaded: milliseconds once built), the node-aware, forecast,
    Slurm and estimator kernels (Numba's JIT: about 2 s to load once cached), then the event loop's
    JIT forms, which the kernel tests call, loaded from Numba's cache or compiled
    (pipeline.simulate.warm_up, under WALLTIME_AOT=0 meanwhile). Under WALLTIME_AOT=0 only the JIT steps."""
    import contextlib
    import io

    from pipeline import aot_build
    from pipeline.cli.warmup_cmd import _warm_up_ingest, _warm_up_kernels
    from pipeline.simulate import aot, warm_up

    with contextlib.redirect_stdout(io.StringIO()):
        if aot_build.enabled():
            _warm_up_ingest()
            aot.ensure()
        _warm_up_kernels()
        old = os.environ.get("WALLTIME_AOT")
        os.environ["WALLTIME_AOT"] = "0"
        try:
            warm_up()
            warm_up(learn=True)
        finally:
            if old is None:
                os.environ.pop("WALLTIME_AOT")
            else:
                os.environ["WALLTIME_AOT"] = old
    yield


def trace_path(name: str) -> Path:
    """Path of a real trace file, or skip (fail under WALLTIME_REQUIRE_TRACES=1)."""
    path = TRACES / name
    if not path.exists():
        msg = (
            f"trace {name} not found in {TRACES}: download it from the Parallel Workloads "
            f"Archive ({PWA}) into that folder, or point $WALLTIME_TRACES at your copy"
        )
        if os.environ.get("WALLTIME_REQUIRE_TRACES") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture
def traces_dir() -> Path:
    if not TRACES.is_dir():
        trace_path("MANIFEST.md")  # skips or fails with the message
    return TRACES


@pytest.fixture
def wh_dir(tmp_path) -> Path:
    """A fresh, empty warehouse directory."""
    return tmp_path / "wh"


def reproduce_quick(root: Path, paper: str) -> Path:
    """`walltime reproduce --quick --paper PAPER` as a real process, into root/wh and root/out; returns root."""
    r = subprocess.run([sys.executable, "-m", "pipeline", "reproduce", "--quick", "--paper", paper,
                        "--warehouse", str(root / "wh"), "--out", str(root / "out"), "--traces", str(TRACES)],
                       capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(REPO), "WALLTIME_PROGRESS": "0"})
    assert r.returncode == 0, r.stderr
    return root


def run_cli(*args: str, warehouse: Path | None = None, env: dict | None = None, check: bool = False,
            timeout: float | None = None, process: bool = False) -> subprocess.CompletedProcess:
    """Run the ``walltime`` command: in this process (the console script's entry point,
    pipeline.cli.main) unless ``process``, ``env`` or ``timeout`` asks for a real subprocess
    (``python -m pipeline``: the process boundary)."""
    cmd = [sys.executable, "-m", "pipeline", *args]
    if warehouse is not None:
        cmd += ["--warehouse", str(warehouse)]
    if process or env is not None or timeout is not None:
        full_env = {**os.environ, "WALLTIME_PROGRESS": "0", **(env or {})}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout or 600)
    else:
        proc = _in_process(cmd)
    if check and proc.returncode != 0:
        raise AssertionError(f"walltime {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def _in_process(cmd: list[str]) -> subprocess.CompletedProcess:
    """``cmd`` (python -m pipeline ARGS) through pipeline.cli.main here: stdout and stderr captured as
    a pipe would (text over bytes, no terminal), WALLTIME_PROGRESS=0 meanwhile, the exit code from
    SystemExit as the interpreter makes it."""
    import contextlib
    import io

    from pipeline.cli import main

    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n") for _ in range(2))
    old = os.environ.get("WALLTIME_PROGRESS")
    os.environ["WALLTIME_PROGRESS"] = "0"
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(cmd[3:])
            except SystemExit as e:
                if isinstance(e.code, str):
                    print(e.code, file=sys.stderr)
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        if old is None:
            os.environ.pop("WALLTIME_PROGRESS", None)
        else:
            os.environ["WALLTIME_PROGRESS"] = old
    texts = []
    for f in (out, err):
        f.flush()
        texts.append(f.buffer.getvalue().decode("utf-8", "replace"))
    return subprocess.CompletedProcess(cmd, code, *texts)


def stderr_at_a_terminal(cmd: list[str], **popen) -> tuple[int, str]:
    """Run ``cmd`` with its stderr on a pseudo-terminal (progress bars, notes
    meant for a person); returns (exit code, what it wrote there)."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, **popen)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    code = proc.wait()
    proc.stdout.close()
    return code, seen.decode("utf-8", "replace")


@pytest.fixture
def cli():
    return run_cli


def ingested_warehouse(tmp_path_factory, label: str, *traces: str):
    """A fresh warehouse (under a tmp dir named ``label``) with these real
    traces ingested (names without .swf.gz): the module fixtures' common start."""
    from pipeline.ingest import ingest
    from pipeline.warehouse import Warehouse

    w = Warehouse(tmp_path_factory.mktemp(label) / "wh")
    ingest([trace_path(f"{t}.swf.gz") for t in traces], w)
    return w
