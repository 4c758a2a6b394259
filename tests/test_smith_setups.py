"""Smith, Taylor & Foster's set-up as published: the run-time error over every
prediction event (their Section 3) against a plain-Python twin walking the
events one by one, and the Table 4 text's zero-error FCFS forecast with the
reading generated from it, on a real cut of the CTC log (read straight from
the SWF file, not through ingest)."""

from __future__ import annotations

import gzip

import numpy as np
import polars as pl
import pytest

from conftest import trace_path
from pipeline.reproduce import smith, smith_runs as R
from pipeline.reproduce.core import Section
from pipeline.simulate import kernel

CUT = 1200  # the first jobs of CTC-SP2 1996: a few days, with overruns


def ctc_jobs(n: int) -> pl.DataFrame:
    """The first ``n`` jobs of CTC-SP2 1996, read straight from the SWF file."""
    rows = []
    with gzip.open(trace_path("CTC-SP2-1996-3.1-cln.swf.gz"), "rt") as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            v = [int(float(x)) for x in line.split()]
            rows.append((v[0], v[1], v[3], v[4], v[8], v[1] + v[2] + v[3], v[11], v[12], v[13], v[14], v[15]))
            if len(rows) == n:
                break
    return pl.DataFrame(rows, schema=["job_id", "submit", "run", "nodes", "req", "end", "user_id", "group_id",
                                      "exe_id", "queue_id", "partition_id"], orient="row")


@pytest.fixture(scope="module")
def ctc_cut() -> R.Workload:
    return R.Workload("CTC cut", "ctccut", "CTC", ctc_jobs(CUT), 512, "first jobs of CTC")


def _real_start(a: dict, alg: str) -> np.ndarray:
    pol, bf = R.ALGS[alg]
    return kernel.simulate(a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], a["req"], a["req"], 512,
                           kernel.POLICIES[pol], kernel.BACKFILLS[bf], kernel.OVERRUNS["request"], False)[0]


def naive_events(submit, start, run) -> tuple[list[int], list[int]]:
    """For each job, the later submission instants at which it is queued / running, counted one by one."""
    instants = sorted(set(submit.tolist()))
    queued, running = [0] * len(submit), [0] * len(submit)
    for t in instants:
        for j in range(len(submit)):
            if submit[j] < t <= start[j]:
                queued[j] += 1
            elif start[j] < t < start[j] + run[j]:
                running[j] += 1
    return queued, running


@pytest.mark.parametrize("alg", ["FCFS", "Backfill"])
def test_event_counts_match_the_naive_walk(ctc_cut, alg):
    a = R.arrays(ctc_cut)
    start = _real_start(a, alg)
    q, r = R.event_counts(a["submit"], start, a["run"])
    nq, nr = naive_events(a["submit"], start, a["run"])
    assert q.tolist() == nq and r.tolist() == nr  # job by job
    assert sum(nq) > CUT and sum(nr) > CUT  # jobs really sit in the system across many submissions


def test_request_run_error_over_all_events_is_the_papers_definition(ctc_cut):
    """Maximum run times as predictor: every (submission, job in the system) pair
    counts |request - run|, the job's own submission included; seconds -> minutes."""
    a = R.arrays(ctc_cut)
    got = R.wait_forecast(a, 512, "LWF", a["req"])
    start = _real_start(a, "LWF")
    total, n = 0, 0
    for t in sorted(set(a["submit"].tolist())):
        for j in range(len(a["run"])):
            later = a["submit"][j] < t and (t <= start[j] or t < start[j] + a["run"][j])  # queued or running
            inside = a["submit"][j] == t or later
            if inside:
                total += abs(int(a["req"][j]) - int(a["run"][j]))
                n += 1
    # a job submitted at t counts once at t (its own prediction) even when others share the second
    assert got["events"] == n
    assert got["run_err_events"] == pytest.approx(total / n / 60, rel=1e-12)
    assert got["run_pct_events"] == pytest.approx(100 * total / n / a["run"].mean(), rel=1e-12)
    per_job = np.abs(a["req"] - a["run"]).mean()
    assert abs(got["run_pct_events"] - 100 * per_job / a["run"].mean()) > 1  # not the per-job figure


