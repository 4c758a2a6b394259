"""Fast estimators vs their naive twins (tests/naive_estimates.py), job by job,
on random workloads (hypothesis) and on KTH-SP2 and SDSC-SP2; plus the
no-peeking property: jobs submitted at or after j never change j's estimate."""

from __future__ import annotations

import math
import random

import polars as pl
import pytest
from conftest import trace_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive_estimates as N
from pipeline.estimates import load_jobs
from pipeline.estimates.accuracy import score
from pipeline.estimates.compute import compute
from pipeline.estimates.grid import _one_pass
from pipeline.ingest import ingest
from pipeline.schemes import KEYS, STATS, WINDOWS, parse
from pipeline.warehouse import Warehouse
from test_estimates import SCHEMA

UNITS = (1, 600, 43200)  # seconds per time unit: ties, minutes, half days (windows bite)


@st.composite
def workloads(draw):
    unit = draw(st.sampled_from(UNITS))
    n = draw(st.integers(1, 40))
    maybe = lambda s: st.one_of(st.none(), s)  # noqa: E731
    jobs = []
    for i in range(n):
        submit = draw(st.integers(0, 400)) * unit
        wait = draw(maybe(st.integers(0, 30)))
        run = draw(maybe(st.integers(0, 40)))
        req = draw(st.one_of(st.none(), st.just(0), st.integers(1, 50)))
        jobs.append({
            "job_id": 1000 + i,
            "submit": submit,
            "run": None if run is None else run * unit,
            "req": None if not req else req * unit,
            "end": None if wait is None or run is None else submit + (wait + run) * unit,
            "user_id": draw(maybe(st.integers(1, 3))),
            "group_id": draw(maybe(st.integers(1, 2))),
            "exe_id": draw(maybe(st.integers(1, 2))),
            "nodes": draw(maybe(st.integers(1, 2))),
        })
    return jobs


@st.composite
def specs(draw):
    name = draw(st.sampled_from(["tang", "tang", "tang", "klusacek", "ave2", "feitelson",
                                 "request", "actual", "factor", "uniform", "model"]))
    if name == "tang":
        return (f"tang:key={draw(st.sampled_from(KEYS))},window={draw(st.sampled_from(WINDOWS))},"
                f"stat={draw(st.sampled_from(STATS))},floor={draw(st.sampled_from(['0', '0.5', '0.9']))},"
                f"min={draw(st.integers(0, 4))}")
    if name == "klusacek":
        return f"klusacek:last={draw(st.integers(1, 6))}"
    if name == "feitelson":
        return f"feitelson:sd={draw(st.sampled_from(['0', '1.5', '3']))},horizon={draw(st.sampled_from(['1h', '2d', '7d']))}"
    if name == "factor":
        return f"factor:f={draw(st.sampled_from(['0.5', '2']))}"
    if name == "uniform":
        return f"uniform:f={draw(st.sampled_from(['1', '4', '11']))},seed={draw(st.integers(0, 3))}"
    if name == "model":
        return f"model:seed={draw(st.integers(0, 3))}"
    return name


def fast(jobs, spec) -> dict:
    out = compute(pl.DataFrame(jobs, schema=SCHEMA), parse(spec))
    return {r["job_id"]: (r["est"], r["hist"]) for r in out.to_dicts()}


def same(a, b) -> bool:
    (ea, ha), (eb, hb) = a, b
    if ha != hb or (ea is None) != (eb is None):
        return False
    return ea is None or math.isclose(ea, eb, rel_tol=1e-9, abs_tol=1e-6)


def assert_twins(jobs, spec, targets=None):
    got = fast(jobs, spec)
    want = N.estimate(jobs, parse(spec), targets)
    bad = [(jid, want[jid], got[jid]) for jid in want if not same(want[jid], got[jid])]
    assert not bad, f"{spec}: {len(bad)} jobs differ, first: {bad[:3]}"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), specs())
def test_fast_matches_naive_on_random_workloads(jobs, spec):
    assert_twins(jobs, spec)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.lists(specs(), min_size=1, max_size=3, unique=True))
