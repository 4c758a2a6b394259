"""walltime evaluate --setup: the published set-up (Gaussier et al.'s pyss input
rules, the header's MaxProcs) against the file as it is.

The rules (pipeline/evaluate/setup.py) are checked on the real SDSC-SP2 and
CTC-SP2 files against a second, column-wise statement of them in NumPy; then
through the CLI: a cut in the published set-up has no job past its request, no
job without a runtime or request, and CTC-SP2's machine is its header's 338
processors, while --setup log keeps the file's overruns and CTC-SP2 at 512.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from tests.conftest import run_cli, trace_path
from tests.test_reliability import one_line_error

SDSC, CTC = "SDSC-SP2-1998-4.2-cln", "CTC-SP2-1996-3.1-cln"


def _lines(trace: str) -> tuple[list[str], list[str]]:
    head, jobs = [], []
    with gzip.open(trace_path(f"{trace}.swf.gz"), "rt") as fh:
        for line in fh:
            (head if line.lstrip().startswith(";") or not line.strip() else jobs).append(line)
    return head, jobs


def _numpy_rules(jobs: list[str], maxp: int) -> tuple[np.ndarray, np.ndarray]:
    """(job ids kept, their runtimes): predictsim's strong_filter_all_swf as column masks."""
    a = np.array([[float(x) for x in ln.split()[:9]] for ln in jobs]).astype(np.int64)
    alloc, reqp = a[:, 4].copy(), a[:, 7].copy()
    keep = (alloc <= maxp) & (reqp <= maxp) & ((alloc > 0) | (reqp > 0))
    keep &= (a[:, 3] > 0) & (a[:, 8] > 0) & (a[:, 1] >= 0)
    run = np.minimum(a[:, 3], a[:, 8])
    return a[keep, 0], run[keep]


@pytest.mark.parametrize("trace,maxp", [(SDSC, 128), (CTC, 338)])
def test_rules_match_a_numpy_statement_on_the_real_file(trace, maxp):
    from pipeline.evaluate import setup

    head, jobs = _lines(trace)
    assert setup.max_procs(head) == maxp
    kept = [ln for ln in (setup.paper_line(j, maxp) for j in jobs) if ln is not None]
    ids, run = _numpy_rules(jobs, maxp)
    got = np.array([[int(float(x)) for x in ln.split()[:9]] for ln in kept])
    assert (got[:, 0] == ids).all() and (got[:, 3] == run).all()
    assert (got[:, 3] <= got[:, 8]).all() and (got[:, 4] > 0).all() and (got[:, 7] > 0).all()
    if trace == SDSC:  # 4,134 jobs ran past their request and end at it; 54,006 jobs in pyss's copy
        over = sum(1 for j in jobs if 0 < float(j.split()[8]) < float(j.split()[3]))
        assert over == 4134 and len(kept) == 53999
    else:  # pyss's committed metrics: 77,199 jobs
        assert len(kept) == 77199


def _evaluate(wh, trace, *extra):
    proc = run_cli("evaluate", trace, "--first", "2000", "--estimator", "actual", "--json", *extra,
                   warehouse=wh, check=True)
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_paper_setup_through_the_cli(tmp_path):
    from pipeline.warehouse import Warehouse

    wh = tmp_path / "wh"
    paper, log = _evaluate(wh, "SDSC-SP2"), _evaluate(wh, "SDSC-SP2", "--setup", "log")
    assert paper["setup"] == "paper" and paper["traces"][0]["trace"] == f"{SDSC}-paper-first2000"
    assert log["setup"] == "log" and log["traces"][0]["trace"] == f"{SDSC}-first2000"
    con = Warehouse(wh).reader()
    try:
        over = dict(con.execute("SELECT trace, count(*) FILTER (WHERE run > req) FROM jobs GROUP BY trace").fetchall())
        bad = con.execute(f"SELECT count(*) FROM jobs WHERE trace = '{SDSC}-paper-first2000' "
                          "AND (run <= 0 OR req <= 0 OR run IS NULL OR req IS NULL)").fetchone()[0]
    finally:
        con.close()
    assert over[f"{SDSC}-paper-first2000"] == 0 and bad == 0
    # the file's own first 2,000 jobs hold overruns (the log set-up keeps them)
    _, jobs = _lines(SDSC)
    assert over[f"{SDSC}-first2000"] == sum(1 for j in jobs[:2000] if 0 < float(j.split()[8]) < float(j.split()[3]))
    assert over[f"{SDSC}-first2000"] > 0
    # CTC-SP2: its header's 338 processors in the published set-up, 512 in the log set-up
    assert _evaluate(wh, "CTC-SP2")["traces"][0]["capacity"] == 338
    assert _evaluate(wh, "CTC-SP2", "--setup", "log")["traces"][0]["capacity"] == 512
    one_line_error(run_cli("evaluate", "CTC-SP2", "--setup", "pyss", warehouse=wh), "--setup", "pyss")


