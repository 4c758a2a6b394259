"""Running jobs as a sorted array of (expected end, job index).

Why not a heap: the EASY shadow walk visits running jobs in expected-end
order at almost every pass; on a sorted array that is a linear scan, and the
O(running) shift on insert/remove is a cheap memmove for the hundreds of jobs
a machine runs at once.

Why unsigned indices in the shifts: Numba wraps a negative signed index
around (``a[-1]`` is the last element), so every ``a[s]`` with a signed ``s``
compiles to a compare and a conditional move, which keeps LLVM from turning
the shift into a vector copy. With ``uint64`` indices there is nothing to wrap,
and the shifts (a third of the EASY loop's time on CEA-Curie) run 2-4x faster.
Mixing uint64 with int64 in Numba gives float64, so every operand in these
loops is a uint64 (``U1``).
"""

from __future__ import annotations

import numpy as np

from ..jit import jit

U1 = np.uint64(1)


@jit(inline=True, nrt=False)
def _lt(ka, ja, kb, jb):
    return ka < kb or (ka == kb and ja < jb)


@jit(nrt=False)
def locate(key, jid, size, k, j):
    """First slot whose (key, jid) is not below (k, j)."""
    lo, hi = 0, size
    while lo < hi:
        mid = (lo + hi) >> 1
        if _lt(key[mid], jid[mid], k, j):
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit(inline=True, nrt=False)
def shift_up(a, lo, hi):
    """a[lo + 1 : hi + 1] = a[lo : hi] (0 <= lo <= hi < len(a))."""
    s = np.uint64(hi)
    end = np.uint64(lo)
    while s > end:
        a[s] = a[s - U1]
        s -= U1


@jit(inline=True, nrt=False)
def shift_down(a, lo, hi, c):
    """a[lo - c : hi - c] = a[lo : hi] (c <= lo <= hi <= len(a))."""
    uc = np.uint64(c)
    for s in range(np.uint64(lo), np.uint64(hi)):
        a[s - uc] = a[s]


@jit(nrt=False)
def insert(key, jid, size, k, j):
    """Insert (k, j); returns the new size."""
    p = locate(key, jid, size, k, j)
    shift_up(key, p, size)
    shift_up(jid, p, size)
    key[p] = k
    jid[p] = j
    return size + 1


@jit(nrt=False)
def remove(key, jid, size, k, j):
    """Remove (k, j), which must be present; returns the new size."""
    p = locate(key, jid, size, k, j)
    shift_down(key, p + 1, size, 1)
    shift_down(jid, p + 1, size, 1)
    return size - 1


@jit(nrt=False)
def replace_front(key, jid, size, c, nkey, njid):
    """Replace the c smallest entries by the c pairs (nkey[njid[k]], njid[k]),
    k < c, given in ascending (key, jid) order; the size is unchanged.

    Why not drop_front and c inserts: each of those shifts the whole array,
    and the new pairs (running jobs' new expected ends, EASY's overrun
    extension) mostly land near the front. One forward merge moves only the
    entries ahead of the last new pair: a read index i runs c slots ahead of
    the write index o until the c-th pair is written, when o == i and the
    rest is already in place."""
    i = c
    o = 0
    for k in range(c):
        j = njid[k]
        kk = nkey[j]
        while i < size and _lt(key[i], jid[i], kk, j):
            key[o] = key[i]
            jid[o] = jid[i]
            o += 1
            i += 1
        key[o] = kk
        jid[o] = j
        o += 1


@jit(nrt=False)
def drop_front(key, jid, size, c):
    """Remove the c smallest entries; returns the new size."""
    if c > 0:
        shift_down(key, c, size, c)
        shift_down(jid, c, size, c)
    return size - c