def test_fcfs_forecast_is_exact_without_overruns_and_the_reading_says_so(ctc_cut):
    """The paper: FCFS forecasts with actual run times have no error. Ours errs only
    because jobs ran past their request; cut every run there and the error is zero."""
    w = ctc_cut
    a = R.arrays(w)
    over = int((a["run"] > a["req"]).sum())
    assert over > 0
    r = R.wait_forecast(a, 512, "FCFS", a["run"])
    k = {**a, "run": np.minimum(a["run"], a["req"])}
    capped = R.wait_forecast(k, 512, "FCFS", k["run"])
    assert capped["wait_err"] == 0 and capped["err_jobs"] == 0
    assert r["err_jobs"] == r["early_jobs"]  # every wrong forecast is too early
    w.facts = {"overran": over, "fcfs_capped": capped}
    s = Section("smith", "t")
    smith._fcfs_exact(s, [w], {(w.key, "actual", "FCFS"): r})
    checks = {c.id: c for c in s.checks()}
    as_run, cut = checks["smith.t4.ctccut.actual.FCFS.wait_err"], checks["smith.t4.ctccut.actual.FCFS.wait_err_capped"]
    assert cut.verdict == "reproduced" and cut.ours == 0
    assert as_run.verdict == ("differs" if r["wait_err"] > 0.01 else "reproduced")
    why = s.blocks[-1].text
    assert f"{over:,} of {CUT:,} jobs ran past their request" in why
    assert f"{r['err_jobs']:,} forecasts were off ({r['early_jobs']:,} of them too early)" in why
    assert f"mean error {r['wait_err']:.2f} min as run" in why
    assert "every erroneous forecast is early" in why and "so that is the whole cause" in why


def test_weighted_template_error_is_the_event_weighted_mean(ctc_cut):
    """The per-algorithm search's objective: |prediction - run| averaged over the
    prediction events (each job weighted by the events it is in), against the
    predictions of the estimate scheme computed separately."""
    from pipeline.estimates.compute import compute
    from pipeline.estimates.search import Evaluator
    from pipeline.estimates.templates import parse_set
    from pipeline.schemes import parse

    jobs = ctc_cut.jobs
    a = R.arrays(ctc_cut)
    q, r = R.event_counts(a["submit"], _real_start(a, "Backfill"), a["run"])
    weights = 1 + q + r
    templates = parse_set("(u,q,abs) (u,n=4,rel) ()")
    est = compute(jobs, parse("smith:set=x"), templates)["est"].cast(pl.Float64).to_numpy()
    est = np.where(np.isnan(est), jobs["req"].to_numpy(), est)
    run = jobs["run"].to_numpy()
    want = sum(w * abs(e - x) for w, e, x in zip(weights.tolist(), est.tolist(), run.tolist())) / weights.sum()
    ones = np.ones(jobs.height, bool)
    assert Evaluator(jobs, ones, weights).error(templates) == pytest.approx(want, rel=1e-9)
    plain = Evaluator(jobs, ones).error(templates)
    assert plain == pytest.approx(np.abs(est - run).mean(), rel=1e-9) and abs(plain - want) > 1  # weights matter


WEEKS_CUT = 12000  # about four weeks of CTC-SP2 1996: the readings' intervals resample weeks


@pytest.fixture(scope="module")
def ctc_weeks() -> R.Workload:
    return R.Workload("CTC weeks", "ctcweeks", "CTC", ctc_jobs(WEEKS_CUT), 512, "first weeks of CTC", ("FCFS",),
                      ("Backfill",))


