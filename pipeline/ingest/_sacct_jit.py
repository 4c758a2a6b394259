"""The sacct scan's Numba kernels (the drivers and their contract: sacct_scan.py; the codes: sacct_codes.py).

Why a module of their own: `walltime ingest` runs them compiled ahead of time
(pipeline/ingest/aot.py) without importing Numba; this module, which does, is
the JIT fallback and the source of the compiled module.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit
from .sacct_codes import (BAR, CR, DOT, GPUS, ID_HET, ID_OK, ID_TASK, ID_TASK_NUM, INT, JOBID, M_EMPTY, M_OTHER,
                         M_PER_CPU, M_READ, MAX_DIGITS, MEM, N_EMPTY, N_NO_LIMIT, N_OTHER, N_READ, NL, T_MISSING, T_OTHER, T_READ,
                         STATE, TIME)
from .sacct_codes import NO_LIMIT_WORDS, STATE_BYTES, STATE_ENDS

_UNLIMITED, _PARTITION_LIMIT, _INFINITE = NO_LIMIT_WORDS  # (module-level arrays: constants to Numba)


@jit(nogil=True)
def count_newlines(buf, lo, hi):
    # over a slice from 0: with range(lo, hi) Numba cannot prove the index
    # non-negative and the loop runs 3x slower (not vectorised)
    b = buf[lo:hi]
    n = 0
    for i in range(len(b)):
        n += b[i] == NL
    return n


@jit
def next_line(buf, pos):
    n = len(buf)
    while pos < n and buf[pos] != NL:
        pos += 1
    return min(pos + 1, n)


@jit(nogil=True)
def scan_into(buf, lo, hi, k0, jobid_col, starts, ends, fields, step):
    """Lines of ``buf[lo:hi]`` (``lo`` at a line start, ``hi`` after a
    newline or at the end) at indexes k0, k0 + 1, ... Written as three simple
    loops (find the newlines; count the bars of each line with no branch,
    which LLVM vectorises; look at the JobID field) because a per-byte branch
    on '|' mispredicts about once per field and cost twice as much."""
    k = k0
    start = lo
    b = buf[lo:hi]  # indexes from 0 (see count_newlines)
    for i in range(len(b)):
        if b[i] == NL:
            starts[k] = start
            ends[k] = lo + i
            k += 1
            start = lo + i + 1
    if start < hi:
        starts[k] = start
        ends[k] = hi
        k += 1
    for q in range(k0, k):
        s = starts[q]
        e = ends[q]
        if e > s and buf[e - 1] == CR:
            e -= 1
            ends[q] = e
        f = 1
        for i in range(np.uint64(s), np.uint64(e)):  # (unsigned: no negative-index check, so LLVM vectorises;
            f += buf[i] == BAR                      # a slice per line cost a reference count, 10% of the scan)
        fields[q] = f
        if jobid_col >= 0 and f > jobid_col:
            col = 0
            for i in range(s, e):
                c = buf[i]
                if c == BAR:
                    col += 1
                    if col > jobid_col:
                        break
                elif c == DOT and col == jobid_col:
                    step[q] = True
                    break


@jit(inline=True)
def _digits(buf, s, e):
    """(value, number of digits) of the run of ASCII digits at s (stops at e)."""
    v = 0
    d = 0
    while s + d < e and 48 <= buf[s + d] <= 57:
        if d < MAX_DIGITS:
            v = v * 10 + (buf[s + d] - 48)
        d += 1
    return v, d


@jit(inline=True)
def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@jit(inline=True)
def _num(buf, s, k):
    """The k ASCII digits at s as a number, or -1."""
    v = 0
    for i in range(k):
        c = buf[s + i]
        if c < 48 or c > 57:
            return -1
        v = v * 10 + (c - 48)
    return v


@jit(inline=True)
def _read_time(buf, s, e):
    """(microseconds since 1970 of a naive ``YYYY-MM-DDTHH:MM:SS``, status)."""
    length = e - s
    if length == 0:
        return 0, T_MISSING
    if length == 4 and buf[s] == 78 and buf[s + 1] == 111 and buf[s + 2] == 110 and buf[s + 3] == 101:  # None
        return 0, T_MISSING
    if (length == 7 and buf[s] == 85 and buf[s + 1] == 110 and buf[s + 2] == 107 and buf[s + 3] == 110
            and buf[s + 4] == 111 and buf[s + 5] == 119 and buf[s + 6] == 110):  # Unknown
        return 0, T_MISSING
    if (length != 19 or buf[s + 4] != 45 or buf[s + 7] != 45 or buf[s + 10] != 84 or buf[s + 13] != 58
            or buf[s + 16] != 58):
        return 0, T_OTHER
    y = _num(buf, s, 4)
    mo = _num(buf, s + 5, 2)
    d = _num(buf, s + 8, 2)
    h = _num(buf, s + 11, 2)
    mi = _num(buf, s + 14, 2)
    sec = _num(buf, s + 17, 2)
    if y < 0 or mo < 1 or mo > 12 or d < 1 or h < 0 or h > 23 or mi < 0 or mi > 59 or sec < 0 or sec > 60:  # :60 as Polars reads it (the next minute)
        return 0, T_OTHER
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    dim = 31
    if mo == 2:
        dim = 29 if leap else 28
    elif mo == 4 or mo == 6 or mo == 9 or mo == 11:
        dim = 30
    if d > dim:
        return 0, T_OTHER
    days = _days_from_civil(y, mo, d)
    return ((days * 86400 + h * 3600 + mi * 60 + sec) * 1_000_000), T_READ


@jit(inline=True)
def _is_word(buf, s, e, word):
    if e - s != len(word):
        return False
    for i in range(len(word)):
        if buf[s + i] != word[i]:
            return False
    return True


@jit(inline=True)
def _read_int(buf, s, e):
    """(value, status) of a count (NCPUS, ElapsedRaw, ...): N_READ for 1 to
    MAX_DIGITS ASCII digits, N_EMPTY for an empty field, N_NO_LIMIT for
    UNLIMITED, Partition_Limit or INFINITE, N_OTHER for anything else (left
    to Polars' cast, as before the scan read numbers)."""
    if e == s:
        return 0, N_EMPTY
    if e - s <= MAX_DIGITS:
        v = _num(buf, s, e - s)
        if v >= 0:
            return v, N_READ
    if _is_word(buf, s, e, _UNLIMITED) or _is_word(buf, s, e, _PARTITION_LIMIT) or _is_word(buf, s, e, _INFINITE):
        return 0, N_NO_LIMIT
    return 0, N_OTHER


@jit(inline=True)
def _read_state(buf, s, e):
    """The index in STATES of the first word of a State (``CANCELLED by 1001``:
    its leading run of A-Z and _, as the regex ``^([A-Z_]+)``), else -1."""
    run = 0
    while s + run < e and (65 <= buf[s + run] <= 90 or buf[s + run] == 95):
        run += 1
    lo = 0
    for w in range(len(STATE_ENDS)):
        hi = STATE_ENDS[w]
        if hi - lo == run:
            same = True
            for q in range(run):
                if buf[s + q] != STATE_BYTES[lo + q]:
                    same = False
                    break
            if same and run > 0:
                return w
        lo = hi
    return -1


@jit(inline=True)
def _read_jobid(buf, s, e):
    """(base, task, het, flags) of ``BASE[_TASK|_[...]][+HET]`` (the job lines
    hold no '.'); flags without ID_OK: not such an id."""
    base, nb = _digits(buf, s, e)
    if nb == 0 or nb > MAX_DIGITS:
        return 0, 0, 0, 0
    p = s + nb
    flags = ID_OK
    task = 0
    het = 0
    if p < e and buf[p] == 95:  # '_'
        p += 1
        if p < e and buf[p] == 91:  # '[' ... ']'
            q = p + 1
            while q < e and buf[q] != 93:
                q += 1
            if q == e:
                return 0, 0, 0, 0
            p = q + 1
            flags |= ID_TASK
        else:
            task, nt = _digits(buf, p, e)
            if nt == 0:
                return 0, 0, 0, 0
            p += nt
            flags |= ID_TASK | (ID_TASK_NUM if nt <= MAX_DIGITS else 0)
    if p < e and buf[p] == 43:  # '+'
        het, nh = _digits(buf, p + 1, e)
        if nh == 0 or nh > MAX_DIGITS:
            return 0, 0, 0, 0
        p += 1 + nh
        flags |= ID_HET
    if p != e:
        return 0, 0, 0, 0
    return base, task, het, flags


@jit(inline=True)
def _read_mem(buf, s, e, pow10):
    """(KB as written: number x unit, status) of a ReqMem ``4500M``, ``2G``,
    ``1000Mc``, ``64Gn``, ``100`` (MB). The number is read only in the exact
    case (at most 15 digits: one correctly rounded division, as Polars
    reads it); anything else is M_OTHER."""
    if e == s:
        return 0.0, M_EMPTY
    status = M_READ
    last = buf[e - 1]
    if last == 99 or last == 110:  # 'c' / 'n'
        status = M_PER_CPU if last == 99 else M_READ
        e -= 1
    factor = 1024.0
    if e > s:
        u = buf[e - 1]
        if u == 75:  # K
            factor = 1.0
            e -= 1
        elif u == 77:  # M
            e -= 1
        elif u == 71:  # G
            factor = 1024.0 ** 2
            e -= 1
        elif u == 84:  # T
            factor = 1024.0 ** 3
            e -= 1
    mant = 0
    digits = 0
    frac = -1
    for i in range(s, e):
        c = buf[i]
        if c == 46:  # '.'
            if frac >= 0:
                return 0.0, M_OTHER
            frac = 0
        elif 48 <= c <= 57:
            mant = mant * 10 + (c - 48)
            digits += 1
            if frac >= 0:
                frac += 1
        else:
            return 0.0, M_OTHER
    if digits == 0 or digits > 15:
        return 0.0, M_OTHER
    value = mant / pow10[frac] if frac > 0 else float(mant)
    return value * factor, status


@jit(inline=True)
def _read_gpus(buf, s, e):
    """(count, found) of the first ``gres/gpu=N`` item of a TRES string
    (``cpu=4,mem=8G,node=1,gres/gpu=2``), as sacct._tres reads it with a regex."""
    i = s
    while i < e:
        if (i + 9 < e and buf[i] == 103 and buf[i + 1] == 114 and buf[i + 2] == 101 and buf[i + 3] == 115
                and buf[i + 4] == 47 and buf[i + 5] == 103 and buf[i + 6] == 112 and buf[i + 7] == 117
                and buf[i + 8] == 61 and 48 <= buf[i + 9] <= 57):  # gres/gpu=<digit>
            v, d = _digits(buf, i + 9, e)
            return v, d <= MAX_DIGITS
        while i < e and buf[i] != 44:  # to the next item
            i += 1
        i += 1
    return 0, False


@jit(nogil=True)
def split_into(buf, starts, ends, rows, slot, kind, vrow, bases, k_lo, k_hi, views, words, valid, times, tstat, ids,
               idflags, mem, mstat, gpus, gfound, nums, nstat, scode, pow10):
    """Rows k_lo..k_hi-1 of :func:`split` (see there); returns the OR of the
    bytes of their viewed fields. ``words`` is ``views`` seen as uint32 (one
    store per 4-byte part of a view). A line is read up to its last wanted
    field only (WorkDir, SubmitLine, ... after it are never looked at)."""
    last = -1
    for c in range(len(slot)):
        if slot[c] >= 0:
            last = c
    high = 0
    b = 0
    for k in range(k_lo, k_hi):
        r = rows[k]
        while b + 1 < len(bases) and bases[b + 1] <= starts[r]:
            b += 1
        base = bases[b]
        s = starts[r]
        e = ends[r]
        v = k * 16
        w = k * 4
        for col in range(last + 1):
            i = s
            while i < e and buf[i] != BAR:
                i += 1
            j = slot[col]
            if j >= 0:
                length = i - s
                y = vrow[j]
                if y >= 0:  # a string view
                    valid[y, k] = length > 0
                    words[y, w] = length
                    if length <= 12:
                        for q in range(length):
                            c = buf[s + q]
                            views[y, v + 4 + q] = c
                            high |= c
                    else:
                        for q in range(s, i):
                            high |= buf[q]
                        words[y, w + 1] = (np.uint32(buf[s]) | (np.uint32(buf[s + 1]) << 8)
                                           | (np.uint32(buf[s + 2]) << 16) | (np.uint32(buf[s + 3]) << 24))
                        words[y, w + 2] = b
                        words[y, w + 3] = s - base
                t = kind[j]
                if t >= INT:  # a count: kind INT + its row in nums
                    nv, ns = _read_int(buf, s, i)
                    nums[t - INT, k] = nv
                    nstat[t - INT, k] = ns
                elif t >= TIME:  # a time: kind TIME + its row in times
                    us, st = _read_time(buf, s, i)
                    times[t - TIME, k] = us
                    tstat[t - TIME, k] = st
                elif t == STATE:
                    scode[k] = _read_state(buf, s, i)
                elif t == MEM:
                    kb, ms = _read_mem(buf, s, i, pow10)
                    mem[k] = kb
                    mstat[k] = ms
                elif t >= GPUS:
                    g, found = _read_gpus(buf, s, i)
                    gpus[t - GPUS, k] = g
                    gfound[t - GPUS, k] = found
                elif t == JOBID:
                    jb, jt, jh, jf = _read_jobid(buf, s, i)
                    ids[0, k] = jb
                    ids[1, k] = jt
                    ids[2, k] = jh
                    idflags[k] = jf
            s = i + 1
    return high
