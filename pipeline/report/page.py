"""The report page: sections of figures and tables rendered to one HTML file.

Self-contained by construction: inline CSS, inline SVG figures (matplotlib), no scripts,
fonts or links, so it reads offline and prints.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from html import escape


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
table { border-collapse: collapse; font-size: 12px; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
.reading { background: #f7f7f2; border-left: 4px solid #b8b07a; padding: .5em 1em; }
.note { color: #7a4b00; } .sql { font-family: monospace; font-size: 11px; color: #666; }
svg.chart { max-width: 100%; height: auto; } figure { margin: .5em 0; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; }
@media print { body { max-width: none; } h2 { page-break-before: always; } }
"""


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if v != v:
            return ""
        return f"{v:.4g}" if abs(v) < 1e4 else f"{v:,.0f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}" if abs(v) >= 1e5 else str(v)
    return escape(str(v))


LONG_TABLE = 40  # rows; longer tables are folded (the CSV and the view hold them all)


def render_table(t: Table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in t.columns)
    body = "\n".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in r) + "</tr>" for r in t.rows)
    if not t.rows:
        body = f'<tr><td colspan="{len(t.columns)}">no rows</td></tr>'
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if len(t.rows) > LONG_TABLE:
        table = f"<details><summary>{len(t.rows)} rows (click to open)</summary>{table}</details>"
    return f'<h3>{escape(t.title)}</h3>{table}<div class="sql">{escape(t.sql)}</div>'


def render(sections: list[Section], traces: list[str]) -> str:
    toc = "".join(f'<li><a href="#{s.key}">{escape(s.title)}</a></li>' for s in sections)
    parts = []
    n_fig = 0
    for s in sections:
        parts.append(f'<section id="{s.key}"><h2>{escape(s.title)}</h2><p class="reading">{escape(s.reading)}</p>')
        for n in s.notes:
            parts.append(f'<p class="note">Note: {escape(n)}</p>')
        figs = []
        for b in s.blocks:
            if isinstance(b, Figure):
                n_fig += 1
                figs.append(f'<figure>{b.chart.svg(f"f{n_fig}")}</figure>')
                continue
            if figs:
                parts.append('<div class="figs">' + "".join(figs) + "</div>")
                figs = []
            parts.append(render_table(b))
        if figs:
            parts.append('<div class="figs">' + "".join(figs) + "</div>")
        parts.append("</section>")
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    names = ", ".join(escape(t) for t in traces)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>walltime report: {names}</title><style>{CSS}</style></head><body>"
        f"<h1>walltime report</h1><p>Traces: {names}. Generated {stamp}. Every table is a warehouse "
        "view: the grey line under it is the query that reproduces it with <code>walltime sql</code>.</p>"
        f"<ul>{toc}</ul>" + "\n".join(parts) + "</body></html>\n"
    )
