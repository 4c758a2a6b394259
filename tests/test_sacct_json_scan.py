"""The `sacct --json` scanner (pipeline/ingest/_sacct_json_jit.py, driven by
sacct_json_fast.py) against the reference path (orjson + _Columns.add, which
tests/test_ingest_sacct_json.py holds to the naive twin): the same jobs,
attempts, counts, bad records and line count, on the real dumps of a Slurm
22.05 lab, on hypothesis records printed as sacct prints (one value a line,
two spaces a level), cut among threads and windows, and where it must hand
over (another layout, a cut file)."""

from __future__ import annotations

import json
from pathlib import Path

import blake3
import duckdb

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.errors import WalltimeError
from conftest import run_cli
from pipeline.ingest import early, sacct_json, sacct_json_codes, sacct_json_fast

DATA = Path(__file__).parent / "data" / "slurm"
DUMPS = ["json-lab-sacct.json", "sacct-lab.json", "json-live-sacct.json"]


def both(data: bytes, monkeypatch, **kw):
    """(reference, fast) parses of the same bytes; a WalltimeError is returned as its message."""
    out = []
    for fast in (False, True):
        monkeypatch.setattr(sacct_json, "FAST", fast)
        try:
            out.append(sacct_json.parse(data, "dump.json", "UTC", **kw))
        except WalltimeError as e:
            out.append(str(e))
    return out


def same(a, b) -> None:
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert a.jobs.equals(b.jobs)
    assert (a.attempts is None) == (b.attempts is None)
    if a.attempts is not None:
        assert a.attempts.equals(b.attempts)
    assert a.lines == b.lines and a.counts == b.counts and a.bad == b.bad and a.notes == b.notes


def first_record_line(data: bytes) -> int:
    at = data.index(b'"jobs": [')
    return data.index(b"\n", at) + 1


@pytest.mark.parametrize("name", DUMPS)
def test_fast_path_equals_the_reference_on_real_dumps(name, monkeypatch):
    data = (DATA / name).read_bytes()
    ref, fast = both(data, monkeypatch)
    same(ref, fast)
    seen = []

    def read_slow(sink, raw, record, offset, bad, broken):
        seen.append(record - 1)
        sink.add(json.loads(raw), record)

    got = sacct_json_fast.scan(data, first_record_line(data), 4, sacct_json._Columns, read_slow)
    assert got is not None  # the lab's layout is read by the scanner, not handed over
    frames, bad, broken, _lines, _end = got
    assert bad == [] and broken == []
    # only the unexpanded array remainders (task bitmaps) go the reference way on these dumps
    doc = json.loads(data)
    remainders = {i for i, j in enumerate(doc["jobs"]) if j["array"]["job_id"] and j["array"]["task_id"] is None}
    assert set(seen) == remainders
    assert sum(f.height for f in frames) == len(doc["jobs"])


def repeated(copies: int) -> bytes:
    """The lab dump's records ``copies`` times, ids shifted by 1000 a copy, printed as sacct does (indent 2)."""
    base = json.loads((DATA / "json-lab-sacct.json").read_bytes())
    recs = []
    for k in range(copies):
        for j in base["jobs"]:
            j = json.loads(json.dumps(j))
            j["job_id"] += 1000 * k
            for key in ("array", "het"):
                if j[key]["job_id"]:
                    j[key]["job_id"] += 1000 * k
            recs.append(j)
    return json.dumps({**base, "jobs": recs}, indent=2).encode()


@pytest.mark.parametrize("size", ["cpus", "nodes"])
def test_threads_windows_and_full_blocks_give_the_same_jobs(size, monkeypatch):
    """A dump repeated with its ids shifted, scanned in two threads, tiny windows and blocks of 7 rows."""
    data = repeated(6)
    ref, _ = both(data, monkeypatch, size=size)
    monkeypatch.setattr(sacct_json_fast, "SPLIT_MIN", 0)
    monkeypatch.setattr(sacct_json_fast, "WINDOW", 5000)
    monkeypatch.setattr(sacct_json_fast, "ROWS", 7)
    _, fast = both(data, monkeypatch, size=size)
    same(ref, fast)
    assert ref.jobs.height == 6 * 41  # (the reference once lost records after an inline "steps": [])


def test_a_big_dump_is_hashed_early_and_stored_whole(tmp_path):
    """Above 16 MB the CLI maps the dump and hashes it before its imports (pipeline/ingest/early.py, window by
    window): traces.sha256 is still the file's content hash, and every record is a job."""
    path = tmp_path / "big.json"
    path.write_bytes(repeated(30))
    assert path.stat().st_size > early.MAP_MIN
    p = run_cli("ingest", str(path), "--tz", "UTC", warehouse=tmp_path / "wh")
    assert p.returncode == 0, p.stderr
    with duckdb.connect(str(tmp_path / "wh" / "walltime.duckdb"), read_only=True) as con:
        sha, jobs = con.execute("SELECT sha256, jobs FROM traces").fetchone()
    assert sha == "blake3:" + blake3.blake3(path.read_bytes()).hexdigest()
    assert jobs == 30 * 41


