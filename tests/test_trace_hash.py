"""The trace identity (traces.sha256) is BLAKE3 of the decompressed content, named in the value
("blake3:<hex>"); a warehouse whose traces hold the bare SHA-256 digests walltime wrote before migration 329
still recognises the same file as unchanged, and a changed file replaces the trace with a BLAKE3 digest."""

from __future__ import annotations

import gzip
import hashlib
import json
import mmap

import blake3
import duckdb
import pytest

from conftest import run_cli
from pipeline.errors import WalltimeError
from pipeline.ingest import ingest, reader
from pipeline.warehouse import Warehouse


def swf_text(jobs: int, run: int = 100) -> bytes:
    """A small SWF trace: ``jobs`` jobs of ``run`` seconds on 64 processors."""
    lines = ["; Version: 2.2", "; MaxProcs: 64", "; UnixStartTime: 1000000000", "; TimeZoneString: UTC"]
    for j in range(1, jobs + 1):
        lines.append(f"{j} {j * 60} 10 {run} 4 -1 -1 4 {run * 2} -1 1 {j % 5 + 1} 1 1 1 1 -1 -1")
    return ("\n".join(lines) + "\n").encode()


def b3(data: bytes) -> str:
    """BLAKE3 of the bytes, computed here as a reader would, one thread, no walltime code."""
    return blake3.blake3(data).hexdigest()


def stored(wh: Warehouse, trace: str) -> tuple[str, str, str]:
    """(traces.sha256, hash_alg, digest) of a trace, the last two from the view migration 329 adds."""
    con = duckdb.connect(str(wh.db_path), read_only=True)
    try:
        return con.execute("SELECT t.sha256, h.hash_alg, h.digest FROM traces t JOIN trace_content_hash h "
                           "USING (trace) WHERE trace = ?", [trace]).fetchone()
    finally:
        con.close()


def make_old(wh: Warehouse, content: dict[str, bytes]) -> None:
    """Take a warehouse back to what walltime wrote before migration 329: each trace's sha256 column the bare
    SHA-256 hex of its decompressed content, and no migration 329 (its view gone, its version unrecorded)."""
    con = duckdb.connect(str(wh.db_path))
    try:
        for trace, data in content.items():
            con.execute("UPDATE traces SET sha256 = ? WHERE trace = ?", [hashlib.sha256(data).hexdigest(), trace])
        con.execute("DROP VIEW trace_content_hash")
        con.execute("DELETE FROM schema_migrations WHERE version = 329")
    finally:
        con.close()


@pytest.fixture
def gz_trace(tmp_path):
    raw = swf_text(300)
    path = tmp_path / "small.swf.gz"
    path.write_bytes(gzip.compress(raw))
    return path, raw


def test_stored_digest_is_blake3_of_the_decompressed_content(tmp_path, gz_trace):
    path, raw = gz_trace
    wh = Warehouse(tmp_path / "wh")
    [res] = ingest([path], wh, name="small")
    want = "blake3:" + b3(raw)
    assert res.status == "loaded" and res.sha256 == want
    assert stored(wh, "small") == (want, "blake3", b3(raw))
    assert b3(raw) != b3(path.read_bytes())  # of the content, not of the gzip file
    # the same again: unchanged, nothing written
    [again] = ingest([path], wh, name="small")
    assert again.status == "unchanged" and again.sha256 == want


def test_a_big_mapped_file_is_hashed_window_by_window(tmp_path):
    """Above 64 MiB (one window) a mapped file is hashed in several updates; the digest is the whole file's."""
    path = tmp_path / "big.bin"
    block = bytes(range(256)) * 4096
    with open(path, "wb") as fh:
        for i in range(70):  # 70 MiB, each MiB a little different
            fh.write(i.to_bytes(4, "little") + block[4:])
    data = path.read_bytes()
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert reader.content_digest(m) == "blake3:" + b3(data)
        assert reader.sha256_hex(m) == hashlib.sha256(data).hexdigest()
    assert reader.content_digest(data) == "blake3:" + b3(data)


