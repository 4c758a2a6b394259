"""Work on the input files that `walltime ingest` starts before its imports.

Why: a new process spends ~0.6 s importing Polars, pyarrow, DuckDB and Typer
on one core before a line is read. The content hash of a big file (BLAKE3:
reader.content_digest) and the compiled scan of its lines (pipeline/ingest/aot.py: only
NumPy needed) can run meanwhile on the other core; for a sacct dump the
scan goes on to split the job lines' fields (sacct_scan.split_plan) and the
hash waits until it is done (the parse needs the split at once, the hash
only when the trace is written). The CLI calls
:func:`start` first thing; the ingest then finds the mapped file
(reader.read_bytes), its hash and its scan here (:func:`result`) instead of
computing them again. Only for big plain files whose kernels are compiled
ahead of time (else the JIT's import would only slow the start down).

Nothing here decides anything: a failure in this work is dropped (the ingest
computes the same thing itself and reports its own error), and a file that
changed between start and use (another size, inode or mtime) is not taken.
"""

from __future__ import annotations

import mmap
import os
import threading
from concurrent.futures import Future
from pathlib import Path

MAP_MIN = 16 << 20  # as reader.MAP_MIN (not imported: reader is cheap, but keep this module standalone)
_started: dict[tuple, _Early] = {}


class _Early:
    def __init__(self, key: tuple, data: mmap.mmap):
        self.key = key
        self.data = data
        self.futures: dict[object, Future] = {}


_YAML_HEAD = (b"%YAML", b"---", b"meta:", b"jobs:", b"errors:")


def sniff(head: bytes) -> str | None:
    """'sacct-json' or 'sacct-yaml' when the first bytes look like sacct's
    --json / --yaml output, else None."""
    h = bytes(head[:4096]).lstrip(b"\xef\xbb\xbf \t\r\n")
    if h.startswith(b"{"):  # (a JSON object: sacct's, or refused by its reader naming why)
        return "sacct-json"
    if h.startswith(_YAML_HEAD) and (b"meta:" in h or b"jobs:" in h):
        return "sacct-yaml"
    return None


