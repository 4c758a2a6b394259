"""Figures a reviewer accepts (issue 23), measured by matplotlib's renderer
(tests/figure_checks.py): no two tick labels overlap, no axes is empty, no text
runs off its figure; one palette in which no two concepts share a colour;
many wait-time curves drawn as small multiples; time bins chosen from the
trace's span (a 12-minute sacct dump gets minutes, not one day)."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

import pytest
from figure_checks import problems
from report_support import tiny  # noqa: F401 (session fixture)

from conftest import trace_path
from pipeline.report import SECTIONS, figures
from pipeline.report.page import Figure


def _lab(hexcolour: str) -> tuple[float, float, float]:
    """CIE L*a*b* of an sRGB colour (D65)."""
    rgb = [int(hexcolour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = [((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in rgb]
    xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
           (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    fx, fy, fz = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in xyz]
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _distance(a: str, b: str) -> float:
    return sum((x - y) ** 2 for x, y in zip(_lab(a), _lab(b))) ** 0.5


def test_no_two_concepts_share_a_colour():
    """The colours of every key, share, scheduler, metric, estimator and window,
    the lone-series colour and the fallbacks: all told apart (CIE76 >= 15)."""
    named = {**figures.EXACT, **{keys[0]: c for keys, c in figures.ESTIMATORS},
             **{f"window {w}": c for w, c in figures.WINDOWS.items()}, "single": figures.SINGLE,
             **{f"fallback {i}": c for i, c in enumerate(figures.FALLBACK)}}
    close = [(a, b, round(_distance(ca, cb), 1)) for (a, ca), (b, cb) in itertools.combinations(named.items(), 2)
             if _distance(ca, cb) < 15]
    assert close == []
    assert figures.colour("user + project + request") != figures.colour("original (requests)")


def test_a_figure_never_uses_a_colour_twice():
    names = ["user 171", "user 204", "user 3", "p95", "original (requests)", "account 9", "the users' requests"]
    got = figures.colours(names)
    assert got["p95"] == figures.colour("p95") and got["the users' requests"] == figures.colour("request")
    assert len(set(got[n] for n in names if n != "the users' requests")) == len(names) - 1


def _cdf(shift: float) -> tuple[list, list]:
    xs = [0, 0.05, 0.3, 1, 4, 20, 80, 300]
    return [x * shift for x in xs], [0.55, 0.6, 0.66, 0.72, 0.81, 0.9, 0.97, 1.0]


def test_twenty_wait_curves_drawn_as_small_multiples_are_readable():
    """A study's 16 runs and the summary's 4: one plot per scheduler, a few curves each."""
    panels = {f"{p} + {b}": {f"{e}, {a}": _cdf(1 + i / 10) for i, (e, a) in enumerate(
        itertools.product(("request", "tang:key=user_project_req,stat=p95,window=30d"), ("regular", "selective")))}
        for p, b in itertools.product(("FCFS", "WFP"), ("easy", "conservative"))}
    chart = figures.line_chart({}, "Wait-time distribution (CDF), the study's runs, one plot per scheduler: "
                               "KTH-SP2-1996-2.1-cln", "wait (h; linear to 0.1 h, logarithmic beyond)",
                               "share of jobs waiting <= x (0-1)", step=True, ylim=(0, 1), symlog=0.1, panels=panels)
    assert problems(chart) == []
    fig = chart.draw()
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 4
    assert max(len(ax.get_lines()) for ax in fig.axes) <= 4
    assert chart.inches() == figures.WIDE and set(chart.labels()) >= set(panels)


def test_one_long_title_and_many_series_stay_inside_the_figure():
    t0 = datetime(2026, 11, 22, 13, 54)
    times = [t0 + timedelta(minutes=i) for i in range(14)]
    charts = [
        figures.bar_chart(["mean", "median", "p95", "p85", "p70"],
                          {k: [0.3, 0.4, 0.5, 0.6, 0.7] for k in ("user", "project", "user + project",
                                                                 "user + project + request", "original (requests)")},
                          "Mean accuracy by key and statistic, window all, no floor (Tang Fig. 4): KTH-SP2-1996-2.1-cln",
                          "statistic of R", "mean accuracy (0-1, 1 = exact)", ylim=(0, 1)),
        figures.time_chart({"the users' requests": (times, [i % 5 for i in range(14)])},
                           "Utilisation per minute: slurm-lab-sacct", "time (UTC)", "busy share of the machine (%)"),
        figures.line_chart({f"accuracy {w}": ([0, 1, 2], [0.2, 0.5, 0.7]) for w in ("30d", "90d", "365d", "all")}
                           | {f"under {w}": ([0, 1, 2], [0.1, 0.2, 0.3]) for w in ("30d", "all")},
                           "History window, triple key, floor 0.5 (Tang Figs. 8-10): CEA-Curie-2011-2.1-cln",
                           "statistic of R", "mean accuracy / underestimated share (0-1)",
                           xcats=["p95", "p85", "p70"], ylim=(0, 1)),
    ]
    for c in charts:
        assert problems(c) == [], c.title
    assert {c.inches() for c in charts} <= {figures.NARROW, figures.WIDE}


def _section_charts(con, traces, keys):
    from pipeline.report.queue import queue

    for k in keys:
        sec = queue(con, traces) if k == "queue" else SECTIONS[k](con, traces)
        yield from (b.chart for b in sec.blocks if isinstance(b, Figure))


def test_tiny_report_figures_pass_the_renderer_checks(tiny):  # noqa: F811
    wh, _, _ = tiny
    con = wh.reader()
    try:
        charts = list(_section_charts(con, ["tiny"], [k for k in SECTIONS if k != "summary"]))
    finally:
        con.close()
    assert len(charts) > 20
    bad = {c.title: p for c in charts if (p := problems(c))}
    assert bad == {}
    assert {c.inches() for c in charts} <= {figures.NARROW, figures.WIDE}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The 12-minute slurm-lab dump with its queue section computed."""
    from pipeline.ingest import ingest
    from pipeline.ingest.formats import IngestOptions
    from pipeline.report import build_report
    from pipeline.warehouse import Warehouse

    root = tmp_path_factory.mktemp("lab")
    wh = Warehouse(root / "wh")
    ingest([trace_path("slurm-lab-sacct.txt")], wh, name="lab",
           options=IngestOptions(format="sacct", tz="UTC", slurm_conf=str(trace_path("slurm-lab.conf"))))
    build_report(wh, ["lab"], root / "r.html", ["queue"])
    return wh


