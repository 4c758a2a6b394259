"""Binary min-heaps on flat int64 arrays, ordered by (key, job index).

Why: the event loops keep running jobs ordered by actual end (and, for
conservative, by the end held in the profile) without Python objects. Each
heap records a job's slot in ``pos`` so a job can be removed from the middle
in O(log n).
"""

from __future__ import annotations

import numpy as np

from ..jit import jit

# Slots are unsigned inside the sift loops: Numba adds wraparound code (a[-1]
# is the last element) to every signed index; see _sorted. Never mix these
# with int64 in arithmetic (Numba would give float64).
U = np.uint64
Z, U1, U2 = np.uint64(0), np.uint64(1), np.uint64(2)


@jit(inline=True, nrt=False)
def _less(key, jid, a, b):
    return key[a] < key[b] or (key[a] == key[b] and jid[a] < jid[b])


@jit(nrt=False)
def _swap(key, jid, pos, a, b):
    ka = key[a]
    ja = jid[a]
    key[a] = key[b]
    jid[a] = jid[b]
    key[b] = ka
    jid[b] = ja
    pos[U(jid[a])] = np.int64(a)
    pos[U(jid[b])] = np.int64(b)


@jit(nrt=False)
def _sift_up(key, jid, pos, i):
    i = U(i)
    while i > Z:
        p = (i - U1) >> U1
        if _less(key, jid, i, p):
            _swap(key, jid, pos, i, p)
            i = p
        else:
            break


@jit(nrt=False)
def _sift_down(key, jid, pos, i, size):
    i = U(i)
    size = U(size)
    while True:
        l = U2 * i + U1
        if l >= size:
            break
        m = l
        r = l + U1
        if r < size and _less(key, jid, r, l):
            m = r
        if _less(key, jid, m, i):
            _swap(key, jid, pos, i, m)
            i = m
        else:
            break


@jit(nrt=False)
def push(key, jid, pos, size, k, j):
    """Insert job j with key k; returns the new size. pos[j] tracks its slot."""
    key[size] = k
    jid[size] = j
    pos[j] = size
    _sift_up(key, jid, pos, size)
    return size + 1


@jit(nrt=False)
def remove_at(key, jid, pos, size, i):
    """Remove the entry in slot i; returns the new size."""
    last = size - 1
    pos[jid[i]] = -1
    if i != last:
        key[i] = key[last]
        jid[i] = jid[last]
        pos[jid[i]] = i
        _sift_down(key, jid, pos, i, last)
        _sift_up(key, jid, pos, i)
    return last


@jit(nrt=False)
def pop(key, jid, pos, size):
    """Remove the minimum; returns the new size (read key[0]/jid[0] before)."""
    return remove_at(key, jid, pos, size, size - size)  # a typed 0: one compiled copy


@jit(nrt=False)
def push_pair(key, val, size, k, v):
    """Min-heap of (key, value) pairs without positions (ties in any order):
    insert; returns the new size."""
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if key[p] <= k:
            break
        key[i] = key[p]
        val[i] = val[p]
        i = p
    key[i] = k
    val[i] = v
    return size + 1


@jit(nrt=False)
def pop_pair(key, val, size):
    """Remove the minimum of a push_pair heap; returns the new size (read key[0]/val[0] before)."""
    last = size - 1
    k = key[last]
    v = val[last]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= last:
            break
        if c + 1 < last and key[c + 1] < key[c]:
            c += 1
        if key[c] >= k:
            break
        key[i] = key[c]
        val[i] = val[c]
        i = c
    if last > 0:
        key[i] = k
        val[i] = v
    return last
