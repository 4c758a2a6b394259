"""The report at scale (issue 43 item 2): the tables it now reads from one-run queries and a
per-page memo are the tables the views give.

The page shows, under each table, the view query that reproduces it; for two tables the rows
come from a query for the runs shown instead (the views join every run's jobs before the runs
are chosen: at 1M Eagle-shaped jobs and the report's 55 runs, 10.7 s for the calibration table
alone). Real trace: KTH-SP2 with the summary's runs and two more (one at another load factor),
so the views have runs to leave out.
"""

from __future__ import annotations

import pytest

from conftest import trace_path

from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

KTH = "KTH-SP2-1996-2.1-cln"


@pytest.fixture(scope="module")
def kth(tmp_path_factory):
    from pipeline.simulate import make_config, simulate
    from pipeline.summary import summarize

    w = Warehouse(tmp_path_factory.mktemp("report-scale") / "wh")
    ingest([trace_path(f"{KTH}.swf.gz")], w)
    s = summarize(w, KTH)
    extra = [simulate(w, KTH, make_config(policy="fcfs", backfill="conservative", estimate="request")).run_id,
             simulate(w, KTH, make_config(policy="fcfs", backfill="easy", estimate="request",
                                          load_factor=1.2)).run_id]
    return w, s, extra


def test_the_calibration_table_equals_the_report_calibration_view(kth):
    """queue.calibration_table (sql/calibration_run.sql run by run) against the query the page shows
    under it (report_calibration): the same rows in the same order, every column; a run at another
    load factor left out as the view's WHERE leaves it."""
    from pipeline.report.queue import calibration_table

    w, s, extra = kth
    runs = [q.run_id for q in s.queue if q.run_id] + extra
    assert len(runs) >= 5
    con = w.reader()
    try:
        table = calibration_table(con, "t", KTH, runs)
        cur = con.execute(table.sql)
        names, want = [d[0] for d in cur.description], cur.fetchall()
        lf = dict(con.execute("SELECT run_id, load_factor FROM runs").fetchall())
    finally:
        con.close()
    assert lf[extra[1]] == 1.2 and table.view == "report_calibration"
    assert table.columns == names
    assert len(want) == len(runs) - 1 == len(table.rows)
    for got, row in zip(table.rows, want):
        assert got[:2] == row[:2]
        assert list(got[2:]) == [pytest.approx(v, rel=1e-12) if isinstance(v, float) else v for v in row[2:]]


def test_the_winners_table_equals_the_summary_owner_change_view(kth):
    """summary.winners_table (sql/summary_owner_change_pair.sql) against the view query it shows."""
    from pipeline.report.summary import winners_table

    w, s, _ = kth
    assert s.winners and s.winners.get("kinds")
    con = w.reader()
    try:
        table = winners_table(con, KTH, s.winners)
        cur = con.execute(table.sql)
        names, want = [d[0] for d in cur.description], cur.fetchall()
    finally:
        con.close()
    assert "FROM summary_owner_change " in table.sql and table.columns == names
    assert len(want) > 10 and len(table.rows) == len(want)
    for got, row in zip(table.rows, want):
        assert got[:3] == row[:3] and got[10:] == row[10:]
        assert list(got[3:10]) == pytest.approx(list(row[3:10]), rel=1e-12, abs=1e-12)


def test_a_page_reads_each_query_once_and_shows_what_the_queries_give(kth, tmp_path):
    """Within a page (memo.session) a figure and the table under it run their view query once; outside
    one nothing is kept; and the page built with the memo is the page built without it."""
    import re

    from pipeline.report import build_report, memo
    from pipeline.report.views import rows, view_table

    w, _, _ = kth
    con = w.reader()
    try:
        seen = []
        real = con.execute

        class Counting:  # a connection that counts the queries it runs
            def execute(self, q, *a):
                seen.append(q)
                return real(q, *a)

        c = Counting()
        args = ("report_load_month", [KTH])
        with memo.session(c):
            r = rows(c, *args)
            t = view_table(c, "t", *args)
        assert len(seen) == 1 and [tuple(x.values()) for x in r] == t.rows
        rows(c, *args)
        view_table(c, "t", *args)
        assert len(seen) == 3
    finally:
        con.close()

    def page(path, session):
        saved = memo.session
        if not session:  # every read afresh: the page as before the memo
            import contextlib

            memo.session = lambda con: contextlib.nullcontext(con)
        try:
            build_report(w, [KTH], path, ["summary", "queue"])
        finally:
            memo.session = saved
        return re.sub(r"Generated [0-9-]+ [0-9:]+ UTC", "", path.read_text())

    assert page(tmp_path / "a.html", True) == page(tmp_path / "b.html", False)
