"""Availability profile for conservative backfilling, as two sorted arrays.

Segment i covers [pt[i], pt[i+1]) with pu[i] nodes in use; the last segment
runs to infinity with nothing in use. Adjacent segments never carry the same
usage (they are merged), so the profile has at most one breakpoint per
interval end: O(running + waiting) entries, scanned linearly (Mu'alem &
Feitelson Section 2.1).
"""

from __future__ import annotations

from ..jit import jit


@jit(nrt=False)
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


@jit(nrt=False)
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


@jit(nrt=False)
def _drop(pt, pu, m, i):
    for k in range(i, m - 1):
        pt[k] = pt[k + 1]
        pu[k] = pu[k + 1]
    return m - 1


@jit(nrt=False)
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


@jit(nrt=False)
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


@jit(nrt=False)
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


@jit(nrt=False)
def find_without(pt, pu, m, t, n, d, capacity, a0, e0):
    """``find`` for a job that holds n nodes over [a0, e0) in the profile, as if
    that hold were removed: the same anchor as removing it and calling find
    (the earliest s >= t with n nodes free over [s, s + d) of the same usage),
    without rewriting the profile. Compression re-places every waiting job and
    most stay where they were; those cost one scan instead of two rewrites and
    a scan. The hold's ends may be merged away, so a segment is read as up to
    three pieces: before a0, inside the hold (n fewer in use), after e0."""
    k = seg(pt, m, t)
    s = t
    limit = capacity - n
    while True:
        e = s + d
        x = s
        while x < e:
            q = pt[k + 1] if k + 1 < m else e  # the last segment is empty and runs on
            if x < a0:
                pe = min(q, a0)
                u = pu[k]
            elif x < e0:
                pe = min(q, e0)
                u = pu[k] - n
            else:
                pe = q
                u = pu[k]
            if u > limit:
                break
            x = pe
            if x >= q:
                k += 1
        else:
            return s
        s = pe  # every start before the end of the piece that did not fit overlaps it
        if pe >= q:
            k += 1