def test_accuracy_matches_naive(jobs, spec_list):
    frames = []
    for spec in spec_list:
        e = fast(jobs, spec)
        frames.append(pl.DataFrame(
            [{"scheme": spec, "run": j["run"], "req": j["req"], "est": e[j["job_id"]][0]} for j in jobs],
            schema={"scheme": pl.String, "run": pl.Int64, "req": pl.Int64, "est": pl.Float64}))
    got = {r["scheme"]: r for r in score(pl.concat(frames)).to_dicts()}
    for spec in spec_list:
        e = fast(jobs, spec)
        want = N.accuracy([(j["run"], j["req"], e[j["job_id"]][0]) for j in jobs])
        assert got[spec]["scored"] == want["scored"]
        for k, v in want.items():
            if k != "scored":
                assert (v is None and got[spec][k] is None) or math.isclose(got[spec][k], v, abs_tol=1e-12), (spec, k)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), specs(), st.data())
def test_jobs_submitted_at_or_after_j_never_change_its_estimate(jobs, spec, data):
    j = data.draw(st.sampled_from(jobs))
    cut = j["submit"]
    past = [k for k in jobs if k["submit"] < cut or k is j]
    later = [dict(k) for k in jobs if k["submit"] >= cut and k is not j]
    changed = []
    for k in later:
        if data.draw(st.booleans()):
            continue  # deleted
        if data.draw(st.booleans()):
            k["submit"] = cut + data.draw(st.integers(0, 50))
            k["run"] = data.draw(st.one_of(st.none(), st.integers(0, 100)))
            k["req"] = data.draw(st.one_of(st.none(), st.integers(1, 100)))
            k["end"] = None if k["run"] is None else k["submit"] + data.draw(st.integers(0, 5)) + k["run"]
        changed.append(k)
    mutated = past + changed
    random.Random(data.draw(st.integers(0, 99))).shuffle(mutated)
    before, after = fast(jobs, spec), fast(mutated, spec)
    for k in past:
        assert same(before[k["job_id"]], after[k["job_id"]]), (spec, k["job_id"])


# -- real traces ----------------------------------------------------------------

REAL_SPECS = [
    "tang:key=user,window=30d,stat=p95",
    "tang:key=user_project_req,window=all,stat=p70,floor=0",
    "tang:key=project,window=90d,stat=median,min=3",
    "tang:key=user_project,window=365d,stat=mean",
    "tang:key=user_project_req,window=180d,stat=max,floor=0,min=1",
    "klusacek:last=5", "ave2", "feitelson", "uniform:f=4,seed=1", "model:seed=2",
]


@pytest.fixture(scope="module")
def real_jobs(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("real") / "wh")
    names = {"KTH": "KTH-SP2-1996-2.1-cln.swf.gz", "SDSC": "SDSC-SP2-1998-4.2-cln.swf.gz"}
    paths = {k: trace_path(v) for k, v in names.items()}
    ingest(list(paths.values()), wh, lenient=False)
    con = wh.reader()
    out = {k: load_jobs(con, v.removesuffix(".swf.gz")) for k, v in names.items()}
    con.close()
    return out


@pytest.mark.parametrize("trace", ["KTH", "SDSC"])
@pytest.mark.parametrize("spec", REAL_SPECS)
def test_fast_matches_naive_on_real_traces(real_jobs, trace, spec):
    jobs = real_jobs[trace].to_dicts()
    targets = random.Random(7).sample(jobs, 300)
    assert_twins(jobs, spec, targets)


@pytest.mark.parametrize("trace", ["SDSC"])
def test_grid_pass_equals_single_schemes(real_jobs, trace):
    jobs = real_jobs[trace]
    rows = {r["scheme"]: r for r in _one_pass(jobs, "user_project_req", "30d").to_dicts()}
    assert len(rows) == 18
    for spec in ("tang:key=user_project_req,window=30d,stat=p85",
                 "tang:key=user_project_req,window=30d,stat=mean,floor=0"):
        canon = parse(spec).canonical
        e = compute(jobs, parse(spec)).with_columns(pl.lit(canon).alias("scheme"))
        single = score(e.join(jobs.select("job_id", "run", "req"), on="job_id")).to_dicts()[0]
        for k, v in single.items():
            assert rows[canon][k] == (pytest.approx(v) if isinstance(v, float) else v), k
    # and the full-trace accuracy of a stored scheme equals the naive accuracy
    e = compute(jobs, parse("klusacek"))
    merged = e.join(jobs.select("job_id", "run", "req"), on="job_id")
    want = N.accuracy([(r["run"], r["req"], r["est"]) for r in merged.to_dicts()])
    got = score(merged.with_columns(pl.lit("k").alias("scheme"))).to_dicts()[0]
    for k, v in want.items():
        assert got[k] == (pytest.approx(v) if isinstance(v, float) else v), k
