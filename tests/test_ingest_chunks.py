"""The SWF tokenizer cut into chunks (one per core, tokenized in threads into
shared arrays) gives exactly what one pass over the whole file gives: on real
traces and on random text with headers, blank lines, bad lines and lines
without a final newline falling at the chunk boundaries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest_support import read_swf
from pipeline.ingest import tokenizer as tk


def _same(a, b):
    (ta, na), (tb, nb) = a, b
    assert na == nb
    assert len(ta) == len(tb)
    ok = ta[3] == tk.OK  # fields after a bad line's problem are never read: compare good lines
    assert np.array_equal(ta[3], tb[3])
    for x, y in zip(ta, tb):
        if isinstance(x, np.ndarray):
            if x.dtype == np.float64:
                assert np.array_equal(x[:, ok], y[:, ok], equal_nan=True)
            elif x.ndim == 2:  # ints: rows of float fields are never written
                ints = [f for f in range(tk.NFIELDS) if f not in tk.FLOAT_FIELDS]
                assert np.array_equal(x[ints][:, ok], y[ints][:, ok])
            else:
                assert np.array_equal(x, y)
        else:
            assert x == y


@pytest.mark.parametrize("name", ["KTH-SP2-1996-2.1-cln.swf.gz", "wagap-2013.swf.gz", "UniLu-Gaia-2014-2.swf.gz"])
@pytest.mark.parametrize("threads", [2, 3, 7])
def test_chunks_equal_one_pass_on_real_traces(name, threads):
    buf = np.frombuffer(read_swf(name), np.uint8)
    _same(tk.run(buf, threads=threads, chunk_min=1), tk.run(buf, threads=1))


_line = st.one_of(
    st.lists(st.integers(-1, 10**6), min_size=18, max_size=20).map(lambda v: " ".join(map(str, v))),
    st.just(""), st.just("   "), st.just("; Version: 2"), st.just("  ;comment"),
    st.lists(st.integers(0, 99), min_size=1, max_size=17).map(lambda v: "\t".join(map(str, v))),  # too few
    st.just("1 2 x 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18"),  # not a number
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, max_size=30), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.integers(1, 9))
def test_chunks_equal_one_pass_on_random_text(lines, eol, final_newline, threads):
    text = eol.join(lines) + (eol if final_newline else "")
    buf = np.frombuffer(text.encode(), np.uint8)
    _same(tk.run(buf, threads=threads, chunk_min=1), tk.run(buf, threads=1))
