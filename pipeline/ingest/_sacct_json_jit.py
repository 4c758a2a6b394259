"""The `sacct --json` record scanner: a Numba kernel that reads the columns
walltime keeps straight from sacct's pretty-printed bytes (the driver and
the reference path: sacct_json.py).

Why a scanner of our own: a 22.05 job record is ~14 KB, ~80% of it steps
that no column needs, and a site's year is GBs; orjson must build every
object (~70 us a record with the Python that reads it), ijson makes a
Python call per value. sacct (json-c, and data_parser's own printer)
prints one value per line, indented two spaces a level, and a raw newline
can never be inside a JSON string: so a line's indentation is its depth,
a container nobody reads is skipped by looking at indentations only, and
the values kept are read where they lie.

The kernel is strict and falls back rather than guess: a record with any
value it does not read exactly as sacct_json._Columns.add would (an
escape or non-ASCII byte in a kept string, a number as an object, a
float, a list where a string is expected, a missing job_id or
submission, an unexpanded array remainder) is flagged SLOW and read by
the reference path (orjson + _Columns.add); a layout it does not know
(another indentation, two values on a line, the file ending early) stops
the scan with LAYOUT / EOF and the reference path reads the whole dump,
with its messages. tests/test_sacct_json_scan.py holds the two equal.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit
from .sacct_json_codes import (BSLASH, C_EXIT, C_REC, C_TALLOC, C_TITEM, C_TREQ, COMMA, DONE, EOF, F_EXIT,
                               F_HAS_SIGID, F_SLOW, FULL, I_ACPU, I_AGPU, I_AJOB, I_ANODE, I_ATASK, I_JOB, I_RCPU,
                               I_REND, I_RGPU, I_RMEM, I_RNODE, I_RSTART, I_SIGID, I_STEPS, I_SUBMIT, K_BOX, K_COUNT,
                               K_INT, K_NAME, K_STEPS, K_STR, K_TYPE, LAYOUT, LBRACE, LBRACKET, MINUS, MISSING, NI, NL, NO_VAL,
                               NS, QUOTE, RBRACE, RBRACKET, SP, CHUNK, _W_CPU, _W_GPU, _W_GRES, _W_MEM, _W_NODE)


@jit(nogil=True)
def _sig_of(size, first, second, last):
    """A key's signature: its length and first, second and last bytes (the match is then checked byte by byte)."""
    return np.int64(size) | (np.int64(first) << 16) | (np.int64(second) << 24) | (np.int64(last) << 32)


@jit(nogil=True)
def _at(buf, s, word):
    """buf[s:s + len(word)] == word (the caller checks the length). Not _sacct_jit._is_word: pycc's one
    module of every ingest kernel then fails to type _sacct_jit.scan_into (Numba 0.68)."""
    for i in range(len(word)):
        if buf[s + i] != word[i]:
            return False
    return True


@jit(nogil=True)
def _text_start(buf, p, n):
    """The first byte after line start p's indentation (n: the bytes end first)."""
    while p < n and buf[p] == SP:
        p += 1
    return p


@jit(nogil=True)
def _eol(buf, p, n):
    """The offset of the next newline at or after p (n at the end)."""
    while p < n and buf[p] != NL:
        p += 1
    return p


@jit(nogil=True)
def _skip(buf, p, n, ind):
    """From line start p inside a container opened on a line indented ``ind``:
    (the start of the line after its closing line, newlines passed; -1 as the
    first when the layout breaks or the bytes end).

    The closing line is the first line indented ``ind`` or less: the first
    newline at x with buf[x + ind + 1] not a space. Blocks of 64 bytes are
    tested without branches (Numba vectorises them: ~4 GB/s on one core),
    the block with a hit byte by byte."""
    B = 64
    k = ind + 1
    x = p - 1  # the newline that ends the container's opening line (not counted)
    lines = -1
    while x + B + k < n:
        a = buf[x:x + B]
        b = buf[x + k:x + k + B]
        hit, cnt = np.uint8(0), np.uint8(0)
        for j in range(B):
            nl = np.uint8(a[j] == NL)
            cnt += nl
            hit |= nl & np.uint8(b[j] != SP)
        if hit:
            break
        lines += cnt
        x += B
    while x < n:
        if buf[x] == NL:
            lines += 1
            if x + k >= n:
                return -1, lines
            if buf[x + k] != SP:  # the first line indented ind or less: the closing line, indented ind
                q = x + 1
                while q < x + k and buf[q] == SP:
                    q += 1
                if q != x + k or (buf[q] != RBRACE and buf[q] != RBRACKET):
                    return -1, lines
                e = _eol(buf, q, n)
                if e >= n:
                    return -1, lines
                return e + 1, lines + 1
        x += 1
    return -1, lines


