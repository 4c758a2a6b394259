"""Bad input is refused whole (one line on stderr, exit 1, warehouse untouched);
--lenient keeps the good lines and files the bad ones in `rejects`; same
content again is a no-op; --replace swaps a trace out.

Inputs are the real KTH trace with one line spoiled; every run is the real CLI.
"""

from __future__ import annotations

import gzip
import json
import shutil
import zlib
from pathlib import Path

import duckdb
import pytest

from conftest import run_cli
from ingest_support import job_line_numbers, read_swf, run_inproc, snapshot, temporaries

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"


@pytest.fixture(scope="module")
def kth_lines() -> list[str]:
    return read_swf(KTH).decode().split("\n")


@pytest.fixture(scope="module")
def base_wh(tmp_path_factory) -> Path:
    """A warehouse that already holds one trace (real NASA-iPSC)."""
    from conftest import trace_path

    wh = tmp_path_factory.mktemp("base") / "wh"
    run_cli("ingest", str(trace_path("NASA-iPSC-1993-3.1-cln.swf.gz")), warehouse=wh, check=True)
    return wh


@pytest.fixture
def wh(base_wh, tmp_path) -> Path:
    copy = tmp_path / "wh"
    shutil.copytree(base_wh, copy)
    return copy


def spoil(lines: list[str], lineno: int, field: int, value: str | None) -> list[str]:
    """Copy of ``lines`` with 1-based field ``field`` of line ``lineno`` set to
    ``value`` (None: drop that field and all after it)."""
    out = list(lines)
    tokens = out[lineno - 1].split()
    tokens = tokens[: field - 1] if value is None else tokens[: field - 1] + [value] + tokens[field:]
    out[lineno - 1] = " ".join(tokens)
    return out


def run_in(tmp: Path, *args, wh: Path):
    """The CLI (in this process), run from ``tmp`` so relative file names
    appear in messages."""
    return run_inproc(*args, warehouse=wh, cwd=tmp)


def run_sub(tmp: Path, *args, wh: Path):
    """The console script in a subprocess, run from ``tmp``."""
    import os

    old = os.getcwd()
    os.chdir(tmp)
    try:
        return run_cli(*args, warehouse=wh)
    finally:
        os.chdir(old)


def assert_refused(proc, message: str):
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == f"error: {message}\n"
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def _field(lines, lineno, f):
    return lines[lineno - 1].split()[f - 1]


