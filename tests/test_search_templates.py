"""Smith's genetic template search (Section 2.1.3): the operators, determinism,
elitism, and the `walltime search-templates` / `--list-template-sets` commands
on a real trace."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from conftest import run_cli, trace_path
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.estimates import load_jobs
from pipeline.estimates.search import (ELITE, F_MAX, F_MIN, Encoding, crossover, fitness, mutate, search,
                                       trace_characteristics)
from pipeline.estimates.templates import parse_set, parse_template, set_text
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

KTH = "KTH-SP2-1996-2.1-cln"


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10), st.integers(1, 10), st.integers(0, 2 ** 32 - 1))
def test_crossover_is_the_papers(n, m, seed):
    bits = 12
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, (n, bits)).astype(np.int8)
    b = rng.integers(0, 2, (m, bits)).astype(np.int8)
    c1, c2 = crossover(a, b, np.random.default_rng(seed + 1))
    assert 1 <= len(c1) <= 10 and 1 <= len(c2) <= 10
    assert len(c1) + len(c2) == n + m
    # find i, j: c1 = a_1..a_{i-1}, n1, b_{j+1}..b_m ; c2 = b_1..b_{j-1}, n2, a_{i+1}..a_n
    i = next(i for i in range(1, n + 1) if len(c2) - (n - i) >= 1 and (c2[len(c2) - (n - i):] == a[i:]).all()
             and (c1[:i - 1] == a[:i - 1]).all() and len(c1) - i == m - (len(c2) - (n - i)))
    j = len(c2) - (n - i)
    assert (c1[i:] == b[j:]).all() and (c2[:j - 1] == b[:j - 1]).all()
    n1, n2 = c1[i - 1], c2[j - 1]
    p = next(p for p in range(bits + 1) if (n1[:p] == a[i - 1, :p]).all() and (n1[p:] == b[j - 1, p:]).all()
             and (n2[:p] == b[j - 1, :p]).all() and (n2[p:] == a[i - 1, p:]).all())
    assert 0 <= p <= bits


def test_fitness_spans_fmin_to_4_fmin():
    f = fitness(np.array([10.0, 20.0, 40.0]))
    assert F_MAX == 4 * F_MIN
    assert f.tolist() == pytest.approx([F_MAX, F_MIN + (20 / 30) * 3, F_MIN])
    assert fitness(np.array([5.0, 5.0])).tolist() == [F_MIN, F_MIN]


def test_mutation_rate_is_one_percent():
    ind = np.zeros((10, 1000), np.int8)
    flipped = mutate(ind, np.random.default_rng(1)).mean()
    assert 0.008 < flipped < 0.012


def test_decode_covers_the_papers_ranges():
    enc = Encoding(("u", "g", "q"))
    assert enc.bits == 1 + 3 + 15
    ones = enc.decode_one(np.ones(enc.bits, np.int8))
    assert ones == parse_template("(u,g,q,n=32,rt=1024,h=65536,rel)")  # 2^(15 % 10), 2^(6 + 15 % 11), 2^(1 + 15)
    zeros = enc.decode_one(np.zeros(enc.bits, np.int8))
    assert zeros == parse_template("(abs)")


def test_template_text_round_trips():
    s = "(u,q,n=4,rt=1024,h=32,rel) (abs) (e,abs)"
    assert set_text(parse_set(s)) == s
    with pytest.raises(ValueError, match="bad part"):
        parse_template("(u,n=3)")


@pytest.fixture(scope="module")
def kth(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("kth") / "wh")
    ingest([trace_path(f"{KTH}.swf.gz")], wh, lenient=False)
    return wh


def test_search_is_deterministic_and_elitist(kth):
    con = kth.reader()
    jobs = load_jobs(con, KTH).head(4000)
    con.close()
    train = np.ones(jobs.height, bool)
    a = search(jobs, train, 6, 8, seed=5)
    b = search(jobs, train, 6, 8, seed=5)
    assert a[0] == b[0] and a[1] == b[1]
    assert [g.best_error for g in a[2]] == [g.best_error for g in b[2]]
    best = [g.best_error for g in a[2]]
    assert all(x >= y for x, y in zip(best, best[1:])), best  # the 2 elites survive
    assert a[1] == min(best)
    assert set(trace_characteristics(jobs)) <= {"u", "g", "q", "p", "e"}
    assert ELITE == 2


def _digest(wh: Warehouse) -> str:
    return hashlib.sha256(wh.db_path.read_bytes()).hexdigest()


@pytest.mark.slow
def test_search_templates_command_stores_lists_and_predicts(kth):
    wh = kth.root
    out = run_cli("search-templates", KTH, "--name", "kth-a", "--generations", "3", "--population", "6",
                  "--train-until", "1997-01-01", "--json", warehouse=wh, check=True)
    doc = json.loads(out.stdout)
    assert len(doc["generations"]) == 3 and doc["templates"]
    again = json.loads(run_cli("search-templates", KTH, "--name", "kth-a", "--generations", "3",
                               "--population", "6", "--train-until", "1997-01-01", "--json",
                               warehouse=wh, check=True).stdout)
    assert again["templates"] == doc["templates"] and again["train_error_s"] == doc["train_error_s"]
    sets = {r["name"]: r for r in json.loads(run_cli("estimate", "--list-template-sets", "--json",
                                                       warehouse=wh, check=True).stdout)}
    assert sets["kth-a"]["templates"] == doc["templates"] and sets["kth-a"]["trace"] == KTH
    assert sets["kth-a"]["train_error"] == pytest.approx(doc["train_error_s"])
    text = run_cli("estimate", "--list-template-sets", warehouse=wh, check=True).stdout
    assert "1 found by `walltime search-templates`" in text
    est = json.loads(run_cli("estimate", KTH, "--scheme", "smith:set=kth-a", "--scheme", "gibbons",
                             "--scheme", "downey:stat=mean", "--json", warehouse=wh, check=True).stdout)
    assert {s["scheme"] for s in est["schemes"]} == {"smith:set=kth-a", "gibbons", "downey:key=queue,stat=mean"}
    again = json.loads(run_cli("estimate", KTH, "--scheme", "smith:set=kth-a", "--json", warehouse=wh,
                               check=True).stdout)
    assert again["schemes"][0]["computed"] is False  # stored estimates reused
    run_cli("search-templates", KTH, "--name", "kth-a", "--generations", "2", "--population", "4", "--seed", "9",
            warehouse=wh, check=True)
    fresh = json.loads(run_cli("estimate", KTH, "--scheme", "smith:set=kth-a", "--json", warehouse=wh,
                               check=True).stdout)
    assert fresh["schemes"][0]["computed"] is True  # replacing the set forgot its estimates
    plain = run_cli("search-templates", KTH, "--name", "kth-b", "--generations", "2", "--population", "4",
                    warehouse=wh, check=True).stdout
    assert plain.strip().splitlines()[-1].startswith("Stored template set kth-b:")


@pytest.mark.parametrize("args, words", [
    (["--name", "bad name"], "--name"),
    (["--name", "example"], "built-in"),
    (["--name", "x", "--generations", "0"], "--generations"),
    (["--name", "x", "--population", "3"], "--population"),
    (["--name", "x", "--train-until", "1997-13-01"], "--train-until"),
    (["--name", "x", "--train-until", "1990-01-01"], "--train-until"),
])
def test_search_templates_bad_input_is_one_line_and_changes_nothing(kth, args, words):
    before = _digest(kth)
    out = run_cli("search-templates", KTH, *args, warehouse=kth.root)
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in out.stderr
    assert _digest(kth) == before


def test_unknown_template_set_is_one_line(kth):
    out = run_cli("estimate", KTH, "--scheme", "smith:set=nope", warehouse=kth.root)
    assert out.returncode == 1 and 'no template set "nope"' in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
