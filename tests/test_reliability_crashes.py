"""Issue 22, "Crashes": hostile input that ended in an internal error (exit 2)
or was accepted as nonsense is a one-line refusal naming the file, line and
field (or the option), exit 1, the warehouse byte for byte as it was.

Every bad input is a real file with one field altered: slurm-lab.conf,
slurm-lab-sacct.txt, the NREL Eagle sample (as CSV, Parquet and JSON lines),
KTH-SP2. The ranges are those of pipeline/ingest/ranges.py (docs/ingest.md
"Ranges"), the same for every format.
"""

from __future__ import annotations

import gzip
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from conftest import REPO, run_cli, trace_path
from ingest_support import read_swf, run_inproc
from test_reliability import files, one_line_error, wh  # noqa: F401  (wh: a copy of this module's base)

SACCT = "slurm-lab-sacct.txt"
CONF = "slurm-lab.conf"
EAGLE = "NREL-Eagle-sample-1000.csv.gz"
KTH = "KTH-SP2-1996-2.1-cln"
SACCT_ARGS = ("--format", "sacct", "--tz", "UTC")
EAGLE_ARGS = ("--format", "table", "--preset", "eagle", "--tz", "UTC")


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A warehouse holding the lab's sacct dump (sized by its slurm.conf) and 60 lines of KTH-SP2."""
    d = tmp_path_factory.mktemp("crash-base")
    kth = d / "kth60.swf"
    kth.write_bytes(b"\n".join(read_swf(f"{KTH}.swf.gz").split(b"\n")[:60]) + b"\n")
    wh = d / "wh"
    run_cli("ingest", *SACCT_ARGS, "--slurm-conf", str(trace_path(CONF)), "--name", "lab", str(trace_path(SACCT)),
            warehouse=wh, check=True)
    run_cli("ingest", str(kth), warehouse=wh, check=True)
    return wh


def refused(wh: Path, *args: str, needle: str, timeout: float | None = None) -> None:
    """The command (the real CLI, in this process; with ``timeout``, the console
    script, killed after that many seconds) is one line naming ``needle``, exit 1,
    nothing written."""
    before = files(wh)
    ran = run_inproc(*args, warehouse=wh) if timeout is None else run_cli(*args, warehouse=wh, timeout=timeout)
    one_line_error(ran, needle)
    assert files(wh) == before


# -- slurm.conf ------------------------------------------------------------------

def conf_with(tmp: Path, old: bytes, new: bytes) -> tuple[Path, int]:
    """slurm-lab.conf with the first ``old`` replaced: (the file, the line changed)."""
    data = trace_path(CONF).read_bytes()
    at = data.index(old)
    f = tmp / "bad.conf"
    f.write_bytes(data[:at] + new + data[at + len(old):])
    return f, data[:at].count(b"\n") + 1


CONF_CASES = {
    # the examples
    "range not a number": (b"NodeName=node4 ", b"NodeName=node[4-x] ", 'NodeName=node[4-x]: range "4-x"'),
    "not UTF-8": (b"ClusterName=lab", b"ClusterName=l\xe9b", "not UTF-8 text"),
    "negative CPUs": (b"CPUs=4", b"CPUs=-4", "CPUs=-4: expected a whole number from 1 to 2,147,483,647"),
    # the class: every count and host list of the file
    "zero sockets": (b"CPUs=4 Sockets=1", b"Sockets=0", "Sockets=0: expected a whole number from 1"),
    "fractional CPUs": (b"CPUs=4", b"CPUs=2.5", "CPUs=2.5: expected a whole number"),
    "range backwards": (b"Nodes=node[3-4]", b"Nodes=node[4-3]", 'Nodes=node[4-3]: range "4-3" runs backwards'),
    "unbalanced bracket": (b"Nodes=node[3-4]", b"Nodes=node[3-4", "Nodes=node[3-4: unbalanced brackets"),
    "partition beyond 32 bits": (b"CPUs=4 Sockets=1", b"CPUs=2147483647 Sockets=1",
                                 "partition short has 2,147,483,659 CPUs, expected at most 2,147,483,647"),
}


