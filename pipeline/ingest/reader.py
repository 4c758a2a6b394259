"""Read a trace file's bytes: plain or gzip, with a progress callback.

Decompression is chunked so that a truncated gzip is reported with the line
where the data stops, and so that a progress bar can follow big files.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path

from ..errors import WalltimeError

CHUNK = 1 << 22


class Truncated(Exception):
    """The gzip stream ended early; ``data`` holds what was recovered."""

    def __init__(self, data: bytes, why: str):
        super().__init__(why)
        self.data = data
        self.why = why


def read_bytes(path: Path, advance: Callable[[int], None] | None = None) -> bytes:
    """Decompressed content of ``path``. Raises WalltimeError for a missing or
    unreadable file, Truncated for a gzip stream that stops early."""
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
            data = fh.read()
            if advance:
                advance(len(data))
            return data
        return _gunzip(fh, advance)


def _gunzip(fh, advance) -> bytes:
    out = []
    d = zlib.decompressobj(wbits=47)  # gzip header, any window
    while True:
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        if advance:
            advance(len(chunk))
        try:
            out.append(d.decompress(chunk))
            # concatenated gzip members (legal, e.g. from `cat a.gz b.gz`)
            while d.eof and d.unused_data:
                rest = d.unused_data
                d = zlib.decompressobj(wbits=47)
                out.append(d.decompress(rest))
        except zlib.error as e:
            raise Truncated(b"".join(out), f"corrupt gzip data ({e})") from None
    if not d.eof:
        raise Truncated(b"".join(out), "gzip data ends early (truncated file)")
    return b"".join(out)
