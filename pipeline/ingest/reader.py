"""Read a trace file's bytes: plain or gzip, with a progress callback.

Decompression is chunked so that a truncated gzip is reported with the line
where the data stops, and so that a progress bar can follow big files.

A big plain file is mapped (mmap) rather than read: copying 500 MB out of the
page cache cost 0.3-0.6 s of the 2 s a 2-million-line sacct dump may take;
the parsers and the content hash read the mapped pages in place. The one cost: a file
cut short (truncated) by another process while it is being ingested ends the
process with SIGBUS (the warehouse is untouched, as after kill -9).
"""

from __future__ import annotations

import mmap
import os
import zlib
from collections.abc import Callable
from pathlib import Path

from ..errors import WalltimeError
from .early import sniff  # noqa: F401  (sacct --json / --yaml told by the first bytes; early.py needs it too)

CHUNK = 1 << 22
MAP_MIN = 16 << 20  # plain files from this size (bytes) are mapped, not read
# a gzip file may decompress to at most INFLATE_RATIO times its size (at least INFLATE_FLOOR bytes), or to
# $WALLTIME_INFLATE_MAX bytes when set: a 10 MB bomb cannot fill the memory or $TMPDIR (docs/ingest.md)
INFLATE_RATIO = 200
INFLATE_FLOOR = 1 << 30
TMP_RESERVE = 1 << 30  # a decompressed dump written to $TMPDIR leaves this much (or 5%) of it free


class Truncated(Exception):
    """The gzip stream ended early; ``data`` holds what was recovered."""

    def __init__(self, data: bytes, why: str):
        super().__init__(why)
        self.data = data
        self.why = why


def head(path: Path, n: int = 4096) -> bytes:
    """The first bytes of a file, decompressed for a gzip (b"" for an unreadable or missing one, or a gzip
    whose start does not decompress: read_bytes says why)."""
    try:
        with open(path, "rb") as fh:
            got = fh.read(n)
            if got[:2] != b"\x1f\x8b":
                return got
            fh.seek(0)
            d, out = zlib.decompressobj(wbits=47), b""
            while len(out) < n:
                chunk = fh.read(1 << 16)
                if not chunk:
                    break
                out += d.decompress(chunk, n - len(out))
                if d.eof:
                    break
            return out[:n]
    except (OSError, zlib.error):
        return b""


def read_bytes(path: Path, advance: Callable[[int], None] | None = None, allow_map: bool = False,
               populate: bool = True) -> bytes | mmap.mmap:
    """Decompressed content of ``path``. Raises WalltimeError for a missing or
    unreadable file, Truncated for a gzip stream that stops early. With
    ``allow_map``, a plain file of MAP_MIN bytes or more comes back as a
    read-only ``mmap`` (a buffer with find/slicing, not every bytes method),
    its pages read in at once unless not ``populate`` (a reader that goes
    window by window and drops what it has read: sacct --json)."""
    if allow_map:
        from . import early

        data = early.mapped(path)  # mapped (and being hashed) since the command started
        if data is not None:
            if advance:
                advance(len(data))
            return data
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise WalltimeError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise WalltimeError(f"{path}: is a directory, expected a trace file") from None
    except OSError as e:
        raise WalltimeError(f"{path}: cannot read: {e.strerror}") from None
    with fh:
        head = fh.read(2)
        fh.seek(0)
        if head != b"\x1f\x8b":
            size = os.fstat(fh.fileno()).st_size
            if allow_map and size >= MAP_MIN:
                pop = getattr(mmap, "MAP_POPULATE", 0) if populate else 0
                data = mmap.mmap(fh.fileno(), size, flags=mmap.MAP_SHARED | pop,
                                 prot=mmap.PROT_READ)
            else:
                data = fh.read()
            if advance:
                advance(len(data))
            return data
        return _gunzip(fh, advance, to_file=allow_map and not populate, label=str(path),
                       limit=inflate_limit(os.fstat(fh.fileno()).st_size))


def inflate_limit(compressed: int) -> int:
    """The most bytes a gzip file of ``compressed`` bytes may decompress to ($WALLTIME_INFLATE_MAX, else
    INFLATE_RATIO times its size, at least INFLATE_FLOOR)."""
    given = os.environ.get("WALLTIME_INFLATE_MAX", "").strip()
    if given:
        try:
            value = int(given)
        except ValueError:
            value = -1
        if value <= 0:
            raise WalltimeError(f"WALLTIME_INFLATE_MAX={given}: expected a whole number of bytes above 0")
        return value
    return max(INFLATE_FLOOR, INFLATE_RATIO * compressed)


TRACE_HASH = "blake3"
DIGEST_PREFIX = TRACE_HASH + ":"


def content_digest(data) -> str:
    """The trace's identity (``traces.sha256``): ``"blake3:"`` and the 64 hex digits of the BLAKE3 of the
    bytes, hashed on every core (blake3's ``max_threads=AUTO``); of a mapped file window by window, each
    window's pages dropped from the process once hashed (they stay in the page cache), so that hashing a
    file of many GB does not hold it all in memory (sacct --json dumps).

    Why the algorithm is written into the value, and the column keeps its name ``sha256``: SHA-256 on one
    core (1.3-2 GB/s) had become the floor of a 14 GB sacct --json ingest. Every place that
    copies or compares the identity (the estimates' and grids' ``trace_sha256``, learned models and their
    exported spec.json, study, simulate, reproduce, the ``traces`` listing) reads it under that name and
    only asks whether two values are equal; a prefix keeps all of them right and makes each copy say which
    hash it is, where a renamed column or a separate ``hash_alg`` column would not travel with the copies.
    A value without the prefix (64 hex digits) is the SHA-256 of a trace ingested before migration 329,
    kept as it is (its results and models name it): :func:`same_content` still recognises it, and the
    next ingest that writes the trace stores a BLAKE3 digest. The view ``trace_content_hash`` (migration
    329) names the algorithm of every stored digest."""
    from .early import windowed_digest

    return windowed_digest(data)


