"""The ingest kernels compiled ahead of time (pipeline/ingest/aot.py) give the
JIT's columns on the real traces, in one thread and in several; `walltime
ingest` then runs without importing Numba; the early work of the CLI
(pipeline/ingest/early.py: mapping, hashing and scanning big files during the
imports) stores what the library stores, and a big file is mapped (mmap)
rather than read."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import blake3
import numpy as np
import pytest

from conftest import REPO, run_cli, trace_path
from ingest_support import read_swf
from test_ingest_chunks import _same as same_tokens
from pipeline.ingest import aot, early, reader, sacct, sacct_scan, swf, tokenizer

sys.path.insert(0, str(REPO / "bench"))
import synth_sacct  # noqa: E402
import synth_swf  # noqa: E402

SWF = ["KTH-SP2-1996-2.1-cln.swf.gz", "wagap-2013.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz",
       "UniLu-Gaia-2014-2.swf.gz"]
SACCT = ["slurm-lab-sacct.txt", "slurm-lab-sacct-X.txt", "slurm-lab-sacct-default.txt"]


@pytest.fixture(scope="module")
def compiled():
    mod = aot.target().ensure()  # builds once per source version (about 20 s of CPU), then loads
    if mod is None:
        pytest.skip("no C compiler: the ingest kernels cannot be compiled ahead of time here")
    return mod


def _kernels(monkeypatch, on: bool):
    monkeypatch.setenv("WALLTIME_AOT", "1" if on else "0")
    assert aot.compiled_in_use("swf") is on and aot.compiled_in_use("sacct") is on


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    else:
        assert a == b


@pytest.mark.parametrize("name", SWF)
def test_swf_tokenizer_compiled_equals_jit(compiled, monkeypatch, name):
    buf = np.frombuffer(read_swf(name), np.uint8)
    _kernels(monkeypatch, True)
    one, many = tokenizer.run(buf, threads=1), tokenizer.run(buf, threads=3, chunk_min=1)
    _kernels(monkeypatch, False)
    jit = tokenizer.run(buf, threads=1)
    same_tokens(one, jit)  # (good lines: a bad line's later fields are never read)
    same_tokens(many, jit)
    ints, status = jit[0][0], jit[0][3]
    for on in (True, False):
        _kernels(monkeypatch, on)
        flags = tokenizer.range_flags(ints, status, np.array(swf.TIME_FIELDS, np.int64),
                                      np.array(swf.SIZE_FIELDS, np.int64), swf.MAX_SPAN, swf.INT32, float(swf.MAX_AREA))
        if on:
            first = flags
        else:
            _same(first, flags)


@pytest.mark.parametrize("name", SACCT)
def test_sacct_parse_compiled_equals_jit(compiled, monkeypatch, name):
    data = trace_path(name).read_bytes() * 40  # repeated: several chunks for the threads (ids repeat: bad lines)
    _kernels(monkeypatch, True)
    a = sacct.parse(data, name, "Europe/Berlin")
    buf = np.frombuffer(data, np.uint8)
    scan_a = sacct_scan.scan(buf, 0, threads=3, chunk_min=1)
    _kernels(monkeypatch, False)
    b = sacct.parse(data, name, "Europe/Berlin")
    scan_b = sacct_scan.scan(buf, 0, threads=1)
    _same(scan_a, scan_b)
    assert a.jobs.equals(b.jobs) and a.counts == b.counts and a.bad == b.bad
    assert a.jobs.height > 0


def test_sacct_split_compiled_equals_jit_in_threads(compiled, monkeypatch):
    """The string views and values of every job line, cut among 3 threads."""
    data = trace_path("slurm-lab-sacct.txt").read_bytes()
    buf = np.frombuffer(data, np.uint8)
    starts, ends, fields, step = sacct_scan.scan(buf, 0)
    cols = data[:data.index(b"\n")].decode().split("|")
    rows = np.flatnonzero(~step[1:] & (fields[1:] == len(cols))).astype(np.int64) + 1
    slot = np.arange(len(cols), dtype=np.int64)
    kind = np.array([10 + sacct.TIMES.index(c) if c in sacct.TIMES else sacct_scan.JOBID if c == "JobID"
                     else sacct_scan.MEM if c == "ReqMem" else sacct_scan.GPUS + sacct.TRES.index(c)
                     if c in sacct.TRES else sacct_scan.PLAIN for c in cols], np.int64)
    bases = np.zeros(1, np.int64)
    _kernels(monkeypatch, True)
    a = sacct_scan.split(buf, starts, ends, rows, slot, bases, kind, threads=3, rows_min=1)
    _kernels(monkeypatch, False)
    b = sacct_scan.split(buf, starts, ends, rows, slot, bases, kind, threads=1)
    _same(a, b)
    assert len(rows) == 96 and a[1].any()


def test_ingest_runs_without_numba(compiled, tmp_path):
    """With the module built, `walltime ingest` (SWF and sacct) never imports Numba."""
    code = ("import json, sys\nfrom pipeline.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite'))),"
            " file=sys.stderr)")
    env = {**os.environ, "WALLTIME_PROGRESS": "0"}
    for args in (["ingest", str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"))],
                 ["ingest", str(trace_path("slurm-lab-sacct.txt")), "--format", "sacct", "--tz", "Europe/Berlin"]):
        out = subprocess.run([sys.executable, "-c", code, *args, "--warehouse", str(tmp_path / "wh")],
                             capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stderr.strip().splitlines()[-1]) == [], args


@pytest.fixture(scope="module")
def big_swf(tmp_path_factory):
    """A plain SWF above reader.MAP_MIN (so it is mapped and worked on early)."""
    path = tmp_path_factory.mktemp("big") / "big.swf"
    synth_swf.build(trace_path("SDSC-BLUE-2000-4.2-cln.swf.gz"), 220_000, path)
    assert path.stat().st_size >= reader.MAP_MIN == early.MAP_MIN
    return path


def test_big_plain_file_is_mapped_and_parses_the_same(big_swf):
    data = reader.read_bytes(big_swf, allow_map=True)
    assert not isinstance(data, bytes)  # an mmap
    plain = reader.read_bytes(big_swf)
    assert isinstance(plain, bytes) and hashlib.sha256(data).hexdigest() == hashlib.sha256(plain).hexdigest()
    assert swf.parse(data).jobs.equals(swf.parse(plain).jobs)


def test_early_work_stores_what_the_library_stores(big_swf, tmp_path):
    """The CLI (early hash and scan) and the library call store the same jobs and hash."""
    from pipeline.ingest import ingest
    from pipeline.warehouse import Warehouse

    run_cli("ingest", str(big_swf), warehouse=tmp_path / "cli", check=True)
    ingest([big_swf], Warehouse(tmp_path / "lib"), name="big")
    q = "select count(*), sum(hash(job_id, submit, wait, run, procs, req, user_id)) from jobs"
    got = [json.loads(run_cli("sql", q, "--json", warehouse=tmp_path / w, check=True).stdout) for w in ("cli", "lib")]
    assert got[0] == got[1] and got[0][0]["count_star()"] == 220_000
    sha = [json.loads(run_cli("traces", "--json", warehouse=tmp_path / w, check=True).stdout) for w in ("cli", "lib")]
    want = "blake3:" + blake3.blake3(big_swf.read_bytes()).hexdigest()
    assert sha[0][0]["sha256"] == sha[1][0]["sha256"] == want


@pytest.fixture(scope="module")
def big_sacct(tmp_path_factory):
    """A sacct dump above reader.MAP_MIN, steps included (mapped, scanned and split early)."""
    path = tmp_path_factory.mktemp("big") / "big.txt"
    synth_sacct.build(trace_path("slurm-lab-sacct.txt"), 80_000, path)
    assert path.stat().st_size >= early.MAP_MIN
    return path


def test_sacct_early_split_is_used_and_parses_the_same(compiled, big_sacct, monkeypatch):
    """The job lines split by the early thread (while the CLI imports) give the jobs the parse's own split gives."""
    own = sacct.parse(big_sacct.read_bytes(), "big.txt", "Europe/Berlin")
    calls = []
    real = sacct.split
    monkeypatch.setattr(sacct, "split", lambda *a, **k: calls.append(a) or real(*a, **k))
    early.start([big_sacct], "sacct")
    try:
        data = early.mapped(big_sacct)
        got = early.result(data, "scan")
        assert got is not None and got[0] == "sacct" and got[3] is not None  # split early
        parsed = sacct.parse(data, "big.txt", "Europe/Berlin")
    finally:
        early.forget()
    assert not calls  # the parse took the early split (and needed no text split out again)
    assert parsed.jobs.equals(own.jobs) and parsed.counts == own.counts and parsed.bad == own.bad
    assert own.jobs.height > 20_000


