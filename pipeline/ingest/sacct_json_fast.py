"""The fast path of the `sacct --json` reader: its scanner's rows
(_sacct_json_jit.scan) as the reference path's columns, in two threads.

The dump's jobs array is cut in two at a record's opening line (a line of
exactly the records' indentation and ``{``: a raw newline cannot be inside a
JSON string) and each half is scanned in windows of ``WINDOW`` bytes, whose
pages are dropped from the process after (bounded memory, as the reference
path). Rows the scanner flags SLOW are parsed by the reference path
(orjson + ``_Columns.add``); a layout it does not know returns None and the
caller reads the whole dump the reference way.
"""

from __future__ import annotations

import dataclasses
import mmap
import threading

import numpy as np
import polars as pl
import pyarrow as pa

from .sacct_json_codes import NO_VAL

WINDOW = 64 << 20  # bytes scanned between page releases
ROWS = 1 << 16  # rows per scanner call
SPLIT_MIN = 64 << 20  # below this, one thread


class _Half:
    """One thread's share: [lo, hi) of record openings; its frames, the reference path's sink for its SLOW
    records (their bad records and broken JSON), lines and status. Record numbers are the half's own."""

    def __init__(self, lo: int, hi: int, sink):
        self.lo, self.hi, self.sink = lo, hi, sink
        self.frames, self.bad, self.broken = [], [], []
        self.lines, self.rows, self.status, self.end, self.error = 0, 0, None, lo, None


def scan(data, first_line: int, rind: int, new_sink, read_slow) -> tuple[list, list, list, int, int] | None:
    """(frames, bad records, broken records, newlines from ``first_line`` to the jobs array's ``]``, the
    offset of that ``]``) for a dump whose first record opens on the line at ``first_line``; None where the
    scanner does not know the layout (the caller then reads the dump the reference way).

    SLOW records are handed, as they are met (their pages are still in), to ``read_slow(sink, raw bytes,
    record number, offset, bad, broken)`` with a sink from ``new_sink()`` per thread (the reference path:
    sacct_json); each sink's ``frame()`` joins the frames. Bad and broken records are the caller's
    (record number first)."""
    from . import sacct_json_codes as k
    from .aot import kernels

    jit = kernels("sacct_json")

    buf = np.frombuffer(data, np.uint8)
    n = len(buf)
    halves = [_Half(first_line, n, new_sink())]
    if n - first_line >= SPLIT_MIN:
        opener = b"\n" + b" " * rind + b"{\n"
        mid = data.find(opener, first_line + (n - first_line) // 2)
        if mid > 0:
            halves = [_Half(first_line, mid + 1, halves[0].sink), _Half(mid + 1, n, new_sink())]

    def work(h: _Half):
        try:
            _run(k, jit, buf, data, n, rind, h, read_slow)
        except BaseException as e:  # (re-raised in the caller's thread)
            h.error = e

    threads = [threading.Thread(target=work, args=(h,)) for h in halves[1:]]
    for t in threads:
        t.start()
    work(halves[0])
    for t in threads:
        t.join()
    for h in halves:
        if h.error is not None:
            raise h.error
    a = halves[0]
    if a.status == k.DONE or len(halves) == 1:
        if a.status != k.DONE:
            return None
        return [*a.frames, a.sink.frame()], a.bad, a.broken, a.lines, a.end
    b = halves[1]
    if a.status != k.CHUNK or a.end != b.lo or b.status != k.DONE:
        return None
    shift = pl.col("line") + a.rows
    frames = [*a.frames, a.sink.frame(), *(f.with_columns(shift) for f in [*b.frames, b.sink.frame()])]
    bad = a.bad + [dataclasses.replace(bl, line=bl.line + a.rows) for bl in b.bad]
    broken = a.broken + [(r + a.rows, *rest) for r, *rest in b.broken]
    return frames, bad, broken, a.lines + b.lines, b.end


def _run(k, jit, buf, data, n: int, rind: int, h: _Half, read_slow) -> None:
    pos = h.lo
    while True:
        win_end = min(pos + WINDOW, h.hi)
        ints = np.empty((ROWS, k.NI), np.int64)
        strs = np.empty((ROWS, k.NS, 2), np.int64)
        flags = np.empty(ROWS, np.uint8)
        status, nxt, rows, lines = jit.scan(buf, pos, n, win_end, rind, k.KEY_TABLE, k.KEY_FROM, k.KEY_TEXT, ints,
                                                 strs, flags, 0)
        h.lines += lines
        if rows:
            h.frames.append(_frame(k, jit, buf, ints[:rows], strs[:rows], flags[:rows], h.rows))
            for i in np.flatnonzero(flags[:rows] & k.F_SLOW):  # the reference path, while the pages are in
                s, e = int(ints[i, k.I_RSTART]), int(ints[i, k.I_REND])
                read_slow(h.sink, bytes(data[s:e]), h.rows + int(i) + 1, s, h.bad, h.broken)
            h.rows += rows
        h.status, h.end = status, nxt
        if status in (k.DONE, k.LAYOUT, k.EOF) or (status == k.CHUNK and nxt >= h.hi):
            return
        _release(data, nxt)
        pos = nxt


def _release(data, upto: int) -> None:
    if isinstance(data, mmap.mmap):
        n = upto - upto % mmap.PAGESIZE
        if n > 0:
            data.madvise(mmap.MADV_DONTNEED, 0, n)


def _text(k, jit, buf, span: np.ndarray) -> pa.Array:
    """The strings at byte offsets span[:, 0:2] (start -1: null) as an Arrow large_string array."""
    starts, ends = np.ascontiguousarray(span[:, 0]), np.ascontiguousarray(span[:, 1])
    valid = starts >= 0
    size = int((ends - starts)[valid].sum())
    out = np.empty(size, np.uint8)
    offsets = np.zeros(len(starts) + 1, np.int64)
    jit.gather(buf, starts, ends, out, offsets)
    mask = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.large_string(), len(starts), [mask, pa.py_buffer(offsets), pa.py_buffer(out)])


