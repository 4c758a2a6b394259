"""Issue 22, "All or nothing, validated first" and "Messages": one test per
defect, each failing on the code before the fix.

- `simulate` with a scheme not yet computed is one transaction: a kill at its
  COMMIT (or before) leaves the estimates and the run both stored or neither;
- options that can only fail late (`--node-size` wider than the machine or
  than a job needs, `--pin-interval` beyond 64 bits, `reproduce --out FILE`,
  `ingest --capacity` beyond 32 bits) fail before any work: one line, exit 1,
  the warehouse byte for byte as it was, no directory left behind;
- a `kill -9` of `walltime run` right after it forked its first worker leaves
  no forkserver, worker or resource tracker behind (bounded wait);
- messages name the damaged database file, the JSON-lines line, the `--out`
  path (not a temporary), the study key (`format`, `slurm_conf`), and show
  non-UTF-8 bytes escaped (``\\xff``).

Real CLI, real processes (kill -9 is real), data cut from the real KTH-SP2
trace in $WALLTIME_TRACES.
"""

from __future__ import annotations

import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import duckdb
import pytest

from conftest import run_cli, trace_path
from ingest_support import run_inproc
from test_reliability import files, one_line_error, table_rows, wh  # noqa: F401  (wh: a copy of base, ours)

TRACE = "kth"
JOBS = 2000


@pytest.fixture(scope="module")
def kth(tmp_path_factory) -> Path:
    """The real KTH-SP2 header and its first JOBS job lines (100 processors)."""
    out = tmp_path_factory.mktemp("kth") / f"{TRACE}.swf"
    lines, jobs = [], 0
    with gzip.open(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"), "rt") as fh:
        for line in fh:
            if not line.lstrip().startswith(";"):
                jobs += 1
                if jobs > JOBS:
                    break
            lines.append(line)
    out.write_text("".join(lines))
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory, kth) -> Path:
    """A warehouse with the excerpt and its request-based run."""
    wh = tmp_path_factory.mktemp("base") / "wh"
    run_cli("ingest", str(kth), warehouse=wh, check=True)
    run_cli("simulate", TRACE, warehouse=wh, check=True)
    return wh


# -- simulate: one transaction -------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("point", ["after-run-file", "after-commit:1", "after-commit:2"])
def test_simulate_computing_a_scheme_is_one_transaction(wh, point):
    """Killed before its COMMIT: neither the estimates nor the run; killed
    right after the N-th COMMIT (a copied warehouse's first writer also
    commits its jobs view, pipeline/jobs_files.py): both or neither."""
    proc = run_cli("simulate", TRACE, "--estimate", "actual", warehouse=wh,
                   env={"WALLTIME_TEST_KILL_AT": point})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    est = table_rows(wh, "SELECT count(*) FROM estimates WHERE scheme = 'actual'")
    runs = table_rows(wh, "SELECT count(*) FROM runs WHERE estimate = 'actual'")
    assert (est, runs) in ([(0, 0)] if point == "after-run-file" else [(0, 0), (JOBS, 1)])
    # the next command finishes the job and finds everything consistent
    run_cli("simulate", TRACE, "--estimate", "actual", warehouse=wh, check=True)
    assert table_rows(wh, "SELECT count(*) FROM runs WHERE estimate = 'actual'") == 1
    assert not list(wh.rglob(".tmp-*"))


# -- options validated before any work -----------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("args, needle", [
    (["--node-size", "1000"], "--node-size 1000"),        # wider than the machine (100)
    (["--node-size", "60"], "--node-size 60"),            # a 100-processor machine has 1 node of 60; jobs need 2
    (["--pin-interval", "1e20"], "--pin-interval"),       # beyond 64 bits of seconds
])
def test_nodes_options_fail_before_the_scheme_is_stored(wh, args, needle):
    before = files(wh)
    proc = run_cli("simulate", TRACE, "--nodes-aware", "--backfill", "none", "--estimate", "ave2", *args,
                   warehouse=wh)
    one_line_error(proc, needle)
    assert files(wh) == before


