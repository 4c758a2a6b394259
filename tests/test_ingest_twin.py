"""The Numba tokenizer equals its plain-Python twin, job by job, on real traces
(random workloads: test_ingest_roundtrip.py)."""

from __future__ import annotations

import pytest

from ingest_support import read_swf
from naive_swf import naive_jobs
from pipeline.ingest import swf

# header + cleaned, extended SWF without header, no requested times,
# uncleaned OAR log, requested memory filled in
TRACES = ["KTH-SP2-1996-2.1-cln.swf.gz", "wagap-2013.swf.gz", "NASA-iPSC-1993-3.1-cln.swf.gz",
          "UniLu-Gaia-2014-2.swf.gz", "RICC-2010-2.swf.gz"]


@pytest.mark.parametrize("name", TRACES)
def test_tokenizer_matches_naive_reader(name):
    data = read_swf(name)
    if name.startswith("RICC"):  # big: the first 60,000 lines are enough
        data = b"\n".join(data.split(b"\n")[:60_000])
    parsed = swf.parse(data)
    assert parsed.bad == []
    want = naive_jobs(data)
    got = parsed.jobs.to_dicts()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == w, (g, w)