@jit(nogil=True)
def _skip_objects(buf, p, n, ind):
    """An array opened on a line indented ``ind`` whose elements are objects
    (steps): (the start of the line after its closing line, newlines passed,
    elements; -1 as the first when the layout breaks). Each element is
    skipped as a container of its own, so counting them costs no extra pass."""
    lines, kids = 0, 0
    while p < n:
        q = _text_start(buf, p, n)
        if q >= n:
            return -1, lines, kids
        c = buf[q]
        if q - p == ind and c == RBRACKET:
            e = _eol(buf, q, n)
            if e >= n:
                return -1, lines, kids
            return e + 1, lines + 1, kids
        if q - p != ind + 2 or c != LBRACE:
            return -1, lines, kids
        e = _eol(buf, q, n)
        if e >= n:
            return -1, lines, kids
        lines += 1
        kids += 1
        if e > q + 1 and buf[q + 1] == RBRACE:  # {} on one line
            p = e + 1
            continue
        if e != q + 1:
            return -1, lines, kids
        p, passed = _skip(buf, e + 1, n, ind + 2)
        lines += passed
        if p < 0:
            return -1, lines, kids
    return -1, lines, kids


@jit(nogil=True)
def _int(buf, s, n):
    """(value, ok) of the integer literal at s, ended by , or a newline; ok False for null (value MISSING)
    and -1 for anything else (a float, an object, a string, true, more than 18 digits: the reference
    path checks those against 64 bits)."""
    c = buf[s]
    if c == 110:  # n(ull)
        return MISSING, 0
    neg = c == MINUS
    i = s + 1 if neg else s
    v, d = 0, 0
    while i < n and 48 <= buf[i] <= 57 and d < 18:  # (a 19th digit: not read here, 64 bits may not hold it)
        v = v * 10 + (buf[i] - 48)
        i += 1
        d += 1
    if d == 0 or i >= n or (buf[i] != COMMA and buf[i] != NL and buf[i] != 13):
        return MISSING, -1
    return (-v if neg else v), 1


@jit(nogil=True)
def _str(buf, s, n):
    """(start, end, ok) of the string literal at s: ok 1 plain ASCII, 0 null, -1 anything else
    (an escape, a non-ASCII byte, not a string)."""
    c = buf[s]
    if c == 110:
        return -1, -1, 0
    if c != QUOTE:
        return -1, -1, -1
    i = s + 1
    while i < n:
        b = buf[i]
        if b == QUOTE:
            return s + 1, i, 1
        if b == BSLASH or b >= 128 or b == NL:
            return -1, -1, -1
        i += 1
    return -1, -1, -1


