"""How a study's runs are dealt to local workers: runs sharing inputs go to
one worker in pieces, so each input set is loaded once, and there are still
enough pieces to keep every worker busy. Checked here on the whole-list form
(tests/study_support.chunks); tests/test_study_stream.py checks that
pipeline.simulate.executors.Dealer, which the workers are fed by, cuts the
same pieces."""

from __future__ import annotations

from hypothesis import given, strategies as st

from pipeline.simulate.tasks import SimTask
from study_support import chunks


def _tasks(groups: list[int]) -> list[SimTask]:
    return [SimTask("/wh", f"T{g % 2}", "{}", f"sha{g}", f"run{g}-{i}")
            for g, size in enumerate(groups) for i in range(size)]


@given(groups=st.lists(st.integers(1, 30), min_size=1, max_size=30), n=st.integers(1, 8))
def test_chunks_cover_every_task_once_in_order_and_never_mix_inputs(groups, n):
    tasks = _tasks(groups)
    out = chunks(tasks, n)
    assert [t for c in out for t in c] == tasks
    most = max(1, len(tasks) // (4 * n))
    for c in out:
        assert 1 <= len(c) <= most
        assert len({(t.trace, t.in_sha) for t in c}) == 1
    # a group is cut only where the size limit says so
    for a, b in zip(out, out[1:]):
        if (a[0].trace, a[0].in_sha) == (b[0].trace, b[0].in_sha):
            assert len(a) == most


def test_the_sweep_deals_one_piece_per_input_set():
    """bench/sweep.py's shape: 25 input sets of 8 runs, 2 workers -> 25 pieces of 8."""
    out = chunks(_tasks([8] * 25), 2)
    assert [len(c) for c in out] == [8] * 25


def test_one_input_set_still_feeds_every_worker():
    out = chunks(_tasks([8]), 2)
    assert len(out) == 8
