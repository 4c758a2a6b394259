"""Markdown and HTML of the reproduction, and the JSON of its checks.

The JSON (every check with paper, ours, rule, difference and verdict) is what
tests re-derive the verdicts from; the Markdown is docs/reproduction.md.
"""

from __future__ import annotations

import json
from html import escape

from .core import EXPLORATORY, Check, Checks, Explanation, Figure, Section, Table, Text, fmt, paper_text, tally

CHECK_COLUMNS = ["check", "reference", "what", "paper", "ours", "difference", "rule", "verdict"]


def _check_row(c: Check) -> list[str]:
    d = c.diff
    diff = "-" if d is None else (f"{d:+.1f}%" if c.mode == "value" and c.rel else f"{d:+.3g}")
    if c.paper_note and c.mode != "value":
        diff = "-"
    ours = fmt(c.ours, c.unit) + (f" [{fmt(c.lo)} to {fmt(c.hi)}]" if c.lo is not None and c.hi is not None
                                  else "")
    return [c.id, c.ref + (f", {c.trace}" if c.trace else ""), c.what, paper_text(c), ours, diff, c.rule_text(),
            c.verdict]


def _cell(v) -> str:
    if isinstance(v, str):
        return v
    return fmt(v)


def _explain(b: Explanation, by_id: dict[str, Check]) -> str:
    return ", ".join(f"`{i}` {by_id[i].verdict}" for i in b.checks)


def markdown(sections: list[Section], head: list[str], stem: str = "reproduction") -> str:
    by_id = {c.id: c for s in sections for c in s.checks()}
    out = list(head)
    for s in sections:
        out += [f"## {s.title}", "", f"*{section_tally(s)}.*", ""]
        for b in s.blocks:
            if isinstance(b, Text):
                out += [b.text, ""]
            elif isinstance(b, Explanation):
                out += [f"> **Why.** {b.text} *(checks: {_explain(b, by_id)})*", ""]
            elif isinstance(b, Table):
                out += [f"#### {b.title}", "", _md_table(b.columns, [[_cell(v) for v in r] for r in b.rows])]
                out += (["", f"<sub>from `{b.source}`</sub>"] if b.source else []) + [""]
            elif isinstance(b, Checks):
                out += [f"#### {b.title}", "", _md_table(CHECK_COLUMNS, [_check_row(c) for c in b.checks]), ""]
            elif isinstance(b, Figure):
                f = b.files(stem)
                out += [f"#### {b.chart.title}", "", f"![{b.chart.title}]({f['svg']})", "",
                        f"<sub>{b.paper} ([PNG]({f['png']}); from `{b.source}`)</sub>", ""]
    return "\n".join(out).rstrip() + "\n"


def section_tally(s: Section) -> str:
    """A section's tally; an exploratory section's says that it is not counted in the headline."""
    return (EXPLORATORY + ": " if s.exploratory else "") + tally(s.checks())


def _md_table(cols: list[str], rows: list[list[str]]) -> str:
    esc = lambda s: str(s).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(esc(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


CSS = """body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222;line-height:1.45}
table{border-collapse:collapse;font-size:12px;margin:.5em 0 1em}th,td{border:1px solid #ccc;padding:2px 6px}
th{background:#f0f0f0}td.v-reproduced,td.v-same{background:#e3f4e3}td.v-differs,td.v-opposite,td.v-not,
td.v-outside{background:#fbe3e3}blockquote{background:#f7f7f2;border-left:4px solid #b8b07a;margin:0;padding:.4em 1em}
.tally{color:#555;font-style:italic}"""


def html(sections: list[Section], title: str, head: list[str], stem: str = "reproduction") -> str:
    by_id = {c.id: c for s in sections for c in s.checks()}
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
           f"<style>{CSS}</style></head><body><h1>{escape(title)}</h1>"]
    out += [f"<p>{escape(h)}</p>" for h in head if h and not h.startswith("#")]
    for s in sections:
        out.append(f"<h2>{escape(s.title)}</h2><p class='tally'>{escape(section_tally(s))}.</p>")
        for b in s.blocks:
            if isinstance(b, Text):
                out.append(f"<p>{escape(b.text)}</p>")
            elif isinstance(b, Explanation):
                out.append(f"<blockquote><b>Why.</b> {escape(b.text)} <i>(checks: "
                           f"{escape(_explain(b, by_id))})</i></blockquote>")
            elif isinstance(b, Table):
                out.append(f"<h4>{escape(b.title)}</h4>" + _html_table(b.columns, [[_cell(v) for v in r] for r in b.rows])
                           + (f"<p><small>from <code>{escape(b.source)}</code></small></p>" if b.source else ""))
            elif isinstance(b, Checks):
                out.append(f"<h4>{escape(b.title)}</h4>" + _html_table(CHECK_COLUMNS, [_check_row(c) for c in b.checks],
                                                                       verdict_col=True))
            elif isinstance(b, Figure):
                f = b.files(stem)
                out.append(f"<h4>{escape(b.chart.title)}</h4>{b.chart.svg(b.name)}<p><small>{escape(b.paper)} "
                           f"(<a href='{escape(f['svg'])}'>SVG</a>, <a href='{escape(f['png'])}'>PNG</a>; from "
                           f"<code>{escape(b.source)}</code>)</small></p>")
    out.append("</body></html>")
    return "\n".join(out)


def write_figures(sections: list[Section], out, stem: str = "reproduction") -> list[str]:
    """Every figure as SVG (the text the HTML inlines) and PNG beside the page; returns the paths."""
    from ..checks import write_file

    written = []
    for s in sections:
        for b in s.figures():
            f = b.files(stem)
            write_file(out / f["svg"], b.chart.drawn_svg(), "--out")
            fig = b.chart.draw()
            write_file(out / f["png"], lambda fh, fig=fig: fig.savefig(fh, format="png", dpi=120), "--out")
            written += [str(out / f["svg"]), str(out / f["png"])]
    return written


def _html_table(cols, rows, verdict_col=False) -> str:
    h = "<table><tr>" + "".join(f"<th>{escape(c)}</th>" for c in cols) + "</tr>"
    for r in rows:
        cells = []
        for i, v in enumerate(r):
            cls = f" class='v-{escape(v.split()[0])}'" if verdict_col and i == len(r) - 1 else ""
            cells.append(f"<td{cls}>{escape(str(v))}</td>")
        h += "<tr>" + "".join(cells) + "</tr>"
    return h + "</table>"


def checks_json(sections: list[Section], meta: dict) -> str:
    """Every check; those of an exploratory section carry "exploratory": true (not in the headline)."""
    return json.dumps({"meta": meta, "checks": [{**c.as_dict(), "exploratory": s.exploratory}
                                                for s in sections for c in s.checks()]}, indent=1)