@pytest.mark.parametrize("case", sorted(CONF_CASES))
def test_bad_slurm_conf_is_one_line(case, wh, tmp_path):
    old, new, why = CONF_CASES[case]
    conf, line = conf_with(tmp_path, old, new)
    if case == "partition beyond 32 bits":
        line = next(i for i, t in enumerate(conf.read_bytes().split(b"\n"), 1) if t.startswith(b"PartitionName=short"))
    # (a new --slurm-conf with --replace reloads the stored dump: the stored trace must stay as it was)
    refused(wh, "ingest", *SACCT_ARGS, "--slurm-conf", str(conf), "--name", "lab", "--replace", str(trace_path(SACCT)),
            needle=f"{conf}:{line}: {why}")


def test_a_range_of_ten_billion_nodes_is_refused_before_any_is_made(wh, tmp_path):
    """Today's code builds ten billion names (MemoryError, or the machine's memory):
    the console script runs with its address space capped at 3 GB."""
    conf, line = conf_with(tmp_path, b"NodeName=node4 ", b"NodeName=node[4-10000000003] ")
    before = files(wh)

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    proc = subprocess.run([sys.executable, "-m", "pipeline", "ingest", *SACCT_ARGS, "--slurm-conf", str(conf),
                           "--name", "lab", "--replace", str(trace_path(SACCT)), "--warehouse", str(wh)],
                          capture_output=True, text=True, timeout=300, preexec_fn=cap, cwd=REPO,
                          env={"PATH": "/usr/bin:/bin", "WALLTIME_PROGRESS": "0"})
    one_line_error(proc, f"{conf}:{line}: NodeName=node[4-10000000003]: names more than 1,000,000 nodes")
    assert files(wh) == before


# -- sacct -------------------------------------------------------------------------

def sacct_with(tmp: Path, column: str, value: str, line: int = 2) -> Path:
    rows = trace_path(SACCT).read_text().split("\n")
    head = rows[0].split("|")
    cells = rows[line - 1].split("|")
    cells[head.index(column)] = value
    rows[line - 1] = "|".join(cells)
    f = tmp / "dump.txt"
    f.write_text("\n".join(rows))
    return f


SACCT_CASES = {
    "year 9999": ("Submit", "9999-11-22T13:54:43", 'field 9 (Submit) is "9999-11-22T13:54:43", '
                  "expected a time within 200 years of 1970"),
    "year 1": ("Submit", "0001-11-22T13:54:43", 'field 9 (Submit) is "0001-11-22T13:54:43"'),
    "start before submit": ("Start", "2026-11-22T13:50:43", 'field 11 (Start) is "2026-11-22T13:50:43", '
                            "before the submit time; expected a start at or after it"),
    "end before start": ("End", "2026-11-22T13:50:43", 'field 12 (End) is "2026-11-22T13:50:43", '
                         "before the start time; expected an end at or after it"),
    "NCPUS 9e18": ("NCPUS", "9000000000000000000", 'field 18 (NCPUS) is "9000000000000000000", '
                   "expected a whole number from 0 to 2,147,483,647"),
    "negative NCPUS": ("NCPUS", "-4", 'field 18 (NCPUS) is "-4"'),
    "huge ElapsedRaw": ("ElapsedRaw", "9000000000000000000", 'field 14 (ElapsedRaw) is "9000000000000000000", '
                        "expected seconds from 0 to 6,311,433,600 (200 years)"),
    "huge TimelimitRaw": ("TimelimitRaw", "9000000000000000000", 'field 16 (TimelimitRaw) is "9000000000000000000"'),
}


@pytest.mark.parametrize("case", sorted(SACCT_CASES))
def test_sacct_value_out_of_range_is_one_line(case, wh, tmp_path):
    column, value, why = SACCT_CASES[case]
    f = sacct_with(tmp_path, column, value)
    refused(wh, "ingest", *SACCT_ARGS, "--name", "other", str(f), needle=f"{f}:2: {why}")


