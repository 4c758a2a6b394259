"""The report's summary, study runs, queue views, Gantt option, human headers
and figure files, on the hand-worked tiny trace (tests/report_support.py)."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run_cli
from report_support import T, tiny, write_tiny  # noqa: F401 (session fixture)
from simulate_checks import q

from pipeline.errors import WalltimeError
from pipeline.report import build_report
from pipeline.summary import read

DAY = 86400


def request_run(wh) -> str:
    con = wh.reader()
    try:
        return read(con, "tiny").queue[0].run_id
    finally:
        con.close()


def test_page_opens_with_the_summary(tiny):  # noqa: F811
    wh, root, _ = tiny
    page = (root / "r.html").read_text()
    con = wh.reader()
    s = read(con, "tiny")
    con.close()
    first = page.index('<section id="summary">')
    assert first < page.index('<section id="overview">') and first < page.index("<nav>")
    assert "1. How wrong are the requested times?" in page[first:first + 20000]
    assert f"mean {s.wrong['mean_r']:.2f}" in page  # the same numbers as `walltime summary`


def test_timeline_matches_the_hand_worked_schedule(tiny):  # noqa: F811
    wh, _, _ = tiny
    run = request_run(wh)
    rows = q(wh, "SELECT day, utilization, waiting_jobs FROM report_run_timeline WHERE run_id = ? ORDER BY day", [run])
    day0 = rows[0]
    assert day0[0].isoformat() == "2020-01-01T00:00:00"
    # J1 4 nodes x 100 s, J2 2 x 50 s, J3 2 x 30 s on 4 processors; J2 waits 90 s, J3 80 s
    assert day0[1] == pytest.approx(560 / (4 * DAY))
    assert day0[2] == pytest.approx(170 / DAY)
    assert len(rows) == T // DAY + 1  # every day from the first submission to the last end
    assert sum(r[1] for r in rows[1:-1]) == 0  # nothing runs in between


def test_wait_cdf_and_waste(tiny):  # noqa: F811
    wh, _, _ = tiny
    run = request_run(wh)
    cdf = q(wh, "SELECT share_le, wait_h FROM report_wait_cdf WHERE run_id = ? ORDER BY share_le", [run])
    assert len(cdf) == 101 and cdf[0][1] == 0 and cdf[-1][1] == pytest.approx(99 / 3600)
    assert all(a[1] <= b[1] for a, b in zip(cdf, cdf[1:]))
    users = q(wh, "SELECT owner, unused_core_h, rank FROM report_waste_by_owner WHERE kind = 'user' ORDER BY rank")
    assert [u[0] for u in users] == ["1", "3", "2"]
    assert users[0][1] == pytest.approx(500 / 3600)


def test_human_headers_and_one_trace(tiny):  # noqa: F811
    _, root, _ = tiny
    page = (root / "r.html").read_text()
    heads = re.findall(r"<th>(.*?)</th>", page)
    assert "R &lt; 0.2 (%)" in heads and "mean wait (min)" in heads
    assert not [h for h in heads if "_" in h]  # no raw column names
    assert "trace" not in heads  # one trace: the column is dropped


def test_study_runs_gantt_and_figure_files(tiny, tmp_path):  # noqa: F811
    wh, _, _ = tiny
    run = request_run(wh)
    res = build_report(wh, ["tiny"], tmp_path / "g.html", ["summary", "overview"], runs=[run],
                       gantt=[f"{run}:2020-01-01:2020-01-02"], figures_dir=tmp_path / "figs")
    page = (tmp_path / "g.html").read_text()
    assert page.index('id="summary"') < page.index('id="runs"') < page.index('id="overview"')
    runs_table = page[page.index('id="runs"'):page.index('id="overview"')]
    assert runs_table.count("<tr>") == 2 and run in runs_table  # header + the one run
    assert "Gantt chart of run" in page and res.sections[-1] == "queue"
    files = sorted(p.suffix for p in (tmp_path / "figs").iterdir())
    assert len(files) == 2 * res.figures and files.count(".pdf") == files.count(".png") == res.figures
    for bad, msg in ((f"{run}:2020-01-02", "RUN_ID:FROM:TO"), ("nope:2020-01-01:2020-01-02", 'no stored run "nope"'),
                     (f"{run}:2020-01-02:2020-01-01", "TO must be after FROM"),
                     (f"{run}:yesterday:2020-01-02", '"yesterday" is not a date')):
        with pytest.raises(WalltimeError, match=re.escape(msg)):
            build_report(wh, ["tiny"], tmp_path / "bad.html", ["overview"], gantt=[bad])
    assert not (tmp_path / "bad.html").exists()


def test_dry_run_lists_the_report_experiments(tmp_path):
    """`walltime run --dry-run` lists the papers' simulations the report would add."""
    swf = write_tiny(tmp_path)
    wh = tmp_path / "wh"
    run_cli("ingest", str(swf), warehouse=wh, check=True)
    (tmp_path / "s.toml").write_text(f'[study]\nname = "s"\n\n[[traces]]\npath = "{swf}"\nname = "tiny"\n\n'
                                     '[report]\nout = "s.html"\nsections = ["scheduling"]\n')
    doc = json.loads(run_cli("run", str(tmp_path / "s.toml"), "--dry-run", "--json", warehouse=wh, check=True).stdout)
    extra = [s for s in doc["steps"] if s["stage"] == "report" and s["why"] == "a paper experiment the report shows"]
    sims = [s for s in extra if s["target"].startswith("simulate tiny")]
    # docs/report.md: 34 simulations; one estimates step: the section's 4 schemes (requests, Tang p95, p85, p70)
    # and the 10 more its simulations read (requests x 2, the 7 uniform f, exact runtimes, Klusacek)
    assert len(sims) == 34 and extra[0]["target"] == "estimates tiny (14 schemes)"
    assert sum(s["target"].startswith("estimates tiny") for s in extra) == 1
    assert not (tmp_path / "s.html").exists()
    stored = run_cli("sql", "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM estimate_accuracy) AS n",
                     "--csv", warehouse=wh, check=True).stdout.split()
    assert stored[-1] == "0"  # planned, not computed


def test_runs_of_one_scheduler_say_their_replay(tiny, tmp_path):  # noqa: F811
    """Issue 23: the summary's whole-trace replay and a study's month-by-month run of the
    same scheduler give two numbers; each says which replay it is, and the section why."""
    from pipeline.simulate import make_config, simulate

    wh, _, _ = tiny
    whole = request_run(wh)
    monthly = simulate(wh, "tiny", make_config(policy="fcfs", backfill="easy", estimate="request",
                                               split="month")).run_id
    build_report(wh, ["tiny"], tmp_path / "r.html", ["summary"], runs=[whole, monthly])
    page = (tmp_path / "r.html").read_text()
    summary_part = page[page.index('id="summary"'):page.index('id="runs"')]
    runs_part = page[page.index('id="runs"'):]
    assert "the whole trace replayed at once" in summary_part
    rows = re.findall(r"<tr>(.*?)</tr>", runs_part, re.S)[1:]
    replay = {r: next(row for row in rows if r in row) for r in (whole, monthly)}
    assert "<td>whole trace</td>" in replay[whole] and "<td>month by month</td>" in replay[monthly]
    assert ("month by month starts every month from an empty machine, so its waits differ from those of "
            "the same scheduler replayed over the whole trace") in " ".join(runs_part.split())
