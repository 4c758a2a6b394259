"""The report's figures, drawn by matplotlib.

A :class:`Chart` keeps the figure's data (categories, series) and draws it on
demand: as SVG inlined in the page (text kept as text, so the page stays one
self-contained, searchable file) and, with ``--figures DIR``, as PDF and PNG.
Rules every figure follows: every category labelled (rotated, never dropped),
dates on time axes, a unit on every axis, a legend when there is more than one
series, and one colour per concept (the same estimator has the same colour in
every figure: :func:`colour`).
"""

from __future__ import annotations

import io
import re
import textwrap
import zlib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ..checks import write_file

# -- one palette per concept ---------------------------------------------------

EXACT = {
    # history keys (Tang Fig. 4)
    "user": "#a6cee3", "project": "#b2df8a", "user + project": "#33a02c",
    "user + project + request": "#1f78b4",
    # NA / OE / UE / BE shares (Tang Fig. 5)
    "NA": "#bdbdbd", "OE": "#74c476", "UE": "#fdae6b", "BE": "#e6550d", "ABOVE": "#9ecae1",
    # backfilling and queue orders
    "easy": "#1b9e77", "conservative": "#d95f02", "none": "#7570b3",
    "FCFS": "#66a61e", "LWF": "#e7298a", "Backfill": "#1b9e77",
    # floor, metrics
    "no floor": "#fdae6b", "floor 0.5": "#3182bd",
    "wait": "#3182bd", "slowdown": "#e6550d", "weighted wait": "#31a354",
}
# estimators, matched by a piece of their label, first match wins
ESTIMATORS = [
    (("exact", "actual"), "#000000"),
    (("request x 2", "factor"), "#6baed6"),
    (("user estimate", "request", "original"), "#1f77b4"),
    (("p95",), "#ff7f0e"), (("p85",), "#d62728"), (("p70",), "#9467bd"),
    (("klusacek", "predictor"), "#2ca02c"),
    (("1.5 sd", "feitelson"), "#8c564b"),
    (("ave2",), "#e377c2"),
    (("baseline",), "#7f7f7f"),
]
WINDOWS = {"30d": "#440154", "90d": "#31688e", "365d": "#35b779", "all": "#b5a100"}
FALLBACK = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf"]


SINGLE = "#4a6fa5"  # a lone series that is no concept of its own ("share of jobs")


def colour(name: str, alone: bool = False) -> str:
    """The colour of a series, the same in every figure."""
    if name in EXACT:
        return EXACT[name]
    low = name.lower()
    for w in WINDOWS:
        if low in (f"accuracy {w}", f"under {w}"):
            return WINDOWS[w]
    for keys, c in ESTIMATORS:
        if any(k in low for k in keys):
            return c
    return SINGLE if alone else FALLBACK[zlib.crc32(name.encode()) % len(FALLBACK)]


def _style(name: str) -> str:
    low = name.lower()
    if low.startswith("under ") or name == "baseline":
        return "--"
    if low.endswith("selective"):
        return ":"
    return "-." if "conservative" in low or low.startswith(("wfp", "sjf", "lwf")) else "-"  # other schedulers


# -- charts --------------------------------------------------------------------