def test_sacct_lenient_keeps_the_out_of_range_line_as_a_reject(wh, tmp_path):
    """--lenient drops such a line into rejects, as it does an unreadable one."""
    f = sacct_with(tmp_path, "NCPUS", "9000000000000000000")
    ran = run_inproc("ingest", *SACCT_ARGS, "--name", "other", "--lenient", "--capacity", "16", str(f), warehouse=wh)
    assert ran.returncode == 0, ran.stderr
    rejects = run_inproc("sql", "SELECT line, reason FROM rejects WHERE trace = 'other'", "--json", warehouse=wh)
    assert '"line": 2' in rejects.stdout and "NCPUS" in rejects.stdout, rejects.stdout
    ran = run_inproc("summary", "other", warehouse=wh)
    assert ran.returncode == 0, ran.stderr


# -- tables: CSV, Parquet, JSON lines ---------------------------------------------

def eagle() -> pl.DataFrame:
    return pl.read_csv(gzip.open(trace_path(EAGLE)).read(), infer_schema_length=None)


def table_with(tmp: Path, column: str, value, kind: str, row: int = 3) -> Path:
    """The Eagle sample with ``column`` of data row ``row`` (0-based) set to ``value``,
    written as ``kind`` (csv: the original text with one cell changed)."""
    if kind == "csv":
        lines = gzip.open(trace_path(EAGLE)).read().decode().split("\n")
        head = lines[0].split(",")
        cells = lines[row + 1].split(",")
        cells[head.index(column)] = str(value)
        lines[row + 1] = ",".join(cells)
        f = tmp / "eagle.csv"
        f.write_text("\n".join(lines))
        return f
    df = eagle()
    df = df.with_columns(pl.when(pl.int_range(pl.len()) == row).then(pl.lit(value)).otherwise(pl.col(column))
                         .cast(df.schema[column]).alias(column))
    f = tmp / f"eagle.{kind}"
    df.write_parquet(f) if kind == "parquet" else df.write_ndjson(f)
    return f


RANGE = "expected seconds from 0 to 6,311,433,600 (200 years)"
TABLE_CASES = {
    "csv NaN run": ("csv", "run_time", "nan", f'column run_time (run) is "nan", {RANGE}'),
    "csv inf run": ("csv", "run_time", "inf", f'column run_time (run) is "inf", {RANGE}'),
    "csv negative run": ("csv", "run_time", "-5.0", f'column run_time (run) is "-5.0", {RANGE}'),
    "csv negative size": ("csv", "processors_req", "-3", 'column processors_req (procs) is "-3", '
                          "expected a whole number from 0 to 2,147,483,647"),
    "csv negative nodes": ("csv", "nodes_req", "-3", 'column nodes_req (nodes) is "-3"'),
    "csv size 9e18": ("csv", "processors_req", "9e18", 'column processors_req (procs) is "9e18"'),
    "csv epoch 1e300": ("csv", "submit_time", "1e300", 'column submit_time (submit) is "1e300", '
                        "expected a time within 200 years of 1970"),
    "csv epoch year 10000": ("csv", "submit_time", "99999999999999", 'column submit_time (submit) is "99999999999999"'),
    "csv NaN limit": ("csv", "wallclock_req", "nan", 'column wallclock_req (req) is "nan", '
                      "expected a time limit from 0 to 6,311,433,600 seconds (200 years)"),
    "csv start before submit": ("csv", "start_time", "2018-12-01 08:55:56",
                                'column start_time (start) is "2018-12-01 08:55:56", before the submit time'),
    "csv end before start": ("csv", "end_time", "2018-12-01 08:55:56",
                             'column end_time (end) is "2018-12-01 08:55:56", before the start time'),
    "parquet NaN run": ("parquet", "run_time", float("nan"), f'column run_time (run) is "NaN", {RANGE}'),
    "parquet negative size": ("parquet", "processors_req", -3, 'column processors_req (procs) is "-3"'),
    "jsonl huge limit": ("jsonl", "wallclock_req", 1e300, 'column wallclock_req (req) is "1e+300"'),
    "jsonl negative run": ("jsonl", "run_time", -60.0, 'column run_time (run) is "-60.0"'),
}


