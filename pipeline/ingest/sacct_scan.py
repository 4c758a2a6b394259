"""One pass over a sacct dump's bytes: where each line is, how many fields it
has, whether it is a job step; and a copy of chosen lines for Polars' CSV
reader.

Why Numba: a 2-million-line dump is ~500 MB; NumPy would need several
full-size temporaries (byte comparisons, cumulative sums) per question,
this answers all of them in one read of the bytes. Its naive twin is
tests/naive_sacct.py (the whole reader, line by line).
"""

from __future__ import annotations

import numpy as np
from numba import njit

NL, CR, BAR, DOT = 10, 13, 124, 46


@njit(cache=True)
def scan(buf, jobid_col):
    """(starts, ends, fields, step) per line: ends exclude the newline and a
    trailing CR; step: the JobID field (0-based column ``jobid_col``)
    contains a '.'."""
    n = len(buf)
    lines = 0
    for i in range(n):
        if buf[i] == NL:
            lines += 1
    if n and buf[n - 1] != NL:
        lines += 1
    starts = np.empty(lines, np.int64)
    ends = np.empty(lines, np.int64)
    fields = np.empty(lines, np.int32)
    step = np.zeros(lines, np.bool_)
    k = 0
    start = 0
    f = 1
    for i in range(n + 1):
        c = buf[i] if i < n else NL
        if c == NL:
            if i == n and start == n:
                break
            e = i - 1 if i > start and buf[i - 1] == CR else i
            starts[k] = start
            ends[k] = e
            fields[k] = f
            k += 1
            start = i + 1
            f = 1
        elif c == BAR:
            f += 1
        elif c == DOT and f == jobid_col + 1:
            step[k] = True
    return starts[:k], ends[:k], fields[:k], step[:k]


@njit(cache=True)
def gather(buf, starts, ends, rows):
    """The bytes of lines ``rows`` (each ended by a newline)."""
    total = 0
    for r in rows:
        total += ends[r] - starts[r] + 1
    out = np.empty(total, np.uint8)
    p = 0
    for r in rows:
        m = ends[r] - starts[r]
        out[p:p + m] = buf[starts[r]:ends[r]]
        out[p + m] = NL
        p += m + 1
    return out
