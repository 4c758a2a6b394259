"""The report's figures drawn in other processes (pipeline/report/drawing.py)
give exactly the page drawn in one process."""

import re

from report_support import tiny  # noqa: F401 (session fixture)

from pipeline.report import build_report
from pipeline.report.drawing import Drawer, draw_workers
from pipeline.report.figures import bar_chart, line_chart
from pipeline.report.page import Figure, Section


def _page(path) -> str:
    return re.sub(r"Generated [^.]*UTC", "Generated", path.read_text())


def test_page_equal_with_and_without_drawing_processes(tiny, tmp_path, monkeypatch):
    wh, _, _ = tiny
    monkeypatch.setenv("WALLTIME_DRAW_WORKERS", "0")
    alone = build_report(wh, ["tiny"], tmp_path / "alone.html")
    monkeypatch.setenv("WALLTIME_DRAW_WORKERS", "2")
    beside = build_report(wh, ["tiny"], tmp_path / "beside.html")
    assert alone.figures == beside.figures > 5
    assert _page(tmp_path / "alone.html") == _page(tmp_path / "beside.html")
    assert "<dc:date>" not in _page(tmp_path / "alone.html")  # the same page for the same data


def test_drawer_keeps_each_drawing_on_its_chart():
    charts = [line_chart({"a": ([1, 2, 3], [3, 1, 2]), "b": ([1, 2, 3], [1, 1, 1])}, "lines", "x (h)", "y (%)"),
              bar_chart(["p", "q"], {"s": [1.0, 2.0]}, "bars", "kind", "jobs (%)")]
    expected = [c.drawn_svg() for c in charts]
    for c in charts:
        c._svg = None
    drawer = Drawer(workers=2)
    drawer.add(Section("k", "t", "r", [Figure(c.title, c) for c in charts]))
    drawer.finish()
    assert [c._svg for c in charts] == expected


def test_draw_workers_setting(monkeypatch):
    monkeypatch.setenv("WALLTIME_DRAW_WORKERS", "0")
    assert draw_workers() == 0
    monkeypatch.setenv("WALLTIME_DRAW_WORKERS", "3")
    assert draw_workers() == 3