def test_ingest_capacity_beyond_32_bits_creates_nothing(kth, wh, tmp_path):
    new = tmp_path / "new"
    one_line_error(run_cli("ingest", str(kth), "--name", "k2", "--capacity", "99999999999999999999",
                           warehouse=new), "--capacity")
    assert not new.exists()
    before = files(wh)
    dirs = sorted(p for p in wh.rglob("*") if p.is_dir())
    one_line_error(run_cli("ingest", str(kth), "--name", "k2", "--capacity", "p=99999999999999999999",
                           warehouse=wh), "--capacity")
    assert files(wh) == before and sorted(p for p in wh.rglob("*") if p.is_dir()) == dirs


def test_reproduce_out_file_is_refused_before_any_ingest(tmp_path):
    out = tmp_path / "reproduction.md"
    out.write_text("not a folder\n")
    empty = tmp_path / "traces"
    empty.mkdir()
    proc = run_cli("reproduce", "--paper", "tang", "--quick", "--out", str(out), "--traces", str(empty),
                   warehouse=tmp_path / "wh")
    one_line_error(proc, "--out", str(out))
    assert not (tmp_path / "wh").exists() and out.read_text() == "not a folder\n"


# -- workers die with a killed coordinator ---------------------------------------

def _tagged(tag: str) -> list[int]:
    """Live processes carrying ``tag`` in their environment (ours, and only ours)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as fh:
                if f"ATOMIC_TEST_TAG={tag}".encode() not in fh.read():
                    continue
            with open(f"/proc/{d}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] != "Z":
                    out.append(int(d))
        except (OSError, IndexError):
            continue
    return out


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc")
def test_kill_right_after_the_first_worker_forked_leaves_no_process(wh, tmp_path, kth):
    """The moment a worker is forked and has not yet asked for its parent's
    death signal: the coordinator dies, the forkserver with it, and the worker
    (and so the resource tracker, whose pipe it holds) must die too."""
    study = tmp_path / "s.toml"
    study.write_text(f'[[traces]]\npath = "{kth}"\nname = "{TRACE}"\n[[simulations]]\n'
                     'policy = ["sjf", "lwf", "wfp"]\nbackfill = ["easy", "conservative"]\n')
    survivors = []
    for _ in range(2):
        tag = uuid.uuid4().hex
        env = {**os.environ, "WALLTIME_PROGRESS": "0", "ATOMIC_TEST_TAG": tag,
               "WALLTIME_TEST_KILL_AT": "worker-forked"}
        # not run_cli: a survivor holding the output pipes would keep it waiting
        proc = subprocess.Popen([sys.executable, "-m", "pipeline", "run", str(study), "--workers", "2",
                                 "--warehouse", str(wh)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert proc.wait(timeout=300) == -signal.SIGKILL
        end = time.monotonic() + 15
        while time.monotonic() < end and _tagged(tag):
            time.sleep(0.1)
        left = _tagged(tag)
        for p in left:
            os.kill(p, signal.SIGKILL)
        survivors += left
    assert not survivors, f"processes outlived their coordinator: {survivors}"


# -- messages ------------------------------------------------------------------

def test_a_damaged_block_found_mid_command_names_the_database_file(wh):
    """Damage DuckDB finds only when a query reads the block (not at open):
    the block of the estimates' ``est`` column (DuckDB's storage_info; the
    file is a 12 KiB header, then blocks that start with their checksum)."""
    db = wh / "walltime.duckdb"
    con = duckdb.connect(str(db), read_only=True)
    try:
        block, offset, size = con.execute(
            "SELECT block_id, block_offset, (SELECT block_size FROM pragma_database_size()) "
            "FROM pragma_storage_info('estimates') "
            "WHERE column_name = 'est' AND block_id >= 0 LIMIT 1").fetchone()
    finally:
        con.close()
    damaged = bytearray(db.read_bytes())
    at = 3 * 4096 + block * size + 8 + offset  # past the block's checksum, into the column's data
    damaged[at:at + 64] = b"\xa5" * 64
    db.write_bytes(bytes(damaged))
    assert run_inproc("traces", warehouse=wh).returncode == 0  # it opens
    ran = run_inproc("estimate", TRACE, "--scheme", "request", warehouse=wh)
    one_line_error(ran, "damaged warehouse", str(db))


def test_non_utf8_bytes_are_shown_escaped(kth, tmp_path):
    bad = tmp_path / "bad.swf"
    lines = kth.read_bytes().splitlines(keepends=True)
    job = next(i for i, ln in enumerate(lines) if not ln.lstrip().startswith(b";"))
    fields = lines[job].split()
    fields[3] = b"\xff\xfe"
    lines[job] = b" ".join(fields) + b"\n"
    bad.write_bytes(b"".join(lines))
    proc = run_cli("ingest", str(bad), warehouse=tmp_path / "wh")
    one_line_error(proc, f"{bad}:{job + 1}:", "\\xff\\xfe")
    assert "\ufffd" not in proc.stderr and not (tmp_path / "wh").exists()


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_non_utf8_bytes_in_a_table_are_named_by_line_and_shown_escaped(tmp_path, suffix):
    """The Eagle sample (a real table log) with one byte of line 3 not UTF-8."""
    with gzip.open(trace_path("NREL-Eagle-sample-1000.csv.gz"), "rb") as f:
        lines = f.read().splitlines(keepends=True)[:6]
    if suffix == "jsonl":
        import csv
        import io
        import json

        rows = list(csv.DictReader(io.StringIO(b"".join(lines).decode())))
        lines = [json.dumps(r).encode() + b"\n" for r in rows]
    bad_line = 3
    lines[bad_line - 1] = lines[bad_line - 1].replace(b"COMPLETED", b"COMPL\xffETED", 1)
    bad = tmp_path / f"eagle.{suffix}"
    bad.write_bytes(b"".join(lines))
    proc = run_cli("ingest", str(bad), "--format", "table", "--preset", "eagle", warehouse=tmp_path / "wh")
    one_line_error(proc, f"{bad}:{bad_line}:", "not UTF-8", "\\xff")
    assert "\ufffd" not in proc.stderr and not (tmp_path / "wh").exists()


def test_a_broken_json_lines_record_is_named_by_line(tmp_path):
    src = tmp_path / "jobs.jsonl"
    src.write_text('{"id": 1, "submit": 0, "run": 10, "nodes": 1}\n'
                   '{"id": 2, "submit": 5, "run": 10, "nodes": 1}\n'
                   '{"id": 3, "submit": 7, "run": 10, "nodes": 1\n'
                   '{"id": 4, "submit": 9, "run": 10, "nodes": 1}\n')
    proc = run_cli("ingest", str(src), "--format", "table", "--column", "job_id=id", "--column", "submit=submit",
                   "--column", "run=run", "--column", "nodes=nodes", warehouse=tmp_path / "wh")
    one_line_error(proc, f"{src}:3:")
    assert not (tmp_path / "wh").exists()


def test_export_out_names_the_out_path_not_a_temporary(wh, tmp_path):
    out = tmp_path / "k.swf"
    out.mkdir()
    for fmt in ("swf", "parquet"):
        proc = run_cli("export", TRACE, "--format", fmt, "--out", str(out), warehouse=wh)
        one_line_error(proc, "--out", str(out))
        assert ".tmp-" not in proc.stderr
    assert list(out.iterdir()) == []


def test_study_sacct_trace_without_format_says_which_key(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(f'[[traces]]\npath = "{trace_path("slurm-lab-sacct.txt")}"\n'
                     '[[simulations]]\npolicy = ["fcfs"]\n')
    proc = run_cli("run", str(study), warehouse=tmp_path / "wh")
    one_line_error(proc, str(study), "traces[0].format", 'format = "sacct"')
    assert proc.stderr.count("characters)") <= 1, proc.stderr
    assert not (tmp_path / "wh").exists()


def test_study_missing_slurm_conf_names_the_study_key_and_file(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(f'[[traces]]\npath = "{trace_path("slurm-lab-sacct.txt")}"\nformat = "sacct"\n'
                     'slurm_conf = "site/slurm.conf"\n[[simulations]]\npolicy = ["fcfs"]\n')
    proc = run_cli("run", str(study), warehouse=tmp_path / "wh")
    one_line_error(proc, str(study), "traces[0].slurm_conf", str(tmp_path / "site" / "slurm.conf"))
    assert not (tmp_path / "wh").exists()