def digest_algorithm(stored: str) -> str:
    """'blake3' or 'sha256': the hash a ``traces.sha256`` value was made with (a bare digest: sha256)."""
    return TRACE_HASH if stored.startswith(DIGEST_PREFIX) else "sha256"


def same_content(stored: str, data, digest: str | None = None, memo: dict | None = None) -> bool:
    """Whether ``data`` is the content whose ``traces.sha256`` value is ``stored``: a BLAKE3 value against
    ``digest`` (the bytes' :func:`content_digest`, computed here when None); a SHA-256 one (a trace
    ingested before migration 329) against the sha256 of the bytes, computed only for such a value, once
    per ``memo`` (a dict the caller keeps for one content)."""
    if stored.startswith(DIGEST_PREFIX):
        return stored == (digest if digest is not None else content_digest(data))
    memo = {} if memo is None else memo
    if "sha256" not in memo:
        memo["sha256"] = sha256_hex(data)
    return stored == memo["sha256"]


def sha256_hex(data) -> str:
    """sha256 of the bytes (only to recognise a trace stored with a SHA-256 digest: :func:`same_content`);
    of a mapped file window by window, its pages dropped once hashed (as :func:`content_digest`)."""
    import hashlib

    if not isinstance(data, mmap.mmap):
        return hashlib.sha256(data).hexdigest()
    from .early import windowed_digest

    return windowed_digest(data, hashlib.sha256())


def _gunzip(fh, advance, to_file: bool = False, label: str = "", limit: int | None = None) -> bytes | mmap.mmap:
    """The decompressed bytes; with ``to_file`` (a reader that goes window by window: sacct --json),
    written to an unnamed temporary file and mapped, so that a dump of many GB is not held in memory
    (the file lives as long as the mapping: it is unlinked at once, in $TMPDIR).

    Streamed: at most CHUNK bytes of input are inflated at a time, and never more than ``limit``
    bytes in all (:func:`inflate_limit`), nor, for a temporary file, more than $TMPDIR's file system
    can take while keeping TMP_RESERVE (or 5%) of it free: past either, a WalltimeError naming the file."""
    import tempfile

    out, size = [], 0
    tmp = tempfile.TemporaryFile() if to_file else None
    limit = limit if limit is not None else inflate_limit(os.fstat(fh.fileno()).st_size)
    room = [None]  # bytes the temporary file may still take, checked again every CHUNK x 16 bytes

    def tmp_room() -> int:
        st = os.fstatvfs(tmp.fileno())
        return st.f_bavail * st.f_frsize - max(TMP_RESERVE, st.f_blocks * st.f_frsize // 20)

    def keep(piece: bytes) -> None:
        nonlocal size
        size += len(piece)
        if size > limit:
            raise WalltimeError(f"{label}: decompresses to more than {limit:,} bytes, the bound for a gzip file "
                                f"of {os.fstat(fh.fileno()).st_size:,} bytes (a gzip bomb?); set "
                                "WALLTIME_INFLATE_MAX=BYTES to read it")
        if tmp is None:
            out.append(piece)
        elif piece:
            if room[0] is None or room[0] < len(piece):
                room[0] = tmp_room()
                if room[0] < len(piece):
                    raise WalltimeError(f"{label}: decompressing it needs more temporary space than "
                                        f"{tempfile.gettempdir()} has free ({size:,} bytes so far); set TMPDIR to "
                                        "a larger file system or decompress it there yourself")
                room[0] = min(room[0], CHUNK * 16)
            room[0] -= len(piece)
            tmp.write(piece)

    def recovered() -> bytes:
        if tmp is None:
            return b"".join(out)
        tmp.flush()
        tmp.seek(0)
        return tmp.read()  # (an error path: the reader names where the data stops)

    d = zlib.decompressobj(wbits=47)  # gzip header, any window
    try:
        while True:
            chunk = fh.read(CHUNK)
            if not chunk:
                break
            if advance:
                advance(len(chunk))
            try:
                # at most CHUNK bytes out per call: a bomb's 4 MB of input is never inflated at once
                keep(d.decompress(chunk, CHUNK))
                while d.unconsumed_tail:
                    keep(d.decompress(d.unconsumed_tail, CHUNK))
                # concatenated gzip members (legal, e.g. from `cat a.gz b.gz`)
                while d.eof and d.unused_data:
                    rest = d.unused_data
                    d = zlib.decompressobj(wbits=47)
                    keep(d.decompress(rest, CHUNK))
                    while d.unconsumed_tail:
                        keep(d.decompress(d.unconsumed_tail, CHUNK))
            except zlib.error as e:
                raise Truncated(recovered(), f"corrupt gzip data ({e})") from None
        if not d.eof:
            raise Truncated(recovered(), "gzip data ends early (truncated file)")
        if tmp is None:
            return b"".join(out)
        tmp.flush()
        if size == 0:
            return b""
        return mmap.mmap(tmp.fileno(), size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
    finally:
        if tmp is not None:
            tmp.close()  # (the mapping keeps the unlinked file's pages)
