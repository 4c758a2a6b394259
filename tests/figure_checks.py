"""What a reviewer checks on a drawn figure, measured by matplotlib's renderer
(tests/test_report_figures.py): no two tick labels overlap, every axes shows
data, and every text (title, labels, legend) lies inside the figure."""

from __future__ import annotations

import math


def _boxes(ax, which: str, renderer):
    """(text, extent) of the tick labels drawn: those of ticks inside the view."""
    lo, hi = sorted(getattr(ax, f"get_{which}lim")())
    pad = (hi - lo) * 1e-9
    at = 0 if which == "x" else 1
    return [(t.get_text(), t.get_window_extent(renderer)) for t in getattr(ax, f"get_{which}ticklabels")()
            if t.get_visible() and t.get_text().strip() and lo - pad <= t.get_position()[at] <= hi + pad]


def _overlap(a, b, pad: float = 0.5) -> bool:
    return (a.x0 + pad < b.x1 and b.x0 + pad < a.x1) and (a.y0 + pad < b.y1 and b.y0 + pad < a.y1)


def _shows_data(ax) -> bool:
    """A line with a finite point inside the view, a bar of some height, or a collection."""
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    for line in ax.get_lines():
        for x, y in zip(*line.get_data()):
            try:
                x, y = float(x), float(y)
            except (TypeError, ValueError):  # datetimes: converted by the axis
                x, y = float(ax.xaxis.convert_units(x)), float(y)
            if math.isfinite(x) and math.isfinite(y) and x0 <= x <= x1 and y0 <= y <= y1:
                return True
    if any(p.get_height() and math.isfinite(p.get_height()) for p in ax.patches if hasattr(p, "get_height")):
        return True
    return any(len(c.get_paths()) for c in ax.collections)


def problems(chart) -> list[str]:
    """What is wrong with the drawn chart, in words (empty: nothing)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = chart.draw()
    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # layout done, extents final
    r = canvas.get_renderer()
    out = []
    frame = fig.bbox
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        if chart.kind != "gantt" and not _shows_data(ax):
            out.append(f"an empty axes ({ax.get_title()!r})")
        for which in ("x", "y"):
            ticks = _boxes(ax, which, r)
            for i, (ta, a) in enumerate(ticks):
                for tb, b in ticks[i + 1:]:
                    if _overlap(a, b):
                        out.append(f"{which} tick labels {ta!r} and {tb!r} overlap")
        if ax.bbox.width < 0.25 * frame.width / max(1, len([a for a in fig.axes if a.get_visible()])):
            out.append(f"the plot is squeezed to {ax.bbox.width:.0f} px of {frame.width:.0f}")
    ticks = {id(t) for ax in fig.axes for which in "xy" for t in getattr(ax, f"get_{which}ticklabels")()}
    texts = [t for t in fig.findobj(lambda a: hasattr(a, "get_text") and hasattr(a, "get_window_extent"))
             if t.get_visible() and str(t.get_text()).strip() and id(t) not in ticks]
    texts += [t for ax in fig.axes if ax.get_visible() for which in "xy" for _, t in
              [(None, x) for x in getattr(ax, f"get_{which}ticklabels")()
               if any(x.get_text() == s for s, _ in _boxes(ax, which, r))]]
    for t in texts:
        e = t.get_window_extent(r)
        if e.x0 < frame.x0 - 1 or e.x1 > frame.x1 + 1 or e.y0 < frame.y0 - 1 or e.y1 > frame.y1 + 1:
            out.append(f"text {str(t.get_text())[:60]!r} runs off the figure")
    return out
