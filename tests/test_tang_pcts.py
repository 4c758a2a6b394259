"""Tang Figs. 15-16's p70/p95 statements on a real cut of SDSC-SP2 (its first
months, the SWF lines as logged) through the report's real plan of monthly
runs: each check's number recomputed in plain Python from report_tang_months."""

from __future__ import annotations


import pytest

from conftest import trace_path
from ingest_support import swf_head
from pipeline.ingest import ingest
from pipeline.report.compute import prepare
from pipeline.reproduce import tang_pcts as TP
from pipeline.reproduce.common import SDSC
from pipeline.reproduce.core import Checks, Section, Text
from pipeline.warehouse import Warehouse

CUT = 7000


@pytest.mark.slow
def test_p70_p95_checks_recompute_from_the_months(tmp_path):
    cut = swf_head(trace_path("SDSC-SP2-1998-4.2-cln.swf.gz"), tmp_path / f"{SDSC}.swf", CUT)  # keeps the name
    wh = Warehouse(tmp_path / "wh")
    ingest([cut], wh)
    prepare(wh, [SDSC], ["estimates", "scheduling"], {}, ["tang"], grid=False)
    con = wh.reader()
    try:
        months = con.execute("SELECT policy, adjust, scheme, wait, slowdown, weighted_wait FROM report_tang_months "
                             "WHERE trace = ?", [SDSC]).fetchall()
        s = Section("tang", "t")
        TP.statements(s, con, [SDSC])
    finally:
        con.close()
    acc: dict = {}
    for pol, adj, sch, w, sd, ww in months:
        if None in (w, sd, ww):
            continue
        acc.setdefault((pol, adj, sch), []).append((100 - w, 100 - 10 * sd, 100 - ww))
    gain = {k: [round(sum(v[i] for v in vs) / len(vs), 1) for i in range(3)] for k, vs in acc.items()}
    checks = {c.id: c for b in s.blocks if isinstance(b, Checks) for c in b.checks}
    for i, m in enumerate(TP.METRICS):
        assert checks[f"tang.fig15.SDSC.p70.sel_vs_reg.{m}"].ours == pytest.approx(
            gain["wfp", "selective", "p70"][i] - gain["wfp", "regular", "p70"][i], abs=1e-9)
        c95 = checks[f"tang.fig15.SDSC.p95.sel_vs_reg.{m}"]
        assert c95.ours == pytest.approx(gain["wfp", "selective", "p95"][i] - gain["wfp", "regular", "p95"][i], abs=1e-9)
        assert c95.verdict == ("reproduced" if abs(c95.ours) <= TP.SAME + 1e-9 else "differs")
    best = checks["tang.fig16.SDSC.p95_best.wait"].ours
    assert best == pytest.approx(gain["fcfs", "regular", "p95"][0]
                                 - max(gain["fcfs", "regular", "p85"][0], gain["fcfs", "regular", "p70"][0]), abs=1e-9)
    worst = checks["tang.fig16.SDSC.p70_worst.slowdown"].ours
    assert worst == pytest.approx(gain["fcfs", "regular", "p70"][1]
                                  - min(gain["fcfs", "regular", "p95"][1], gain["fcfs", "regular", "p85"][1]), abs=1e-9)
    text = next(b.text for b in s.blocks if isinstance(b, Text))
    p70 = [checks[f"tang.fig15.SDSC.p70.sel_vs_reg.{m}"].ours for m in TP.METRICS]
    p95 = [checks[f"tang.fig15.SDSC.p95.sel_vs_reg.{m}"].ours for m in TP.METRICS]
    assert ("on every metric, as the paper reads it" in text) == all(a > b for a, b in zip(p70, p95))
    assert f"p70 {', '.join(f'{v:+.1f}' for v in p70)}" in text