def test_early_mapping_is_not_taken_for_a_changed_file(big_swf, tmp_path):
    copy = tmp_path / "copy.swf"
    copy.write_bytes(big_swf.read_bytes())
    early.start([copy], "swf")
    try:
        data = early.mapped(copy)
        want = "blake3:" + blake3.blake3(copy.read_bytes()).hexdigest()
        assert data is not None and early.result(data, "digest") == want
        with open(copy, "ab") as fh:
            fh.write(b"; appended after the start\n")
        assert early.mapped(copy) is None  # another size and mtime: read again by the ingest
    finally:
        early.forget()


def test_module_name_follows_the_ingest_sources(tmp_path, monkeypatch):
    name = aot.target().module_name()
    assert name.startswith("_walltime_ingest_") and name == aot.target().module_name()
    fake = tmp_path / "ingest"
    fake.mkdir()
    for m in aot.SOURCES:
        (fake / f"{m}.py").write_bytes((aot.HERE / f"{m}.py").read_bytes())
    monkeypatch.setattr(aot, "HERE", fake)
    assert aot.target().module_name() == name
    (fake / "_sacct_jit.py").write_text((fake / "_sacct_jit.py").read_text() + "\n# edited\n")
    assert aot.target().module_name() != name


def test_sacct_json_scan_compiled_equals_jit(compiled, monkeypatch):
    """The `sacct --json` scanner (pipeline/ingest/_sacct_json_jit.py) compiled and JIT: the same jobs."""
    from pipeline.ingest import sacct_json

    data = (REPO / "tests" / "data" / "slurm" / "json-lab-sacct.json").read_bytes()
    got = []
    for on in (True, False):
        monkeypatch.setenv("WALLTIME_AOT", "1" if on else "0")
        assert aot.compiled_in_use("sacct_json") is on
        got.append(sacct_json.parse(data, "lab.json", "UTC"))
    assert got[0].jobs.equals(got[1].jobs) and got[0].counts == got[1].counts and got[0].jobs.height == 41
