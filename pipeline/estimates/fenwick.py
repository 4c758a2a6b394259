"""Fenwick (binary indexed) trees laid out in one array, one tree per
category at ``base`` with ``size`` slots: O(log n) insertion and prefix sums
for predictors that ask "the points below / above a value" (Downey's ranks,
Smith's running-time ranges)."""

from __future__ import annotations

import numba as nb


@nb.njit(cache=True)
def fen_add(tree, base, size, pos, v):
    i = pos + 1
    while i <= size:
        tree[base + i - 1] += v
        i += i & (-i)


@nb.njit(cache=True)
def fen_sum(tree, base, pos):
    """Sum of slots 0..pos-1."""
    out = 0.0
    i = pos
    while i > 0:
        out += tree[base + i - 1]
        i -= i & (-i)
    return out
