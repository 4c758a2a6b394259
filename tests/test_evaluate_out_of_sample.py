"""The out-of-sample evaluation (issue 44, item 1): any trace file read in the
published set-up, the standing of learned against ave2 over many traces, and
``evaluate --stored`` (the tables of evaluations run one trace per process).

- MaxProcs is read from the real headers of the out-of-sample files, whose
  spacing differs (LPC-EGEE) or which list a split machine's parts (SDSC-DS).
- A non-published file in the published set-up gets the input rules: on a cut
  of LANL-CM5 (11,290 of its jobs have no request) the stored jobs equal a
  NumPy statement of the rules over the same lines.
- The standing sentence's counts equal a count made here from the table rows.
- ``--stored`` renders the same Markdown as the run that stored it, byte for
  byte but for the command line and the timing; a trace never evaluated is a
  one-line error.
- A log without wait times (LLNL-Atlas) is not counted as a test of learned.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from tests.conftest import run_cli, trace_path
from tests.test_evaluate_setup import _numpy_rules
from tests.test_reliability import one_line_error

LANL, ATLAS, KTH = "LANL-CM5-1994-4.1-cln", "LLNL-Atlas-2006-2.1-cln", "KTH-SP2"
FAMS = ["--estimator", "ave2", "--estimator", "learned:loss=quantile,q=0.5,retrain=30d", "--estimator", "actual"]


def _header(trace: str) -> list[str]:
    out = []
    with gzip.open(trace_path(f"{trace}.swf.gz"), "rt") as fh:
        for line in fh:
            if not line.lstrip().startswith(";"):
                break
            out.append(line)
    return out


@pytest.mark.parametrize("trace,maxp", [("LPC-EGEE-2004-1.2-cln", 140), ("SDSC-DS-2004-2.1-cln", 1664),
                                        ("Sandia-Ross-2001-1.1-cln", 1524), ("HPC2N-2002-2.2-cln", 240),
                                        (LANL, 1024)])
def test_maxprocs_of_the_out_of_sample_headers(trace, maxp):
    """Hand-read from each file's header (`zcat FILE | grep MaxProcs`)."""
    from pipeline.evaluate import setup

    assert setup.max_procs(_header(trace)) == maxp


def test_is_paper_names():
    from pipeline.evaluate import is_paper

    assert is_paper("HPC2N-2002-2.2-cln-paper") and is_paper("KTH-SP2-1996-2.1-cln-paper-first3000")
    assert not is_paper("HPC2N-2002-2.2-cln") and not is_paper("papers-first3") and not is_paper("x-paper-firstN")


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """KTH-SP2 and LLNL-Atlas cuts evaluated in one run, with its Markdown and JSON."""
    d = tmp_path_factory.mktemp("oos")
    wh, md = d / "wh", d / "run.md"
    proc = run_cli("evaluate", KTH, ATLAS, "--first", "1500", "--draws", "1", *FAMS, "--markdown", str(md), "--json",
                   warehouse=wh, check=True)
    return wh, md, json.loads(proc.stdout), d


def test_a_non_published_file_gets_the_input_rules(tmp_path):
    from pipeline.warehouse import Warehouse

    wh = tmp_path / "wh"
    n = 3000
    run_cli("evaluate", LANL, "--first", str(n), "--estimator", "actual", "--draws", "0", warehouse=wh, check=True)
    jobs = []
    with gzip.open(trace_path(f"{LANL}.swf.gz"), "rt") as fh:
        for line in fh:
            if not line.lstrip().startswith(";") and line.strip():
                jobs.append(line)
    ids, run = _numpy_rules(jobs, 1024)
    con = Warehouse(wh).reader(attach_results=False)
    try:
        got = con.execute(f"SELECT job_id, run, req FROM jobs WHERE trace = '{LANL}-paper-first{n}' "
                          "ORDER BY job_id").fetchall()
    finally:
        con.close()
    assert [g[0] for g in got] == ids[:n].tolist() and [g[1] for g in got] == run[:n].tolist()
    assert all(g[2] > 0 for g in got)
    # the cut's lines: some of the file's first n + k lines have no request and are left out
    first_lines = [ln.split() for ln in jobs[:n]]
    assert sum(1 for f in first_lines if int(float(f[8])) <= 0) > 0


def test_standing_counts_agree_with_its_table(evaluated):
    wh, md, doc, _ = evaluated
    text = md.read_text()
    rows = [c for c in (ln.strip("|").split("|") for ln in text.splitlines() if ln.startswith("| ")
                        and not ln.startswith("| trace") and not ln.startswith("| ---") and ln.count("|") == 12)]
    verdicts = [r[-1].strip() for r in rows]
    assert len(rows) == 2
    # recomputed from the spreads the table prints
    for r, v in zip(rows, verdicts):
        l_lo, l_hi = (float(x) for x in r[4].split(" to "))
        a_lo, a_hi = (float(x) for x in r[7].split(" to "))
        if r[0].strip().startswith("LLNL-Atlas"):
            assert v.startswith("not a test of learned")
        elif l_lo > a_hi:
            assert v == "learned above ave2 beyond both spreads"
        elif l_hi < a_lo:
            assert v == "learned below ave2 beyond both spreads"
        else:
            assert v == "spreads overlap"
    above = sum(v.startswith("learned above") for v in verdicts)
    m = re.search(r"beyond the replay noise \(its lowest replay above ave2's highest\) on (\d+) of (\d+) traces", text)
    assert m and (int(m.group(1)), int(m.group(2))) == (above, 1), m
    assert "not counted: LLNL-Atlas" in text
    # the JSON's standing is the same rows
    assert [s["learned_vs_ave2"] for s in doc["standing"]][1] == "untestable"