def _frame(k, jit, buf, ints: np.ndarray, strs: np.ndarray, flags: np.ndarray, first: int) -> pl.DataFrame:
    """The rows not flagged SLOW as the reference path's columns (sacct_json._Columns.frame), each value by
    the same rule as _Columns.add (its comments say why)."""
    keep = (flags & k.F_SLOW) == 0
    ints, strs, flags = ints[keep], strs[keep], flags[keep]
    line = np.flatnonzero(keep) + first + 1
    cols = {name: pl.Series(name, ints[:, i]) for name, i in (
        ("job_id", k.I_JOB), ("submit", k.I_SUBMIT), ("elig", k.I_ELIG), ("start", k.I_START), ("end", k.I_END),
        ("elapsed", k.I_ELAPSED), ("limit", k.I_LIMIT), ("anodes", k.I_ANODES), ("reqcpus", k.I_REQCPUS),
        ("acpu", k.I_ACPU), ("anode", k.I_ANODE), ("agpu", k.I_AGPU), ("rcpu", k.I_RCPU), ("rnode", k.I_RNODE),
        ("rmem", k.I_RMEM), ("rgpu", k.I_RGPU), ("ajob", k.I_AJOB), ("atask", k.I_ATASK), ("hjob", k.I_HJOB),
        ("hoff", k.I_HOFF), ("steps", k.I_STEPS), ("excode", k.I_EXCODE), ("sigid", k.I_SIGID),
        ("sigid2", k.I_SIGID2))}
    df = pl.DataFrame(cols).with_columns(pl.all().replace(k.MISSING, None))  # (absent or null)
    text = {name: pl.from_arrow(_text(k, jit, buf, strs[:, i])) for name, i in (
        ("User", k.S_USER), ("Group", k.S_GROUP), ("Account", k.S_ACCOUNT), ("Partition", k.S_PART),
        ("QOS", k.S_QOS), ("JobName", k.S_NAME), ("State", k.S_STATE), ("Cluster", k.S_CLUSTER))}
    df = df.with_columns(exit=pl.Series((flags & k.F_EXIT) > 0), has_sigid=pl.Series((flags & k.F_HAS_SIGID) > 0),
                         line=pl.Series(line, dtype=pl.Int64)).hstack([s.alias(c) for c, s in text.items()])

    def nz(c):  # Python's `or`: 0 and None fall through
        return pl.when(pl.col(c) != 0).then(pl.col(c))

    a_id, h_id = pl.col("ajob").fill_null(0), pl.col("hjob").fill_null(0)
    task = pl.col("atask")
    in_array = (a_id != 0) & task.is_not_null() & (task != NO_VAL)  # (a remainder is SLOW: not here)
    het = (h_id != 0) & pl.col("hoff").is_not_null() & (pl.col("hoff") != NO_VAL)
    job_text = (pl.when(het).then(h_id.cast(pl.String) + "+" + pl.col("hoff").cast(pl.String))
                .when(in_array).then(a_id.cast(pl.String) + "_" + task.cast(pl.String))
                .otherwise(pl.col("job_id").cast(pl.String)))
    base = pl.when(het).then(h_id).when(in_array).then(a_id).otherwise(pl.col("job_id"))
    limit = pl.col("limit")
    unlimited = limit.is_null() | (limit >= NO_VAL)
    sig = pl.when(pl.col("has_sigid")).then(pl.col("sigid")).otherwise(pl.col("sigid2")).fill_null(0)
    exit_text = pl.when(pl.col("exit")).then(pl.col("excode").fill_null(0).cast(pl.String) + ":" + sig.cast(pl.String))
    out = df.select(
        job_text.alias("JobID"), "User", "Group", "Account", "Partition", "QOS", "JobName", "State",
        exit_text.alias("ExitCode"), "Cluster",
        pl.col("submit").alias("_submit"), nz("elig").alias("_eligible"), nz("start").alias("_start"),
        nz("end").alias("_end"), pl.col("elapsed").alias("_elapsed"),
        pl.when(unlimited).then(None).otherwise(limit).alias("_limit"),
        pl.coalesce([nz("acpu"), nz("reqcpus"), pl.col("rcpu")]).alias("_procs_c"),
        pl.coalesce([nz("anode"), nz("anodes"), pl.col("rnode")]).alias("_procs_n"),
        pl.coalesce([nz("reqcpus"), pl.col("rcpu")]).alias("_req_c"),
        pl.col("rnode").alias("_req_n"), pl.col("rmem").alias("_mem_mb"),
        pl.coalesce([pl.col("agpu"), pl.col("rgpu")]).alias("_gpus"),
        pl.coalesce([pl.col("rgpu"), pl.when(pl.any_horizontal(pl.col("rcpu", "rnode", "rmem").is_not_null()))
                     .then(pl.lit(0, pl.Int64))]).alias("_req_gpus"),
        base.alias("_base"), pl.when(in_array).then(task).alias("_task_id"),
        pl.when(het).then(pl.col("hoff")).alias("_het"), pl.col("steps").alias("_steps"), pl.col("line"),
        in_array.alias("_has_task"), unlimited.alias("_no_limit"))
    return out
