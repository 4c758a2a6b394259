"""Availability profile for conservative backfilling, as two sorted arrays.

Segment i covers [pt[i], pt[i+1]) with pu[i] nodes in use; the last segment
runs to infinity with nothing in use. Adjacent segments never carry the same
usage (they are merged), so the profile has at most one breakpoint per
interval end: O(running + waiting) entries, scanned linearly (Mu'alem &
Feitelson Section 2.1).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, _nrt=False)
def seg(pt, m, x):
    """Index of the segment containing x (pt[0] <= x)."""
    lo, hi = 0, m - 1
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if pt[mid] <= x:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True, _nrt=False)
def _split(pt, pu, m, x):
    """Make x a breakpoint; returns (its segment index, new size)."""
    i = seg(pt, m, x)
    if pt[i] == x:
        return i, m
    for k in range(m, i + 1, -1):
        pt[k] = pt[k - 1]
        pu[k] = pu[k - 1]
    pt[i + 1] = x
    pu[i + 1] = pu[i]
    return i + 1, m + 1


@njit(cache=True, _nrt=False)
def _drop(pt, pu, m, i):
    for k in range(i, m - 1):
        pt[k] = pt[k + 1]
        pu[k] = pu[k + 1]
    return m - 1


@njit(cache=True, _nrt=False)
def add(pt, pu, m, s, e, dn):
    """Add dn nodes in use over [s, e) (clipped to the profile's start); returns size."""
    if s < pt[0]:
        s = pt[0]
    if e <= s or dn == 0:
        return m
    i, m = _split(pt, pu, m, s)
    j, m = _split(pt, pu, m, e)
    for k in range(i, j):
        pu[k] += dn
    if pu[j] == pu[j - 1]:
        m = _drop(pt, pu, m, j)
    if i > 0 and pu[i] == pu[i - 1]:
        m = _drop(pt, pu, m, i)
    return m


@njit(cache=True, _nrt=False)
def prune(pt, pu, m, t):
    """Forget the past: the profile starts at t."""
    i = seg(pt, m, t)
    if i > 0:
        for k in range(i, m):
            pt[k - i] = pt[k]
            pu[k - i] = pu[k]
        m -= i
    pt[0] = t
    return m


@njit(cache=True, _nrt=False)
def find(pt, pu, m, t, n, d, capacity):
    """Earliest anchor s >= t with n nodes free over [s, s + d) (d >= 1)."""
    j = seg(pt, m, t)
    s = t
    limit = capacity - n
    while True:
        k = j
        e = s + d
        ok = True
        while k < m and pt[k] < e:
            if pu[k] > limit:
                ok = False
                break
            k += 1
        if ok:
            return s
        j = k + 1  # the last segment is empty, so k < m - 1 here
        s = pt[j]