def test_migration_290_keeps_old_tuning_rows(tmp_path):
    """A warehouse from before migration 290 (evaluate_tuning keyed without the
    correction) keeps its rows, as 'tsafrir', and takes both corrections after; migration 301 (the
    loaded tuning replay) gives them their AVEbsld as score; 310 adds the replay-noise table."""
    import duckdb

    from pipeline.warehouse import Warehouse

    wh = tmp_path / "wh"
    head, jobs = _lines(SDSC)
    (tmp_path / "c.swf").write_text("".join(head + jobs[:200]))
    run_cli("ingest", str(tmp_path / "c.swf"), "--name", "c", warehouse=wh, check=True)
    w = Warehouse(wh)
    con = duckdb.connect(str(w.db_path))
    try:  # back to the 280 schema, one row in it
        con.execute("DROP TABLE evaluate_tuning")
        con.execute("ALTER TABLE evaluate_scores DROP COLUMN overrun")
        con.execute("CREATE TABLE evaluate_tuning (trace VARCHAR NOT NULL, family VARCHAR NOT NULL, "
                    "scheduler VARCHAR NOT NULL, scheme VARCHAR NOT NULL, jobs BIGINT NOT NULL, "
                    "avebsld DOUBLE NOT NULL, chosen BOOLEAN NOT NULL, PRIMARY KEY (trace, family, scheduler, scheme))")
        con.execute("INSERT INTO evaluate_tuning VALUES ('c', 'ave2', 'EASY', 'ave2', 66, 1.5, true)")
        con.execute("DROP VIEW evaluate_noise_reductions")
        con.execute("DROP TABLE evaluate_noise")
        con.execute("DROP TABLE evaluate_tuning_replays")
        con.execute("DELETE FROM schema_migrations WHERE version IN (290, 301, 310, 311)")
    finally:
        con.close()
    with w.writer() as con:  # 301: chosen on avebsld alone before it, so that is the old rows' score
        assert con.execute("SELECT overrun, avebsld, avebsld_loaded, score FROM evaluate_tuning").fetchall() == \
            [("tsafrir", 1.5, None, 1.5)]
        con.execute("INSERT INTO evaluate_tuning (trace, family, scheduler, scheme, overrun, jobs, avebsld, "
                    "avebsld_loaded, score, chosen) VALUES ('c', 'ave2', 'EASY', 'ave2', 'request', 66, 1.4, 2.0, "
                    "0.9, false)")
        assert "overrun" in [r[0] for r in con.execute("DESCRIBE evaluate_reductions").fetchall()]
        # 310: the replay-noise table and its view, empty
        assert con.execute("SELECT count(*) FROM evaluate_noise_reductions").fetchone() == (0,)
        # 311: the tuning's replays, empty
        assert con.execute("SELECT count(*) FROM evaluate_tuning_replays").fetchone() == (0,)


