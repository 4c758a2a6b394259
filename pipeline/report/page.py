"""The report page: sections of figures and tables rendered to one HTML file.

Self-contained by construction: inline CSS, inline SVG figures (matplotlib), no scripts,
fonts or links, so it reads offline and prints.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from html import escape

from .headers import HIDDEN, header, scale


@dataclass
class Table:
    """A table shown in the page; ``view`` is the warehouse view it comes from."""
    title: str
    view: str
    columns: list[str]
    rows: list[tuple]
    sql: str = ""  # the query that reproduces it (`walltime sql`)


@dataclass
class Figure:
    """A figure shown in the page; ``chart`` (figures.Chart) keeps its data."""
    title: str
    chart: object


@dataclass
class Prose:
    """Generated sentences (the summary): numbered lines become headings."""
    lines: list[str]


def render_prose(p: Prose) -> str:
    out = []
    for i, line in enumerate(p.lines):
        text = escape(line.strip())
        if not text:
            continue
        if i == 0:
            out.append(f'<p class="lead">{text}</p>')
        elif line[:2].rstrip(".").isdigit() and line[1:3] == ". ":
            out.append(f"<h3>{text}</h3>")
        else:
            out.append(f"<p>{text}</p>")
    return '<div class="answer">' + "".join(out) + "</div>"


@dataclass
class Section:
    key: str
    title: str
    reading: str  # one plain-language paragraph: what this shows
    blocks: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was skipped, and why


CSS = """
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; } h2 { margin-top: 2em; border-bottom: 1px solid #bbb; }
h3 { margin-bottom: .3em; }
table { border-collapse: collapse; font-size: 12px; margin: .5em 0 1em; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
.reading { background: #f7f7f2; border-left: 4px solid #b8b07a; padding: .5em 1em; }
.note { color: #7a4b00; } .sql { font-family: monospace; font-size: 11px; color: #666; }
svg.chart { width: 100%; height: auto; } figure { margin: .5em 0; flex: 0 1 calc(50% - .5em); }
figure.wide { flex-basis: 100%; }
.answer { background: #f4f8fb; border-left: 4px solid #3182bd; padding: .3em 1em; }
.answer h3 { margin: .8em 0 .2em; } .answer p { margin: .2em 0; } .lead { font-weight: bold; }
.meta { color: #555; font-size: 13px; } nav ul { columns: 2; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; }
@media print { body { max-width: none; } h2 { page-break-before: always; } }
"""


def _cell(v, factor: float = 1) -> str:
    """A value rounded for reading (the CSV keeps full precision)."""
    if v is None:
        return ""
    if isinstance(v, float) or (factor != 1 and isinstance(v, int) and not isinstance(v, bool)):
        v = float(v) * factor
        if v != v:
            return ""
        a = abs(v)
        if a == 0:
            return "0"
        if a >= 100:
            return f"{v:,.0f}"
        if a >= 10:
            return f"{v:.1f}"
        if a >= 1:
            return f"{v:.2f}"
        return f"{v:.3f}" if a >= 0.01 else f"{v:.2g}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}" if abs(v) >= 1e4 else str(v)
    return _breakable(escape(str(v)))


def _breakable(text: str) -> str:
    """Long values (estimate specs "tang:floor=0.5,key=...,window=30d") may break
    after their commas, so that a wide table still fits the page's column."""
    return text.replace(",", ",<wbr>") if len(text) > 24 else text


LONG_TABLE = 40  # rows; longer tables are folded (the CSV and the view hold them all)


def render_table(t: Table, one_trace: bool = False) -> str:
    """Human headers with units, shares as percent, the trace column dropped
    when the page has one trace, ordering-only columns hidden."""
    keep = [i for i, c in enumerate(t.columns)
            if c not in HIDDEN and not (one_trace and c == "trace")]
    head = "".join(f"<th>{escape(header(t.columns[i], t.view))}</th>" for i in keep)
    factors = [scale(t.columns[i]) for i in keep]
    body = "\n".join("<tr>" + "".join(f"<td>{_cell(r[i], f)}</td>" for i, f in zip(keep, factors)) + "</tr>"
                     for r in t.rows)
    if not t.rows:
        body = f'<tr><td colspan="{len(keep)}">no rows</td></tr>'
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if len(t.rows) > LONG_TABLE:
        table = f"<details><summary>{len(t.rows)} rows (click to open)</summary>{table}</details>"
    return f'<h3>{escape(t.title)}</h3>{table}<div class="sql">{escape(t.sql)}</div>'


def render(sections: list[Section], traces: list[str]) -> str:
    toc = "".join(f'<li><a href="#{s.key}">{escape(s.title)}</a></li>' for s in sections)
    parts = []
    n_fig = 0
    for s in sections:
        if s.key != "summary" and not any(p.startswith('<nav') for p in parts):
            parts.append(f'<nav><h2>Contents</h2><ul>{toc}</ul></nav>')  # after the answer, before the details
        parts.append(f'<section id="{s.key}"><h2>{escape(s.title)}</h2><p class="reading">{escape(s.reading)}</p>')
        for n in s.notes:
            parts.append(f'<p class="note">Note: {escape(n)}</p>')
        figs = []
        for b in s.blocks:
            if isinstance(b, Figure):
                n_fig += 1
                wide = ' class="wide"' if b.chart.inches() > 7.5 else ""
                figs.append(f'<figure{wide}>{b.chart.svg(f"f{n_fig}")}</figure>')
                continue
            if figs:
                parts.append('<div class="figs">' + "".join(figs) + "</div>")
                figs = []
            parts.append(render_prose(b) if isinstance(b, Prose) else render_table(b, len(traces) == 1))
        if figs:
            parts.append('<div class="figs">' + "".join(figs) + "</div>")
        parts.append("</section>")
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    names = ", ".join(escape(t) for t in traces)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>walltime report: {names}</title><style>{CSS}</style></head><body>"
        f"<h1>walltime report: {names}</h1><p class=\"meta\">Generated {stamp}. Every table is a warehouse "
        "view: the grey line under it is the query that reproduces it with <code>walltime sql</code>.</p>"
        + "\n".join(parts) + "</body></html>\n"
    )
