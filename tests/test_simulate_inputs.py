"""The stage's array steps in isolation: estimate rounding, load scaling,
month segments, the canonical config (fast; no warehouse)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import WalltimeError
from pipeline.simulate import make_config
from pipeline.simulate.inputs import EST_CAP, Inputs, est_seconds
from pipeline.simulate.transforms import month_segments, scale_load


def test_estimates_round_up_and_fall_back_to_request():
    est = np.array([0.0, 0.2, 1.0, 59.5, np.nan, -1.0, np.inf, 3e20])
    req = np.array([5, 5, 5, 5, 7, 8, 9, 9], np.int64)
    out, missing = est_seconds(est, req)
    assert out.tolist() == [0, 1, 1, 60, 7, 8, EST_CAP, EST_CAP]
    assert missing == 2


def _inputs(submit, job_id, month_idx):
    n = len(submit)
    z = np.ones(n, np.int64)
    return Inputs(job_id=np.array(job_id, np.int64), submit=np.array(submit, np.int64), run=z, nodes=z,
                  req=z, est_wait=z, est_run=z, month_idx=np.array(month_idx, np.int64),
                  months=[f"2000-{m + 1:02d}" for m in range(max(month_idx) + 1)])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 50)), min_size=1, max_size=60, unique_by=lambda x: x[1]),
       st.sampled_from([0.1, 0.33, 0.5, 0.7, 1.0, 1.5, 3.0]))
def test_load_factor_formula_and_order(jobs, f):
    jobs.sort()
    inp = _inputs([s for s, _ in jobs], [j for _, j in jobs], [min(s // 3000, 3) for s, _ in jobs])
    out = scale_load(inp, f)
    first = min(s for s, _ in jobs)
    want = sorted((first + int(np.floor((s - first) * f)), j) for s, j in jobs)
    assert list(zip(out.submit.tolist(), out.job_id.tolist())) == want
    # every other column travels with its job
    months = dict(zip(inp.job_id.tolist(), inp.month_idx.tolist()))
    assert [months[j] for j in out.job_id.tolist()] == out.month_idx.tolist()


def test_month_segments_keep_loop_order_even_when_interleaved():
    inp = _inputs([0, 1, 1, 2, 5], [1, 2, 3, 4, 5], [0, 1, 0, 1, 2])
    segs = month_segments(inp)
    assert [(m, idx.tolist()) for m, idx in segs] == [(0, [0, 2]), (1, [1, 3]), (2, [4])]


def test_canonical_config_is_spelling_independent():
    a = make_config(policy="WFP", estimate="tang:stat=p85,key=user,window=30d").with_capacity(100)
    b = make_config(policy="wfp", estimate="tang:user,30d,p85").with_capacity(100)
    assert a.canonical() == b.canonical()
    assert '"estimate":"tang:floor=0.5,key=user,min=10,stat=p85,window=30d"' in a.canonical()


@pytest.mark.parametrize("kw,msg", [
    ({"policy": "lifo"}, "--policy"), ({"backfill": "x"}, "--backfill"), ({"adjust": "x"}, "--adjust"),
    ({"overrun": "x"}, "--overrun"), ({"split": "week"}, "--split"), ({"load_factor": -1}, "--load-factor"),
    ({"load_factor": float("nan")}, "--load-factor"), ({"capacity": 0}, "--capacity"),
    ({"estimate": "tang:key=user"}, "--estimate"),
])
def test_bad_options_name_the_option(kw, msg):
    with pytest.raises(WalltimeError, match=msg):
        make_config(**kw)
