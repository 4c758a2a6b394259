"""Smith, Gibbons and Downey predictors vs their naive twins
(tests/naive_predictors.py), job by job, on random workloads (hypothesis)
and on real traces (CTC-SP2, SDSC-Par 1996); plus the property that nothing
submitted later, and no job still running, changes a job's prediction."""

from __future__ import annotations

import math
import random

import polars as pl
import pytest
from conftest import trace_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import naive_predictors as NP
from pipeline.estimates import load_jobs
from pipeline.estimates.compute import compute
from pipeline.estimates.templates import (CHARACTERISTICS, HISTORY_SIZES, NODE_SIZES, RUNTIME_SIZES,
                                          Template, set_text)
from pipeline.ingest import ingest
from pipeline.schemes import parse
from pipeline.warehouse import Warehouse

SCHEMA = {"job_id": pl.Int64, "submit": pl.Int64, "run": pl.Int64, "req": pl.Int64, "end": pl.Int64,
          "nodes": pl.Int64, **{c: pl.Int64 for c in CHARACTERISTICS.values()}}
UNITS = (1, 600)


@st.composite
def workloads(draw, max_jobs=40):
    unit = draw(st.sampled_from(UNITS))
    n = draw(st.integers(1, max_jobs))
    maybe = lambda s: st.one_of(st.none(), s)  # noqa: E731
    jobs = []
    for i in range(n):
        submit = draw(st.integers(0, 300)) * unit
        wait = draw(maybe(st.integers(0, 30)))
        run = draw(maybe(st.integers(0, 40)))
        req = draw(st.one_of(st.none(), st.integers(1, 50)))
        row = {"job_id": 1000 + i, "submit": submit,
               "run": None if run is None else run * unit,
               "req": None if req is None else req * unit,
               "end": None if wait is None or run is None else submit + (wait + run) * unit,
               "nodes": draw(maybe(st.integers(1, 9)))}
        for col in CHARACTERISTICS.values():
            row[col] = draw(maybe(st.integers(1, 2)))
        jobs.append(row)
    return jobs


@st.composite
def template_sets(draw):
    out = []
    for _ in range(draw(st.integers(1, 4))):
        chars = tuple(c for c in CHARACTERISTICS if draw(st.booleans()) and draw(st.booleans()))
        out.append(Template(
            chars,
            draw(st.one_of(st.none(), st.sampled_from(NODE_SIZES[:4]))),
            draw(st.one_of(st.none(), st.sampled_from(RUNTIME_SIZES[:2]))),
            draw(st.one_of(st.none(), st.sampled_from(HISTORY_SIZES[:4]))),
            draw(st.booleans())))
    return tuple(out)


def frame(jobs):
    return pl.DataFrame(jobs, schema=SCHEMA)


def fast(jobs, spec, templates=None) -> dict:
    out = compute(frame(jobs), parse(spec), templates)
    return {r["job_id"]: (r["est"], r["hist"]) for r in out.to_dicts()}


def naive(jobs, spec, templates=None, targets=None) -> dict:
    s = parse(spec)
    if s.name == "smith":
        return NP.smith(jobs, templates, targets)
    if s.name == "gibbons":
        return NP.gibbons(jobs, targets)
    return NP.downey(jobs, s["key"], s["stat"], targets)


def same(a, b) -> bool:
    (ea, ha), (eb, hb) = a, b
    if ha != hb or (ea is None) != (eb is None):
        return False
    return ea is None or math.isclose(ea, eb, rel_tol=1e-7, abs_tol=1e-6)


def assert_twins(jobs, spec, templates=None, targets=None):
    got = fast(jobs, spec, templates)
    want = naive(jobs, spec, templates, targets)
    bad = [(jid, want[jid], got[jid]) for jid in want if not same(want[jid], got[jid])]
    label = spec if templates is None else f"{spec} {set_text(templates)}"
    assert not bad, f"{label}: {len(bad)} of {len(want)} jobs differ, first: {bad[:3]}"


SPECS = ["gibbons", "downey:stat=median,key=queue", "downey:stat=mean,key=queue",
         "downey:stat=median,key=user", "downey:stat=mean,key=exe"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), template_sets())
def test_smith_matches_naive_on_random_workloads(jobs, templates):
    assert_twins(jobs, "smith:set=x", templates)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.sampled_from(SPECS))
def test_gibbons_downey_match_naive_on_random_workloads(jobs, spec):
    assert_twins(jobs, spec)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.one_of(st.just(None), template_sets()), st.sampled_from(["smith:set=x", *SPECS]),
       st.data())
def test_later_or_running_jobs_never_change_a_prediction(jobs, templates, spec, data):
    """Delete, alter or reorder every job submitted at or after j, and change
    the run and end of every job not yet ended at j's submission: j's
    prediction stays the same."""
    if spec.startswith("smith") and templates is None:
        templates = (Template(("u",)), Template(("q",), nodes=2, relative=True), Template())
    j = data.draw(st.sampled_from(jobs))
    cut = j["submit"]
    mutated = []
    for k in jobs:
        k = dict(k)
        if k is not j and k["job_id"] != j["job_id"] and k["submit"] >= cut:
            if data.draw(st.booleans()):
                continue  # deleted
            k["submit"] = cut + data.draw(st.integers(0, 50))
            k["req"] = data.draw(st.one_of(st.none(), st.integers(1, 100)))
            k["queue_id"] = data.draw(st.one_of(st.none(), st.integers(1, 2)))
        if k["job_id"] != j["job_id"] and (k["end"] is None or k["end"] > cut or k["submit"] >= cut):
            # still running (or not yet submitted) at j's submission: its outcome is the future
            k["run"] = data.draw(st.one_of(st.none(), st.integers(0, 100)))
            k["end"] = None if k["run"] is None else max(cut + 1, k["submit"]) + k["run"]
        mutated.append(k)
    random.Random(data.draw(st.integers(0, 99))).shuffle(mutated)
    before, after = fast(jobs, spec, templates), fast(mutated, spec, templates)
    assert same(before[j["job_id"]], after[j["job_id"]]), (spec, j["job_id"])


# -- real traces ------------------------------------------------------------------

REAL = {"CTC": "CTC-SP2-1996-3.1-cln.swf.gz", "SDSC-Par": "SDSC-Par-1996-3.1-cln.swf.gz"}
REAL_SETS = ["(u,abs) (u,n=4,h=32,rel) (q,n=16,abs) ()", "(u,q,h=8,abs) (e,rel) (g,p,n=64,h=2,abs)"]


@pytest.fixture(scope="module")
def real_jobs(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("real") / "wh")
    paths = {k: trace_path(v) for k, v in REAL.items()}
    ingest(list(paths.values()), wh, lenient=False)
    con = wh.reader()
    out = {k: load_jobs(con, v.removesuffix(".swf.gz")) for k, v in REAL.items()}
    con.close()
    return out


@pytest.mark.slow
@pytest.mark.parametrize("trace", list(REAL))
@pytest.mark.parametrize("spec", ["smith:set=0", "smith:set=1", "gibbons", "downey:stat=median,key=queue",
                                  "downey:stat=mean,key=queue"])
def test_fast_matches_naive_on_real_traces(real_jobs, trace, spec):
    from pipeline.estimates.templates import parse_set
    jobs = real_jobs[trace].head(6000).to_dicts()  # the naive twin is O(n^2)
    templates = parse_set(REAL_SETS[int(spec[-1])]) if spec.startswith("smith") else None
    targets = random.Random(3).sample(jobs, 150)
    assert_twins(jobs, spec, templates, targets)
