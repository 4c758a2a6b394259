"""`walltime summary`: the three answers, checked against the hand-worked tiny
trace (tests/report_support.py) and, on KTH, against direct computations."""

from __future__ import annotations

import json
import statistics

import pytest

from report_support import JOBS, write_tiny

from pipeline.ingest import ingest
from pipeline.summary import CANDIDATES, EXACT, summarize
from pipeline.summary.words import hours, sentences
from pipeline.warehouse import Warehouse


@pytest.fixture(scope="module")
def tiny_summary(tmp_path_factory):
    root = tmp_path_factory.mktemp("summary")
    wh = Warehouse(root / "wh")
    ingest([write_tiny(root)], wh)
    return wh, summarize(wh, "tiny")


def test_how_wrong_matches_the_hand_worked_trace(tiny_summary):
    _, s = tiny_summary
    r = [min(run, req) / req for _, _, run, _, req, _, _ in JOBS]
    w = s.wrong
    assert w["median_r"] == pytest.approx(statistics.median(r))
    assert w["mean_r"] == pytest.approx(sum(r) / len(r))
    assert w["share_r_lt_0_2"] == 0 and w["share_killed"] == pytest.approx(1 / 6)  # job 4 uses all of its request
    # an SWF trace: processors x time (processor-hours); no node counts, no GPUs
    req_ph = sum(n * req for _, _, _, n, req, _, _ in JOBS) / 3600
    unused = sum(n * (req - min(run, req)) for _, _, run, n, req, _, _ in JOBS) / 3600
    assert w["req_core_h"] == pytest.approx(req_ph) and w["unused_core_h"] == pytest.approx(unused)
    assert w["req_node_h"] is None and w["req_gpu_h"] is None and s.gpus == []
    assert s.hours_unit == "processor-hours"
    assert w["unused_share"] == pytest.approx(750 / 1830)
    # user 1 wastes 500 processor-seconds, user 3 200, user 2 50
    assert [o["owner"] for o in s.owners["user"]] == ["1", "3", "2"]
    assert s.owners["user"][0]["unused_core_h"] == pytest.approx(500 / 3600)


def test_best_estimator_and_queue(tiny_summary):
    wh, s = tiny_summary
    scored = [e for e in s.estimators if e["scheme"] != "request"]
    # candidates whose estimate is the request on every job are listed apart, with why
    assert len(scored) + 1 == len(s.estimators) and len(scored) + len(s.left_out) == len(CANDIDATES)
    assert all(e["na"] == 1 and "equals the request on every job" in e["why"] for e in s.left_out)
    assert s.best["acc_mean"] == max(e["acc_mean"] for e in scored)
    labels = [q.label for q in s.queue]
    assert labels[0] == "the users' requests" and labels[-1] == EXACT[0] == "with exact runtimes"
    assert [q.adjust for q in s.queue[1:3]] == ["regular", "selective"]
    # FCFS + EASY with the requests: the hand-worked waits 0, 90, 80, 0, 99, 0 s
    assert s.queue[0].mean_wait_h == pytest.approx(269 / 6 / 3600)
    assert s.queue[0].median_wait_h == pytest.approx(40 / 3600)  # (0 + 80) / 2
    for q in s.queue:
        assert q.run_id and q.change_pct == pytest.approx(100 * (q.mean_wait_h / s.queue[0].mean_wait_h - 1))
    # six jobs: too small to conclude, so nothing is compared and nothing recommended
    assert s.too_small == "6 jobs (under 1,000) and 2 periods of submission (under 4)"
    assert s.recommendation["action"] == "none" and all(q.changes["wait"]["lo"] is None for q in s.queue[1:])


def test_second_summary_reuses_everything(tiny_summary):
    wh, first = tiny_summary
    again = summarize(wh, "tiny")
    assert again.computed == [] and first.computed
    assert [q.run_id for q in again.queue] == [q.run_id for q in first.queue]


