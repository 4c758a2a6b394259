"""kill -9 of a real `walltime ingest` of a big trace, at every phase, leaves
the warehouse exactly as before (or, after COMMIT, exactly as a finished run
leaves it), and it still opens. Meanwhile readers and a second writer get the
answers the spec promises.

The phases are observed from outside, through /proc/<pid>/fd and the
warehouse directory: input file open (reading), neither input nor database
open (parsing), a Parquet temporary present (writing the jobs files, with the
database closed), database open (writing the catalogue: COMMIT). Jobs files
a kill leaves before COMMIT are invisible (no committed row names them) and
the next writer deletes them (pipeline/jobs_files.py).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from conftest import run_cli, trace_path
from ingest_support import Ran, run_inproc, snapshot, synth_swf, temporaries, uncommitted_jobs_files

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")]

BIG_LINES = 600_000


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """The big gzip trace, the warehouse before (KTH plus a small 'big'), and
    the snapshot a finished --replace leaves."""
    tmp = tmp_path_factory.mktemp("kill")
    src = trace_path("SDSC-BLUE-2000-4.2-cln.swf.gz")
    big = tmp / "big.swf.gz"
    synth_swf.build(src, BIG_LINES, big, gz=True)
    small = tmp / "small.swf"
    synth_swf.build(src, 20_000, small)
    base = tmp / "base"
    run_cli("ingest", str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")), warehouse=base, check=True)
    run_cli("ingest", str(small), "--name", "big", warehouse=base, check=True)

    full = tmp / "full"
    shutil.copytree(base, full)
    t0 = time.monotonic()
    run_cli("ingest", str(big), "--name", "big", "--replace", warehouse=full, check=True)
    duration = time.monotonic() - t0
    big_jobs = duckdb.connect(str(base / "walltime.duckdb"), read_only=True).execute(
        "SELECT jobs FROM traces WHERE trace = 'big'").fetchone()[0]
    return {"tmp": tmp, "big": big, "base": base, "before": snapshot(base), "big_jobs": big_jobs,
            "after": snapshot(full, content_only=True), "duration": duration, "kth": trace_path("KTH-SP2-1996-2.1-cln.swf.gz")}


def start_ingest(setup, wh: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pipeline", "ingest", str(setup["big"]), "--name", "big", "--replace",
           "--warehouse", str(wh)]
    env = {**os.environ, "WALLTIME_PROGRESS": "0"}
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def open_files(pid: int) -> set[str]:
    found = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                found.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                pass
    except OSError:
        pass
    return found


def phase(proc: subprocess.Popen, setup, wh: Path, seen: list[str]) -> str:
    """The ingest's current phase, judged from outside."""
    files = open_files(proc.pid)
    db = str((wh / "walltime.duckdb").resolve())
    if any(Path(f).name.startswith(".tmp-") for f in files) or temporaries(wh):
        return "stage"
    if str(setup["big"].resolve()) in files:
        return "read"
    if db in files:
        return "write" if "read" in seen else "start"
    return "parse" if "read" in seen else "start"


def wait_for(proc, setup, wh, target: str, timeout: float = 120) -> None:
    seen: list[str] = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail(f"ingest ended (rc {proc.returncode}) before phase {target}; saw {seen}: "
                        f"{proc.stderr.read().decode()}")
        p = phase(proc, setup, wh, seen)
        if not seen or seen[-1] != p:
            seen.append(p)
        if p == target:
            return
        time.sleep(0.001)
    pytest.fail(f"phase {target} not reached in {timeout}s; saw {seen}")


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)  # no-op if it already ended (Popen knows its child)
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()


def assert_opens(wh: Path) -> None:
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM traces").fetchone()[0] == 2
    con.close()
    proc = run_inproc("traces", "--json", warehouse=wh)
    assert proc.returncode == 0, proc.stderr


def assert_busy(ran: Ran) -> None:
    assert ran.returncode == 1
    assert "warehouse is busy" in ran.stderr and ran.stderr.count("\n") == 1, ran.stderr


@pytest.mark.parametrize("target", ["read", "parse", "write", "stage"])
def test_kill_in_phase_leaves_warehouse_as_before(setup, tmp_path, target):
    wh = tmp_path / "wh"
    shutil.copytree(setup["base"], wh)
    proc = start_ingest(setup, wh)
    try:
        wait_for(proc, setup, wh, target)
        if target == "parse":
            # the writer holds only its lock now: readers work, a second writer is refused
            ran = run_inproc("traces", "--json", warehouse=wh)
            assert ran.returncode == 0, ran.stderr
            assert_busy(run_inproc("ingest", str(setup["kth"]), "--name", "x", warehouse=wh))
        if target == "write":
            # the writer has DuckDB open: a reader that may not wait (WALLTIME_READ_WAIT=0)
            # gets a clear busy error naming a writer, no traceback (a patient reader
            # waits for the commit: test_reliability.py)
            os.environ["WALLTIME_READ_WAIT"] = "0"
            try:
                ran = run_inproc("sql", "SELECT count(*) FROM jobs", warehouse=wh)
            finally:
                del os.environ["WALLTIME_READ_WAIT"]
            assert_busy(ran)
            assert "a writer" in ran.stderr
        if target == "stage":
            # the jobs files are being written with the database closed: readers
            # answer at once, from the last commit (the old 'big')
            ran = run_inproc("sql", "SELECT count(*) AS n FROM jobs WHERE trace = 'big'", "--json", warehouse=wh)
            assert ran.returncode == 0, ran.stderr
            assert json.loads(ran.stdout) == [{"n": setup["big_jobs"]}]
        time.sleep(random.uniform(0, 0.02))
    finally:
        kill(proc)
    if target == "write" and snapshot(wh) != setup["before"]:
        # the database is open only for the catalogue's short transaction now
        # (the jobs files are written before it): the kill may fall after COMMIT
        assert snapshot(wh, content_only=True) == setup["after"]
    else:
        assert snapshot(wh) == setup["before"]
    assert_opens(wh)
    # the next writer clears the temporaries and the warehouse still takes the trace
    run_cli("ingest", str(setup["big"]), "--name", "big", "--replace", warehouse=wh, check=True)
    assert temporaries(wh) == [] and uncommitted_jobs_files(wh) == []
    assert snapshot(wh, content_only=True) == setup["after"]


@pytest.mark.parametrize("fraction", [0.7, 0.95])
def test_kill_at_a_random_moment_is_all_or_nothing(setup, tmp_path, fraction):
    """Late kills may fall after COMMIT: then the next writer finishes the
    Parquet rename, and the result equals a finished run."""
    wh = tmp_path / "wh"
    shutil.copytree(setup["base"], wh)
    proc = start_ingest(setup, wh)
    time.sleep(fraction * setup["duration"])
    finished = proc.poll() is not None
    kill(proc)
    assert_opens(wh)
    # a no-op writer (same KTH content again) takes the lock and recovers
    run_cli("ingest", str(setup["kth"]), warehouse=wh, check=True)
    assert temporaries(wh) == [] and uncommitted_jobs_files(wh) == []
    state = snapshot(wh, content_only=True)
    if state == setup["after"]:
        return
    assert not finished, "the ingest had finished but its result is not there"
    assert snapshot(wh) == setup["before"]
