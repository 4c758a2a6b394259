"""Report stage: the warehouse as one self-contained HTML page.

``build_report`` first computes what the chosen sections need and the
warehouse lacks (characterize, estimates, the Tang grid, simulations; under the
writer lock, reusing everything stored, see compute.py), then gathers each
section's tables (read from warehouse views) and figures (inline SVG) from a
read-only connection and writes the page atomically; ``--csv DIR`` also writes
every table as CSV.
"""

from __future__ import annotations

import csv
import io
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..checks import write_file
from ..derived import derived_sources
from ..errors import WalltimeError
from ..timed import require_times
from ..warehouse import Warehouse
from . import memo, page
from .drawing import Drawer
from .adjustment import adjustment
from .compute import prepare
from .overview import overview
from .prediction import prediction
from .queue import queue
from .scheduling import scheduling
from .summary import study_runs, summary
from .user_estimates import user_estimates

# key -> builder(con, traces) -> Section, in page order.
SECTIONS = {
    "summary": summary,
    "overview": overview,
    "estimates": user_estimates,
    "adjustment": adjustment,
    "scheduling": scheduling,
    "prediction": prediction,
    "queue": queue,
}


@dataclass
class ReportResult:
    out: str
    traces: list[str]
    sections: list[str]
    tables: int
    figures: int
    csv: list[str] = field(default_factory=list)
    computed: list[str] = field(default_factory=list)  # what the compute phase had to do
    seconds: dict = field(default_factory=dict)  # compute_s, render_s; compute: per step kind; sections: render
    figure_files: list[str] = field(default_factory=list)  # --figures DIR: PDF and PNG of each figure
    figure_labels: list[list[str]] = field(default_factory=list)  # per figure in page order: labels it must show


def parse_sections(spec: str | None) -> list[str]:
    if not spec:
        return list(SECTIONS)
    keys = [k.strip() for k in spec.split(",") if k.strip()]
    for k in keys:
        if k not in SECTIONS:
            raise WalltimeError(f'--sections: unknown section "{k}"; known: {", ".join(SECTIONS)}')
    return keys


def parse_capacity(items: list[str]) -> dict[str, int]:
    """``TRACE=N`` options -> {trace: N}."""
    out = {}
    for item in items:
        trace, _, n = item.partition("=")
        if not trace.strip() or not n.strip().isdigit() or int(n) < 1:
            raise WalltimeError(f'--capacity "{item}": give TRACE=N with N a whole number >= 1')
        out[trace.strip()] = int(n)
    return out


def parse_gantt(wh: Warehouse, items: list[str]) -> list[tuple[str, int, int]]:
    """``RUN_ID:FROM:TO`` -> (run_id, from, to) in the run's seconds. FROM and TO
    are dates YYYY-MM-DD, optionally with an hour (YYYY-MM-DDTHH), in UTC, or
    seconds from the trace's start."""
    import datetime as dt

    out = []
    if not items:
        return out
    con = wh.reader()
    try:
        for item in items:
            parts = item.split(":")
            if len(parts) != 3:
                raise WalltimeError(f'--gantt "{item}": give RUN_ID:FROM:TO, e.g. 1a2b3c4d5e6f7a8b:2012-03-01:2012-03-03')
            run_id, a, b = parts
            row = con.execute("SELECT coalesce(t.unix_start_time, 0) FROM runs r JOIN traces t USING (trace) "
                              "WHERE r.run_id = ?", [run_id]).fetchone()
            if row is None:
                raise WalltimeError(f'--gantt "{item}": no stored run "{run_id}"; `walltime sql "SELECT run_id, '
                                    'trace, policy, estimate FROM runs"` lists them')
            bounds = []
            for v in (a, b):
                if v.lstrip("-").isdigit():
                    bounds.append(int(v))
                    continue
                try:
                    when = dt.datetime.strptime(v, "%Y-%m-%dT%H" if "T" in v else "%Y-%m-%d")
                except ValueError:
                    raise WalltimeError(f'--gantt "{item}": "{v}" is not a date (YYYY-MM-DD or YYYY-MM-DDTHH, UTC) '
                                        "or seconds from the trace's start") from None
                bounds.append(int(when.replace(tzinfo=dt.timezone.utc).timestamp()) - row[0])
            if bounds[1] <= bounds[0]:
                raise WalltimeError(f'--gantt "{item}": TO must be after FROM')
            out.append((run_id, bounds[0], bounds[1]))
    finally:
        con.close()
    return out