def test_atlas_learned_gives_the_request(evaluated):
    """Why LLNL-Atlas is not a test: no wait in the log, so learned's estimate is the request for every job."""
    from pipeline.warehouse import Warehouse

    wh, *_ = evaluated
    con = Warehouse(wh).reader(attach_results=False)
    try:
        trace = f"{ATLAS}-paper-first1500"
        waits, = con.execute("SELECT count(wait) FILTER (WHERE wait >= 0) FROM jobs WHERE trace = ?", [trace]).fetchone()
        differ, = con.execute("SELECT count(*) FROM estimates e JOIN jobs j USING (trace, job_id) WHERE trace = ? "
                              "AND e.scheme LIKE 'learned:%' AND e.est <> j.req", [trace]).fetchone()
    finally:
        con.close()
    assert waits == 0 and differ == 0


def test_stored_renders_what_the_run_rendered(evaluated):
    wh, md, doc, d = evaluated
    again = d / "stored.md"
    proc = run_cli("evaluate", KTH, ATLAS, "--first", "1500", *FAMS, "--markdown", str(again), "--stored", "--json",
                   warehouse=wh, check=True)
    a, b = md.read_text().splitlines(), again.read_text().splitlines()
    assert len(a) == len(b)
    differ = [(x, y) for x, y in zip(a, b) if x != y]
    assert len(differ) == 2, differ  # the command line (its --markdown path) and the timing
    assert differ[0][1].endswith(f"--markdown {again}` (do not edit by hand). Protocol, set-up and definitions: "
                                 "docs/evaluate.md.")
    assert differ[1][0].startswith("Took ") and "nothing replayed" in differ[1][1]
    stored = json.loads(proc.stdout)
    assert stored["standing"] == doc["standing"]
    for x, y in zip(stored["traces"], doc["traces"]):
        assert x["tuning"] == y["tuning"] and x["compare"] == y["compare"]


def test_stored_refuses_a_trace_it_does_not_hold(evaluated):
    wh, *_ = evaluated
    one_line_error(run_cli("evaluate", "SDSC-SP2", "--stored", *FAMS, warehouse=wh), "SDSC-SP2",
                   "no stored evaluation")
    one_line_error(run_cli("evaluate", KTH, "--first", "1500", "--stored", warehouse=wh), "other families")


# -- the committed out-of-sample documents ---------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "evaluate-out-of-sample-results.md"
BEGIN, END = "<!-- out-of-sample standing:", "<!-- end of out-of-sample standing -->"


def _standing_block(text: str) -> list[str]:
    """The results file's standing: its sentence and table (the lines from "Under EASY++" to the table's end)."""
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("Under EASY++ over the whole trace"))
    j = next(k for k in range(i + 2, len(lines)) if not lines[k].startswith("|"))
    return [ln for ln in lines[i:j] if ln.strip()]


@pytest.mark.parametrize("doc", ["README.md", "docs/evaluate-out-of-sample.md"])
def test_the_quoted_standing_is_the_results_files(doc):
    """README's comparison section and the out-of-sample page quote the generated standing word for word."""
    text = (ROOT / doc).read_text()
    assert BEGIN in text and END in text, f"{doc} lost its out-of-sample block"
    quoted = [ln for ln in text.split(BEGIN, 1)[1].split("-->", 1)[1].split(END, 1)[0].splitlines() if ln.strip()]
    assert quoted == _standing_block(RESULTS.read_text()), f"{doc}: paste again from {RESULTS.name}"


def test_the_results_file_is_the_frozen_command():
    """The generated file names the command of the frozen rule's page, over its eight traces."""
    page = (ROOT / "docs" / "evaluate-out-of-sample.md").read_text()
    header = RESULTS.read_text().splitlines()[2]
    names = re.search(r"walltime evaluate ((?:[\w.-]+ \\?\s*)+)--markdown", page).group(1).replace("\\", "").split()
    assert header.startswith(f"Generated by `walltime evaluate {' '.join(names)} --setup paper --markdown "
                             "docs/evaluate-out-of-sample-results.md`")
    assert len(names) == 8


def test_the_committed_standing_sentence_agrees_with_its_table():
    """The results file's sentence, recomputed from the table printed under it: the counts, the traces where
    exact runtimes gain nothing (|reduction| <= 0.05 points) and the trace without logged ends."""
    block = _standing_block(RESULTS.read_text())
    sentence, rows = block[0], [[c.strip() for c in ln.strip("|").split("|")] for ln in block[3:]]
    verdict = {r[0]: r[-1] for r in rows}
    for r in rows:
        (l_lo, l_hi), (a_lo, a_hi) = ([float(x) for x in r[k].split(" to ")] for k in (4, 7))
        want = ("not a test" if verdict[r[0]].startswith("not a test") else
                "learned above" if l_lo > a_hi else "learned below" if l_hi < a_lo else "spreads overlap")
        assert verdict[r[0]].startswith(want), r
    testable = [t for t, v in verdict.items() if not v.startswith("not a test")]
    above = sum(verdict[t].startswith("learned above") for t in testable)
    below = sum(verdict[t].startswith("learned below") for t in testable)
    assert f"on {above} of {len(testable)} traces, is below it beyond the noise on {below}" in sentence
    idle = [r[0] for r in rows if verdict[r[0]] == "spreads overlap" and abs(float(r[9])) <= 0.05]
    assert (f"on {', '.join(idle)} exact runtimes change AVEbsld by 0.05 points or less" in sentence) == bool(idle)
    for t, v in verdict.items():
        assert (f"not counted: {t}" in sentence) == v.startswith("not a test")