@pytest.mark.slow
def test_paper_ave2_learns_from_the_replay(tmp_path):
    """--setup paper: ave2's runs are `--history simulated` (pyss's ave2 fits at
    each simulated termination); --setup log: the log's ave2. The paper cut's
    whole-trace EASY++ AVEbsld is recomputed by the naive twin
    (naive_sim.simulate_learn) from the stored jobs and the users."""
    import naive_sim
    from pipeline.evaluate import avebsld
    from pipeline.warehouse import Warehouse

    wh = tmp_path / "wh"
    docs = {}
    for setup in ("paper", "log"):
        proc = run_cli("evaluate", "KTH-SP2", "--first", "3000", "--estimator", "ave2", "--setup", setup, "--json",
                       warehouse=wh, check=True)
        docs[setup] = json.loads(proc.stdout)["traces"][0]
    con = Warehouse(wh).reader()
    try:
        hist = {}
        for setup, t in docs.items():
            for s in t["scores"]:
                cfg = json.loads(con.execute("SELECT config FROM runs WHERE run_id = ?", [s["run_id"]]).fetchone()[0])
                hist[(setup, s["family"])] = cfg.get("history", "log")
        pp = next(s for s in docs["paper"]["scores"]
                  if (s["family"], s["scheduler"], s["period"]) == ("ave2", "EASY++", "whole"))
        cols = con.execute(
            "SELECT s.submit, s.job_id, s.run, s.nodes, s.req, coalesce(j.user_id, -1) AS u FROM sim_jobs s "
            "JOIN jobs j ON j.trace = ? AND j.job_id = s.job_id WHERE s.run_id = ? ORDER BY s.submit, s.job_id",
            [docs["paper"]["trace"], pp["run_id"]]).fetchnumpy()
    finally:
        con.close()
    assert hist == {("paper", "ave2"): "simulated", ("paper", "request"): "log",
                    ("log", "ave2"): "log", ("log", "request"): "log"}
    a = {k: np.ascontiguousarray(v, dtype=np.int64) for k, v in cols.items()}
    u = np.where(a["u"] >= 0, np.unique(a["u"], return_inverse=True)[1], -1).astype(np.int64)
    overrun = {"request": naive_sim.REQUEST, "tsafrir": naive_sim.TSAFRIR}[pp["overrun"]]
    start = naive_sim.simulate_learn(a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], u,
                                     docs["paper"]["capacity"], naive_sim.FCFS, naive_sim.EASY_SJBF, overrun, False)[0]
    assert abs(avebsld(a["submit"], a["run"], start) - pp["avebsld"]) < 1e-9


@pytest.mark.slow
def test_paper_learned_reads_features_from_the_replay(tmp_path):
    """--setup paper: the learned family's runs (tuning and whole trace) are `--history simulated`;
    the whole-trace EASY++ AVEbsld is recomputed by the naive twin (naive_sim.simulate_learned:
    LightGBM per arrival, features from its own replay) from the stored jobs and the models
    trained walk-forward on the warehouse's jobs."""
    import naive_sim
    from pipeline.estimates import learned as L
    from pipeline.estimates import load_jobs
    from pipeline.evaluate import avebsld, history_of
    from pipeline.schemes import parse
    from pipeline.simulate._learned import loop_inputs
    from pipeline.warehouse import Warehouse

    spec = "learned:loss=eloss,under=4,retrain=7d,trees=20"
    assert history_of("KTH-SP2-1996-2.1-cln-paper", spec) == "simulated"
    assert history_of("KTH-SP2-1996-2.1-cln", spec) == "log"
    wh = tmp_path / "wh"
    t = json.loads(run_cli("evaluate", "KTH-SP2", "--first", "3000", "--estimator", spec, "--setup", "paper",
                           "--json", warehouse=wh, check=True).stdout)["traces"][0]
    pp = next(s for s in t["scores"] if (s["family"], s["scheduler"], s["period"]) == ("learned", "EASY++", "whole"))
    con = Warehouse(wh).reader()
    try:
        cfg = json.loads(con.execute("SELECT config FROM runs WHERE run_id = ?", [pp["run_id"]]).fetchone()[0])
        cols = con.execute("SELECT submit, job_id, run, nodes, req FROM sim_jobs WHERE run_id = ? "
                           "ORDER BY submit, job_id", [pp["run_id"]]).fetchnumpy()
        jobs = load_jobs(con, t["trace"])
    finally:
        con.close()
    assert cfg["history"] == "simulated"
    a = {k: np.ascontiguousarray(v, dtype=np.int64) for k, v in cols.items()}
    s = parse(pp["scheme"])
    ju, _, xs, model, _, _ = loop_inputs(jobs, s, a["job_id"])
    models = L.fit(jobs, s["q"], s["loss"], s["under"], s["retrain"], s["window"], s["trees"])[2]
    overrun = {"request": naive_sim.REQUEST, "tsafrir": naive_sim.TSAFRIR}[pp["overrun"]]
    start = naive_sim.simulate_learned(a["submit"], a["job_id"], a["run"], a["nodes"], a["req"], t["capacity"],
                                       naive_sim.FCFS, naive_sim.EASY_SJBF, overrun, ju, xs, model, models)[0]
    assert (model >= 0).mean() > 0.5
    assert abs(avebsld(a["submit"], a["run"], start) - pp["avebsld"]) < 1e-9
