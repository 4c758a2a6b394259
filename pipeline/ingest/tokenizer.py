"""A compiled tokenizer for SWF job lines: bytes in, one typed column per field out.

Why compiled: SWF separates fields by runs of blanks, which the CSV readers of
Polars/DuckDB/pyarrow cannot split; a compiled single pass over the
decompressed bytes parses millions of lines per second and records, per line,
the first problem found so the caller can name file, line and field.

The kernels are Numba functions (_swf_jit.py), run compiled ahead of time
when that module is built (pipeline/ingest/aot.py: no Numba import), else by
Numba's JIT; this module holds their codes and the drivers.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .aot import kernels

NFIELDS = 18
# Fields (0-based) that may hold a fraction (average CPU time, used memory,
# requested memory). Every other field must be an integer.
FLOAT_FIELDS = (5, 6, 9)

# Per-line status codes.
OK = 0
TOO_FEW = 1        # fewer than 18 tokens
NOT_NUMBER = 2     # token is not a number
NOT_INTEGER = 3    # a fraction in an integer field
NEGATIVE_SUBMIT = 4
TOO_BIG = 5        # status (stored as a 32-bit INTEGER) out of range
STATUS_FIELD = 10

# Exact powers of ten (all representable in a double up to 1e22).
_POW10 = np.array([10.0**k for k in range(23)])


def range_flags(ints, status, time_fields, size_fields, max_span, max_size, max_area):
    """(beyond, area) per good line: see _swf_jit.range_flags."""
    return kernels("swf").range_flags(ints, status, time_fields, size_fields, max_span, max_size, max_area)


def float_mask() -> np.ndarray:
    mask = np.zeros(NFIELDS, np.bool_)
    mask[list(FLOAT_FIELDS)] = True
    return mask


CHUNK_MIN = 8 << 20  # bytes: below this one thread does it all


def run(buf: np.ndarray, threads: int | None = None, chunk_min: int = CHUNK_MIN):
    """Tokenize every line of ``buf``: ``((ints, floats, line_no, status,
    err_field, err_start, err_end, line_start, line_end, inexact,
    extra_lines, hdr_line, hdr_start, hdr_end), number of newlines)``, one
    row per job line.

    Why chunks: the file is cut at line starts into one slice per core; each
    slice is counted, then tokenized straight into its rows of the shared
    arrays, in threads (the kernels release the GIL), so a 5-million-line
    file parses on both cores and nothing is copied to join the parts."""
    kern = kernels("swf")
    n = len(buf)
    k = max(1, min(threads or os.cpu_count() or 1, n // chunk_min))
    cuts = [0] + [kern.next_line(buf, n * i // k) for i in range(1, k)] + [n]
    parts = [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a] or [(0, n)]
    pool = ThreadPoolExecutor(len(parts)) if len(parts) > 1 else None
    mapper = pool.map if pool else map
    try:
        counts = list(mapper(lambda p: kern.count_rows(buf, p[0], p[1]), parts))
        rows = sum(j for _, j in counts)
        ints = np.empty((NFIELDS, rows), np.int64)
        floats = np.zeros((NFIELDS, rows), np.float64)
        line_no = np.empty(rows, np.int64)
        status = np.zeros(rows, np.int8)
        err_field = np.full(rows, -1, np.int8)
        err_start = np.zeros(rows, np.int64)
        err_end = np.zeros(rows, np.int64)
        line_start = np.zeros(rows, np.int64)
        line_end = np.zeros(rows, np.int64)
        inexact = np.zeros(rows, np.uint8)
        mask = float_mask()
        line0 = np.cumsum([0] + [c for c, _ in counts])
        row0 = np.cumsum([0] + [j for _, j in counts])
        out = list(mapper(lambda i: kern.tokenize_into(
            buf, parts[i][0], parts[i][1], int(line0[i]), int(row0[i]), mask, _POW10, ints, floats, line_no,
            status, err_field, err_start, err_end, line_start, line_end, inexact, counts[i][0] + 1),
            range(len(parts))))
    finally:
        if pool:
            pool.shutdown()
    assert [o[0] for o in out] == [j for _, j in counts]
    extra = sum(o[1] for o in out)
    hdr = [np.concatenate([o[q] for o in out]) for q in (2, 3, 4)]
    return (ints, floats, line_no, status, err_field, err_start, err_end, line_start, line_end, inexact,
            extra, *hdr), int(line0[-1])
