"""Reports of real traces in headless Chromium (issue 23, "figures a reviewer
accepts"): no text overflows its box. Checked in the page by a small script:
a text element whose content is wider than its box (scrollWidth > clientWidth),
an element that reaches past the page's column, and a figure's text outside
the figure's own rectangle (a title cut off at the SVG's edge). Screenshots of
each report are kept in the test's tmp directory for a person to look at.

Reports: the slurm-lab sacct dump (12 minutes), KTH-SP2 and the demo study.
Each is built from an empty warehouse, so these tests are slow.
"""

from __future__ import annotations

import html
import json
import re

import pytest

from conftest import trace_path
from test_report_browser import CHROMIUM, chromium

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")]

OVERFLOW = """<script>
(function () {
  var bad = [], body = document.body.getBoundingClientRect();
  var say = function (what, el) { bad.push(what + ': ' + (el.getAttribute('aria-label') || el.textContent).trim().slice(0, 80)); };
  document.querySelectorAll('h1, h2, h3, p, li, th, td, summary, .sql, figure').forEach(function (el) {
    if (el.closest('details:not([open])')) return;
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== 'inline') say('wider than its box', el);
    var r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > body.right + 1 || r.left < body.left - 1)) say('outside the column', el);
  });
  document.querySelectorAll('table').forEach(function (t) {
    if (t.closest('details:not([open])')) return;
    var r = t.getBoundingClientRect();
    if (r.right > body.right + 1) say('table outside the column', t.rows[0] || t);
  });
  document.querySelectorAll('svg.chart').forEach(function (s) {
    var box = s.getBoundingClientRect();
    s.querySelectorAll('text').forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1))
        bad.push('figure text outside its figure: ' + s.getAttribute('aria-label').slice(0, 60) + ': ' + t.textContent);
    });
  });
  var pre = document.createElement('pre');
  pre.id = 'overflow-result';
  pre.textContent = JSON.stringify({bad: bad, figures: document.querySelectorAll('svg.chart').length});
  document.body.appendChild(pre);
})();
</script>"""


def overflowing(page_path, tmp_path) -> dict:
    """Run the check in Chromium at a laptop's window width; also save a screenshot."""
    page = page_path.read_text()
    checked = tmp_path / f"checked-{page_path.name}"
    checked.write_text(page.replace("</body>", OVERFLOW + "</body>"))
    proc = chromium(tmp_path, "--window-size=1280,900", "--dump-dom", url=checked.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = re.search(r'<pre id="overflow-result">(.*?)</pre>', proc.stdout)
    assert m, "the check script did not run"
    shot = tmp_path / f"{page_path.stem}.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,6000", url=page_path.as_uri())
    return json.loads(html.unescape(m.group(1)))


def _report(tmp_path, *ingest_args, name="r.html", runs=None):
    from pipeline.ingest import ingest
    from pipeline.report import build_report
    from pipeline.warehouse import Warehouse

    wh = Warehouse(tmp_path / "wh")
    ingest(*ingest_args[:1], wh, **(ingest_args[1] if len(ingest_args) > 1 else {}))
    build_report(wh, None, tmp_path / name)
    return tmp_path / name


def test_slurm_lab_report_text_stays_in_its_boxes(tmp_path):
    from pipeline.ingest.formats import IngestOptions

    page = _report(tmp_path, [trace_path("slurm-lab-sacct.txt")],
                   {"name": "lab", "options": IngestOptions(format="sacct", tz="UTC",
                                                            slurm_conf=str(trace_path("slurm-lab.conf")))})
    res = overflowing(page, tmp_path)
    assert res["figures"] > 20 and res["bad"] == []


def test_kth_report_text_stays_in_its_boxes(tmp_path):
    page = _report(tmp_path, [trace_path("KTH-SP2-1996-2.1-cln.swf.gz")])
    res = overflowing(page, tmp_path)
    assert res["figures"] > 20 and res["bad"] == []


def test_demo_report_text_stays_in_its_boxes(tmp_path):
    from pipeline.study.demo import run_demo
    from pipeline.warehouse import Warehouse

    out = tmp_path / "demo.html"
    run_demo(Warehouse(tmp_path / "wh"), out=out)
    res = overflowing(out, tmp_path)
    assert res["figures"] > 20 and res["bad"] == []
