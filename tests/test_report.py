"""Report tables on a six-job hand-made trace: every number below is worked out
by hand in tests/report_support.py's schedule (no numbers copied from a run)."""

from __future__ import annotations

import csv
import html
import io
import re
from pathlib import Path

import pytest
from conftest import run_cli
from report_support import tiny, write_tiny  # noqa: F401 (session fixture)

from pipeline.errors import WalltimeError
from pipeline.ingest import ingest
from pipeline.report import SECTIONS, build_report, parse_capacity, parse_sections
from pipeline.warehouse import Warehouse


def q(wh, sql, *params):
    con = wh.reader()
    try:
        cur = con.execute(sql, list(params))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]
    finally:
        con.close()


def test_overview(tiny):
    wh, _, _ = tiny
    (o,) = q(wh, "SELECT * FROM report_trace_overview WHERE trace = 'tiny'")
    assert (o["jobs"], o["capacity"], o["users"], o["groups"]) == (6, 4, 3, 2)
    months = q(wh, "SELECT month, jobs, users FROM report_load_month WHERE trace = 'tiny' ORDER BY month")
    assert [(m["month"], m["jobs"], m["users"]) for m in months] == [("2020-01", 3, 2), ("2020-02", 3, 3)]


def test_runtime_cdf_and_user_error(tiny):
    wh, _, _ = tiny
    cdf = {(r["walltime"], r["k"]): r["share_le"] for r in q(wh, "SELECT * FROM report_runtime_cdf WHERE trace = 'tiny'")}
    # runs 100 50 30 100 50 20; requests 200 100 40 100 100 50;
    # predictor (request x max R of the user's last 5 ended jobs): 200 100 40 50 100 37.5
    assert cdf[("actual", 20)] == 1.0                      # 10^2 s: every run
    assert cdf[("actual", 17)] == pytest.approx(4 / 6, abs=1e-4)   # 50.1 s: 50 30 50 20
    assert cdf[("user estimate", 20)] == pytest.approx(5 / 6, abs=1e-4)
    assert cdf[("predictor", 16)] == pytest.approx(1 / 6, abs=1e-4)  # 39.8 s: 37.5 only
    users = {r["user_id"]: r for r in q(wh, "SELECT * FROM report_user_error WHERE trace = 'tiny'")}
    # user 1: jobs 1, 2, 4: |req - run| = 100, 50, 0; |pred - run| = 100, 50, 50
    assert users[1]["mae_request_h"] == pytest.approx(150 / 3 / 3600, abs=5e-4)
    assert users[1]["mae_predictor_h"] == pytest.approx(200 / 3 / 3600, abs=5e-4)
    assert users[1]["rank_by_request"] == 1  # 50 s beats user 2 (10, 30 -> 20 s) and user 3 (50 s, id larger)
    assert users[2]["mae_predictor_h"] == pytest.approx((10 + 17.5) / 2 / 3600, abs=5e-4)  # 40-30, 37.5-20


def test_adjustment_tables(tiny):
    wh, _, _ = tiny
    # fewer than 10 history jobs per key: every Tang scheme leaves the request (NA = 1);
    # accuracy min/max per job: .5 .5 .75 1 .5 .4 -> mean 3.65 / 6
    acc = q(wh, "SELECT * FROM report_grid_accuracy WHERE trace = 'tiny'")
    assert len(acc) == 9
    for r in acc:
        assert r["triple_key"] == r["double_key"] == r["original"] == pytest.approx(0.608, abs=1e-3)
    shares = q(wh, "SELECT * FROM report_grid_shares WHERE trace = 'tiny'")
    assert len(shares) == 18 and all(r["na"] == 1.0 and r["ue"] == r["be"] == 0 for r in shares)
    cdf = {(r["scheme"], r["x"]): r["share_le"] for r in q(wh, "SELECT * FROM report_accuracy_cdf WHERE trace = 'tiny'")}
    assert cdf[("user estimate (request)", 0.5)] == pytest.approx(4 / 6, abs=1e-4)  # .5 .5 .5 .4
    assert cdf[("user estimate (request)", 0.4)] == pytest.approx(1 / 6, abs=1e-4)
    assert cdf[("p85", 0.75)] == pytest.approx(5 / 6, abs=1e-4)


