"""Tang et al.'s checks of the estimates alone carry intervals over months (tang_estimate_months).

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
from pipeline.reproduce.tang_estimate_months import INTERVAL, SUMS, month_sums
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


def test_table2_spread_interval_rebuilt_from_the_jobs_by_a_loop(wh):
    """Table 2's 'finer keys group more alike jobs': avg std of R within key 'all' minus within the
    triple key. With every group once it is characterize_keys' figure; each draw of the triple key's
    groups (summary/compare.py's draws) is rebuilt here from the jobs themselves, a drawn group's
    jobs repeated as often as it is drawn, with statistics.stdev."""
    import statistics

    from pipeline.characterize import characterize
    from pipeline.reproduce import tang_estimate_months as M

    characterize(TRACE, wh)
    con = wh.reader()
    try:
        stored = dict(con.execute("SELECT key_type, avg_std_r FROM characterize_keys WHERE trace = ?",
                                  [TRACE]).fetchall())
        jobs = con.execute("SELECT user_id, group_id, req, least(run, req) / req::DOUBLE FROM jobs "
                           "WHERE trace = ? AND req > 0 AND run >= 0 AND NOT cut_short(state, wait, run)",
                           [TRACE]).fetchall()
        pooled, kw = M.key_spread(con, TRACE, "user_project_req")
    finally:
        con.close()
    assert pooled == pytest.approx(stored["all"] - stored["user_project_req"], rel=1e-9)
    assert kw["interval"] == M.GROUPS and kw["lo"] <= pooled <= kw["hi"] and kw["lo"] < kw["hi"]

    groups: dict = {}
    loose = []  # jobs no triple group holds: in the whole's std of every draw
    for u, g, q, r in jobs:
        if u is None or g is None:
            loose.append(r)
        else:
            groups.setdefault(f"{u}/{g}/{q}", []).append(r)
    names = sorted(groups)  # the SQL's order: ORDER BY grp
    draws = resample_index(len(names))

    def spread(row) -> float:
        drawn = [groups[names[k]] for k in row]
        whole = [r for jobs_ in drawn for r in jobs_] + loose
        sds = [statistics.stdev(v) for v in drawn if len(v) >= M.MIN_GROUP]
        return statistics.stdev(whole) - sum(sds) / len(sds)

    assert spread(range(len(names))) == pytest.approx(pooled, rel=1e-9)
    rows = draws.tolist()
    counts = np.zeros((len(rows), len(names)))
    for i, row in enumerate(rows):
        for k in row:
            counts[i, k] += 1
    con = wh.reader()
    try:
        frames = {k: pl.from_arrow(con.sql(M.load("reproduce_r_key_groups"), params=[TRACE, k]).to_arrow_table())
                  for k in ("all", "user_project_req")}
    finally:
        con.close()
    assert frames["user_project_req"]["grp"].to_list() == names
    fast = M.spread_draws(frames["all"], frames["user_project_req"], counts)
    assert (kw["lo"], kw["hi"]) == pytest.approx(tuple(np.percentile(fast, [2.5, 97.5])), rel=1e-12)
    for i in range(5):  # a few draws by hand: the same numbers
        assert fast[i] == pytest.approx(spread(rows[i]), rel=1e-9), i


def test_pooled_weighted_wait_gain_interval_from_eq4_sums_by_month(wh):
    """Figs. 15(d)/17(d) pooled: the weighted-wait gain of selective p85 over the requests, Eq. 4 over
    the whole trace. Its month sums (sql/reproduce_tang_ww_months.sql) rebuilt from the runs' jobs with
    the naive metrics' eq4_weight; all months pooled give run_metrics' whole-trace figure; the interval
    is a loop over the drawn months."""
    from naive_metrics import eq4_weight
    from pipeline.reproduce import tang
    from pipeline.reproduce.common import rows

    tang.compute(wh, {TRACE: None}, True)
    con = wh.reader()
    try:
        sums = rows(con, tang.load("reproduce_tang_ww_months"), [TRACE])
        jobs = rows(con, "SELECT p.policy, p.role, s.month, s.submit, s.start, s.req, s.nodes FROM report_plan_runs p "
                         "JOIN sim_jobs s ON s.run_id = p.run_id WHERE p.experiment = 'tang' AND p.trace = ? "
                         "AND (p.role = 'original' OR (p.role = 'p85' AND p.adjust = 'selective'))", TRACE)
        whole = {(r["policy"], r["role"]): r["weighted_wait"] for r in rows(
            con, "SELECT policy, role, weighted_wait FROM report_run_months WHERE experiment = 'tang' AND "
                 "month = 'all' AND trace = ? AND (role = 'original' OR (role = 'p85' AND adjust = 'selective'))",
            TRACE)}
    finally:
        con.close()
    want: dict = {}
    for j in jobs:
        w = eq4_weight(j, j["policy"])
        num, den = want.get((j["policy"], j["role"], j["month"]), (0.0, 0.0))
        want[(j["policy"], j["role"], j["month"])] = (num + (j["start"] - j["submit"]) * w, den + w)
    got = {(r["policy"], r["role"], r["month"]): (r["num"], r["den"]) for r in sums}
    assert set(got) == set(want) and len({k[:2] for k in got}) == 4
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-9), k
    for pol in ("wfp", "fcfs"):
        base = {m: v for (p, r, m), v in want.items() if p == pol and r == "original"}
        other = {m: v for (p, r, m), v in want.items() if p == pol and r == "p85"}
        months = sorted(set(base) & set(other))
        assert len(months) >= 20

        def gain(r):
            b = sum(base[months[k]][0] for k in r) / sum(base[months[k]][1] for k in r)
            o = sum(other[months[k]][0] for k in r) / sum(other[months[k]][1] for k in r)
            return 100 - 100 * o / b

        assert gain(range(len(months))) == pytest.approx(100 - 100 * whole[(pol, "p85")] / whole[(pol, "original")],
                                                         rel=1e-9)
        lo, hi = tang._pooled_ww_interval({m: got[(pol, "original", m)] for m in months},
                                          {m: got[(pol, "p85", m)] for m in months})
        want_iv = np.percentile([gain(r) for r in resample_index(len(months)).tolist()], [2.5, 97.5])
        assert (lo, hi) == pytest.approx(tuple(want_iv), rel=1e-9)
        assert lo <= gain(range(len(months))) <= hi
