"""One pass over a sacct dump's bytes: where each line is, how many fields it
has, whether it is a job step; then, for the job lines only, the chosen
fields as Arrow string buffers (offsets + bytes), so the steps (two thirds
of a typical dump) and the unused columns (WorkDir, NodeList, ...) are
never copied or parsed. The same pass over a job line also reads its JobID
(base, array task, het offset) and its ISO time stamps (Submit, Start, End:
``2026-11-22T13:54:43``) into integers, which a regex and a strptime per
column cost several times more; anything else (other time formats, odd ids)
is left to the Polars readers in sacct.py, so those rules stay in one place.

Why compiled: a 2-million-line dump is ~500 MB; NumPy would need several
full-size temporaries (byte comparisons, cumulative sums) per question,
this answers all of them in one read of the bytes. Both passes cut the work
into one slice per core, run in threads (the kernels release the GIL) and
write straight into shared arrays. Its naive twin is tests/naive_sacct.py
(the whole reader, line by line).

The kernels are Numba functions (_sacct_jit.py), run compiled ahead of time
when that module is built (pipeline/ingest/aot.py: no Numba import), else by
Numba's JIT; this module holds the drivers (the codes: sacct_codes.py).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .aot import kernels
# the codes of the kernels' outputs (sacct.py reads them here, as sc.<CODE>)
from .sacct_codes import (NL, CR, BAR, DOT, PLAIN, JOBID, TIME, INT, T_READ, T_MISSING, T_OTHER, ID_OK, ID_TASK,
                          ID_TASK_NUM, ID_HET, MAX_DIGITS, MEM, GPUS, STATE, STATUS, STATES, STATE_BYTES, STATE_ENDS,
                          M_READ, M_PER_CPU, M_EMPTY, M_OTHER, N_READ, N_EMPTY, N_OTHER, N_NO_LIMIT, NO_LIMIT_WORDS)

CHUNK_MIN = 8 << 20  # bytes (scan) below which one thread does it all
ROWS_MIN = 50_000  # job lines (split) below which one thread does it all
_POW10 = np.array([10.0**k for k in range(23)])
VIEW_BUFFER = (1 << 31) - 1  # bytes per Arrow buffer behind the string views (32-bit offsets)

# the columns kept as text (string views into the dump: no copy) ...
TEXT = ("JobID", "JobName", "User", "Group", "Account", "Partition", "QOS", "Timelimit", "State", "ExitCode",
        "SubmitLine")  # (SubmitLine: the partition list, jobs.req_partitions)
# ... and those whose values the split reads: counts, ISO times, gres/gpu counts (and JobID, ReqMem);
# their text is split out only where a value is left to Polars (sacct._Lines.with_text)
COUNTS = ("ElapsedRaw", "TimelimitRaw", "NNodes", "NCPUS", "AllocCPUS", "ReqCPUS", "ReqNodes")
TIMES = ("Submit", "Start", "End", "Eligible")  # (Eligible: when holds, dependencies, --begin let it go)
TRES = ("AllocTRES", "ReqTRES")


class Plan:
    """What :func:`split` reads of a dump with header ``cols``: ``fields``
    (0-based, ascending), each one's ``slot`` and ``kind``, which are
    ``viewed`` (text), and the names of the time, TRES and count columns
    in the order of their rows in the split's outputs."""

    def __init__(self, cols: list[str]):
        self.cols = list(cols)
        have = set(cols)
        self.text = [c for c in TEXT if c in have] + (["Elapsed"] if "Elapsed" in have and "ElapsedRaw" not in have
                                                      else [])
        if "ReqTRES" in have:  # viewed too (no copy): an empty request is NULL req_gpus, one without a GPU 0
            self.text.append("ReqTRES")
        self.times = [c for c in TIMES if c in have]
        self.tres = [c for c in TRES if c in have]
        self.counts = [c for c in COUNTS if c in have]
        special = {"JobID": JOBID, "ReqMem": MEM, "State": STATE, **{c: TIME + t for t, c in enumerate(self.times)},
                   **{c: GPUS + g for g, c in enumerate(self.tres)}, **{c: INT + i for i, c in enumerate(self.counts)}}
        self.fields = sorted(cols.index(c) for c in {*self.text, *special} if c in have) or [0]
        self.slot = np.full(len(cols), -1, np.int64)
        self.slot[self.fields] = np.arange(len(self.fields))
        self.kind = np.array([special.get(cols[i], PLAIN) for i in self.fields], np.int64)
        self.viewed = np.array([cols[i] in self.text for i in self.fields], np.bool_)


def job_rows(fields: np.ndarray, step: np.ndarray, n: int) -> np.ndarray:
    """Lines (0-based, after the header) with the header's ``n`` >= 2 fields
    that are not job steps (a blank line has one field)."""
    return (np.flatnonzero((fields[1:] == n) & ~step[1:]) + 1).astype(np.int64)


def buffer_bases(starts: np.ndarray, size: int) -> np.ndarray | None:
    """Line starts that cut ``size`` bytes into buffers of at most
    VIEW_BUFFER bytes (a string view's offset is 32 bits); [0] for dumps
    under 2 GiB; None when a line is longer than that."""
    bases = [0]
    while size - bases[-1] > VIEW_BUFFER:
        k = int(np.searchsorted(starts, bases[-1] + VIEW_BUFFER, side="right")) - 1
        if starts[k] <= bases[-1]:
            return None
        bases.append(int(starts[k]))
    return np.array(bases, np.int64)


def split_plan(buf, starts, ends, rows, plan: Plan, bases):
    """:func:`split` of ``rows`` as ``plan`` says."""
    return split(buf, starts, ends, rows, plan.slot, bases, plan.kind, plan.viewed)