def test_tang_schemes_equal_baseline(tiny):
    wh, _, _ = tiny
    months = q(wh, "SELECT * FROM report_tang_months WHERE trace = 'tiny'")
    # 2 policies x (3 regular + 3 selective) x 2 months, every scheme = the requests here
    assert len(months) == 24
    for r in months:
        assert r["wait"] == 100 and r["slowdown"] == 10 and r["weighted_wait"] == 100
    gains = q(wh, "SELECT * FROM report_tang_gain WHERE trace = 'tiny'")
    assert len(gains) == 12 and all(g["wait_gain_pct"] == 0 and g["months"] == 2 for g in gains)


def test_mualem_table1_and_3(tiny):
    wh, _, _ = tiny
    t1 = {r["month"]: r for r in q(wh, "SELECT * FROM report_mualem_table1 WHERE trace = 'tiny'")}
    # January: responses 100, 140, 110; bounded slowdowns 1, 2.8, 3.667
    assert t1["2020-01"]["resp_easy"] == t1["2020-01"]["resp_cons"] == 117
    assert t1["2020-01"]["bsld_easy"] == t1["2020-01"]["bsld_cons"] == 2.5
    # February: responses 100, 149, 20; bounded slowdowns 1, 2.98, 1
    assert t1["2020-02"]["resp_easy"] == 90 and t1["2020-02"]["bsld_easy"] == 1.7
    assert t1["2020-02"]["resp_diff_pct"] == 0 and t1["2020-02"]["jobs"] == 3
    t3 = q(wh, "SELECT * FROM report_mualem_table3 WHERE trace = 'tiny'")
    assert len(t3) == 4
    for r in t3:  # f = 1 is the exact runtime: the same schedule as the requests here
        assert r["f1"] == pytest.approx(r["original"])
    (bs,) = [r for r in t3 if r["backfill"] == "easy" and r["metric"] == "bounded slowdown"]
    assert bs["original"] == pytest.approx((1 + 2.8 + 110 / 30 + 1 + 2.98 + 1) / 6, abs=0.005)


def test_klusacek_tables(tiny):
    wh, _, _ = tiny
    bf = {r["walltime"]: r for r in q(wh, "SELECT * FROM report_ks_backfill WHERE trace = 'tiny'")}
    assert set(bf) == {"exact runtime", "user estimate (request)", "Klusacek last 5"}
    for r in bf.values():  # only job 6 is backfilled; waits 0 90 80 0 99 0
        assert r["backfilled_pct"] == pytest.approx(100 / 6, abs=0.01)
        assert r["mean_wait_min"] == pytest.approx(269 / 6 / 60, abs=0.05)
    waits = q(wh, "SELECT * FROM report_ks_wait WHERE trace = 'tiny' AND pos = 1 ORDER BY bin")
    assert [(r["bin"], r["jobs"]) for r in waits] == [(0, 3), (1, 3)]


def test_smith_tables(tiny):
    wh, _, _ = tiny
    p = {(r["predictor"], r["algorithm"]): r for r in q(wh, "SELECT * FROM report_smith_prediction WHERE trace = 'tiny'")}
    assert ("exact runtime", "FCFS") not in p  # exact by construction; Smith et al. leave it out too
    assert p[("exact runtime", "Backfill")]["run_error_min"] == 0 and len(p) == 17
    req = p[("user estimate (request)", "FCFS")]
    # |req - run| = 100 50 10 0 50 30 -> 40 s, 40 / (350 / 6) = 68.6 %
    assert req["run_error_min"] == pytest.approx(40 / 60, abs=0.005) and req["run_error_pct"] == 69
    # predicted starts 0 200 200 T T+100 T+200 vs real 0 100 100 T T+100 T+150:
    # errors 0 100 100 0 0 50 -> 41.67 s; mean wait (0 90 80 0 99 148) / 6 = 69.5 s
    assert req["wait_error_min"] == pytest.approx(250 / 6 / 60, abs=0.005)
    assert req["wait_error_pct"] == round(100 * (250 / 6) / 69.5)
    s = {(r["predictor"], r["algorithm"]): r for r in q(wh, "SELECT * FROM report_smith_scheduling WHERE trace = 'tiny'")}
    assert s[("user estimate (request)", "FCFS")]["mean_wait_min"] == pytest.approx(417 / 6 / 60, abs=0.005)
    assert s[("user estimate (request)", "Backfill")]["mean_wait_min"] == pytest.approx(269 / 6 / 60, abs=0.005)