def _traces(wh: Warehouse, traces: list[str] | None) -> list[str]:
    con = wh.reader()
    try:
        known = [t for (t,) in con.execute("SELECT trace FROM traces ORDER BY trace").fetchall()]
        timed = [t for (t,) in con.execute(
            "SELECT trace FROM traces WHERE has_times IS DISTINCT FROM false ORDER BY trace").fetchall()]
        if not traces:  # all traces: those without times (sacct default fields) cannot be reported, and
            # reproduce's own workloads (derived traces: a paper's window of another trace) are not the site's
            derived = derived_sources(con)
            traces = [t for t in timed if t not in derived]
        for t in traces:
            if t not in known:
                raise WalltimeError(f'trace "{t}" is not in the warehouse; `walltime traces` lists them')
            require_times(con, t, "report")
    finally:
        con.close()
    if not traces:
        raise WalltimeError("the warehouse has no traces yet; `walltime ingest FILE.swf` first")
    return list(dict.fromkeys(traces))


def build_report(wh: Warehouse, traces: list[str] | None, out: str | os.PathLike,
                 sections: list[str] | None = None, csv_dir: str | os.PathLike | None = None,
                 capacity: dict[str, int] | None = None,
                 figures_dir: str | os.PathLike | None = None,
                 runs: list[str] | None = None, gantt: list[str] | None = None,
                 workers: int | None = None) -> ReportResult:
    """Compute what is missing, then render. ``capacity`` (trace -> processors)
    simulates a trace at another machine size (e.g. CTC at 512 nodes);
    ``figures_dir`` also gets every figure as PDF and PNG; ``runs`` (a study's
    run ids) are shown side by side after the summary; ``gantt`` items
    (RUN_ID:FROM:TO) add Gantt charts to the queue section; ``workers``:
    processes for the simulations (default: all cores for a big batch)."""
    keys = list(sections or SECTIONS)
    traces = _traces(wh, traces)
    windows = parse_gantt(wh, gantt or [])
    if windows and "queue" not in keys:
        keys.append("queue")
    t0 = time.perf_counter()
    with_summary = "summary" in keys or "queue" in keys  # the queue section shows the summary's runs
    done = prepare(wh, traces, keys, capacity, summary=with_summary, workers=workers)
    if with_summary:
        from ..summary import ensure

        for t in traces:
            done.steps += [f"{t}: {s}" for s in ensure(wh, t)]  # nothing left after prepare
    t1 = time.perf_counter()
    con = wh.reader()
    section_s = {}
    drawer = Drawer()  # each section's figures drawn in other processes while the next is built
    try:
        with memo.session(con):  # what several sections read, read once (memo.py)
            built = []
            for k in keys:
                t = time.perf_counter()
                built.append(queue(con, traces, windows, runs) if k == "queue" else SECTIONS[k](con, traces))
                drawer.add(built[-1])
                section_s[k] = round(time.perf_counter() - t, 2)
            if runs:
                built.insert(1 if keys[0] == "summary" else 0, study_runs(con, runs))
        drawer.finish()
    finally:
        drawer.close()
        con.close()
    html = page.render(built, traces)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_file(out, html, "--out")
    tables = [b for s in built for b in s.blocks if isinstance(b, page.Table)]
    written = _write_csv(tables, Path(csv_dir)) if csv_dir else []
    figs = [b for s in built for b in s.blocks if isinstance(b, page.Figure)]
    drawn = _write_figures(figs, Path(figures_dir)) if figures_dir else []
    return ReportResult(str(out), traces, keys, len(tables), len(figs), written, done.steps,
                        {"compute_s": round(t1 - t0, 2), "render_s": round(time.perf_counter() - t1, 2),
                         "compute": {k: round(v, 2) for k, v in done.seconds.items()}, "sections": section_s,
                         "runs": done.runs}, drawn,
                        [f.chart.labels() for f in figs])


def _write_figures(figs: list[page.Figure], folder: Path) -> list[str]:
    from .figures import slug

    out = []
    for i, f in enumerate(figs, 1):
        out += f.chart.save(folder, f"{i:02d}-{slug(f.chart.title)}")
    return out


def _write_csv(tables: list[page.Table], folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    done: dict[str, int] = {}
    paths = []
    for t in tables:
        n = done.get(t.view, 0)
        done[t.view] = n + 1
        path = folder / (f"{t.view}.csv" if n == 0 else f"{t.view}_{n + 1}.csv")
        text = io.StringIO(newline="")
        w = csv.writer(text)
        w.writerow(t.columns)
        w.writerows(t.rows)
        write_file(path, text.getvalue(), "--csv")
        paths.append(str(path))
    return paths