def test_the_algorithm_is_named(tmp_path, gz_trace):
    path, raw = gz_trace
    sha = hashlib.sha256(raw).hexdigest()
    assert reader.digest_algorithm("blake3:" + b3(raw)) == "blake3"
    assert reader.digest_algorithm(sha) == "sha256"
    assert reader.same_content("blake3:" + b3(raw), raw) and reader.same_content(sha, raw)
    assert not reader.same_content("blake3:" + b3(raw + b"x"), raw)
    assert not reader.same_content(b3(raw), raw)  # a bare BLAKE3 is no SHA-256: not the same
    # as the CLI shows it, in --json and in the table (first 16 characters)
    run_cli("ingest", str(path), "--name", "small", warehouse=tmp_path / "wh", check=True)
    [t] = json.loads(run_cli("traces", "--json", warehouse=tmp_path / "wh", check=True).stdout)
    assert t["sha256"] == "blake3:" + b3(raw)
    assert "blake3:" + b3(raw)[:9] in run_cli("traces", warehouse=tmp_path / "wh", check=True).stdout


def test_an_old_warehouse_recognises_the_same_file(tmp_path, gz_trace, monkeypatch):
    path, raw = gz_trace
    wh = Warehouse(tmp_path / "wh")
    ingest([path], wh, name="small")
    make_old(wh, {"small": raw})
    sha = hashlib.sha256(raw).hexdigest()
    with wh.writer():  # opening for writing applies migration 329 again
        pass
    assert stored(wh, "small") == (sha, "sha256", sha)

    calls = []
    real = reader.sha256_hex
    monkeypatch.setattr(reader, "sha256_hex", lambda data: calls.append(len(data)) or real(data))
    [res] = ingest([path], wh, name="small")
    assert res.status == "unchanged" and res.sha256 == sha  # recognised; still the old digest
    assert calls == [len(raw)]  # SHA-256 computed once, for the comparison only
    assert stored(wh, "small") == (sha, "sha256", sha)
    # under its default name too: the content is found under the old trace's name
    [other] = ingest([path], wh)
    assert other.status == "unchanged" and other.same_as == "small"
    # and by the CLI (its early hash is BLAKE3)
    p = run_cli("ingest", str(path), "--name", "small", "--json", warehouse=wh.root, check=True)
    assert [r["status"] for r in json.loads(p.stdout)["traces"]] == ["unchanged"]
    assert stored(wh, "small") == (sha, "sha256", sha)


@pytest.mark.parametrize("same_length", [False, True])
def test_a_changed_file_replaces_the_old_digest_with_blake3(tmp_path, gz_trace, monkeypatch, same_length):
    path, raw = gz_trace
    wh = Warehouse(tmp_path / "wh")
    ingest([path], wh, name="small")
    make_old(wh, {"small": raw})
    # another run time: the same length (the SHA-256 must be computed to tell), or one job more
    new = swf_text(300, run=200) if same_length else swf_text(301)
    assert (len(new) == len(raw)) == same_length
    changed = tmp_path / "changed" / "small.swf.gz"
    changed.parent.mkdir()
    changed.write_bytes(gzip.compress(new))

    calls = []
    real = reader.sha256_hex
    monkeypatch.setattr(reader, "sha256_hex", lambda data: calls.append(len(data)) or real(data))
    with pytest.raises(WalltimeError, match="different content"):
        ingest([changed], wh, name="small")
    [res] = ingest([changed], wh, name="small", replace=True)
    assert res.status == "replaced" and res.sha256 == "blake3:" + b3(new)
    assert stored(wh, "small") == ("blake3:" + b3(new), "blake3", b3(new))
    # the SHA-256 only where a stored trace of this length has one
    assert calls == ([len(new)] * 2 if same_length else [])
    # from now on, BLAKE3 alone
    calls.clear()
    [again] = ingest([changed], wh, name="small")
    assert again.status == "unchanged" and calls == []


def test_reproduce_finds_old_and_new_digests_under_another_name(tmp_path, gz_trace):
    """reproduce refuses a trace file whose content the warehouse holds under another name, by either hash."""
    from pipeline.reproduce import ensure_traces

    path, raw = gz_trace
    d = tmp_path / "traces"
    d.mkdir()
    (d / "b.swf.gz").write_bytes(path.read_bytes())
    wh = Warehouse(tmp_path / "wh")
    ingest([path], wh, name="a")
    with pytest.raises(WalltimeError, match='as trace "a"'):
        ensure_traces(wh, ["b"], d)
    make_old(wh, {"a": raw})
    with pytest.raises(WalltimeError, match='as trace "a"'):
        ensure_traces(wh, ["b"], d)
