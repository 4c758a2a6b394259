"""Tang et al.'s checks of the estimates alone carry intervals over months (tang_grid_months).

On SDSC-SP2 with its stored `--grid tang`: the months' sums pooled give the stored grid's numbers
(a second path: estimate_grid was scored over the whole trace at once); one scheme's month sums
rebuilt by a plain loop over the jobs from the estimator's own per-job estimates; and a Fig. 7
check's interval rebuilt from those loop sums and summary/compare.py's draws."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from conftest import ingested_warehouse
from pipeline.estimates import estimate, load_jobs
from pipeline.estimates.compute import compute
from pipeline.estimates.grid import DEFAULT_MIN, scored_jobs
from pipeline.reproduce import tang_figs
from pipeline.reproduce.tang_grid_months import INTERVAL, SUMS, month_sums
from pipeline.schemes import parse
from pipeline.summary.compare import resample_index

TRACE = "SDSC-SP2-1998-4.2-cln"
PASSES = [("user_project_req", "all"), ("user_project_req", "30d"), ("user_project", "all")]


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    w = ingested_warehouse(tmp_path_factory, "tang-months", TRACE)
    estimate(w, TRACE, [], grid="tang")
    return w


@pytest.fixture(scope="module")
def sums(wh):
    con = wh.reader()
    try:
        return month_sums(con, TRACE, PASSES, tang_figs.PCTS)
    finally:
        con.close()


def test_month_sums_pool_to_the_stored_grid(wh, sums):
    con = wh.reader()
    try:
        grid = con.execute("SELECT key_type, win, floor, stat, scored, acc_mean, under_rate, na, oe, ue, be "
                           "FROM estimate_grid WHERE trace = ? AND grid = 'tang'", [TRACE]).fetchall()
    finally:
        con.close()
    stored = {(k, w, f, st): dict(zip(("scored", "acc", "under", "na", "oe", "ue", "be"), v))
              for k, w, f, st, *v in grid}
    assert len(sums.sums) == len(PASSES) * 2 * len(tang_figs.PCTS) == 42
    assert len(sums.months) >= 24
    for scheme, arr in sums.sums.items():
        want = stored[scheme]
        assert arr[0].sum() == want["scored"], scheme
        for num in SUMS[1:]:
            assert sums.pooled(scheme, num) == pytest.approx(want[num], rel=1e-9, abs=1e-12), (scheme, num)


def _loop_sums(wh, spec: str, months: list[str]) -> dict[str, list[float]]:
    """One scheme's month sums by a plain loop over its per-job estimates (Tang Eq. 3 and the classes
    of estimates/accuracy.py, written out again)."""
    con = wh.reader()
    try:
        jobs = scored_jobs(load_jobs(con, TRACE))
        month = dict(con.execute("SELECT job_id, month FROM jobs WHERE trace = ?", [TRACE]).fetchall())
    finally:
        con.close()
    est = compute(jobs, parse(spec), None).join(jobs.select("job_id", "run", "req"), on="job_id")
    out = {k: [0.0] * len(months) for k in SUMS}
    at = {m: i for i, m in enumerate(months)}
    for job_id, e, run, req in est.select("job_id", "est", "run", "req").iter_rows():
        if e is None or run is None:
            continue
        i = at[month[job_id]]
        out["scored"][i] += 1
        out["acc"][i] += 1.0 if e == run else min(e, run) / max(e, run)
        under = e < run
        na = req is not None and e == req
        out["under"][i] += under
        out["na"][i] += na
        out["oe"][i] += (not na) and (not under) and req is not None and e < req
        out["ue"][i] += (not na) and under and run - e < 1800
        out["be"][i] += (not na) and under and run - e >= 1800
    return out


@pytest.mark.parametrize("floor", [0.0, 0.5])
def test_a_schemes_month_sums_equal_a_loop_over_its_jobs(wh, sums, floor):
    spec = f"tang:key=user_project,window=all,stat=p85,floor={floor:g},min={DEFAULT_MIN}"
    want = _loop_sums(wh, spec, sums.months)
    got = sums.sums[("user_project", "all", floor, "p85")]
    for i, k in enumerate(SUMS):
        assert got[i].tolist() == pytest.approx(want[k], rel=1e-9, abs=1e-9), k


def test_fig7_interval_is_a_loop_over_the_drawn_months(wh, sums):
    con = wh.reader()
    try:
        checks = {c.id: c for c in tang_figs.fig7(con, TRACE, "SDSC", sums)}
    finally:
        con.close()
    no = _loop_sums(wh, f"tang:key=user_project,window=all,stat=p85,floor=0,min={DEFAULT_MIN}", sums.months)
    fl = _loop_sums(wh, f"tang:key=user_project,window=all,stat=p85,floor=0.5,min={DEFAULT_MIN}", sums.months)

    def drop(num, r):
        a = sum(no[num][k] for k in r) / sum(no["scored"][k] for k in r)
        b = sum(fl[num][k] for k in r) / sum(fl["scored"][k] for k in r)
        return 100 * (a - b) / a

    draws = resample_index(len(sums.months)).tolist()
    for num, cid in (("under", "tang.fig7.SDSC.p85.under"), ("acc", "tang.fig7.SDSC.p85.acc")):
        c = checks[cid]
        assert c.ours == pytest.approx(drop(num, range(len(sums.months))), rel=1e-9)
        lo, hi = np.percentile([drop(num, r) for r in draws], [2.5, 97.5])
        assert (c.lo, c.hi) == pytest.approx((lo, hi), rel=1e-9) and c.interval == INTERVAL
        assert c.lo <= c.ours <= c.hi
    assert checks["tang.fig7.SDSC.p85.acc_slight"].lo is None  # a bound, not a direction: no interval


def test_no_direction_check_of_the_estimates_lacks_an_interval(wh, sums):
    con = wh.reader()
    try:
        out = tang_figs.fig5(con, TRACE, "SDSC", "user_project_req", True, sums) + tang_figs.fig7(
            con, TRACE, "SDSC", sums)
    finally:
        con.close()
    direction = [c for c in out if c.mode == "direction"]
    assert len(direction) == 1 + 4 + 2 * len(tang_figs.PCTS)
    assert all(c.lo is not None and c.lo <= c.ours <= c.hi for c in direction), [
        (c.id, c.lo, c.ours, c.hi) for c in direction]
    assert pl.Series([c.interval for c in direction]).unique().to_list() == [INTERVAL]
