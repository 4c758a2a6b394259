"""Mu'alem & Feitelson Section 4.4 variants: the "start from scratch" history
against a naive twin job by job (a real cut of CTC read from the SWF file), and
the generated reading against the variants' numbers on the real log."""

from __future__ import annotations

import gzip
import math

import polars as pl
import pytest

from conftest import ingested_warehouse, trace_path
from pipeline.reproduce import mualem_estimates as M
from pipeline.reproduce.core import Checks, Explanation, Section

CUT = 6000
CTC = "CTC-SP2-1996-3.1-cln"


@pytest.fixture(scope="module")
def cut() -> pl.DataFrame:
    rows = []
    with gzip.open(trace_path(f"{CTC}.swf.gz"), "rt") as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            v = [int(float(x)) for x in line.split()]
            submit, wait, run = v[1], v[2], v[3]
            rows.append((v[0], submit, submit + wait + run if run >= 0 and wait >= 0 else None,
                         run if run >= 0 else None, v[8], v[13] if v[13] >= 0 else None, v[11], v[4], v[10]))
            if len(rows) == CUT:
                break
    return pl.DataFrame(rows, schema=["job_id", "submit", "end", "run", "req", "exe_id", "user_id", "nodes",
                                      "status"], orient="row")


def naive_reset(jobs: pl.DataFrame) -> dict[int, tuple[int, float, float]]:
    """Per job: the earlier ends of its key (an end at the submission instant counts,
    as ends come first), kept back to the first gap of more than a week, and dropped
    altogether when the newest is more than a week before the submission."""
    ends: dict[tuple, list[tuple[int, float]]] = {}
    for r in jobs.iter_rows(named=True):
        if None not in (r["exe_id"], r["user_id"], r["nodes"], r["run"], r["end"]):
            t = 2 * r["end"] + (1 if r["end"] == r["submit"] else 0)
            ends.setdefault((r["exe_id"], r["user_id"], r["nodes"]), []).append((t, float(r["run"])))
    out = {}
    for r in jobs.iter_rows(named=True):
        if None in (r["exe_id"], r["user_id"], r["nodes"]):
            continue
        s = 2 * r["submit"]
        prior = sorted(e for e in ends.get((r["exe_id"], r["user_id"], r["nodes"]), []) if e[0] <= s)
        if not prior or s - prior[-1][0] > 2 * M.WEEK:
            continue
        i = len(prior) - 1
        while i > 0 and prior[i][0] - prior[i - 1][0] <= 2 * M.WEEK:
            i -= 1
        runs = [v for _, v in prior[i:]]
        mean = sum(runs) / len(runs)
        out[r["job_id"]] = (len(runs), mean, math.sqrt(max(sum(x * x for x in runs) / len(runs) - mean * mean, 0)))
    return out


def test_reset_history_matches_the_naive_twin(cut):
    got = {r[0]: r[1:] for r in M.reset_stats(cut).iter_rows()}
    want = naive_reset(cut)
    assert got.keys() == want.keys() and len(want) > CUT / 3
    for j, (n, mean, sd) in want.items():
        gn, gm, gs = got[j]
        assert gn == n and gm == pytest.approx(mean, rel=1e-12) and gs == pytest.approx(sd, rel=1e-6, abs=1e-6), j
    # the reset differs from a rolling week: some job keeps an end older than a week
    rolling = {r[0]: r[1] for r in M._window(cut, pl.col("run").is_not_null(), M.WEEK).iter_rows()}
    assert any(n > rolling.get(j, 0) for j, (n, _, _) in want.items())


