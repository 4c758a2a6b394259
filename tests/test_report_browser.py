"""The report page in a real browser (headless Chromium): no console errors,
every figure drawn, and a first screen that is not blank.

The product page has no scripts; the figure check runs in a copy of the page
with a small script appended, whose result is read back with --dump-dom.
Skips when Chromium is not installed (.ci/run installs the Debian package).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
import zlib

import pytest
from report_support import tiny  # noqa: F401 (session fixture)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")

CHECK = """<script>
(function () {
  var figs = document.querySelectorAll('svg.chart'), bad = [], texts = [];
  figs.forEach(function (s) {
    var r = s.getBoundingClientRect();
    // matplotlib draws data as paths inside line2d / patch / collection groups
    var drawn = s.querySelectorAll('g[id*="line2d"] path, g[id*="patch"] path, g[id*="Collection"] path').length;
    if (r.width < 100 || r.height < 100 || drawn < 3) bad.push(s.getAttribute('aria-label'));
    texts.push(Array.prototype.map.call(s.querySelectorAll('text'), function (t) { return t.textContent; }));
  });
  var pre = document.createElement('pre');
  pre.id = 'check-result';
  pre.textContent = JSON.stringify({figures: figs.length, bad: bad, texts: texts,
                                    tables: document.querySelectorAll('table').length});
  document.body.appendChild(pre);
})();
</script>"""


def chromium(tmp_path, *args: str, url: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]


def test_page_renders_every_figure_without_console_errors(tiny, tmp_path):  # noqa: F811
    _, root, res = tiny
    page = (root / "r.html").read_text()
    checked = tmp_path / "checked.html"
    checked.write_text(page.replace("</body>", CHECK + "</body>"))
    proc = chromium(tmp_path, "--dump-dom", url=checked.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = re.search(r'<pre id="check-result">(.*?)</pre>', proc.stdout)
    assert m, "the check script did not run"
    result = json.loads(html.unescape(m.group(1)))  # --dump-dom serialises "<" in text as &lt;
    assert result["figures"] == res.figures > 20
    assert result["bad"] == []
    # every category label and series name of every figure (from the figure's data) is text on the page
    assert len(result["texts"]) == len(res.figure_labels)
    for shown, wanted in zip(result["texts"], res.figure_labels):
        missing = [w for w in wanted if w not in shown]
        assert not missing, missing
    assert result["tables"] >= res.tables
    assert console_errors(proc.stderr) == []
    plain = chromium(tmp_path, "--dump-dom", url=(root / "r.html").as_uri())
    assert plain.returncode == 0 and "walltime report" in plain.stdout
    assert console_errors(plain.stderr) == []


def read_png(path) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of an 8-bit truecolor PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (n,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev = zlib.decompress(idat), [], bytes(width * bpp)
    stride = width * bpp
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = bytes(line)
    return width, height, [r[:: bpp][:width] for r in rows]  # red channel per pixel


def test_first_screen_screenshot(tiny, tmp_path):  # noqa: F811
    """The first screen: the title, then the summary's answers (no table of contents first)."""
    _, root, _ = tiny
    page = (root / "r.html").read_text()
    assert page.index('<section id="summary">') < page.index("<nav>")
    shot = tmp_path / "first.png"
    proc = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1000,700", url=(root / "r.html").as_uri())
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    width, height, red = read_png(shot)
    assert (width, height) == (1000, 700)
    dark = [sum(v < 100 for v in row) for row in red]
    # the title "walltime report" and its rule are drawn near the top...
    assert sum(dark[10:90]) > 500
    # ...and the page below is not blank (table of contents, first section)
    assert sum(1 for d in dark[90:] if d > 0) > 100
    assert len({v for row in red[::10] for v in row[::10]}) > 10  # more than a flat fill


def only_section(page: str, key: str) -> str:
    """The page with every top-level element but one section hidden: what a
    reader sees on arriving at that section."""
    hide = f"<style>body > *:not(#{key}) {{ display: none !important; }}</style></head>"
    return page.replace("</head>", hide, 1)


def test_each_section_screenshot(tiny, tmp_path):  # noqa: F811
    """A screenshot of each section: its heading drawn at the top, figures or
    tables below it (not blank), and each section looks different."""
    _, root, res = tiny
    page = (root / "r.html").read_text()
    keys = re.findall(r'<section id="([a-z]+)">', page)
    assert keys[0] == "summary" and set(res.sections) <= set(keys)
    seen = set()
    for key in keys:
        html_path = tmp_path / f"{key}.html"
        html_path.write_text(only_section(page, key))
        shot = tmp_path / f"{key}.png"
        proc = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1000,700", url=html_path.as_uri())
        assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
        width, height, red = read_png(shot)
        dark = [sum(v < 100 for v in row) for row in red]
        assert sum(dark[20:90]) > 300, f"{key}: no heading drawn at the top"
        assert sum(1 for d in dark[150:] if d > 0) > 100, f"{key}: nothing drawn below the heading"
        sig = bytes(v for row in red[::25] for v in row[::25])
        assert sig not in seen, f"{key}: looks like another section"
        seen.add(sig)
