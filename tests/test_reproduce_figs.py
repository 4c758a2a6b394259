"""`walltime reproduce`'s figures (pipeline/reproduce/figs.py): the command run
for real writes them beside the page, the Markdown links them and the HTML
embeds them; the plotted curves equal an independent computation from the
warehouse's rows (numpy over sim_jobs / sim_nodes / jobs, not the SQL the
figures use)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import reproduce_quick, trace_path
from pipeline.reproduce import figs as FG
from pipeline.reproduce import klusacek_nodes, render
from pipeline.reproduce.core import Figure, Section, Text
from pipeline.report.figures import line_chart
from pipeline.warehouse import Warehouse

KTH = "KTH-SP2-1996-2.1-cln"


@pytest.fixture(scope="module")
def nodes_run(tmp_path_factory):
    """`walltime reproduce --quick --paper klusacek-nodes` as a real process (KTH, node-aware FCFS runs)."""
    trace_path(f"{KTH}.swf.gz")
    return reproduce_quick(tmp_path_factory.mktemp("reproduce_figs"), "klusacek-nodes")


def _naive_curves(con, run_id: str) -> tuple[list[float], list[float]]:
    """Share waiting <= x and share with T_node > x at each x of the grid, by numpy over the run's rows."""
    wait = np.array([w for (w,) in con.execute("SELECT wait FROM sim_jobs WHERE run_id = ?", [run_id]).fetchall()],
                    dtype=float)
    tn = dict(con.execute("SELECT job_id, t_node FROM sim_nodes WHERE run_id = ?", [run_id]).fetchall())
    ids = [j for (j,) in con.execute("SELECT job_id FROM sim_jobs WHERE run_id = ?", [run_id]).fetchall()]
    t = np.array([np.nan if tn.get(j) is None else tn[j] for j in ids], dtype=float)
    ws = [float(np.mean(wait <= x)) for x in FG.GRID]
    known = ~np.isnan(t)
    ts = [float(np.sum(t[known] > x) / known.sum()) for x in FG.GRID]
    return ws, ts


@pytest.mark.slow
def test_node_figures_are_written_linked_embedded_and_equal_a_naive_twin(nodes_run):
    out = nodes_run / "out"
    md = (out / "reproduction.md").read_text()
    html = (out / "reproduction.html").read_text()
    for name in ("klusacek-fig11-12", "klusacek-fig13-14"):
        for ext in ("svg", "png"):
            f = out / f"reproduction-{name}.{ext}"
            assert f.exists() and f.stat().st_size > 1000, f
        assert f"](reproduction-{name}.svg)" in md and f"](reproduction-{name}.png)" in md
        assert f"href='reproduction-{name}.png'" in html
    assert html.count("<svg class=\"chart\"") == 2  # embedded inline, not only linked

    con = Warehouse(nodes_run / "wh").reader()
    try:
        s = klusacek_nodes.build(con, klusacek_nodes.QUICK, True)
        figs = {f.name: f for f in s.figures()}
        run_ids = klusacek_nodes._stored(con, klusacek_nodes.QUICK, True)
        checked = 0
        for (trace, b, e, p), rid in run_ids.items():
            if b != "none":
                continue
            panel = f"KTH, pinning {klusacek_nodes.PINS[p]}"
            label = klusacek_nodes.ESTIMATES[e]
            ws, ts = _naive_curves(con, rid)
            xs, ys = figs["klusacek-fig13-14"].chart.panels[panel][label]
            assert xs == [x / 3600 for x in FG.GRID]
            assert ys == pytest.approx(ws, abs=1e-12)
            _, yt = figs["klusacek-fig11-12"].chart.panels[panel][label]
            assert yt == pytest.approx(ts, abs=1e-12)
            checked += 1
        assert checked == 5  # the quick grid's FCFS runs: exact, request and predictor x none / 1 h
        # a curve that moves: a wait CDF rises from its share at 1 s to (near) all jobs at a week
        assert ys[0] < ys[-1]

        # Fig. 6: the runtime CDF by size class against numpy over the jobs
        fig6 = FG.mualem_fig6(con, [KTH])
        got = con.execute("SELECT run, nodes FROM jobs WHERE trace = ? AND run >= 0 AND nodes IS NOT NULL",
                          [KTH]).fetchall()
    finally:
        con.close()
    run = np.array([r for r, _ in got], dtype=float)
    nodes = np.array([n for _, n in got])
    classes = {"1 node": nodes <= 1, "2-8 nodes": (nodes > 1) & (nodes <= 8),
               "9-32 nodes": (nodes > 8) & (nodes <= 32), "over 32 nodes": nodes > 32}
    assert set(fig6.chart.panels) == {k for k, m in classes.items() if m.any()}
    for size, sel in classes.items():
        if sel.any():
            _, ys = fig6.chart.panels[size]["KTH"]
            assert ys == pytest.approx([float(np.mean(run[sel] <= x)) for x in FG.GRID], abs=1e-12)


def test_figure_block_renders_as_link_and_inline_svg(tmp_path):
    chart = line_chart({"ours": ([1, 2, 3], [0.1, 0.5, 0.9]), "paper": ([2], [0.4])}, "A test figure",
                       "x (h)", "share")
    s = Section("t", "T").add(Text("x"), Figure("test-fig", chart, "the paper's point at x = 2", "sql/x.sql"))
    written = render.write_figures([s], tmp_path, "page")
    assert sorted(Path(p).name for p in written) == ["page-test-fig.png", "page-test-fig.svg"]
    assert (tmp_path / "page-test-fig.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (tmp_path / "page-test-fig.svg").read_text()
    md = render.markdown([s], ["# head"], "page")
    assert "![A test figure](page-test-fig.svg)" in md and "[PNG](page-test-fig.png)" in md
    html = render.html([s], "T", ["head"], "page")
    assert 'aria-label="A test figure"' in html and "href='page-test-fig.svg'" in html
