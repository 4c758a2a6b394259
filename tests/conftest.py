"""Shared fixtures: where the real traces are, fresh warehouses, running the CLI.

Traces come from $WALLTIME_TRACES (default ../shared/traces). Where a trace is
missing the test skips with instructions -- or fails, when
WALLTIME_REQUIRE_TRACES=1 (CI).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TRACES = Path(os.environ.get("WALLTIME_TRACES") or REPO.parent / "shared" / "traces")
PWA = "https://www.cs.huji.ac.il/labs/parallel/workload/logs.html"


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
            timeout: float = 600) -> subprocess.CompletedProcess:
    """Run the real ``walltime`` command in a subprocess."""
    cmd = [sys.executable, "-m", "pipeline", *args]
    if warehouse is not None:
        cmd += ["--warehouse", str(warehouse)]
    full_env = {**os.environ, "WALLTIME_PROGRESS": "0", **(env or {})}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"walltime {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


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
