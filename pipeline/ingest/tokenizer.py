"""A Numba tokenizer for SWF job lines: bytes in, one typed column per field out.

Why Numba: SWF separates fields by runs of blanks, which the CSV readers of
Polars/DuckDB/pyarrow cannot split; a compiled scan over the decompressed bytes
parses millions of lines per second and records, per line, the first problem
found so the caller can name file, line and field.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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


@njit(cache=True)
def _is_blank(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True)
def tokenize(buf, float_mask):
    """Scan ``buf`` (uint8) line by line.

    Returns ``(ints, floats, line_no, status, err_field, err_start, err_end,
    extra_lines, hdr_line, hdr_start, hdr_end)`` trimmed to the job lines found:
    ``ints[f, i]`` holds integer fields, ``floats[f, i]`` the float fields
    (others are 0); for a bad line, ``status`` says why and ``err_*`` locate the
    offending field (0-based) and its bytes. Header (';') lines are returned as
    byte ranges. ``extra_lines`` counts lines with more than 18 tokens.
    """
    n = len(buf)
    nlines = 1
    for k in range(n):
        if buf[k] == 10:
            nlines += 1
    ints = np.empty((NFIELDS, nlines), np.int64)
    floats = np.zeros((NFIELDS, nlines), np.float64)
    line_no = np.empty(nlines, np.int64)
    status = np.zeros(nlines, np.int8)
    err_field = np.full(nlines, -1, np.int8)
    err_start = np.zeros(nlines, np.int64)
    err_end = np.zeros(nlines, np.int64)
    line_start = np.zeros(nlines, np.int64)
    line_end = np.zeros(nlines, np.int64)
    hdr_line = np.empty(nlines, np.int64)
    hdr_start = np.empty(nlines, np.int64)
    hdr_end = np.empty(nlines, np.int64)
    rows = 0
    nhdr = 0
    extra_lines = 0
    pos = 0
    line = 0
    while pos < n:
        line += 1
        eol = pos
        while eol < n and buf[eol] != 10:
            eol += 1
        p = pos
        while p < eol and _is_blank(buf[p]):
            p += 1
        if p == eol:  # blank line
            pos = eol + 1
            continue
        if buf[p] == 59:  # ';' header / comment line
            hdr_line[nhdr] = line
            hdr_start[nhdr] = pos
            hdr_end[nhdr] = eol
            nhdr += 1
            pos = eol + 1
            continue
        r = rows
        rows += 1
        line_no[r] = line
        line_start[r] = pos
        line_end[r] = eol
        f = 0
        bad = OK
        while p < eol and f < NFIELDS:
            t0 = p
            neg = False
            if buf[p] == 45 or buf[p] == 43:  # '-' or '+'
                neg = buf[p] == 45
                p += 1
            val = 0
            ndig = 0
            while p < eol and buf[p] >= 48 and buf[p] <= 57:
                val = val * 10 + (buf[p] - 48)
                ndig += 1
                p += 1
            frac = 0.0
            scale = 1.0
            nonzero_frac = False
            nfrac = 0
            if p < eol and buf[p] == 46:  # '.'
                p += 1
                while p < eol and buf[p] >= 48 and buf[p] <= 57:
                    d = buf[p] - 48
                    scale /= 10.0
                    frac += d * scale
                    if d != 0:
                        nonzero_frac = True
                    nfrac += 1
                    p += 1
            t1 = p
            while t1 < eol and not _is_blank(buf[t1]):
                t1 += 1
            if bad == OK:
                if t1 != p or (ndig + nfrac) == 0:
                    bad = NOT_NUMBER
                elif nonzero_frac and not float_mask[f]:
                    bad = NOT_INTEGER
                if bad != OK:
                    err_field[r] = f
                    err_start[r] = t0
                    err_end[r] = t1
            v = -val if neg else val
            ints[f, r] = v
            if float_mask[f]:
                fv = val + frac
                floats[f, r] = -fv if neg else fv
            f += 1
            p = t1
            while p < eol and _is_blank(buf[p]):
                p += 1
        if bad == OK and f < NFIELDS:
            bad = TOO_FEW
            err_field[r] = f
            err_start[r] = eol
            err_end[r] = eol
        if bad == OK and ints[1, r] < 0:
            bad = NEGATIVE_SUBMIT
            err_field[r] = 1
            # locate the second token for the message
            q = pos
            while _is_blank(buf[q]):
                q += 1
            while not _is_blank(buf[q]):
                q += 1
            while _is_blank(buf[q]):
                q += 1
            e = q
            while e < eol and not _is_blank(buf[e]):
                e += 1
            err_start[r] = q
            err_end[r] = e
        if f == NFIELDS and p < eol:
            extra_lines += 1
        status[r] = bad
        pos = eol + 1
    return (
        ints[:, :rows],
        floats[:, :rows],
        line_no[:rows],
        status[:rows],
        err_field[:rows],
        err_start[:rows],
        err_end[:rows],
        line_start[:rows],
        line_end[:rows],
        extra_lines,
        hdr_line[:nhdr],
        hdr_start[:nhdr],
        hdr_end[:nhdr],
    )


def float_mask() -> np.ndarray:
    mask = np.zeros(NFIELDS, np.bool_)
    mask[list(FLOAT_FIELDS)] = True
    return mask