@jit(nogil=True)
def scan(buf, pos, n, win_end, rind, keys, key_from, key_text, ints, strs, flags, first):
    """Read job records from ``pos`` (the start of a record's opening line,
    indented ``rind``) into rows ``first``.. of ints/strs/flags.

    Stops at the end of the jobs array (DONE, pos = the offset of its ``]``),
    at a record opening at or after ``win_end`` (CHUNK), when the rows are
    full (FULL), or at a layout it does not know (LAYOUT) or the end of the
    bytes (EOF). Returns (status, pos, rows filled, newlines passed)."""
    cap = ints.shape[0]
    r = first
    lines = 0
    stack = np.zeros(16, np.int64)
    tkind = np.zeros(3, np.int64)  # the tres item: type code, name code, count
    while True:
        # a record's opening line: rind spaces and {
        q = _text_start(buf, pos, n)
        if q >= n:
            return EOF, pos, r, lines
        if q - pos == rind - 2 and buf[q] == RBRACKET:
            return DONE, q, r, lines
        if q - pos != rind or buf[q] != LBRACE or q + 1 >= n or buf[q + 1] != NL:
            return LAYOUT, pos, r, lines
        if pos >= win_end:
            return CHUNK, pos, r, lines
        if r >= cap:
            return FULL, pos, r, lines
        for k in range(NI):
            ints[r, k] = MISSING
        for k in range(NS):
            strs[r, k, 0] = -1
            strs[r, k, 1] = -1
        flags[r] = 0
        ints[r, I_RSTART] = q
        slow = False
        depth = 1
        stack[0] = C_REC
        p = q + 2
        lines += 1
        while depth > 0:
            q = _text_start(buf, p, n)
            if q >= n:
                return EOF, pos, r, lines
            ind = q - p
            c = buf[q]
            want = rind + 2 * depth
            top = stack[depth - 1]
            if c == RBRACE or c == RBRACKET:
                if ind != want - 2:
                    return LAYOUT, pos, r, lines
                e = _eol(buf, q, n)
                if e >= n:
                    return EOF, pos, r, lines
                lines += 1
                if top == C_TITEM:  # a tres entry ends: cpu, node, mem or gres/gpu by (type, name)
                    if tkind[0] == 0:
                        slow = True
                    elif tkind[2] != MISSING:
                        alloc = stack[depth - 2] == C_TALLOC
                        if tkind[0] == 1 and tkind[1] == 0:
                            ints[r, I_ACPU if alloc else I_RCPU] = tkind[2]
                        elif tkind[0] == 2 and tkind[1] == 0:
                            ints[r, I_ANODE if alloc else I_RNODE] = tkind[2]
                        elif tkind[0] == 3 and tkind[1] == 0:
                            if not alloc:
                                ints[r, I_RMEM] = tkind[2]
                        elif tkind[0] == 4 and tkind[1] == 1:
                            ints[r, I_AGPU if alloc else I_RGPU] = tkind[2]
                depth -= 1
                if depth == 0:
                    ints[r, I_REND] = q + 1
                    after = buf[q + 1] if q + 1 < n else 0
                    p = e + 1
                    if after != COMMA:  # the last record: the array's ] follows
                        q2 = _text_start(buf, p, n)
                        if q2 >= n:
                            return EOF, pos, r, lines
                        if q2 - p != rind - 2 or buf[q2] != RBRACKET:
                            return LAYOUT, pos, r, lines
                else:
                    p = e + 1
                continue
            if ind != want:
                return LAYOUT, pos, r, lines
            if top == C_TALLOC or top == C_TREQ:  # an array of tres entries: objects only
                if c != LBRACE or q + 1 >= n or buf[q + 1] != NL:
                    return LAYOUT, pos, r, lines
                stack[depth] = C_TITEM
                depth += 1
                tkind[0] = 0
                tkind[1] = 0
                tkind[2] = MISSING
                p = q + 2
                lines += 1
                continue
            if c != QUOTE:
                return LAYOUT, pos, r, lines
            # "key": value
            i = q + 1
            while i < n and buf[i] != QUOTE:
                if buf[i] == BSLASH or buf[i] == NL:
                    return LAYOUT, pos, r, lines
                i += 1
            if i + 3 >= n:
                return EOF, pos, r, lines
            if buf[i + 1] != 58 or buf[i + 2] != SP:  # ": "
                return LAYOUT, pos, r, lines
            v = i + 3
            kind, target = -1, 0
            size = i - q - 1
            if size > 0:
                h = _sig_of(size, buf[q + 1], buf[q + 1 + (size > 1)], buf[i - 1])
                for t in range(key_from[top], key_from[top + 1]):
                    if keys[t, 1] == h and _at(buf, q + 1, key_text[t, :size]):
                        kind, target = keys[t, 2], keys[t, 3]
                        break
            c = buf[v]
            if c == LBRACE or c == LBRACKET:
                close = RBRACE if c == LBRACE else RBRACKET
                e = _eol(buf, v, n)
                if e >= n:
                    return EOF, pos, r, lines
                lines += 1
                inline = e > v + 1 and buf[v + 1] == close  # {} or [] on the key's line
                if not inline and e != v + 1:
                    return LAYOUT, pos, r, lines
                if kind == K_BOX and target == C_EXIT and c == LBRACE:
                    flags[r] |= F_EXIT
                if inline:
                    if kind == K_STEPS:
                        ints[r, I_STEPS] = 0
                    elif kind != -1 and kind != K_BOX:
                        slow = True  # an object where a value is read
                    p = e + 1
                    continue
                if kind == K_BOX and ((target == C_TALLOC or target == C_TREQ) == (c == LBRACKET)):
                    stack[depth] = target
                    depth += 1
                    p = e + 1
                    continue
                if kind == K_STEPS and c == LBRACKET:
                    nxt, passed, kids = _skip_objects(buf, e + 1, n, ind)
                    ints[r, I_STEPS] = kids
                else:
                    nxt, passed = _skip(buf, e + 1, n, ind)
                lines += passed
                if nxt < 0:
                    return LAYOUT, pos, r, lines
                if kind != -1 and not (kind == K_STEPS and c == LBRACKET):
                    slow = True  # a list or an object where a value or the other bracket is read
                p = nxt
                continue
            e = _eol(buf, v, n)
            if e >= n:
                return EOF, pos, r, lines
            lines += 1
            if kind == K_INT or kind == K_COUNT:
                val, ok = _int(buf, v, n)
                if ok < 0:
                    slow = True
                elif kind == K_COUNT:
                    tkind[2] = val
                else:
                    ints[r, target] = val
                    if target == I_SIGID:
                        flags[r] |= F_HAS_SIGID
            elif kind == K_STR:
                s0, s1, ok = _str(buf, v, n)
                if ok < 0:
                    slow = True
                else:
                    strs[r, target, 0] = s0
                    strs[r, target, 1] = s1
            elif kind == K_TYPE or kind == K_NAME:
                s0, s1, ok = _str(buf, v, n)
                if ok < 0 or (ok == 0 and kind == K_TYPE):
                    slow = True
                elif kind == K_TYPE:
                    code = 9
                    if s1 - s0 == len(_W_CPU) and _at(buf, s0, _W_CPU):
                        code = 1
                    elif s1 - s0 == len(_W_NODE) and _at(buf, s0, _W_NODE):
                        code = 2
                    elif s1 - s0 == len(_W_MEM) and _at(buf, s0, _W_MEM):
                        code = 3
                    elif s1 - s0 == len(_W_GRES) and _at(buf, s0, _W_GRES):
                        code = 4
                    tkind[0] = code
                else:
                    tkind[1] = 0 if ok == 0 or s1 == s0 else (1 if (s1 - s0 == len(_W_GPU) and _at(buf, s0, _W_GPU)) else 9)
            elif kind == K_STEPS or kind == K_BOX:
                if buf[v] != 110:  # null is as absent
                    slow = True
            p = e + 1
        if ints[r, I_STEPS] == MISSING:
            ints[r, I_STEPS] = 0
        if slow or ints[r, I_JOB] == MISSING or ints[r, I_SUBMIT] == MISSING:
            flags[r] |= F_SLOW
        elif ints[r, I_AJOB] != MISSING and ints[r, I_AJOB] != 0 and (
                ints[r, I_ATASK] == MISSING or ints[r, I_ATASK] == NO_VAL):
            flags[r] |= F_SLOW  # an array's unexpanded remainder: its task range is built by the reference path
        r += 1
        if buf[ints[r - 1, I_REND]] != COMMA:
            return DONE, _text_start(buf, p, n), r, lines
        pos = p


@jit(nogil=True)
def gather(buf, starts, ends, out, offsets):
    """Copy the strings [starts[i], ends[i]) into ``out`` one after the other; offsets[i + 1] their ends
    (Arrow's string layout; a null's length is 0)."""
    k = 0
    for i in range(len(starts)):
        s = starts[i]
        if s >= 0:
            for j in range(s, ends[i]):
                out[k] = buf[j]
                k += 1
        offsets[i + 1] = k
    return k