@pytest.mark.slow
def test_variants_reading_agrees_with_the_numbers(tmp_path_factory):
    wh = ingested_warehouse(tmp_path_factory, "s44", CTC)
    con = wh.reader()
    try:
        v = M.run_variants(con, CTC)
        s = Section("mualem", "t")
        M.add_section(s, con, CTC, [])
    finally:
        con.close()
    o, u, w = v["ours"], v["uncapped"], v["whole"]
    # the fallback cannot move a job with history; the cap only lowers estimates
    assert w["under_hist"] == u["under_hist"] and o["under_hist"] >= u["under_hist"]
    assert w["hist"] == u["hist"] == o["hist"] and w["under"] >= u["under"]
    checks = {c.id: c for b in s.blocks if isinstance(b, Checks) for c in b.checks}
    c = checks["mualem.s44.CTC.published_setup.under_among_history_pct"]
    assert c.ours == pytest.approx(100 * w["under_hist"] / w["hist"]) and c.paper == pytest.approx(100 * 6240 / 45159)
    why = next(b for b in s.blocks if isinstance(b, Explanation)).text
    assert f"{o['under_among_history_pct']:.1f}% are underestimated with our set-up" in why
    assert f"treatment of jobs without history by {w['under_among_history_pct'] - u['under_among_history_pct']:+.1f}" in why
    assert f"{u['under_single']:,} of {u['single']:,} such jobs are underestimated" in why
    best = min(v, key=lambda k: abs(v[k]["under_among_history_pct"] - c.paper))
    assert f"'{M.VARIANTS[best]}'" in why
    # the decisive runs: the near misses and the whole log known at once, each a check its sentence quotes
    m1, ts = v["margin_1min"], v["two_sided"]
    assert checks["mualem.s44.CTC.margin_1min.under_among_history_pct"].ours == pytest.approx(
        100 * m1["under_hist"] / m1["hist"])
    assert checks["mualem.s44.CTC.two_sided.with_history_pct"].ours == pytest.approx(ts["with_history_pct"])
    assert f"gives {m1['under_among_history_pct']:.1f}% " in why
    assert f"({u['under_hist_within_1min']:,} of {u['under_hist']:,})" in why
    assert f"puts {ts['with_history_pct']:.1f}% of the jobs 'with history'" in why
    assert m1["under_hist"] < u["under_hist"] and m1["hist"] == u["hist"]


def naive_two_sided(jobs: pl.DataFrame) -> dict[int, tuple[int, float, float]]:
    """Per job: the runs of every other job of its key submitted within a week before or after it."""
    by: dict[tuple, list[tuple[int, int, float]]] = {}
    for r in jobs.iter_rows(named=True):
        if None not in (r["exe_id"], r["user_id"], r["nodes"]) and r["run"] is not None and r["run"] >= 0:
            by.setdefault((r["exe_id"], r["user_id"], r["nodes"]), []).append((r["job_id"], r["submit"],
                                                                                float(r["run"])))
    out = {}
    for r in jobs.iter_rows(named=True):
        if None in (r["exe_id"], r["user_id"], r["nodes"]):
            continue
        runs = [v for j, t, v in by.get((r["exe_id"], r["user_id"], r["nodes"]), [])
                if j != r["job_id"] and abs(t - r["submit"]) <= M.WEEK]
        if runs:
            mean = sum(runs) / len(runs)
            out[r["job_id"]] = (len(runs), mean,
                                math.sqrt(max(sum(x * x for x in runs) / len(runs) - mean * mean, 0)))
    return out


def test_two_sided_history_matches_the_naive_twin(cut):
    got = {r[0]: r[1:] for r in M.two_sided_stats(cut).iter_rows()}
    want = naive_two_sided(cut)
    assert got.keys() == want.keys() and len(want) > CUT / 3
    for j, (n, mean, sd) in want.items():
        gn, gm, gs = got[j]
        assert gn == n and gm == pytest.approx(mean, rel=1e-9) and gs == pytest.approx(sd, rel=1e-6, abs=1e-3), j
    # later runs count: some job has more history two-sided than from its past alone
    past = {r[0]: r[1] for r in M._window(cut, pl.col("run").is_not_null(), M.WEEK).iter_rows()}
    assert any(n > past.get(j, 0) for j, (n, _, _) in want.items())


def test_margin_counts_only_misses_beyond_it(cut):
    """The margin variants by hand: a job with history is underestimated beyond m seconds when run - est > m."""
    week = M._window(cut, pl.col("run").is_not_null(), M.WEEK)
    f = (cut.join(week, on="job_id", how="left").filter((pl.col("run") >= 0) & ~pl.col("status").is_in([0, 5])
                                                          & (pl.col("n").fill_null(0) > 0)))
    excess = [r - (m + M.SD * s) for r, m, s in zip(f["run"], f["mean"], f["std"])]
    for name, margin in M.MARGINS.items():
        got = M._score(cut, week, False, None, margin=margin)
        assert got["hist"] == f.height
        assert got["under_hist"] == sum(e > margin for e in excess), name
    base = M._score(cut, week, False, None)
    assert base["under_hist_within_1min"] == sum(0 < e <= 60 for e in excess)
    assert base["under_hist"] > M._score(cut, week, False, None, margin=60.0)["under_hist"]
