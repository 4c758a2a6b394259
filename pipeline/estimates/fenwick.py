"""Fenwick (binary indexed) trees laid out in one array, one tree per
category at ``base`` with ``size`` slots: O(log n) insertion and prefix sums
for predictors that ask "the points below / above a value" (Downey's ranks,
Smith's and Gibbons' running-time ranges)."""

from __future__ import annotations

import numpy as np

from ..jit import jit


@jit
def fen_add(tree, base, size, pos, v):
    i = pos + 1
    while i <= size:
        tree[base + i - 1] += v
        i += i & (-i)


@jit
def fen_sum(tree, base, pos):
    """Sum of slots 0..pos-1."""
    out = 0.0
    i = pos
    while i > 0:
        out += tree[base + i - 1]
        i -= i & (-i)
    return out


@jit
def fen_insert(fc, fs, fss, base, size, pos, x):
    """One point of (centred) value x at slot pos: count, sum and sum of squares."""
    fen_add(fc, base, size, pos, 1.0)
    fen_add(fs, base, size, pos, x)
    fen_add(fss, base, size, pos, x * x)


@jit
def fen_at_least(fc, fs, fss, base, size, srun, low, n, s, ss):
    """(count, sum, sum of squares) of a category's points whose run is >= low,
    from its totals (n, s, ss) less the prefix of runs below low (srun: the
    category's runs in slot order, at ``base``)."""
    p = np.searchsorted(srun[base:base + size], low)
    return n - int(fen_sum(fc, base, p) + 0.5), s - fen_sum(fs, base, p), ss - fen_sum(fss, base, p)


def run_slots(cat: np.ndarray, rows: np.ndarray, run: np.ndarray, ncat: int) -> tuple:
    """(rows in (category, run) order, each one's slot within its category, category sizes):
    where each point of ``rows`` sits in its category's Fenwick trees."""
    order = rows[np.lexsort((run[rows], cat[rows]))]
    size = np.bincount(cat[order], minlength=ncat)
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    return order, np.arange(len(order)) - first[cat[order]], size