def _key(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def start(paths: list[str | os.PathLike], fmt: str) -> None:
    """Map each big plain file and start hashing and scanning it in threads."""
    if fmt not in ("swf", "sacct") or os.environ.get("WALLTIME_EARLY", "1") == "0":
        return
    todo, json_todo = [], []
    for p in paths:
        key = _key(Path(p))
        if key is None or key[2] < MAP_MIN or key in _started:
            continue
        try:
            with open(p, "rb") as fh:
                head = fh.read(4096)
                kind = None if head[:2] == b"\x1f\x8b" else sniff(head)
                if head[:2] == b"\x1f\x8b" or kind == "sacct-yaml":  # gzip; sacct --yaml (read whole)
                    continue
                # sacct --json: GBs read window by window, so not populated (bounded memory); only hashed here
                pop = 0 if kind else getattr(mmap, "MAP_POPULATE", 0)
                data = mmap.mmap(fh.fileno(), key[2], flags=mmap.MAP_SHARED | pop, prot=mmap.PROT_READ)
        except (OSError, ValueError):
            continue
        e = _Early(key, data)
        e.futures["digest"] = Future()
        e.futures["scan"] = Future()
        _started[key] = e
        if kind:
            e.futures["scan"].set_result(None)
            json_todo.append(e)
        else:
            todo.append(e)
    if json_todo:  # the hash of a JSON dump takes a core for seconds: start it before the imports
        threading.Thread(target=_json_hashes, args=(json_todo,), daemon=True, name="walltime-early-hash").start()
    if todo:  # two threads: the scan (the parse waits for it) need not wait for the hash
        if fmt == "swf":  # (sacct's smaller arrays: 0.54-0.64 sys-s with huge pages, 0.64-0.69 without)
            _small_pages()
        # sacct: the hash (needed only when the trace is written) starts once the scan and the split
        # are done, so that they have the second core while the command imports its libraries
        scanned = threading.Event()
        if fmt != "sacct":
            scanned.set()
        threading.Thread(target=_hashes, args=(todo, scanned), daemon=True, name="walltime-early-hash").start()
        threading.Thread(target=_scans, args=(todo, fmt, scanned), daemon=True, name="walltime-early").start()


def _small_pages() -> None:
    """NumPy asks Linux for transparent huge pages on large arrays (madvise);
    where the kernel then compacts memory at the first touch (THP defrag
    "madvise", as on this project's shared machine) the scan's ~1 GB of
    output arrays cost 0.8-0.96 s of system time on first touch against
    ~0.46 s in 4 KiB pages, and the whole 5 M-line SWF command 1.48-1.60
    against 1.03-1.11 sys-s, user time the same (docs/speed.md, "Ingest"). A one-shot
    process does not reuse its memory, so huge pages buy it nothing."""
    try:
        import numpy as np

        core = getattr(np, "_core", None) or np.core
        core.multiarray._set_madvise_hugepage(False)
    except Exception:  # (another NumPy: its default stays)
        pass


def _hashes(todo: list[_Early], scanned: threading.Event) -> None:
    scanned.wait()
    for e in todo:  # (populated mappings the parse reads whole: their pages are kept)
        _run(e.futures["digest"], lambda: windowed_digest(e.data, drop=False))


def _json_hashes(todo: list[_Early]) -> None:
    """The content hash of mapped JSON dumps window by window, each window's pages dropped from the process
    once hashed (as reader.content_digest: a dump of many GB is not held in memory)."""
    for e in todo:
        _run(e.futures["digest"], lambda: windowed_digest(e.data))


PREFIX = "blake3:"  # as reader.DIGEST_PREFIX (this module stays standalone)


def windowed_digest(data, h=None, drop: bool = True) -> str:
    """The trace identity of the bytes (reader.content_digest): "blake3:" and the hex BLAKE3, hashed on
    every core (``max_threads=AUTO``: 7-9 GB/s here, against 1.3-2 GB/s for SHA-256 on its one core); with
    ``h`` (``hashlib.sha256()``: an old trace's digest, reader.same_content) that hash's bare hex digest.
    A mapping is hashed in place (zero-copy through the buffer protocol: the bytes hashed are the bytes
    parsed, not the file as it may be by then, which blake3's own ``update_mmap(path)`` would map again)
    64 MiB at a time, each window's pages dropped once hashed unless not ``drop`` (they stay in the page
    cache)."""
    prefix = ""
    if h is None:
        import blake3

        h, prefix = blake3.blake3(max_threads=blake3.blake3.AUTO), PREFIX
    if not isinstance(data, mmap.mmap):
        h.update(data)
        return prefix + h.hexdigest()
    view, step = memoryview(data), 64 << 20
    try:
        for a in range(0, len(data), step):
            h.update(view[a:a + step])
            if drop:
                data.madvise(mmap.MADV_DONTNEED, a, min(step, len(data) - a))
    finally:
        view.release()
    return prefix + h.hexdigest()


def _scans(todo: list[_Early], fmt: str, scanned: threading.Event) -> None:
    try:
        for e in todo:
            _run(e.futures["scan"], lambda: _scan(e.data, fmt))
    finally:
        scanned.set()


def _run(fut: Future, fn) -> None:
    try:
        fut.set_result(fn())
    except BaseException as exc:  # dropped: the ingest computes it again and reports its own error
        fut.set_exception(exc)


def _scan(data: mmap.mmap, fmt: str):
    """The compiled scan the parser would start with (None when only the JIT is built)."""
    from . import aot

    if not aot.compiled_available():  # (the JIT would import Numba here, beside the other imports)
        return None
    import numpy as np

    buf = np.frombuffer(data, np.uint8)
    if fmt == "swf":
        from . import tokenizer

        return ("swf", tokenizer.run(buf))
    from . import sacct_scan

    cut = data.find(b"\n")
    first = data[:cut if cut >= 0 else len(data)].rstrip(b"\r").decode("utf-8", "replace").split("|")
    first[0] = first[0].removeprefix("\ufeff")  # (a byte-order mark: sacct._Lines reads past it too)
    jobid = first.index("JobID") if "JobID" in first else -1
    lines = sacct_scan.scan(buf, jobid)
    return ("sacct", jobid, lines, _split(buf, first, lines))


def _split(buf, cols: list[str], lines):
    """The split of the job lines (sacct_scan.split_plan), as sacct._Lines.table
    makes it: (plan, rows, outputs); None for a dump over 2 GiB or a header
    of one field (the parse then splits itself)."""
    import numpy as np

    from . import sacct_scan

    starts, ends, fields, step = lines
    if len(cols) < 2 or len(buf) > sacct_scan.VIEW_BUFFER:
        return None
    plan = sacct_scan.Plan(cols)
    rows = sacct_scan.job_rows(fields, step, len(cols))
    return plan, rows, sacct_scan.split_plan(buf, starts, ends, rows, plan, np.zeros(1, np.int64))


def mapped(path: Path) -> mmap.mmap | None:
    """The early mapping of ``path`` if it is still the same file."""
    e = _started.get(_key(path))
    return e.data if e is not None else None


def _future(data, what: str) -> Future | None:
    for e in _started.values():
        if e.data is data:
            return e.futures.get(what)
    return None


def result(data, what: str):
    """The early result ``what`` ('digest' or 'scan') for the mapping ``data``
    (waits for it), or None when there is none or it failed."""
    fut = _future(data, what)
    if fut is None:
        return None
    try:
        return fut.result()
    except BaseException:
        return None


class _Digest:
    """The early content hash of ``data`` (windowed_digest), computed here if the early one failed."""

    def __init__(self, fut: Future, data):
        self.fut, self.data = fut, data

    def result(self) -> str:
        try:
            return self.fut.result()
        except BaseException:
            return windowed_digest(self.data)


def pending_digest(data) -> _Digest | None:
    """A handle (``.result()``) on the early content hash of the mapping ``data``, or None."""
    fut = _future(data, "digest")
    return None if fut is None else _Digest(fut, data)


def forget() -> None:
    """Drop the mappings (after the ingest)."""
    _started.clear()