@pytest.mark.parametrize("case", sorted(TABLE_CASES))
def test_table_value_out_of_range_is_one_line(case, wh, tmp_path):
    kind, column, value, why = TABLE_CASES[case]
    f = table_with(tmp_path, column, value, kind)
    line = 5 if kind == "csv" else 4  # (CSV: after its header line)
    refused(wh, "ingest", *EAGLE_ARGS, str(f), needle=f"{f}:{line}: {why}")


def test_table_lenient_keeps_the_out_of_range_row_as_a_reject(wh, tmp_path):
    f = table_with(tmp_path, "run_time", "nan", "csv")
    ran = run_inproc("ingest", *EAGLE_ARGS, "--lenient", "--json", str(f), warehouse=wh)
    assert ran.returncode == 0, ran.stderr
    assert '"rejected": 1' in ran.stdout and '"jobs": 999' in ran.stdout, ran.stdout


# -- a trace that loads but has nothing to simulate ----------------------------------

def test_a_trace_of_minus_ones_is_refused_by_simulate_and_summary(base, tmp_path):
    """KTH's first lines with every field after the submit time -1: it loads (SWF allows
    unknowns), and simulate / summary refuse it before computing any estimate."""
    lines = read_swf(f"{KTH}.swf.gz").decode().split("\n")[:60]
    out = [ln if ln.startswith(";") or not ln.strip() else " ".join(ln.split()[:2] + ["-1"] * 16) for ln in lines]
    f = tmp_path / "unknown.swf"
    f.write_text("\n".join(out) + "\n")
    wh = tmp_path / "wh"
    shutil.copytree(base, wh)
    assert run_inproc("ingest", str(f), warehouse=wh).returncode == 0
    why = 'trace "unknown": no job has both a run time and a size'
    for args in (("simulate", "unknown", "--estimate", "actual"), ("simulate", "unknown"), ("summary", "unknown")):
        refused(wh, *args, needle=why)


# -- options: bounds checked before any work -----------------------------------------

@pytest.mark.parametrize("args,needle", [
    (("simulate", "kth60", "--nodes-aware", "--backfill", "none", "--pin-interval", "1e20h"),
     '--pin-interval "1e20h": at most 200 years'),
    (("simulate", "kth60", "--nodes-aware", "--backfill", "none", "--pin-interval", "2000000h"),
     '--pin-interval "2000000h": at most 200 years'),
    (("search-templates", "kth60", "--name", "x", "--population", "1000000000"),
     "--population 1000000000: must be a whole number from 4 to 1,000"),
    (("search-templates", "kth60", "--name", "x", "--generations", "1000000000000"),
     "--generations 1000000000000: must be a whole number from 1 to 1,000"),
    # the class: generate's sizes (1e12 jobs: a MemoryError of 3.45 TiB)
    (("generate", "--out", "g.swf", "--jobs", "1000000000000"), "--jobs: must be a positive number of jobs, at most"),
    (("generate", "--out", "g.swf", "--jobs", "100", "--capacity", "99999999999"),
     "--capacity: must be from 1 to 2,147,483,647 processors"),
])
def test_option_beyond_its_bound_is_refused_before_any_work(wh, args, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(wh, *args, needle=needle, timeout=120)  # (a subprocess: today --generations 1e12 runs for ever)
    assert not (tmp_path / "g.swf").exists()


# -- reproduce ----------------------------------------------------------------------

def test_reproduce_refuses_a_trace_stored_under_another_name(tmp_path):
    """KTH-SP2 ingested as "kth": reproduce would keep it there and then look
    for it by its own name (an internal error, after ingesting other traces)."""
    wh = tmp_path / "wh"
    run_cli("ingest", "--name", "kth", str(trace_path(f"{KTH}.swf.gz")), warehouse=wh, check=True)
    for paper in ("klusacek-nodes", "mualem"):
        refused(wh, "reproduce", "--quick", "--paper", paper, "--out", str(tmp_path / "out"),
                "--traces", str(trace_path(f"{KTH}.swf.gz").parent),
                needle=f'{KTH}.swf.gz: already in the warehouse as trace "kth"')
    assert not (tmp_path / "out").exists()