def test_sentences_follow_the_numbers(tiny_summary):
    _, s = tiny_summary
    text = "\n".join(sentences(s))
    assert "Median R (run / requested time) 0.50, mean 0.61" in text
    assert "16.7% run into the limit" in text
    assert f"{s.best['label']}, {s.best['acc_mean']:.2f}" in text
    assert "mean wait 45 s" in text  # 269/6 s = 44.8 s


@pytest.mark.parametrize("h, text", [(None, "n/a"), (0.0, "0 s"), (30 / 3600, "30 s"), (1.5 / 60, "1.5 min"),
                                     (0.5, "30 min"), (1.94, "1.9 h"), (1234.0, "1,234.0 h")])
def test_hours_reads_short_waits_in_seconds(h, text):
    assert hours(h) == text


def test_cli_json_and_errors(tmp_path, cli):
    wh = tmp_path / "wh"
    ingest([write_tiny(tmp_path)], Warehouse(wh))
    proc = cli("summary", "tiny", "--json", warehouse=wh, check=True)
    doc = json.loads(proc.stdout)
    assert doc["trace"] == "tiny" and doc["wrong"]["jobs_r"] == 6 and len(doc["queue"]) == 4
    assert any(line.startswith("3. What does it do to the queue?") for line in doc["text"])
    bad = cli("summary", "nope", warehouse=wh)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and '"nope"' in bad.stderr
    bad = cli("summary", "tiny", "--policy", "lifo", warehouse=wh)
    assert bad.returncode == 1 and "--policy" in bad.stderr
    missing = cli("summary", "tiny", warehouse=tmp_path / "none")
    assert missing.returncode == 1 and not (tmp_path / "none").exists()


def test_trace_without_requests(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    ingest([write_tiny(tmp_path, requests=False)], wh)
    s = summarize(wh, "tiny")
    assert s.wrong is None and s.request is None
    assert all(e["scheme"].split(":")[0] not in ("request", "tang", "klusacek") for e in s.estimators)
    assert s.queue[-1].estimate == "actual" and s.queue[-1].run_id
    assert "no requested times" in "\n".join(sentences(s))


@pytest.mark.slow
def test_kth_against_direct_computations(tmp_path, cli):
    from conftest import trace_path

    wh = Warehouse(tmp_path / "wh")
    ingest([trace_path("KTH-SP2-1996-2.1-cln.swf.gz")], wh)
    s = summarize(wh, "KTH-SP2-1996-2.1-cln")
    con = wh.reader()
    r = [a for (a,) in con.execute("SELECT least(run, req)::DOUBLE / req FROM jobs "
                                   "WHERE req > 0 AND run >= 0 AND nodes > 0").fetchall()]
    acc = dict(con.execute("SELECT scheme, acc_mean FROM estimate_accuracy").fetchall())
    months = con.execute("SELECT count(*) FROM run_metrics WHERE run_id = ? AND month <> 'all'",
                         [s.queue[0].run_id]).fetchone()[0]
    con.close()
    assert s.wrong["median_r"] == pytest.approx(statistics.median(r))
    assert s.wrong["share_r_lt_0_2"] == pytest.approx(sum(x < 0.2 for x in r) / len(r))
    assert s.best["acc_mean"] == max(v for k, v in acc.items() if k not in ("request", "actual"))
    assert s.periods == months == 12 and s.period == "month"
    warm = cli("summary", "KTH-SP2-1996-2.1-cln", warehouse=wh.root, check=True)
    assert "all reused" in warm.stdout


def test_trace_without_capacity(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    ingest([write_tiny(tmp_path, capacity=False)], wh)
    s = summarize(wh, "tiny")
    assert s.queue == [] and s.best is not None and s.wrong["jobs_r"] == 6
    text = "\n".join(sentences(s))
    assert "machine size is not known" in text and "`walltime summary tiny --capacity N`" in text