def test_every_table_is_a_view_and_csv_matches(tiny):
    """Each table's grey query line, rerun with `walltime sql`, gives the CSV's rows."""
    wh, root, res = tiny
    assert res.sections == list(SECTIONS) and res.tables == len(res.csv) > 15
    page = (root / "r.html").read_text()
    assert "<script" not in page and "<link" not in page
    assert not re.search(r"url\((?!#)", page) and not re.search(r'href="(?!#)', page)  # only in-page references
    queries = [html.unescape(m) for m in re.findall(r'<div class="sql">(.*?)</div>', page)]
    assert len(queries) == len(res.csv)
    con = wh.reader()
    try:
        for query, path in zip(queries, res.csv):
            view = Path(path).stem
            assert f"FROM {view} " in query and view.startswith("report_")
            with open(path) as fh:
                rows = list(csv.reader(fh))
            cur = con.execute(query)
            assert rows[0] == [d[0] for d in cur.description]
            assert rows[1:] == [["" if v is None else str(v) for v in r] for r in cur.fetchall()]
    finally:
        con.close()
    # and once through the real command
    proc = run_cli("sql", queries[-1], "--csv", warehouse=wh.root, check=True)
    with open(res.csv[-1]) as fh:
        assert list(csv.reader(io.StringIO(proc.stdout))) == list(csv.reader(fh))


def test_second_report_reuses_everything(tiny):
    wh, root, _ = tiny
    again = build_report(wh, ["tiny"], root / "again.html")
    assert again.computed == []


def test_trace_without_requests_or_groups(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    ingest([write_tiny(tmp_path, "noreq", requests=False, groups=False)], wh)
    res = build_report(wh, ["noreq"], tmp_path / "r.html", ["estimates", "adjustment", "prediction"])
    html = (tmp_path / "r.html").read_text()
    assert "no requested times" in html and res.figures >= 1
    rows = q(wh, "SELECT DISTINCT predictor FROM report_smith_prediction WHERE trace = 'noreq' ORDER BY 1")
    assert [r["predictor"] for r in rows] == ["ave2 (last two)", "exact runtime", "mean + 1.5 sd (M&F 4.4)"]


def test_trace_without_capacity_gets_notes_then_capacity_option(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    ingest([write_tiny(tmp_path, "nocap", capacity=False)], wh)
    res = build_report(wh, ["nocap"], tmp_path / "r.html", ["scheduling", "prediction"])
    assert not [s for s in res.computed if s.startswith("simulate")]
    assert "no machine size" in (tmp_path / "r.html").read_text()
    res = build_report(wh, ["nocap"], tmp_path / "r.html", ["prediction"], capacity={"nocap": 4})
    assert len([s for s in res.computed if s.startswith("simulate")]) == 17
    (row,) = q(wh, "SELECT * FROM report_smith_scheduling WHERE trace = 'nocap' "
                   "AND algorithm = 'Backfill' AND predictor = 'exact runtime'")
    assert row["mean_wait_min"] == pytest.approx(269 / 6 / 60, abs=0.005)


def test_bad_options(tmp_path):
    with pytest.raises(WalltimeError, match="--sections"):
        parse_sections("overview,nope")
    with pytest.raises(WalltimeError, match="--capacity"):
        parse_capacity(["tiny=0"])
    wh = Warehouse(tmp_path / "wh")
    ingest([write_tiny(tmp_path)], wh)
    with pytest.raises(WalltimeError, match="not in the warehouse"):
        build_report(wh, ["missing"], tmp_path / "r.html")
    proc = run_cli("report", "tiny", "--sections", "nope", "--out", str(tmp_path / "x.html"), warehouse=wh.root)
    assert proc.returncode == 1 and "--sections" in proc.stderr and not (tmp_path / "x.html").exists()


def test_cli_json(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    ingest([write_tiny(tmp_path)], wh)
    proc = run_cli("report", "--sections", "overview,estimates", "--out", str(tmp_path / "r.html"),
                   "--csv", str(tmp_path / "csv"), "--json", warehouse=wh.root, check=True)
    import json
    doc = json.loads(proc.stdout)
    assert doc["sections"] == ["overview", "estimates"] and doc["tables"] == len(doc["csv"])
    assert "characterize tiny" in doc["computed"]
