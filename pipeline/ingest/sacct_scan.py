"""One pass over a sacct dump's bytes: where each line is, how many fields it
has, whether it is a job step; then, for the job lines only, the chosen
fields as Arrow string buffers (offsets + bytes), so the steps (two thirds
of a typical dump) and the unused columns (WorkDir, SubmitLine, ...) are
never copied or parsed.

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
    contains a '.'. Written as three simple loops (find the newlines; count
    the bars of each line with no branch, which LLVM vectorises; look at the
    JobID field) because a per-byte branch on '|' mispredicts about once
    per field and cost twice as much."""
    n = len(buf)
    lines = 0
    for i in range(n):
        lines += buf[i] == NL
    if n and buf[n - 1] != NL:
        lines += 1
    starts = np.empty(lines, np.int64)
    ends = np.empty(lines, np.int64)
    fields = np.empty(lines, np.int32)
    step = np.zeros(lines, np.bool_)
    k = 0
    start = 0
    for i in range(n):
        if buf[i] == NL:
            starts[k] = start
            ends[k] = i
            k += 1
            start = i + 1
    if start < n:
        starts[k] = start
        ends[k] = n
        k += 1
    for k in range(lines):
        s = starts[k]
        e = ends[k]
        if e > s and buf[e - 1] == CR:
            e -= 1
            ends[k] = e
        f = 1
        for i in range(s, e):
            f += buf[i] == BAR
        fields[k] = f
        if jobid_col >= 0 and f > jobid_col:
            col = 0
            for i in range(s, e):
                c = buf[i]
                if c == BAR:
                    col += 1
                    if col > jobid_col:
                        break
                elif c == DOT and col == jobid_col:
                    step[k] = True
                    break
    return starts, ends, fields, step


@njit(cache=True)
def split(buf, starts, ends, rows, slot, bases):
    """Arrow string views of the wanted fields of lines ``rows`` (ascending):
    uint8 [number wanted, len(rows) * 16], one 16-byte view per field
    (length; then the bytes themselves when at most 12, else a 4-byte prefix,
    the buffer index b and the offset from ``bases[b]``: a view's offset is
    32 bits, so a big dump is cut, at line starts ``bases``, into buffers
    under 2 GiB), and valid bool [number wanted, len(rows)]
    (an empty field is NULL, as Polars' CSV reader reads it). ``slot[c]`` is
    the output column of field c (0-based) or -1. The lines have the
    header's number of fields (checked by the caller). Also returns the OR
    of every byte (>= 128: not ASCII, to be checked as UTF-8)."""
    m = 0
    for c in slot:
        if c >= 0:
            m += 1
    n = len(rows)
    views = np.zeros((m, n * 16), np.uint8)
    valid = np.zeros((m, n), np.bool_)
    high = 0
    b = 0
    for k in range(n):
        r = rows[k]
        while b + 1 < len(bases) and bases[b + 1] <= starts[r]:
            b += 1
        base = bases[b]
        col = 0
        s = starts[r]
        e = ends[r]
        for i in range(s, e + 1):
            if i == e or buf[i] == BAR:
                j = slot[col] if col < len(slot) else -1
                if j >= 0:
                    length = i - s
                    v = k * 16
                    valid[j, k] = length > 0
                    views[j, v] = length & 255
                    views[j, v + 1] = (length >> 8) & 255
                    views[j, v + 2] = (length >> 16) & 255
                    views[j, v + 3] = (length >> 24) & 255
                    if length <= 12:
                        for q in range(length):
                            views[j, v + 4 + q] = buf[s + q]
                    else:
                        for q in range(4):
                            views[j, v + 4 + q] = buf[s + q]
                        o = s - base
                        views[j, v + 8] = b & 255
                        views[j, v + 9] = (b >> 8) & 255
                        views[j, v + 10] = (b >> 16) & 255
                        views[j, v + 11] = (b >> 24) & 255
                        views[j, v + 12] = o & 255
                        views[j, v + 13] = (o >> 8) & 255
                        views[j, v + 14] = (o >> 16) & 255
                        views[j, v + 15] = (o >> 24) & 255
                col += 1
                s = i + 1
            else:
                high |= buf[i]
    return views, valid, high
