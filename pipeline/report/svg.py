"""Small, dependency-free SVG charts for the HTML report.

Why our own: the report must be one self-contained, printable file with no
external scripts or fonts; inline SVG does that, stays crisp when printed, and
keeps the install light. Only what the report needs: line/step charts (CDFs,
per-month series) and grouped or stacked bar charts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf"]
FONT = 'font-family="sans-serif"'


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About n round tick values covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0, 1.0]
    if hi <= lo:
        hi = lo + (abs(lo) if lo else 1.0)
    raw = (hi - lo) / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, t = [], start
    while t <= hi + step * 1e-9:
        ticks.append(round(t, 12))
        t += step
    if ticks[-1] < hi:
        ticks.append(ticks[-1] + step)
    return ticks


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e6:
        return f"{v / 1e6:g}M"
    if a >= 1e4:
        return f"{v / 1e3:g}k"
    if a >= 1:
        return f"{v:g}"
    return f"{v:.3g}"


class _Frame:
    """Plot area and axes shared by the chart kinds."""

    def __init__(self, width, height, title, xlabel, ylabel, legend_rows):
        self.w, self.h = width, height
        self.left, self.right, self.top = 64, 16, 34
        self.bottom = 48 + 18 * legend_rows
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.parts: list[str] = []

    @property
    def pw(self):
        return self.w - self.left - self.right

    @property
    def ph(self):
        return self.h - self.top - self.bottom

    def y_axis(self, ticks, ymap, log=False):
        for t in ticks:
            y = ymap(t)
            self.parts.append(f'<line x1="{self.left}" x2="{self.left + self.pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e5e5"/>')
            label = _fmt(10 ** t) if log else _fmt(t)
            self.parts.append(f'<text x="{self.left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" {FONT}>{label}</text>')

    def frame(self):
        p = self.parts
        p.append(f'<rect x="{self.left}" y="{self.top}" width="{self.pw}" height="{self.ph}" fill="none" stroke="#999"/>')
        size = min(14.0, (self.w - 8) / (0.6 * max(len(self.title), 1)))  # long titles shrink to fit
        p.append(f'<text x="{self.w / 2}" y="18" text-anchor="middle" font-size="{size:.1f}" font-weight="bold" {FONT}>{escape(self.title)}</text>')
        p.append(f'<text x="{self.left + self.pw / 2}" y="{self.top + self.ph + 36}" text-anchor="middle" font-size="12" {FONT}>{escape(self.xlabel)}</text>')
        cy = self.top + self.ph / 2
        p.append(f'<text x="14" y="{cy}" text-anchor="middle" font-size="12" {FONT} transform="rotate(-90 14 {cy})">{escape(self.ylabel)}</text>')

    def legend(self, names):
        x0, y = self.left, self.top + self.ph + 54
        x = x0
        for i, name in enumerate(names):
            label = escape(str(name))
            width = 26 + 7 * len(label)
            if x + width > self.w - self.right:
                x, y = x0, y + 18
            color = PALETTE[i % len(PALETTE)]
            self.parts.append(f'<rect x="{x}" y="{y - 9}" width="12" height="10" fill="{color}"/>')
            self.parts.append(f'<text x="{x + 16}" y="{y}" font-size="11" {FONT}>{label}</text>')
            x += width

    def svg(self, desc):
        body = "\n".join(self.parts)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {self.w} {self.h}" '
                f'width="{self.w}" height="{self.h}" role="img" aria-label="{escape(desc)}">'
                f"<title>{escape(desc)}</title>\n{body}\n</svg>")


def _label_every(cats, plot_width) -> int:
    """Label every k-th category so that the labels (10 px font) do not overlap."""
    longest = max((len(str(c)) for c in cats), default=1)
    fits = max(1, int(plot_width // (6 * longest + 8)))
    return max(1, math.ceil(len(cats) / fits))


def _legend_rows(names, width):
    rows, x = 1, 64
    for n in names:
        wdt = 26 + 7 * len(str(n))
        if x + wdt > width - 16:
            rows, x = rows + 1, 64
        x += wdt
    return rows if len(names) > 1 else 0


def line_chart(series: dict[str, tuple[Sequence[float], Sequence[float]]], title: str, xlabel: str = "",
               ylabel: str = "", width: int = 530, height: int = 310, step: bool = False,
               xlog: bool = False, ylim: tuple[float, float] | None = None,
               xcats: Sequence[str] | None = None) -> str:
    """Lines (or steps, for CDFs) over a numeric x axis, or over categories
    ``xcats`` (then xs are category indexes)."""
    names = list(series)
    f = _Frame(width, height, title, xlabel, ylabel, _legend_rows(names, width))
    tx = (lambda v: math.log10(v)) if xlog else (lambda v: v)
    pts = {k: [(tx(x), y) for x, y in zip(*series[k]) if y is not None and (not xlog or x > 0)
               and math.isfinite(y)] for k in names}
    xs = [x for v in pts.values() for x, _ in v]
    ys = [y for v in pts.values() for _, y in v]
    if not xs:
        f.frame()
        f.parts.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" {FONT}>no data</text>')
        return f.svg(title)
    if xcats is not None:
        x0, x1 = -0.5, len(xcats) - 0.5
    else:
        x0, x1 = min(xs), max(xs)
        if x1 == x0:
            x1 = x0 + 1
    y0, y1 = ylim if ylim else (min(0.0, min(ys)), max(ys))
    yt = nice_ticks(y0, y1)
    y0, y1 = yt[0], yt[-1]
    xmap = lambda v: f.left + (v - x0) / (x1 - x0) * f.pw  # noqa: E731
    ymap = lambda v: f.top + f.ph - (v - y0) / (y1 - y0) * f.ph  # noqa: E731
    f.y_axis(yt, ymap)
    if xcats is not None:
        every = _label_every(xcats, f.pw)
        for i, c in enumerate(xcats):
            if i % every == 0:
                f.parts.append(f'<text x="{xmap(i):.1f}" y="{f.top + f.ph + 16}" text-anchor="middle" font-size="10" {FONT}>{escape(str(c))}</text>')
    else:
        for t in nice_ticks(x0, x1, 6):
            if x0 <= t <= x1:
                label = _fmt(10 ** t) if xlog else _fmt(t)
                f.parts.append(f'<text x="{xmap(t):.1f}" y="{f.top + f.ph + 16}" text-anchor="middle" font-size="11" {FONT}>{label}</text>')
    for i, k in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        coords = []
        prev = None
        for x, y in sorted(pts[k]) if not xcats else pts[k]:
            if step and prev is not None:
                coords.append(f"{xmap(x):.1f},{ymap(prev):.1f}")
            coords.append(f"{xmap(x):.1f},{ymap(y):.1f}")
            prev = y
        f.parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.8" points="{" ".join(coords)}"/>')
        if xcats is not None or len(pts[k]) <= 40:
            for x, y in pts[k]:
                f.parts.append(f'<circle cx="{xmap(x):.1f}" cy="{ymap(y):.1f}" r="2.5" fill="{color}"/>')
    f.frame()
    if len(names) > 1:
        f.legend(names)
    return f.svg(title)


def bar_chart(categories: Sequence[str], series: dict[str, Sequence[float]], title: str, xlabel: str = "",
              ylabel: str = "", width: int = 530, height: int = 310, stacked: bool = False,
              ylim: tuple[float, float] | None = None) -> str:
    """Grouped (or stacked) bars, one group per category."""
    names = list(series)
    f = _Frame(width, height, title, xlabel, ylabel, _legend_rows(names, width))
    vals = [[(v if v is not None and math.isfinite(v) else 0.0) for v in series[k]] for k in names]
    if stacked:
        tops = [sum(col) for col in zip(*vals)] or [0]
        lo, hi = 0.0, max(tops)
    else:
        flat = [v for s in vals for v in s] or [0]
        lo, hi = min(0.0, min(flat)), max(flat)
    if ylim:
        lo, hi = ylim
    yt = nice_ticks(lo, hi if hi > lo else lo + 1)
    y0, y1 = yt[0], yt[-1]
    ymap = lambda v: f.top + f.ph - (v - y0) / (y1 - y0) * f.ph  # noqa: E731
    f.y_axis(yt, ymap)
    n = max(len(categories), 1)
    gw = f.pw / n
    bw = gw * 0.8 / (1 if stacked else max(len(names), 1))
    every = _label_every(categories, f.pw)
    for ci, cat in enumerate(categories):
        gx = f.left + ci * gw + gw * 0.1
        base = 0.0
        for si, k in enumerate(names):
            v = vals[si][ci]
            color = PALETTE[si % len(PALETTE)]
            if stacked:
                ya, yb = ymap(base + v), ymap(base)
                x = gx
                base += v
            else:
                ya, yb = (ymap(v), ymap(0)) if v >= 0 else (ymap(0), ymap(v))
                x = gx + si * bw
            f.parts.append(f'<rect x="{x:.1f}" y="{ya:.1f}" width="{bw:.1f}" height="{max(yb - ya, 0):.1f}" fill="{color}"><title>{escape(str(cat))} {escape(str(k))}: {v:.4g}</title></rect>')
        if ci % every == 0:
            f.parts.append(f'<text x="{f.left + ci * gw + gw / 2:.1f}" y="{f.top + f.ph + 16}" text-anchor="middle" font-size="10" {FONT}>{escape(str(cat))}</text>')
    f.frame()
    if len(names) > 1:
        f.legend(names)
    return f.svg(title)
