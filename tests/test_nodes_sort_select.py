"""The node loop's in-place sort and selection (pipeline/simulate/_nodes.py: ``_sort_keys``, ``_kth``),
which replace np.sort and np.partition inside the loop compiled without reference counting, against
NumPy on random arrays: short (insertion sort) and long (radix sort), wide and narrow spans, negatives,
duplicates."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from pipeline.simulate._nodes import _kth, _sort_keys

VALUES = st.one_of(st.integers(-5, 5), st.integers(0, 10**6), st.integers(-(2**40), 2**40))


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, max_size=400), st.integers(0, 5))
def test_sort_keys_sorts_the_prefix_as_numpy_does(values, tail):
    a = np.array(values + [7] * tail, np.int64)
    n = len(values)
    want = np.sort(a[:n])
    rest = a[n:].copy()
    _sort_keys(a, np.zeros(len(a), np.int64), np.zeros(2048, np.int64), n)
    assert (a[:n] == want).all() and (a[n:] == rest).all()


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=400), st.data())
def test_kth_is_numpys_partition_value(values, data):
    a = np.array(values, np.int64)
    k = data.draw(st.integers(0, len(a) - 1))
    want = np.partition(a, k)[k]
    got = _kth(a.copy(), len(a), k)
    assert got == want