@dataclass
class Chart:
    """One figure's data and how to draw it."""
    kind: str  # "line", "bar", "time" (x = datetimes) or "gantt" (series["jobs"]: row dicts)
    title: str
    xlabel: str
    ylabel: str
    series: dict  # line: name -> (xs, ys); bar: name -> values per category
    categories: list[str] | None = None  # bar categories, or x categories of a line chart
    dates: bool = False  # categories are months "YYYY-MM" / quarters "YYYY-Qn": a time axis
    step: bool = False
    xlog: bool = False
    ylim: tuple[float, float] | None = None
    stacked: bool = False
    width: float | None = None  # inches; default from the number of categories
    symlog: float | None = None  # x axis linear up to this value, logarithmic beyond (waits with zeros)
    _svg: str | None = field(default=None, repr=False)

    def labels(self) -> list[str]:
        """Every text a reader needs: category labels and, with several series, their names."""
        if self.kind == "gantt":
            return []
        cats = [] if self.dates else list(self.categories or [])
        return cats + (list(self.series) if len(self.series) > 1 else [])

    def has_data(self) -> bool:
        if self.kind == "gantt":
            return bool(self.series["jobs"])
        vals = self.series.values()
        ys = [y for v in vals for y in (v if self.kind == "bar" else v[1])]
        return any(y is not None for y in ys)

    def inches(self) -> float:
        """Figure width: wider with more (or longer) categories, at most 11 in."""
        if self.width:
            return self.width
        n = len(self.categories or [])
        longest = max((len(str(c)) for c in self.categories or []), default=0)
        return min(11.0, max(6.4, 0.11 * n * max(1, longest / 3) + 2.5))

    # drawing
    def draw(self):
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure

        fig = Figure(figsize=(self.inches(), 4.2), layout="constrained")
        ax = fig.add_subplot()
        {"bar": self._bars, "line": self._lines, "time": self._times, "gantt": self._gantt}[self.kind](ax)
        ax.set_title(self.title, fontsize=10, loc="left")
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel("\n".join(textwrap.wrap(self.ylabel, 34)))  # a long unit wraps, never runs off
        if self.ylim:
            ax.set_ylim(*self.ylim)
        ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
        for s in ("top", "right"):
            ax.spines[s].set_visible(False)
        if len(self.series) > 1 and self.kind != "gantt":
            outside = len(self.series) > 4 or self.kind == "bar"  # bars fill the plot: legend beside it
            ax.legend(fontsize=8, frameon=False, **({"loc": "upper left", "bbox_to_anchor": (1.01, 1)}
                                                    if outside else {"loc": "best"}))
        return fig

    def _category_ticks(self, ax, positions) -> None:
        cats = [str(c) for c in self.categories]
        ax.set_xticks(positions, cats)
        room = 0.8 * ax.figure.get_figwidth() * 72 / max(len(cats), 1)  # points per category
        need = (max((len(c) for c in cats), default=0) + 1.5) * 7.0  # ~7 pt per character, and a gap
        if need > room:
            for label in ax.get_xticklabels():
                label.set_rotation(90 if room < 14 else 45)
                label.set_ha("center" if room < 14 else "right")
                label.set_fontsize(8)

    def _bars(self, ax) -> None:
        import numpy as np

        names = list(self.series)
        n = len(self.categories)
        x = np.arange(n)
        vals = {k: np.array([np.nan if v is None else float(v) for v in self.series[k]]) for k in names}
        if self.stacked:
            bottom = np.zeros(n)
            for k in names:
                v = np.nan_to_num(vals[k])
                ax.bar(x, v, 0.8, bottom=bottom, label=k, color=colour(k, len(names) == 1))
                bottom += v
        else:
            w = 0.8 / max(len(names), 1)
            for i, k in enumerate(names):
                ax.bar(x - 0.4 + w * (i + 0.5), vals[k], w, label=k, color=colour(k, len(names) == 1))
        self._category_ticks(ax, x)
        ax.axhline(0, color="#444", linewidth=0.6)

    def _lines(self, ax) -> None:
        xs_of = self._time_axis(ax) if self.dates else None
        for name, (xs, ys) in self.series.items():
            ys = [float("nan") if y is None else y for y in ys]
            if xs_of is not None:
                xs = [xs_of[int(i)] for i in xs]
            kw = {"label": name, "color": colour(name, len(self.series) == 1), "linestyle": _style(name),
                  "linewidth": 1.4}
            if self.step:
                ax.step(xs, ys, where="post", **kw)
            else:
                ax.plot(xs, ys, marker="o" if len(xs) <= 40 else None, markersize=3, **kw)
        if self.xlog:
            ax.set_xscale("log")
        if self.symlog:
            from matplotlib.ticker import FuncFormatter

            ax.set_xscale("symlog", linthresh=self.symlog)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        if self.categories and not self.dates:
            self._category_ticks(ax, list(range(len(self.categories))))

    def _times(self, ax) -> None:
        """Series over datetimes (daily values): a date axis the locator fits."""
        import matplotlib.dates as mdates

        for name, (xs, ys) in self.series.items():
            ax.plot(xs, ys, label=name, color=colour(name), linestyle=_style(name), linewidth=1.1)
        loc = mdates.AutoDateLocator(maxticks=12)
        ax.xaxis.set_major_locator(loc)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(loc))

    def _gantt(self, ax) -> None:
        """Each job a rectangle over time and processors (processors placed
        first-fit at start: the simulator tracks counts, not which nodes)."""
        import matplotlib.dates as mdates

        jobs, cap = self.series["jobs"], self.series["capacity"]
        free = [(0, cap)]  # free intervals of processor indexes
        running = []  # (end, [(lo, n)])
        for i, j in enumerate(sorted(jobs, key=lambda j: (j["start"], j["job_id"]))):
            for e, segs in [r for r in running if r[0] <= j["start"]]:
                free = _merge(free + segs)
            running = [r for r in running if r[0] > j["start"]]
            need, segs = j["nodes"], []
            while need > 0 and free:
                lo, n = free.pop(0)
                take = min(n, need)
                segs.append((lo, take))
                if n > take:
                    free.insert(0, (lo + take, n - take))
                need -= take
            running.append((j["end"], segs))
            x0 = mdates.date2num(j["start_ts"])
            w = mdates.date2num(j["end_ts"]) - x0
            for lo, n in segs:
                ax.broken_barh([(x0, w)], (lo, n), facecolors=FALLBACK[j["job_id"] % len(FALLBACK)],
                               edgecolor="white", linewidth=0.3)
        ax.set_ylim(0, cap)
        if self.series.get("window"):
            ax.set_xlim(*(mdates.date2num(t) for t in self.series["window"]))
        loc = mdates.AutoDateLocator(maxticks=10)
        ax.xaxis.set_major_locator(loc)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(loc))

    def _time_axis(self, ax) -> list[date]:
        """Category months/quarters -> dates, with a date locator that fits the span."""
        import matplotlib.dates as mdates

        days = [_as_date(c) for c in self.categories]
        span = (days[-1].year - days[0].year) * 12 + days[-1].month - days[0].month + 1 if days else 1
        quarters = any("-Q" in str(c) for c in self.categories)
        step = 3 if quarters and span <= 54 else 1 if span <= 18 else 3 if span <= 54 else 12
        if quarters and step == 3:  # ticks at quarter starts, named as the data names them
            from matplotlib.ticker import FuncFormatter

            ax.xaxis.set_major_locator(mdates.MonthLocator(bymonth=(1, 4, 7, 10)))
            ax.xaxis.set_major_formatter(FuncFormatter(
                lambda v, _: (lambda d: f"{d.year}-Q{(d.month - 1) // 3 + 1}")(mdates.num2date(v))))
        else:
            ax.xaxis.set_major_locator(mdates.MonthLocator(interval=step) if step < 12 else mdates.YearLocator())
            ax.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m" if step < 12 else "%Y"))
        for label in ax.get_xticklabels():
            label.set_rotation(45)
            label.set_ha("right")
        return days

    def drawn_svg(self) -> str:
        """The figure drawn as SVG text (kept: drawing is the cost; see drawing.py)."""
        if self._svg is None:
            import matplotlib

            buf = io.StringIO()
            with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "walltime"}):
                self.draw().savefig(buf, format="svg", metadata={"Date": None})  # the same page for the same data
            text = buf.getvalue()
            self._svg = text[text.index("<svg"):]
        return self._svg

    def svg(self, uid: str = "f") -> str:
        """The figure as an inline <svg> element (ids made unique with ``uid``)."""
        text = re.sub(r'\bid="', f'id="{uid}-', self.drawn_svg())
        text = text.replace("url(#", f"url(#{uid}-").replace('xlink:href="#', f'xlink:href="#{uid}-')
        label = self.title.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        return text.replace("<svg ", f'<svg class="chart" role="img" aria-label="{label}" ', 1)

    def save(self, folder: Path, stem: str) -> list[str]:
        """Write the figure as PDF and PNG (for papers and slides)."""
        folder.mkdir(parents=True, exist_ok=True)
        fig = self.draw()
        out = []
        for ext, kw in (("pdf", {}), ("png", {"dpi": 150})):
            path = folder / f"{stem}.{ext}"
            write_file(path, lambda fh: fig.savefig(fh, format=ext, **kw), "--figures")
            out.append(str(path))
        return out


