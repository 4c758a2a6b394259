"""The SWF tokenizer's Numba kernels (the drivers, their contract and codes: tokenizer.py).

Why a module of their own: `walltime ingest` runs them compiled ahead of time
(pipeline/ingest/aot.py) without importing Numba; this module, which does, is
the JIT fallback and the source of the compiled module.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit
from .tokenizer import FLOAT_FIELDS, NFIELDS, NOT_INTEGER, NOT_NUMBER, NEGATIVE_SUBMIT, OK, STATUS_FIELD, TOO_BIG, TOO_FEW


@jit(inline=True)
def _is_blank(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@jit(nogil=True)
def count_rows(buf, lo, hi):
    """(newlines, job lines) in ``buf[lo:hi]``: a job line is one whose first
    non-blank byte is neither a newline nor ';' (exactly the lines
    :func:`tokenize_into` gives a row), so each chunk's rows can be written
    straight into one shared set of arrays."""
    lines = 0
    jobs = 0
    i = lo
    while i < hi:
        p = i
        while p < hi and _is_blank(buf[p]):
            p += 1
        if p < hi and buf[p] != 10 and buf[p] != 59:
            jobs += 1
        while p < hi and buf[p] != 10:
            p += 1
        if p < hi:
            lines += 1
        i = p + 1
    return lines, jobs


@jit(nogil=True)
def tokenize_into(buf, lo, hi, line0, row0, float_mask, pow10, ints, floats, line_no, status, err_field,
                  err_start, err_end, line_start, line_end, inexact, hdr_capacity):
    """Scan ``buf[lo:hi]`` (uint8; ``lo`` at a line start, ``hi`` after a
    newline or at the end) line by line, once, writing its job lines at rows
    ``row0``, ``row0 + 1``, ... of the output arrays (line numbers counted
    from ``line0``, positions into the whole ``buf``).

    Fills ``ints[f, i]`` with the value of integer field f (rows of float
    fields are left alone), ``floats[f, i]`` with the exact value of float
    fields (decimal text to the nearest double, like ``float(text)``, except
    where ``inexact`` flags a field with more than 15-16 significant digits:
    the caller re-reads those few with ``float``); for a bad line,
    ``status`` says why and ``err_*`` locate the offending field (0-based)
    and its bytes. Returns ``(rows written, extra_lines, hdr_line,
    hdr_start, hdr_end)``: header (';') lines as byte ranges, and how many
    lines have more than 18 tokens. ``hdr_capacity`` must be at least the
    number of lines in the slice.
    """
    n = hi
    hdr_line = np.empty(hdr_capacity, np.int64)
    hdr_start = np.empty(hdr_capacity, np.int64)
    hdr_end = np.empty(hdr_capacity, np.int64)
    rows = row0
    nhdr = 0
    extra_lines = 0
    pos = lo
    line = line0
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
        bad = np.int64(OK)  # np.int64: one type for every code (pycc does not unify literals)
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
                    bad = np.int64(NOT_NUMBER)
                elif nonzero_frac and not float_mask[f]:
                    bad = np.int64(NOT_INTEGER)
                elif f == 1 and neg and val != 0:
                    bad = np.int64(NEGATIVE_SUBMIT)
                elif f == STATUS_FIELD and val > 2147483647:
                    bad = np.int64(TOO_BIG)
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
            bad = np.int64(TOO_FEW)
            err_field[r] = f
            err_start[r] = eol
            err_end[r] = eol
        status[r] = bad
        pos = eol + 1
    return rows - row0, extra_lines, hdr_line[:nhdr], hdr_start[:nhdr], hdr_end[:nhdr]


@jit(nogil=True)
def range_flags(ints, status, time_fields, size_fields, max_span, max_size, max_area):
    """(beyond, area) per line, for good lines only: ``beyond`` when a time
    field's magnitude exceeds ``max_span`` or a size field's ``max_size``;
    ``area`` (only where not ``beyond``) when wait, run or requested time
    (fields 2, 3, 8) times the job's width (the larger of fields 4 and 7, as
    doubles) exceeds ``max_area``. One pass per field row (each a contiguous
    stream: 0.05 s on 5 M lines against 0.11 s for one pass reading the
    twelve rows side by side), no NumPy temporaries of the file's length.
    (Values have at most 18 digits: ``-m <= v <= m`` is ``abs(v) <= m``.)"""
    n = ints.shape[1]
    beyond = np.zeros(n, np.bool_)
    area = np.zeros(n, np.bool_)
    for f in time_fields:
        row = ints[f]
        for i in range(n):
            if row[i] > max_span or row[i] < -max_span:
                beyond[i] = True
    for f in size_fields:
        row = ints[f]
        for i in range(n):
            if row[i] > max_size or row[i] < -max_size:
                beyond[i] = True
    p4, p7, w2, w3, w8 = ints[4], ints[7], ints[2], ints[3], ints[8]
    for i in range(n):
        if status[i] != OK:
            beyond[i] = False
        elif not beyond[i]:
            width = float(max(abs(p4[i]), abs(p7[i])))
            if (float(abs(w2[i])) * width > max_area or float(abs(w3[i])) * width > max_area
                    or float(abs(w8[i])) * width > max_area):
                area[i] = True
    return beyond, area


@jit
def next_line(buf, pos):
    """The start of the line after the one holding ``pos`` (or len(buf))."""
    n = len(buf)
    while pos < n and buf[pos] != 10:
        pos += 1
    return min(pos + 1, n)
