"""The report's figures, drawn by matplotlib.

A :class:`Chart` keeps the figure's data (categories, series) and draws it on
demand: as SVG inlined in the page (text kept as text, so the page stays one
self-contained, searchable file) and, with ``--figures DIR``, as PDF and PNG.
Rules every figure follows: every category labelled (rotated, never dropped),
dates on time axes, a unit on every axis, a legend when there is more than one
series, and one colour per concept (the same estimator has the same colour in
every figure: :func:`colour`; no two concepts alike, no colour twice in a
figure: :func:`colours`). Two widths only (NARROW, WIDE: half and whole page,
so text is one size throughout), titles wrapped to the width, many curves as
small multiples (``panels``). tests/test_report_figures.py measures each drawn
figure with matplotlib's renderer (tests/figure_checks.py).
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

# Every colour below differs from every other (tests/test_report_figures.py: CIE76
# distance >= 15), so no two concepts share a colour in any figure (the Tang key
# "user + project + request" was #1f78b4 beside "original (requests)" #1f77b4).
EXACT = {
    # history keys (Tang Fig. 4)
    "user": "#a6cee3", "project": "#b2df8a", "user + project": "#66a61e",
    "user + project + request": "#6a3d9a",
    # NA / OE / UE / BE shares (Tang Fig. 5)
    "NA": "#bdbdbd", "OE": "#74c476", "UE": "#fdae6b", "BE": "#e6550d", "ABOVE": "#bebada",
    # backfilling and queue orders
    "easy": "#1b9e77", "conservative": "#bf5b17", "none": "#7570b3",
    "FCFS": "#8bd646", "LWF": "#e7298a", "Backfill": "#66c2a5",
    # floor, metrics
    "no floor": "#f79143", "floor 0.5": "#3a548c",
    "wait": "#9c9ede", "slowdown": "#ea7457", "weighted wait": "#31a354",
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
WINDOWS = {"30d": "#440154", "90d": "#45506c", "365d": "#1f958b", "all": "#b5a100"}
# series that are no concept (owners, uniform factors...): taken in order within a
# figure, never a concept's colour and never twice in one figure
FALLBACK = ["#17becf", "#ff9896", "#c49c94", "#f7b6d2", "#dbdb8d", "#6b6ecf", "#637939", "#8ca252", "#8c6d31",
            "#bd9e39", "#e7cb94", "#ad494a", "#7b4173", "#a55194"]


SINGLE = "#443b84"  # a lone series that is no concept of its own ("share of jobs")


def concept_colour(name: str) -> str | None:
    """The colour of a concept (key, share, scheduler, estimator, window), the
    same in every figure; None for a name that is no concept."""
    if name in EXACT:
        return EXACT[name]
    low = name.lower()
    for w in WINDOWS:
        if low in (f"accuracy {w}", f"under {w}"):
            return WINDOWS[w]
    for keys, c in ESTIMATORS:
        if any(k in low for k in keys):
            return c
    return None


def colour(name: str, alone: bool = False) -> str:
    """The colour of a series: its concept's, else (alone) SINGLE, else a fallback by name."""
    c = concept_colour(name)
    if c is not None:
        return c
    return SINGLE if alone else FALLBACK[zlib.crc32(name.encode()) % len(FALLBACK)]


