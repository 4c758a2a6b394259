"""A Numba tokenizer for SWF job lines: bytes in, one typed column per field out.

Why Numba: SWF separates fields by runs of blanks, which the CSV readers of
Polars/DuckDB/pyarrow cannot split; a compiled single pass over the
decompressed bytes parses millions of lines per second and records, per line,
the first problem found so the caller can name file, line and field.
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
TOO_BIG = 5        # status (stored as a 32-bit INTEGER) out of range
STATUS_FIELD = 10

# Exact powers of ten (all representable in a double up to 1e22).
_POW10 = np.array([10.0**k for k in range(23)])


@njit(cache=True, inline="always")
def _is_blank(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True)
def count_lines(buf):
    """Upper bound on the number of lines (newlines + 1)."""
    n = 1
    for k in range(len(buf)):
        if buf[k] == 10:
            n += 1
    return n


@njit(cache=True)
def tokenize(buf, float_mask, pow10, capacity):
    """Scan ``buf`` (uint8) line by line, once.

    Returns ``(ints, floats, line_no, status, err_field, err_start, err_end,
    line_start, line_end, inexact, extra_lines, hdr_line, hdr_start, hdr_end)`` trimmed
    to the job lines found: ``ints[f, i]`` holds the value of integer field f
    (rows of float fields are garbage), ``floats[f, i]`` the exact value of
    float fields (decimal text to the nearest double, like ``float(text)``,
    except where ``inexact`` flags a field with more than 15-16 significant
    digits: the caller re-reads those few with ``float``);
    for a bad line, ``status`` says why and ``err_*`` locate the offending field
    (0-based) and its bytes. Header (';') lines are returned as byte ranges.
    ``extra_lines`` counts lines with more than 18 tokens. ``capacity`` must be
    at least the number of lines.
    """
    n = len(buf)
    ints = np.empty((NFIELDS, capacity), np.int64)
    floats = np.zeros((NFIELDS, capacity), np.float64)
    line_no = np.empty(capacity, np.int64)
    status = np.zeros(capacity, np.int8)
    err_field = np.full(capacity, -1, np.int8)
    err_start = np.zeros(capacity, np.int64)
    err_end = np.zeros(capacity, np.int64)
    line_start = np.zeros(capacity, np.int64)
    line_end = np.zeros(capacity, np.int64)
    inexact = np.zeros(capacity, np.uint8)  # bit k: float field FLOAT_FIELDS[k] needs float(text)
    hdr_line = np.empty(capacity, np.int64)
    hdr_start = np.empty(capacity, np.int64)
    hdr_end = np.empty(capacity, np.int64)
    rows = 0
    nhdr = 0
    extra_lines = 0
    pos = 0
    line = 0
    while pos < n:
        line += 1
        p = pos
        while p < n and _is_blank(buf[p]):
            p += 1
        if p == n or buf[p] == 10:  # blank line
            pos = p + 1
            continue
        if buf[p] == 59:  # ';' header / comment line
            eol = p
            while eol < n and buf[eol] != 10:
                eol += 1
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
        f = 0
        bad = OK
        # p is at the first byte of a token; each turn parses one token and
        # the blanks after it, stopping at the newline or the end.
        while p < n and buf[p] != 10:
            if f == NFIELDS:  # extended SWF: ignore the rest of the line
                extra_lines += 1
                while p < n and buf[p] != 10:
                    p += 1
                break
            t0 = p
            c = buf[p]
            neg = c == 45
            if c == 45 or c == 43:  # '-' or '+'
                p += 1
            val = 0
            nint = 0
            while p < n and 48 <= buf[p] <= 57:
                val = val * 10 + (buf[p] - 48)
                nint += 1
                p += 1
            # mant / 10**nfrac is the value, kept to 18 significant digits
            mant = val
            nfrac = 0
            ndig = nint
            dropped = False
            nonzero_frac = False
            if p < n and buf[p] == 46:  # '.'
                p += 1
                while p < n and 48 <= buf[p] <= 57:
                    d = buf[p] - 48
                    if nint + nfrac < 18:
                        mant = mant * 10 + d
                        nfrac += 1
                    elif d != 0:
                        dropped = True
                    if d != 0:
                        nonzero_frac = True
                    ndig += 1
                    p += 1
            t1 = p
            while t1 < n and not _is_blank(buf[t1]) and buf[t1] != 10:
                t1 += 1
            if bad == OK:
                if t1 != p or ndig == 0 or nint > 18:  # not a number, or too big for 64 bits
                    bad = NOT_NUMBER
                elif nonzero_frac and not float_mask[f]:
                    bad = NOT_INTEGER
                elif f == 1 and neg and val != 0:
                    bad = NEGATIVE_SUBMIT
                elif f == STATUS_FIELD and val > 2147483647:
                    bad = TOO_BIG
                if bad != OK:
                    err_field[r] = f
                    err_start[r] = t0
                    err_end[r] = t1
            if not float_mask[f]:
                ints[f, r] = -val if neg else val
            else:  # (ints rows of float fields stay untouched: no memory spent on them)
                if nfrac == 0 and val < 9007199254740992:
                    fv = float(val)
                elif mant < 9007199254740992 and not dropped:  # 2**53: exact operands,
                    fv = mant / pow10[nfrac]                    # one correctly rounded division
                else:
                    fv = float(mant) / pow10[nfrac]  # close; the caller redoes it with float(text)
                    for k in range(len(FLOAT_FIELDS)):
                        if FLOAT_FIELDS[k] == f:
                            inexact[r] |= 1 << k
                floats[f, r] = -fv if neg else fv
            f += 1
            p = t1
            while p < n and _is_blank(buf[p]):
                p += 1
        eol = p
        line_end[r] = eol
        if bad == OK and f < NFIELDS:
            bad = TOO_FEW
            err_field[r] = f
            err_start[r] = eol
            err_end[r] = eol
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
        inexact[:rows],
        extra_lines,
        hdr_line[:nhdr],
        hdr_start[:nhdr],
        hdr_end[:nhdr],
    )


def float_mask() -> np.ndarray:
    mask = np.zeros(NFIELDS, np.bool_)
    mask[list(FLOAT_FIELDS)] = True
    return mask


def run(buf: np.ndarray):
    """(tokenize() with the constant arguments filled in, number of newlines)."""
    nlines = count_lines(buf)
    return tokenize(buf, float_mask(), _POW10, nlines), nlines - 1