def _pool_map(fn, items, threads):
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(min(threads, len(items))) as pool:
        return list(pool.map(fn, items))


def _threads(threads: int | None) -> int:
    return threads or os.cpu_count() or 1


def scan(buf: np.ndarray, jobid_col: int, threads: int | None = None, chunk_min: int = CHUNK_MIN):
    """(starts, ends, fields, step) per line: ends exclude the newline and a
    trailing CR; step: the JobID field (0-based column ``jobid_col``)
    contains a '.'."""
    kern = kernels("sacct")
    n = len(buf)
    k = max(1, min(_threads(threads), n // max(chunk_min, 1)))
    cuts = [0] + [kern.next_line(buf, n * i // k) for i in range(1, k)] + [n]
    parts = [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    newlines = _pool_map(lambda p: kern.count_newlines(buf, p[0], p[1]), parts, k)
    lines = sum(newlines) + (1 if n and buf[n - 1] != NL else 0)
    starts = np.empty(lines, np.int64)
    ends = np.empty(lines, np.int64)
    fields = np.empty(lines, np.int32)
    step = np.zeros(lines, np.bool_)
    k0 = np.cumsum([0] + newlines)
    _pool_map(lambda i: kern.scan_into(buf, parts[i][0], parts[i][1], int(k0[i]), jobid_col, starts, ends, fields,
                                        step), list(range(len(parts))), k)
    return starts, ends, fields, step



def split(buf, starts, ends, rows, slot, bases, kind=None, view=None, threads: int | None = None,
          rows_min: int = ROWS_MIN):
    """The wanted fields of lines ``rows`` (ascending): Arrow string views of
    those with ``view[j]`` (default all), and the values of those whose
    ``kind`` reads them. ``slot[c]`` is the output column j of field c
    (0-based) or -1. The lines have the header's number of fields (checked
    by the caller).

    Views: uint8 [number viewed, len(rows) * 16], one 16-byte view per field
    (length; then the bytes themselves when at most 12, else a 4-byte prefix,
    the buffer index b and the offset from ``bases[b]``: a view's offset is
    32 bits, so a big dump is cut, at line starts ``bases``, into buffers
    under 2 GiB), and valid bool [number viewed, len(rows)] (an empty field
    is NULL, as Polars' CSV reader reads it), in the order of j.

    ``kind[j]``: TIME + t for the t-th time column, read into ``times[t]``
    (int64 microseconds of the naive time) and ``tstat[t]`` (T_READ,
    T_MISSING, T_OTHER); INT + i for the i-th count, into ``nums[i]`` and
    ``nstat[i]`` (N_*); JOBID for the JobID, into ``ids`` (base, task, het)
    and ``idflags``; MEM for ReqMem, into ``mem`` (KB as written) and
    ``mstat`` (M_*); GPUS + g for the g-th TRES column (AllocTRES,
    ReqTRES), its gres/gpu count into ``gpus[g]`` and ``gfound[g]``; PLAIN
    otherwise. A field whose value is read needs no view unless its text is
    wanted too (a value the kernel leaves to Polars: the caller splits that
    column again, viewed).

    STATE for State: the index in STATES of its first word (its leading
    run of A-Z and _) into ``scode``, -1 when that is not a known state.

    Returns (views, valid, high, times, tstat, ids, idflags, mem, mstat,
    gpus, gfound, nums, nstat, scode); high is the OR of every byte of the viewed
    fields (>= 128: not ASCII, to be checked as UTF-8)."""
    m = int((slot >= 0).sum())
    n = len(rows)
    kind = np.zeros(m, np.int64) if kind is None else kind
    view = np.ones(m, np.bool_) if view is None else np.asarray(view, np.bool_)
    vrow = np.where(view, np.cumsum(view) - 1, -1).astype(np.int64)
    nv = int(view.sum())
    nt = int(((kind >= TIME) & (kind < INT)).sum())
    ni = int((kind >= INT).sum())
    views = np.zeros((nv, n * 16), np.uint8)
    valid = np.zeros((nv, n), np.bool_)
    times = np.zeros((nt, n), np.int64)
    tstat = np.zeros((nt, n), np.uint8)
    nums = np.zeros((ni, n), np.int64)
    nstat = np.zeros((ni, n), np.uint8)
    ids = np.zeros((3, n), np.int64)
    idflags = np.zeros(n, np.uint8)
    mem = np.zeros(n, np.float64)
    mstat = np.full(n, M_EMPTY, np.uint8)
    scode = np.full(n, -1, np.int8)
    ng = int(((kind >= GPUS) & (kind < TIME)).sum())
    gpus = np.zeros((ng, n), np.int64)
    gfound = np.zeros((ng, n), np.bool_)
    k = max(1, min(_threads(threads), n // max(rows_min, 1)))
    cuts = [n * i // k for i in range(k + 1)]
    split_into = kernels("sacct").split_into
    words = views.view(np.uint32)  # (the views are little-endian, as this machine: Arrow's native order)
    highs = _pool_map(lambda i: split_into(buf, starts, ends, rows, slot, kind, vrow, bases, cuts[i], cuts[i + 1],
                                            views, words, valid, times, tstat, ids, idflags, mem, mstat, gpus, gfound,
                                            nums, nstat, scode, _POW10),
                      list(range(k)), k)
    high = int(np.bitwise_or.reduce(np.array(highs + [0], np.int64)))
    return views, valid, high, times, tstat, ids, idflags, mem, mstat, gpus, gfound, nums, nstat, scode


def __getattr__(name: str):
    """The kernels' helpers (_read_time, _read_jobid, ...) for the tests that
    call them one by one: from the JIT module (imports Numba)."""
    if name.startswith("_read_") or name in ("_digits", "_num", "_days_from_civil"):
        from . import _sacct_jit

        return getattr(_sacct_jit, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