@pytest.mark.slow
def test_a_twelve_minute_trace_is_drawn_per_minute(lab):
    con = lab.reader()
    try:
        bins = con.execute("SELECT DISTINCT bin_s FROM report_run_timeline_bins WHERE trace = 'lab'").fetchall()
        charts = list(_section_charts(con, ["lab"], ["queue"]))
        per_bin, per_day = (con.execute(
            f"SELECT run_id, round(sum(utilization * {w}), 6), round(sum(waiting_jobs * {w}), 6) FROM {v} "
            "WHERE trace = 'lab' GROUP BY run_id ORDER BY run_id").fetchall()
            for v, w in (("report_run_timeline_bins", "bin_s"), ("report_run_timeline", "86400")))
    finally:
        con.close()
    assert bins == [(60,)]
    assert per_bin == per_day and len(per_bin) >= 3  # the same busy and waiting time, cut finer
    timelines = [c for c in charts if c.kind == "time"]
    assert [c.title for c in timelines] == ["Utilisation per minute: lab", "Waiting jobs per minute: lab",
                                            "Waiting size-hours per minute: lab"]
    for c in timelines:
        xs = [x for xs, _ in c.series.values() for x in xs]
        assert len(set(xs)) >= 12 and max(xs) - min(xs) < timedelta(hours=1)
    bad = {c.title: p for c in charts if (p := problems(c))}
    assert bad == {}