def _merge(segs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, n in sorted(segs):
        if out and out[-1][0] + out[-1][1] == lo:
            out[-1] = (out[-1][0], out[-1][1] + n)
        else:
            out.append((lo, n))
    return out


def _as_date(c: str) -> date:
    c = str(c)
    if "-Q" in c:
        y, q = c.split("-Q")
        return date(int(y), 3 * int(q) - 2, 1)
    y, m = c[:7].split("-")
    return date(int(y), int(m), 1)


def line_chart(series: dict, title: str, xlabel: str = "", ylabel: str = "", *, step: bool = False,
               xlog: bool = False, ylim: tuple[float, float] | None = None, xcats=None, dates: bool = False,
               width: float | None = None, symlog: float | None = None) -> Chart:
    """Lines (steps for CDFs) over a numeric x axis, or over categories ``xcats``
    (xs are then indexes); ``dates``: the categories are months or quarters."""
    return Chart("line", title, xlabel, ylabel, series, list(xcats) if xcats is not None else None, dates,
                 step, xlog, ylim, width=width, symlog=symlog)


def time_chart(series: dict, title: str, xlabel: str, ylabel: str) -> Chart:
    """Series over datetimes: name -> (datetimes, values)."""
    return Chart("time", title, xlabel, ylabel, series)


def gantt_chart(jobs: list[dict], capacity: int, title: str, xlabel: str, ylabel: str,
                window: tuple | None = None) -> Chart:
    """Jobs (rows of report_gantt_jobs) as rectangles over time and processors,
    shown over ``window`` (two datetimes)."""
    return Chart("gantt", title, xlabel, ylabel, {"jobs": jobs, "capacity": int(capacity), "window": window})


def bar_chart(categories, series: dict, title: str, xlabel: str = "", ylabel: str = "", *,
              stacked: bool = False, ylim: tuple[float, float] | None = None, width: float | None = None) -> Chart:
    """Grouped (or stacked) bars, one group per category, every category labelled."""
    return Chart("bar", title, xlabel, ylabel, series, [str(c) for c in categories], False, False, False, ylim,
                 stacked, width)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80] or "figure"
