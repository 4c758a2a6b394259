"""Running jobs as a sorted array of (expected end, job index).

Why not a heap: the EASY shadow walk visits running jobs in expected-end
order at almost every pass; on a sorted array that is a linear scan, and the
O(running) shift on insert/remove is a cheap memmove for the hundreds of jobs
a machine runs at once.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always", _nrt=False)
def _lt(ka, ja, kb, jb):
    return ka < kb or (ka == kb and ja < jb)


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def insert(key, jid, size, k, j):
    """Insert (k, j); returns the new size."""
    p = locate(key, jid, size, k, j)
    for s in range(size, p, -1):
        key[s] = key[s - 1]
        jid[s] = jid[s - 1]
    key[p] = k
    jid[p] = j
    return size + 1


@njit(cache=True, _nrt=False)
def remove(key, jid, size, k, j):
    """Remove (k, j), which must be present; returns the new size."""
    p = locate(key, jid, size, k, j)
    for s in range(p, size - 1):
        key[s] = key[s + 1]
        jid[s] = jid[s + 1]
    return size - 1


@njit(cache=True, _nrt=False)
def drop_front(key, jid, size, c):
    """Remove the c smallest entries; returns the new size."""
    for s in range(c, size):
        key[s - c] = key[s]
        jid[s - c] = jid[s]
    return size - c
