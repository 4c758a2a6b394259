"""`walltime sql` in a shell pipeline (issue 23, "first run from the checkout"):
a reader that stops early (`| head`) gets no "error: Broken pipe", as with
Unix tools, and `--csv` ends lines with LF, not CRLF."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from conftest import REPO, run_cli
from report_support import write_tiny

ROWS = "SELECT range AS n, 'job ' || range AS label FROM range({})"  # well over a pipe's 64 KiB


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    root = tmp_path_factory.mktemp("pipes")
    run_cli("ingest", str(write_tiny(root)), warehouse=root / "wh", check=True)
    return root / "wh"


def piped(wh, *args: str) -> subprocess.CompletedProcess:
    """`walltime sql ARGS | head -n 2` in a real shell, with the pipeline's statuses."""
    walltime = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "pipeline", "sql", "--warehouse", str(wh), *args))
    return subprocess.run(["bash", "-c", f'{walltime} | head -n 2; echo "status ${{PIPESTATUS[0]}}"'],
                          capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, "WALLTIME_PROGRESS": "0"})


@pytest.mark.parametrize("form, n", [([], 5000), (["--csv"], 100_000), (["--json"], 100_000)],
                         ids=["table", "csv", "json"])
def test_sql_into_head_exits_quietly(wh, form, n):
    proc = piped(wh, *form, ROWS.format(n))
    assert proc.stderr == ""  # no "error: Broken pipe", no "Exception ignored"
    lines = proc.stdout.splitlines()
    assert len(lines) == 3 and lines[-1] in ("status 0", "status 141")  # 141: as a tool killed by SIGPIPE


def test_sql_csv_ends_lines_with_lf(wh):
    raw = subprocess.run([sys.executable, "-m", "pipeline", "sql", "--csv", "--warehouse", str(wh),
                          "SELECT job_id, user_id FROM jobs ORDER BY job_id"], capture_output=True, timeout=120).stdout
    assert b"\r" not in raw and raw.count(b"\n") == 7 and raw.startswith(b"job_id,user_id\n1,1\n")
