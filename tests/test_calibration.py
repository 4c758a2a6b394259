"""The replay beside the log (issue 42, item 5): ``run_calibration`` against a
plain-Python recomputation from the run's jobs and the log's, a generated log
whose waits are the replay's own (so the replay must reproduce it exactly),
and the summary's sentence against its numbers.
"""

from __future__ import annotations

import json
import statistics
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from conftest import run_cli
from pipeline.warehouse import Warehouse

TRUST = Path(__file__).parent / "data" / "slurm-trust"


def naive_calibration(rows: list[tuple[int, int, int]], tz: str) -> dict:
    """rows: (submit epoch of the replay's release, logged wait, replayed wait) of
    the jobs with both. Bins of a day / hour / minute by the span, on the zone's
    clock at the first submission; the 7-bin moving averages; their MAPE."""
    first = min(r[0] for r in rows)
    off = int(datetime.fromtimestamp(first, ZoneInfo(tz)).utcoffset().total_seconds())
    local = [r[0] + off for r in rows]
    span = max(local) - min(local)
    bin_s = 86400 if span >= 8 * 86400 else 3600 if span >= 8 * 3600 else 60
    bins: dict[int, list[int]] = {}
    for (_, lw, rw), t in zip(rows, local):
        b = bins.setdefault(t // bin_s, [0, 0, 0])
        b[0] += 1
        b[1] += lw
        b[2] += rw
    errors = []
    for b in bins:
        window = [bins[k] for k in bins if b - 6 <= k <= b]
        n = sum(w[0] for w in window)
        log_ma, rep_ma = sum(w[1] for w in window) / n, sum(w[2] for w in window) / n
        if log_ma > 0:
            errors.append(abs(rep_ma - log_ma) / log_ma)
    return {"jobs": len(rows), "log_mean_wait": statistics.mean(r[1] for r in rows),
            "rep_mean_wait": statistics.mean(r[2] for r in rows),
            "log_median_wait": statistics.median(r[1] for r in rows),
            "rep_median_wait": statistics.median(r[2] for r in rows), "bin_s": bin_s, "bins": len(bins),
            "bins_scored": len(errors), "moving_wait_mape": 100 * statistics.mean(errors) if errors else None}


def rows_of(wh: Path, run_id: str) -> tuple[list[tuple[int, int, int]], str]:
    con = Warehouse(wh).reader()
    try:
        rows = con.execute(
            "SELECT t.unix_start_time + s.submit, j.wait, s.wait FROM sim_jobs s JOIN runs r USING (run_id) "
            "JOIN traces t ON t.trace = r.trace JOIN jobs j ON j.trace = r.trace AND j.job_id = s.job_id "
            "WHERE s.run_id = ? AND j.wait >= 0", [run_id]).fetchall()
        (tz,) = con.execute("SELECT t.tz FROM runs r JOIN traces t USING (trace) WHERE run_id = ?",
                            [run_id]).fetchone()
    finally:
        con.close()
    return rows, tz


@pytest.fixture(scope="module")
def trust(tmp_path_factory) -> tuple[Path, dict]:
    wh = tmp_path_factory.mktemp("cal") / "wh"
    run_cli("ingest", str(TRUST / "trust-sacct.txt"), "--format", "sacct", "--name", "trust", "--tz",
            "America/Denver", warehouse=wh, check=True)
    doc = json.loads(run_cli("summary", "trust", "--capacity", "24", "--json", warehouse=wh, check=True).stdout)
    return wh, doc


def test_calibration_recomputed_from_the_jobs(trust):
    wh, doc = trust
    run_id = doc["queue"][0]["run_id"]
    rows, tz = rows_of(wh, run_id)
    want = naive_calibration(rows, tz)
    got = doc["calibration"]
    assert got["jobs"] == want["jobs"] == 32  # 33 jobs: 1 never started (3 running at the dump did start: replayed)
    for k, v in want.items():
        assert got[k] == pytest.approx(v), k
    assert got["estimate"] == "request" and got["bin_s"] == 60


def test_the_one_run_query_equals_the_views(trust):
    """calibration.read (sql/calibration_run.sql, one run) against run_calibration and run_preemptions,
    the views users query: every column, for every run the summary stored."""
    from pipeline.calibration import read

    wh, doc = trust
    con = Warehouse(wh).reader()
    try:
        runs = [r for (r,) in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
        assert len(runs) >= 3
        for run_id in runs:
            cur = con.execute("SELECT c.* EXCLUDE (run_id), p.* EXCLUDE (run_id) FROM run_calibration c "
                              "LEFT JOIN run_preemptions p USING (run_id) WHERE run_id = ?", [run_id])
            names = [d[0] for d in cur.description]
            want = dict(zip(names, cur.fetchone()))
            got = read(con, run_id)
            assert list(got) == names
            for k, v in want.items():
                assert got[k] == (pytest.approx(v, rel=1e-12) if isinstance(v, float) else v), (run_id, k)
    finally:
        con.close()


def test_the_sentence_says_the_numbers(trust):
    from pipeline.calibration import change

    _, doc = trust
    c = doc["calibration"]
    text = " ".join(doc["text"])
    assert (f"Beside the log (the users' requests replayed, the same {c['jobs']} jobs): mean wait "
            f"{c['rep_mean_wait']:.0f} s against {c['log_mean_wait']:.0f} s logged "
            f"({change(c['rep_mean_wait'], c['log_mean_wait'])})") in text
    pct = 100 * (c["rep_mean_wait"] / c["log_mean_wait"] - 1)
    assert change(c["rep_mean_wait"], c["log_mean_wait"]) == f"{abs(pct):.0f}% {'below' if pct < 0 else 'above'} the log"
    assert f"off by {c['moving_wait_mape']:.1f}% on average (MAPE over {c['bins_scored']} minutes" in text
    assert "one pool of 24 processors in FCFS + EASY order: it leaves out partitions" in text


@pytest.mark.parametrize(("rep", "log", "words"), [
    (60.0, 100.0, "40% below the log"), (150.0, 100.0, "50% above the log"),
    (100.2, 100.0, "equal to the log within 0.5%"), (0.0, 0.0, "equal"), (5.0, 0.0, "above the log, which has no wait")])
def test_change_words(rep, log, words):
    from pipeline.calibration import change

    assert change(rep, log) == words


@pytest.mark.slow
def test_a_log_of_easy_waits_is_reproduced_exactly(tmp_path):
    """`generate` writes the waits of an FCFS + EASY schedule with the requests
    on its capacity: replayed the same way, every wait is the logged one, so
    the MAPE is 0 (and the bins are the local days of Europe/Stockholm)."""
    swf = tmp_path / "gen.swf"
    run_cli("generate", "--out", str(swf), "--jobs", "2000", "--load", "0.9", "--capacity", "64", "--seed", "3",
            check=True)
    wh = tmp_path / "wh"
    run_cli("ingest", str(swf), warehouse=wh, check=True)
    doc = json.loads(run_cli("summary", "gen", "--json", warehouse=wh, check=True).stdout)
    c = doc["calibration"]
    rows, tz = rows_of(wh, doc["queue"][0]["run_id"])
    assert tz == "Europe/Stockholm" and all(r[1] == r[2] for r in rows) and c["jobs"] == len(rows) == 2000
    assert c["moving_wait_mape"] == 0 and c["rep_mean_wait"] == c["log_mean_wait"] > 3600
    want = naive_calibration(rows, tz)
    assert (c["bin_s"], c["bins"], c["bins_scored"]) == (86400, want["bins"], want["bins_scored"])
    assert "the 7-day moving-average wait is off by 0.0% on average" in " ".join(doc["text"])


@pytest.mark.slow
def test_the_report_puts_the_replay_beside_the_log(trust, tmp_path):
    """The queue section's table holds run_calibration's rows of the summary's
    runs (the CSV keeps seconds; the page shows hours)."""
    import csv

    wh, doc = trust
    run_cli("ingest", str(TRUST / "trust-sacct.txt"), "--format", "sacct", "--name", "conf", "--tz", "UTC",
            "--slurm-conf", str(TRUST / "slurm.conf"), warehouse=wh, check=True)
    run_cli("report", "conf", "--sections", "queue", "--out", str(tmp_path / "r.html"), "--csv", str(tmp_path / "csv"),
            warehouse=wh, check=True)
    page = (tmp_path / "r.html").read_text()
    assert "The replay beside the log, for the same jobs" in page
    with open(tmp_path / "csv" / "report_calibration.csv") as fh:
        rows = list(csv.DictReader(fh))
    summary = json.loads(run_cli("summary", "conf", "--json", warehouse=wh, check=True).stdout)
    req = next(r for r in rows if r["estimate"] == "request")
    c = summary["calibration"]
    # kept with its slurm.conf: every run is the Slurm model's, where a job has one limit (no selective run)
    assert len(rows) == len(summary["queue"]) == 3 and summary["scheduler"] == "slurm"
    assert [q["adjust"] for q in summary["queue"]] == ["regular"] * 3
    assert float(req["moving_wait_mape"]) == pytest.approx(c["moving_wait_mape"])
    assert float(req["log_mean_wait"]) == pytest.approx(c["log_mean_wait"]) and int(req["jobs"]) == c["jobs"]
