"""The README's first run: `pip install .` (not editable), then a command run
from the root of the checkout starts the background build of the simulator
(pipeline/aot_build.py), and the next command finds the module.

The bug (issue 23): the builder ran `python -m pipeline.simulate.aot` in the
checkout, so it imported the checkout's copy of the package and wrote the
module into ./pipeline/simulate/__pycache__/aot; the installed package never
looked there, ran every command under Numba's JIT and started yet another
builder each time. Kept cheap: the venv reuses the dev venv's packages (a .pth
line) and pip installs without dependencies or build isolation.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from conftest import REPO, stderr_at_a_terminal
from report_support import write_tiny


def _site(venv: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with walltime installed from this checkout as a wheel would be."""
    pytest.importorskip("hatchling", reason="--no-build-isolation needs hatchling (pip install hatchling)")
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = _site(venv)
    (site / "dev-venv.pth").write_text(sysconfig.get_path("purelib") + "\n")  # numpy, numba, duckdb, pip...
    py = venv / "bin" / "python"
    proc = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                           "--ignore-installed", "--no-index", str(REPO)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (site / "pipeline" / "aot_build.py").exists() and (venv / "bin" / "walltime").exists()
    return venv


def _env() -> dict:
    return {k: v for k, v in os.environ.items()  # NUMBA_CACHE_DIR would put every copy's modules in one place
            if k not in ("NUMBA_CACHE_DIR", "WALLTIME_AOT", "WALLTIME_PROGRESS", "PYTHONPATH")}


@pytest.mark.slow
def test_background_build_from_the_checkout_serves_the_installed_package(installed, tmp_path):
    walltime = installed / "bin" / "walltime"
    probe = ("from pipeline.simulate import aot; import pipeline; "
             "print(pipeline.__file__, aot.module_path(), aot.load() is not None)")
    before = subprocess.run([str(installed / "bin" / "python"), "-P", "-c", probe], capture_output=True, text=True,
                            cwd=REPO, env=_env(), check=True).stdout.split()
    assert before[0].startswith(str(_site(installed))) and before[2] == "False"
    # `walltime ingest` at a terminal, from the root of the checkout, starts the builder
    code, seen = stderr_at_a_terminal([str(walltime), "ingest", str(write_tiny(tmp_path)), "--warehouse",
                                       str(tmp_path / "wh")], cwd=REPO, env=_env())
    assert code == 0, seen
    m = re.search(r"compiling the simulator in the background \(pid (\d+)", seen)
    assert m, seen
    pid, deadline = int(m.group(1)), time.monotonic() + 900
    while time.monotonic() < deadline:  # the builder is detached: wait until it is gone
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(1)
    else:
        pytest.fail("the background build did not finish in 15 minutes")
    # the next command, again from the checkout, loads the module the builder wrote
    after = subprocess.run([str(installed / "bin" / "python"), "-P", "-c", probe], capture_output=True, text=True,
                           cwd=REPO, env=_env(), check=True).stdout.split()
    log = Path(after[1]).with_suffix("").with_suffix(".log")
    assert after[2] == "True", (log.read_text() if log.exists() else "no build log where the package looks")
    assert Path(after[1]).parent.is_relative_to(_site(installed))