CASES = {
    "not a number": (40, 4, "x7", 'field 4 (run time) is "x7", expected an integer'),
    "fraction in an integer field": (40, 4, "1.5", 'field 4 (run time) is "1.5", expected an integer'),
    "not a number in a float field": (40, 6, "1e3", 'field 6 (average CPU time used) is "1e3", expected a number'),
    "fewer than 18 fields": (40, 18, None,
                             "field 18 (think time from preceding job) is missing: the line has 17 fields, expected 18"),
    "negative submit": (40, 2, "-5", 'field 2 (submit time) is "-5", expected a non-negative integer'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_field_refuses_whole_file(case, kth_lines, wh, tmp_path):
    lineno, field, value, why = CASES[case]
    assert lineno in job_line_numbers("\n".join(kth_lines))
    (tmp_path / "KTH.swf").write_text("\n".join(spoil(kth_lines, lineno, field, value)))
    before = snapshot(wh)
    # the issue's own example through the real console script; the rest in-process
    runner = run_sub if case == "not a number" else run_in
    proc = runner(tmp_path, "ingest", "KTH.swf", wh=wh)
    assert_refused(proc, f"KTH.swf:{lineno}: {why}")
    assert snapshot(wh) == before


def test_duplicate_job_id(kth_lines, wh, tmp_path):
    prev = _field(kth_lines, 39, 1)
    (tmp_path / "KTH.swf").write_text("\n".join(spoil(kth_lines, 40, 1, prev)))
    before = snapshot(wh)
    proc = run_in(tmp_path, "ingest", "KTH.swf", wh=wh)
    assert_refused(proc, f'KTH.swf:40: field 1 (job number) is "{prev}", a duplicate of line 39')
    assert snapshot(wh) == before


def test_many_bad_lines_counted_in_message(kth_lines, wh, tmp_path):
    lines = spoil(spoil(kth_lines, 40, 4, "x7"), 41, 5, "y")
    (tmp_path / "KTH.swf").write_text("\n".join(lines))
    proc = run_in(tmp_path, "ingest", "KTH.swf", wh=wh)
    assert_refused(proc, 'KTH.swf:40: field 4 (run time) is "x7", expected an integer '
                         "(and 1 more bad line; --lenient loads the good ones)")


def test_truncated_gzip(kth_lines, wh, tmp_path):
    whole = gzip.compress("\n".join(kth_lines).encode())
    cut = whole[: len(whole) // 2]
    (tmp_path / "KTH.swf.gz").write_bytes(cut)
    # where the data stops, found independently of the product's reader
    got = zlib.decompressobj(wbits=47).decompress(cut)
    stop = got.count(b"\n") + 1
    before = snapshot(wh)
    proc = run_in(tmp_path, "ingest", "KTH.swf.gz", wh=wh)
    assert_refused(proc, f"KTH.swf.gz:{stop}: gzip data ends early (truncated file)")
    assert snapshot(wh) == before

    # --lenient: the complete lines load, the cut one is a reject
    proc = run_in(tmp_path, "ingest", "KTH.swf.gz", "--lenient", "--json", wh=wh)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)["traces"][0]
    assert res["jobs"] == len([n for n in job_line_numbers("\n".join(kth_lines)) if n < stop])
    assert res["rejected"] == 1
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    assert con.execute("SELECT line, reason FROM rejects WHERE trace = 'KTH'").fetchall() == [
        (stop, "gzip data ends early (truncated file)")]
    con.close()


def test_corrupt_gzip(wh, tmp_path):
    (tmp_path / "bad.swf.gz").write_bytes(b"\x1f\x8b" + b"not gzip at all" * 10)
    before = snapshot(wh)
    proc = run_in(tmp_path, "ingest", "bad.swf.gz", wh=wh)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: bad.swf.gz:1: corrupt gzip data") and proc.stderr.count("\n") == 1
    assert snapshot(wh) == before


@pytest.mark.parametrize("content,line", [("", 1), ("; Version: 2.2\n; Computer: none\n", 2), ("\n\n", 2)])
def test_empty_or_header_only_file(content, line, wh, tmp_path):
    (tmp_path / "empty.swf").write_text(content)
    before = snapshot(wh)
    proc = run_in(tmp_path, "ingest", "empty.swf", wh=wh)
    assert_refused(proc, f"empty.swf:{line}: no job lines (empty file or header only), expected SWF job lines")
    assert snapshot(wh) == before


def test_missing_file(wh, tmp_path):
    before = snapshot(wh)
    proc = run_sub(tmp_path, "ingest", "nope.swf", wh=wh)
    assert_refused(proc, "nope.swf: no such file")
    assert snapshot(wh) == before


def test_one_bad_file_refuses_all_files(kth_lines, wh, tmp_path):
    """Several files in one command: all or nothing."""
    (tmp_path / "good.swf").write_text("\n".join(kth_lines))
    (tmp_path / "KTH.swf").write_text("\n".join(spoil(kth_lines, 40, 4, "x7")))
    before = snapshot(wh)
    proc = run_in(tmp_path, "ingest", "good.swf", "KTH.swf", wh=wh)
    assert_refused(proc, 'KTH.swf:40: field 4 (run time) is "x7", expected an integer')
    assert snapshot(wh) == before


def test_bad_file_does_not_create_a_warehouse(tmp_path):
    (tmp_path / "e.swf").write_text("")
    proc = run_in(tmp_path, "ingest", "e.swf", wh=tmp_path / "fresh")
    assert proc.returncode == 1
    assert not (tmp_path / "fresh" / "walltime.duckdb").exists()


def test_lenient_loads_good_lines_and_keeps_rejects(kth_lines, wh, tmp_path):
    spoiled = {40: (4, "x7"), 50: (18, None), 60: (2, "-5"), 70: (1, _field(kth_lines, 69, 1)), 80: (11, "0.5")}
    lines = kth_lines
    for n, (f, v) in spoiled.items():
        lines = spoil(lines, n, f, v)
    (tmp_path / "KTH.swf").write_text("\n".join(lines))
    proc = run_in(tmp_path, "ingest", "KTH.swf", "--lenient", wh=wh)
    assert proc.returncode == 0, proc.stderr
    jobs = job_line_numbers("\n".join(kth_lines))
    assert proc.stdout.strip() == f"KTH.swf: loaded as trace 'KTH': {len(jobs) - 5:,} jobs, 5 bad lines kept in rejects"

    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    rejects = con.execute("SELECT trace, line, reason, raw FROM rejects ORDER BY line").fetchall()
    assert [(t, n, raw) for t, n, _, raw in rejects] == [("KTH", n, lines[n - 1]) for n in sorted(spoiled)]
    assert [r[2].split(" ")[1] for r in rejects] == ["4", "18", "2", "1", "11"]  # field named in each reason
    stored = [n for (n,) in con.execute("SELECT line FROM jobs WHERE trace = 'KTH' ORDER BY line").fetchall()]
    assert stored == [n for n in jobs if n not in spoiled]
    assert con.execute("SELECT jobs, rejected FROM traces WHERE trace = 'KTH'").fetchone() == (len(jobs) - 5, 5)
    con.close()
    listed = json.loads(run_cli("traces", "--json", warehouse=wh, check=True).stdout)
    assert [r["rejected"] for r in listed if r["trace"] == "KTH"] == [5]


def test_same_content_again_is_a_noop(kth_lines, wh, tmp_path):
    (tmp_path / "KTH.swf").write_text("\n".join(kth_lines))
    run_in(tmp_path, "ingest", "KTH.swf", wh=wh).check_returncode()
    before = snapshot(wh)
    for args in (["KTH.swf"], ["KTH.swf", "--name", "KTH"], ["KTH.swf", "--replace"]):
        proc = run_in(tmp_path, "ingest", *args, wh=wh)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == (
            "KTH.swf: unchanged: same content as trace 'KTH' already in the warehouse; nothing to do")
        assert snapshot(wh) == before
    # gzip of the same bytes is the same content
    (tmp_path / "KTH2.swf.gz").write_bytes(gzip.compress("\n".join(kth_lines).encode()))
    proc = run_in(tmp_path, "ingest", "KTH2.swf.gz", "--json", wh=wh)
    assert json.loads(proc.stdout)["traces"][0]["status"] == "unchanged"
    assert snapshot(wh) == before


def test_same_name_other_content_needs_replace(kth_lines, wh, tmp_path):
    (tmp_path / "KTH.swf").write_text("\n".join(kth_lines))
    run_in(tmp_path, "ingest", "KTH.swf", wh=wh).check_returncode()
    from pipeline.jobs_files import committed_files

    [mirror] = committed_files(wh, "KTH")  # the trace's jobs file (pipeline/jobs_files.py)
    old_mirror = mirror.read_bytes()
    header = [ln for ln in kth_lines if ln.startswith(";")]
    first100 = [kth_lines[n - 1] for n in job_line_numbers("\n".join(kth_lines))[:100]]
    (tmp_path / "KTH.swf").write_text("\n".join(header + first100) + "\n")
    before = snapshot(wh)
    nasa = before["tables"]["jobs"][0] - len(job_line_numbers("\n".join(kth_lines)))
    proc = run_in(tmp_path, "ingest", "KTH.swf", wh=wh)
    assert_refused(proc, 'KTH.swf: trace "KTH" is already in the warehouse with different content; '
                         "use --replace to overwrite it, or --name to load it under another name")
    assert snapshot(wh) == before and mirror.read_bytes() == old_mirror

    proc = run_in(tmp_path, "ingest", "KTH.swf", "--replace", wh=wh)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "KTH.swf: replaced as trace 'KTH': 100 jobs"
    assert not mirror.exists()  # the replaced token's file is gone after COMMIT
    [mirror] = committed_files(wh, "KTH")
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    assert con.execute("SELECT count(*), max(line) FROM jobs WHERE trace = 'KTH'").fetchone() == (
        100, len(header) + 100)
    assert con.execute("SELECT jobs FROM traces WHERE trace = 'KTH'").fetchone() == (100,)
    assert con.execute("SELECT count(*) FROM read_parquet(?)", [str(mirror)]).fetchone() == (100,)
    assert con.execute(
        "SELECT count(*) FROM (SELECT * FROM jobs WHERE trace = 'KTH' EXCEPT ALL SELECT * FROM read_parquet(?))",
        [str(mirror)]).fetchone() == (0,)
    # the other trace is untouched
    assert con.execute("SELECT count(*) FROM jobs WHERE trace = 'NASA-iPSC-1993-3.1-cln'").fetchone() == (nasa,)
    con.close()
    assert temporaries(wh) == []