def test_another_layout_is_read_the_reference_way(monkeypatch):
    doc = json.loads((DATA / "json-lab-sacct.json").read_bytes())
    for data in (json.dumps(doc, indent=3).encode(), json.dumps(doc, indent="\t").encode(),
                 json.dumps(doc, separators=(",", ":")).encode()):
        ref, fast = both(data, monkeypatch)
        same(ref, fast)
    data = json.dumps(doc, indent=3).encode()
    # the scanner refuses 3-space levels
    assert sacct_json_fast.scan(data, first_record_line(data), 6, sacct_json._Columns, None) is None


def test_a_cut_dump_gets_the_reference_message(monkeypatch):
    data = (DATA / "json-lab-sacct.json").read_bytes()
    for cut in (len(data) // 3, len(data) // 2 + 7, len(data) - 40):
        ref, fast = both(data[:cut], monkeypatch)
        assert isinstance(ref, str) and "truncated" in ref
        same(ref, fast)


# --- hypothesis: records with every value the scanner must read, or hand over ------------------------

NUM = st.one_of(st.none(), st.integers(-5, 2 ** 33), st.sampled_from([0, 0xFFFFFFFE, 0xFFFFFFFF]))
TEXT = st.one_of(st.none(), st.sampled_from(["u1", "proj_a", "", "a/b", 'q"t', "é", "normal", "COMPLETED",
                                             "RUNNING", "PREEMPTED", "CANCELLED", "TIMEOUT"]))
# values sacct's 22.05 never prints where the scanner reads: the record goes the reference way
ODD_NUM = st.one_of(st.floats(0, 10, allow_nan=False), st.booleans(), st.text(max_size=2),
                    st.fixed_dictionaries({"set": st.booleans(), "infinite": st.booleans(),
                                           "number": st.integers(0, 99)}))
ODD_TEXT = st.lists(st.sampled_from(["COMPLETED", "FAILED"]), min_size=1, max_size=2)


def tres_item(draw):
    return {"type": draw(st.sampled_from(["cpu", "node", "mem", "gres", "energy", "cpu"])),
            "name": draw(st.sampled_from([None, None, "gpu", "gpu:a100", ""])),
            "id": 1, "count": draw(st.one_of(st.none(), st.integers(0, 64)))}


@st.composite
def record(draw, job_id: int):
    submit = 1_700_000_000 + draw(st.integers(0, 10_000))
    eligible = submit + draw(st.integers(0, 60))
    start, run = eligible + draw(st.integers(0, 300)), draw(st.integers(0, 500))
    t = {"elapsed": run, "eligible": eligible, "end": start + run, "start": start, "submission": submit,
         "system": {"seconds": 0, "microseconds": 0}, "limit": run // 60 + draw(st.integers(1, 60))}
    for key in ("elapsed", "eligible", "end", "start", "limit"):
        if draw(st.integers(0, 20)) == 0:
            t[key] = draw(NUM)
        if draw(st.integers(0, 30)) == 0:
            del t[key]
    a_id = draw(st.sampled_from([0, 0, 0, job_id]))
    rec = {"account": "proj_a", "comment": {"administrator": None, "job": None},
           "allocation_nodes": draw(st.one_of(st.integers(0, 4), st.none())),
           "array": {"job_id": a_id, "limits": {"max": {"running": {"tasks": 0}}},
                     "task": draw(st.sampled_from([None, "0x3F", "0-3"])),
                     "task_id": draw(st.sampled_from([None, 0, 3, 0xFFFFFFFE])) if a_id else None},
           "association": {"account": "other", "user": "other", "partition": "other"},
           "time": t, "exit_code": {"status": "SUCCESS", "return_code": 0},
           "flags": ["CLEAR_SCHEDULING"], "group": "g", "het": {"job_id": 0, "job_offset": None},
           "job_id": job_id, "name": "job", "partition": "debug", "qos": "normal",
           "required": {"CPUs": draw(st.one_of(st.integers(0, 8), st.none())), "memory": 100},
           "state": {"current": draw(st.sampled_from(["COMPLETED", "FAILED", "RUNNING", "PENDING", "REQUEUED"])),
                     "reason": "None"},
           "steps": [{"step": {"id": f"{job_id}.{k}"}, "tres": {"requested": {"max": []}}}
                     for k in range(draw(st.integers(0, 3)))],
           "tres": {"allocated": [tres_item(draw) for _ in range(draw(st.integers(0, 4)))],
                    "requested": [{"type": "cpu", "name": None, "id": 1, "count": draw(st.integers(1, 8))},
                                  *[tres_item(draw) for _ in range(draw(st.integers(0, 3)))]]},
           "user": "u1", "wckey": {"wckey": "", "flags": []}}
    for key in ("user", "group", "account", "partition", "qos", "name"):
        if draw(st.integers(0, 8)) == 0:
            rec[key] = draw(TEXT)
        if draw(st.integers(0, 20)) == 0:
            del rec[key]
    if draw(st.integers(0, 4)) == 0:
        rec["het"] = {"job_id": job_id, "job_offset": draw(st.sampled_from([None, 0, 1, 0xFFFFFFFE]))}
    if draw(st.integers(0, 4)) == 0:
        rec["exit_code"] = draw(st.one_of(st.none(), st.just({}), st.fixed_dictionaries(
            {"status": st.sampled_from(["SIGNALED", "FAILED", ["SIGNALED"]]), "return_code": NUM,
             "signal": st.one_of(st.just({}), st.fixed_dictionaries({"signal_id": NUM}),
                                 st.fixed_dictionaries({"id": NUM}), st.just({"signal_id": None, "id": 4}))})))
    if draw(st.integers(0, 10)) == 0:
        rec[draw(st.sampled_from(["steps", "tres", "required", "array", "state", "exit_code"]))] = None
    odd = draw(st.integers(0, 12))  # one value sacct would not print, now and then
    if odd == 0:
        t[draw(st.sampled_from(["elapsed", "eligible", "end", "start", "limit", "submission"]))] = draw(ODD_NUM)
    elif odd == 1:
        rec["state"] = {"current": draw(ODD_TEXT)}
    elif odd == 2:
        rec[draw(st.sampled_from(["job_id", "allocation_nodes"]))] = draw(ODD_NUM)
    elif odd == 3:
        del t["submission"]
    elif odd == 4 and rec["tres"] is not None:
        rec["tres"]["requested"].append({"name": None, "count": 3})  # no type
    return rec


@st.composite
def dumps(draw):
    n = draw(st.integers(1, 12))
    recs = [draw(record(100 + k)) for k in range(n)]
    for _ in range(draw(st.integers(0, 2))):  # an earlier attempt of a job: the same ids, an earlier submission
        j = json.loads(json.dumps(draw(st.sampled_from(recs))))
        if isinstance(j.get("time"), dict) and isinstance(j["time"].get("submission"), int):
            j["time"]["submission"] -= 50
        recs.insert(0, j)
    head = {"meta": {"plugin": {"type": "openapi/dbv0.0.38"}}, "errors": []}
    return json.dumps({**head, "jobs": recs}, indent=2, ensure_ascii=draw(st.booleans())).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=dumps())
def test_fast_path_equals_the_reference_on_hypothesis_dumps(data, monkeypatch):
    try:
        ref, fast = both(data, monkeypatch)
    except Exception as e:  # the reference itself may fail on a nonsense record: then both must, alike
        monkeypatch.setattr(sacct_json, "FAST", True)
        with pytest.raises(type(e)):
            sacct_json.parse(data, "dump.json", "UTC")
        return
    same(ref, fast)


def test_the_key_table_is_sorted_by_container_as_its_index_assumes():
    t, lo = sacct_json_codes.KEY_TABLE, sacct_json_codes.KEY_FROM
    assert np.all(np.diff(t[:, 0]) >= 0)
    for c in range(1, len(lo) - 1):
        assert set(t[lo[c]:lo[c + 1], 0]) <= {c}


def test_a_gzip_dump_is_decompressed_to_a_mapped_file_and_stores_the_same_jobs(tmp_path):
    import gzip

    from pipeline.ingest import reader

    raw = (DATA / "json-lab-sacct.json").read_bytes()
    gz = tmp_path / "lab.json.gz"
    gz.write_bytes(gzip.compress(raw))
    assert reader.sniff(reader.head(gz)) == "sacct-json"  # known before decompressing: streamed
    data = reader.read_bytes(gz, allow_map=True, populate=False)
    assert isinstance(data, __import__("mmap").mmap) and bytes(data[:]) == raw  # not held in memory
    for name, path in (("plain", DATA / "json-lab-sacct.json"), ("gz", gz)):
        p = run_cli("ingest", str(path), "--tz", "UTC", "--name", name, warehouse=tmp_path / "wh")
        assert p.returncode == 0, p.stderr
    with duckdb.connect(str(tmp_path / "wh" / "walltime.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT trace, sha256, jobs FROM traces ORDER BY trace").fetchall()
    assert rows[0][1:] == rows[1][1:] and rows[0][2] == 41
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(gzip.compress(raw)[:-3000])
    p = run_cli("ingest", str(cut), "--tz", "UTC", warehouse=tmp_path / "wh")
    assert p.returncode == 1 and "cut.json.gz" in p.stderr and len(p.stderr.strip().splitlines()) == 1