def test_smith_readings_carry_intervals_over_weeks_rebuilt_by_loops(ctc_weeks):
    """Every Smith-vs-other direction check carries a 95% interval over the weeks of submission
    (paired: the same drawn weeks in both replays). Rebuilt here from the per-job quantities of each
    replay, summed per week in a Python loop, and each of the 2,000 draws (summary/compare.py's) read by
    a loop: the pooled statistic is the check's number, and the percentiles are its interval."""
    from pipeline.estimates.compute import compute
    from pipeline.estimates.templates import parse_set
    from pipeline.schemes import parse
    from pipeline.summary.compare import resample_index

    w = ctc_weeks
    a = R.arrays(w)
    w.templates = tuple(parse_set("(u,q,abs) (u,n=4,rel) ()"))
    est = {}
    for p, spec in R.SPECS.items():
        e = compute(w.jobs, parse(spec), w.templates if p == "smith" else None)["est"].cast(pl.Float64).to_numpy()
        est[p] = np.clip(np.round(np.where(np.isnan(e), a["req"], e)), 0, 2 ** 40).astype(np.int64)
    W = {(w.key, p, "FCFS"): {"run_pct": R.run_error(a, est[p])[1],
                              **R.wait_forecast(a, 512, "FCFS", est[p], w, p, w.templates)} for p in R.PREDICTORS}
    S = {(w.key, p, "Backfill"): R.schedule(a, 512, "Backfill", est[p]) for p in ("smith", "request")}
    s = Section("smith", "t")
    smith._readings(s, [w], W, S)
    checks = {c.id: c for c in s.checks()}
    assert len(checks) == 2 * len(smith.OTHERS) + 1

    week = [(t - int(a["submit"].min())) // (7 * 86400) for t in a["submit"].tolist()]
    n_weeks = max(week) + 1
    assert n_weeks >= 3
    draws = resample_index(n_weeks).tolist()

    def per_week(values) -> list[float]:
        out = [0.0] * n_weeks
        for k, v in zip(week, values):
            out[k] += float(v)
        return out

    def loop_interval(stat) -> tuple[float, float]:
        return tuple(np.percentile([stat(r) for r in draws], [2.5, 97.5]))

    # the week sums from per-job quantities computed here: the schedules' waits, and the request
    # forecast's errors and events (kernel.simulate_forecast called directly)
    def sched_wait(p):
        pol, bf = R.ALGS["Backfill"]
        st = kernel.simulate(a["submit"], a["job_id"], a["run"], a["nodes"], est[p], est[p], a["req"], 512,
                             kernel.POLICIES[pol], kernel.BACKFILLS[bf], kernel.OVERRUNS["request"], False)[0]
        return per_week(st - a["submit"])

    waits = {p: sched_wait(p) for p in ("smith", "request")}
    for p in waits:
        assert S[(w.key, p, "Backfill")]["weeks"]["wait"].tolist() == pytest.approx(waits[p], rel=1e-12)
    st, _, pred, _, _ = kernel.simulate_forecast(a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], a["req"],
                                                 a["req"], 512, kernel.POLICIES["fcfs"], kernel.BACKFILLS["none"],
                                                 kernel.OVERRUNS["request"], est["request"])
    q, rn = R.event_counts(a["submit"], st, a["run"])
    got = W[(w.key, "request", "FCFS")]["weeks"]
    assert got["wait_err"].tolist() == pytest.approx(per_week(np.abs(pred - st)), rel=1e-12)
    assert got["ev_n"].tolist() == per_week(1 + q + rn)
    assert got["ev_err"].tolist() == pytest.approx(per_week(np.abs(est["request"] - a["run"]) * (1 + q + rn)))
    n = per_week([1] * len(week))
    assert got["jobs"].tolist() == n

    # scheduling on Smith's minus on the requests: mean wait (min) of the jobs of the drawn weeks
    c = checks["smith.sched_vs.ctcweeks.request.Backfill"]
    assert c.ours == pytest.approx((sum(waits["smith"]) - sum(waits["request"])) / len(week) / 60, rel=1e-9)
    want = loop_interval(lambda r: (sum(waits["smith"][k] - waits["request"][k] for k in r)
                                    / sum(n[k] for k in r) / 60))
    assert (c.lo, c.hi) == pytest.approx(want, rel=1e-9) and c.interval == smith.WEEKS

    for o in smith.OTHERS:
        rs, ro = W[(w.key, "smith", "FCFS")], W[(w.key, o, "FCFS")]
        # wait-time error in points of the mean wait; both replays schedule on the requests
        c = checks[f"smith.wait_vs.ctcweeks.{o}.FCFS"]
        err = {k: r["weeks"]["wait_err"].tolist() for k, r in (("s", rs), ("o", ro))}
        wait = rs["weeks"]["wait"].tolist()
        assert ro["weeks"]["wait"].tolist() == pytest.approx(wait)  # both schedule on the requests
        assert c.ours == pytest.approx(100 * (sum(err["s"]) - sum(err["o"])) / sum(wait), rel=1e-9)
        want = loop_interval(lambda r: 100 * sum(err["s"][k] - err["o"][k] for k in r) / sum(wait[k] for k in r))
        assert (c.lo, c.hi) == pytest.approx(want, rel=1e-9)
        assert c.lo <= c.ours <= c.hi
        # run-time error over every prediction event, in points of the mean run
        c = checks[f"smith.run_vs.ctcweeks.{o}"]
        ev = {k: (r["weeks"]["ev_err"].tolist(), r["weeks"]["ev_n"].tolist()) for k, r in (("s", rs), ("o", ro))}
        assert sum(ev["s"][1]) == rs["events"] and sum(ev["o"][1]) == ro["events"]
        run = per_week(a["run"])
        assert c.ours == pytest.approx(rs["run_pct_events"] - ro["run_pct_events"], rel=1e-12)

        def run_gap(r):
            pick = lambda x: sum(x[k] for k in r)  # noqa: E731
            return 100 * (pick(ev["s"][0]) / pick(ev["s"][1]) - pick(ev["o"][0]) / pick(ev["o"][1])) / (
                pick(run) / pick(n))

        assert run_gap(range(n_weeks)) == pytest.approx(c.ours, rel=1e-9)
        assert (c.lo, c.hi) == pytest.approx(loop_interval(run_gap), rel=1e-9)
