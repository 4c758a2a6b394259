"""Tang Fig. 2 (mean R by quarter) on SDSC-SP2: `walltime characterize` run for
real, then the checks and the sentence compared with quarters recomputed in
plain Python from the jobs table."""

from __future__ import annotations

import statistics

import pytest

from conftest import ingested_warehouse, run_cli
from pipeline.reproduce import tang_quarters as TQ
from pipeline.reproduce.common import SDSC
from pipeline.reproduce.core import Checks, Section, Text


@pytest.mark.slow
def test_fig2_quarters_agree_with_the_jobs(tmp_path_factory):
    wh = ingested_warehouse(tmp_path_factory, "fig2", SDSC)
    r = run_cli("characterize", SDSC, "--json", warehouse=wh.root)
    assert r.returncode == 0, r.stderr
    con = wh.reader()
    try:
        jobs = con.execute("SELECT month, run, req FROM jobs WHERE trace = ?", [SDSC]).fetchall()
        s = Section("tang", "t")
        TQ.fig2(s, con, SDSC)
    finally:
        con.close()
    by_q: dict[str, list[float]] = {}
    for month, run, req in jobs:
        if req and req > 0 and run is not None and run >= 0 and month:
            q = f"{month[:4]}-Q{(int(month[5:7]) + 2) // 3}"
            by_q.setdefault(q, []).append(min(run, req) / req)
    means = {q: statistics.fmean(v) for q, v in by_q.items()}
    lo, hi = min(means, key=means.get), max(means, key=means.get)
    checks = {c.id: c for b in s.blocks if isinstance(b, Checks) for c in b.checks}
    assert checks["tang.fig2.SDSC.lowest"].ours == pytest.approx(means[lo], abs=5e-4)  # the view rounds to 3 digits
    assert checks["tang.fig2.SDSC.highest"].ours == pytest.approx(means[hi], abs=5e-4)
    every = [x for v in by_q.values() for x in v]
    assert checks["tang.fig2.SDSC.std_r"].ours == pytest.approx(statistics.stdev(every), abs=5e-3)
    text = next(b.text for b in s.blocks if isinstance(b, Text))
    inside = sum(0.42 <= round(m, 3) <= 0.59 for m in means.values())
    assert f"over {len(means)} quarters the mean R runs from {means[lo]:.2f} ({lo}) to {means[hi]:.2f} ({hi})" in text
    assert f"{inside} of {len(means)} quarters fall inside the paper's range" in text