def colours(names) -> dict[str, str]:
    """Colours of one figure's series: concepts keep theirs; the other names take
    fallback colours in order, none used twice in the figure."""
    names = list(dict.fromkeys(names))
    out = {n: concept_colour(n) for n in names}
    if len(names) == 1 and out[names[0]] is None:
        return {names[0]: SINGLE}
    free = [c for c in FALLBACK if c not in out.values()]
    for n in names:
        if out[n] is None:
            out[n] = free.pop(0) if free else colour(n)
    return out


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
    panels: dict | None = None  # small multiples: panel title -> {name: (xs, ys)} (series then holds them all)
    _svg: str | None = field(default=None, repr=False)

    def labels(self) -> list[str]:
        """Every text a reader needs: category labels and, with several series, their names."""
        if self.kind == "gantt":
            return []
        if self.panels:
            return list(self.panels) + list(dict.fromkeys(n for p in self.panels.values() for n in p))
        cats = [] if self.dates else list(self.categories or [])
        return cats + (list(self.series) if len(self.series) > 1 else [])

    def has_data(self) -> bool:
        if self.kind == "gantt":
            return bool(self.series["jobs"])
        vals = self.series.values()
        ys = [y for v in vals for y in (v if self.kind == "bar" else v[1])]
        return any(y is not None for y in ys)

    def inches(self) -> float:
        """Figure width: one of two sizes, so that text is the same size in every
        figure of the page (a figure is shown at its width's share of the page):
        NARROW (half the page) unless the categories or panels need WIDE."""
        if self.width:
            return self.width
        if self.panels and len(self.panels) > 1:
            return WIDE
        n = len(self.categories or [])
        longest = max((len(str(c)) for c in self.categories or []), default=0)
        need = 0.11 * n * max(1, longest / 3) + 2.5
        legend = 1.6 if self.kind == "bar" and len(self.series) > 1 else 0  # bar legends sit beside the plot
        return WIDE if need + legend > NARROW else NARROW

    def height(self) -> float:
        if self.panels and len(self.panels) > 1:
            rows = -(-len(self.panels) // PANEL_COLUMNS)
            return 2.4 * rows + 1.3
        return HEIGHT

    # drawing
    def draw(self):
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure

        fig = Figure(figsize=(self.inches(), self.height()), layout="constrained")
        if self.panels and len(self.panels) > 1:
            self._small_multiples(fig)
            return fig
        ax = fig.add_subplot()
        self._colours = colours(self.series if self.kind != "gantt" else [])
        {"bar": self._bars, "line": self._lines, "time": self._times, "gantt": self._gantt}[self.kind](ax)
        ax.set_title(self._wrapped(self.title), fontsize=10, loc="left")
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel("\n".join(textwrap.wrap(self.ylabel, 34)))  # a long unit wraps, never runs off
        if self.ylim:
            ax.set_ylim(*self.ylim)
        self._frame(ax)
        if len(self.series) > 1 and self.kind != "gantt":
            if self.kind == "bar":  # bars fill the plot: legend beside it
                ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
            elif len(self.series) > 4:  # many lines: below the plot, which keeps its width
                fig.legend(*ax.get_legend_handles_labels(), fontsize=8, frameon=False, loc="outside lower center",
                           ncols=2)
            else:
                ax.legend(fontsize=8, frameon=False, loc="best")
        return fig

    def _wrapped(self, text: str) -> str:
        """A title cut into lines that fit the figure's width (10 pt: about 6 pt a character)."""
        return "\n".join(textwrap.wrap(text, max(30, int(self.inches() * 72 / 6.2) - 4),
                                       break_on_hyphens=False))  # trace names stay whole

    @staticmethod
    def _frame(ax) -> None:
        ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
        for s in ("top", "right"):
            ax.spines[s].set_visible(False)

    def _small_multiples(self, fig) -> None:
        """One small plot per panel (shared axes), one legend for all: many
        series stay readable and each panel compares a few."""
        n = len(self.panels)
        cols = min(PANEL_COLUMNS, n)
        rows = -(-n // cols)
        axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False)
        names = list(dict.fromkeys(k for p in self.panels.values() for k in p))
        self._colours = colours(names)
        for i, (title, ser) in enumerate(self.panels.items()):
            ax = axes[i // cols][i % cols]
            self._lines(ax, ser)
            ax.set_title(title, fontsize=9, loc="left")
            self._frame(ax)
            if self.ylim:
                ax.set_ylim(*self.ylim)
            ax.tick_params(labelsize=8)
        for j in range(n, rows * cols):
            axes[j // cols][j % cols].set_visible(False)
        fig.suptitle(self._wrapped(self.title), fontsize=10, x=0.01, ha="left")
        for ax in axes[-1]:
            ax.set_xlabel(self.xlabel if ax is axes[-1][0] else "", fontsize=8, loc="left")
        fig.supylabel("\n".join(textwrap.wrap(self.ylabel, 40)), fontsize=9)
        handles = {}
        for row in axes:
            for ax in row:
                for h, lab in zip(*ax.get_legend_handles_labels()):
                    handles.setdefault(lab, h)
        fig.legend(list(handles.values()), list(handles), fontsize=8, frameon=False, loc="outside lower center",
                   ncols=min(4, len(handles)))

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
                ax.bar(x, v, 0.8, bottom=bottom, label=k, color=self._colours[k])
                bottom += v
        else:
            w = 0.8 / max(len(names), 1)
            for i, k in enumerate(names):
                ax.bar(x - 0.4 + w * (i + 0.5), vals[k], w, label=k, color=self._colours[k])
        self._category_ticks(ax, x)
        ax.axhline(0, color="#444", linewidth=0.6)

    def _lines(self, ax, series: dict | None = None) -> None:
        series = self.series if series is None else series
        xs_of = self._time_axis(ax) if self.dates else None
        for name, (xs, ys) in series.items():
            ys = [float("nan") if y is None else y for y in ys]
            if xs_of is not None:
                xs = [xs_of[int(i)] for i in xs]
            kw = {"label": name, "color": self._colours[name], "linestyle": _style(name), "linewidth": 1.4}
            if self.step:
                ax.step(xs, ys, where="post", **kw)
            else:
                ax.plot(xs, ys, marker="o" if len(xs) <= 40 else None, markersize=3, **kw)
        if self.xlog:
            ax.set_xscale("log")
        if self.symlog:
            from matplotlib.ticker import FuncFormatter, SymmetricalLogLocator

            ax.set_xscale("symlog", linthresh=self.symlog)
            ax.xaxis.set_major_locator(SymmetricalLogLocator(base=10, linthresh=self.symlog, subs=[1.0]))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            # from 0 (waits), and at least one decade past the linear part: ticks 0, 0.1, 1 at the least
            ax.set_xlim(0, max(ax.get_xlim()[1], 10 * self.symlog))
        if self.categories and not self.dates:
            self._category_ticks(ax, list(range(len(self.categories))))

    def _times(self, ax) -> None:
        """Series over datetimes (values per time bin): a date axis the locator fits."""
        import matplotlib.dates as mdates

        for name, (xs, ys) in self.series.items():
            ax.plot(xs, ys, label=name, color=self._colours[name], linestyle=_style(name), linewidth=1.1,
                    marker="o" if len(xs) <= 40 else None, markersize=3)
        loc = mdates.AutoDateLocator(maxticks=8)
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


NARROW, WIDE, HEIGHT = 6.4, 13.0, 4.2  # inches: half and whole page width (page.py), one height
PANEL_COLUMNS = 4  # small multiples per row


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
               width: float | None = None, symlog: float | None = None, panels: dict | None = None) -> Chart:
    """Lines (steps for CDFs) over a numeric x axis, or over categories ``xcats``
    (xs are then indexes); ``dates``: the categories are months or quarters.
    ``panels`` (title -> {name: (xs, ys)}) draws small multiples instead, one
    plot per panel, and ``series`` is then ignored."""
    if panels:
        series = {f"{t}: {n}": v for t, p in panels.items() for n, v in p.items()}
    return Chart("line", title, xlabel, ylabel, series, list(xcats) if xcats is not None else None, dates,
                 step, xlog, ylim, width=width, symlog=symlog, panels=panels)


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
