"""Reproduction stage: run the papers' experiments on the traces and write the
papers' published numbers beside ours, with computed verdicts.

One module per paper (``mualem``, ``tang``, ``klusacek``, ``smith``), each with
the same small interface, registered in :data:`PAPERS`:

- ``TRACES``: {trace name: capacity or None} of the full set-up; ``QUICK``: the
  reduced subset (one or two traces) used by ``--quick`` (CI);
- ``compute(wh, traces, quick)``: run what the tables need (stored work is
  reused: the same simulate options give the same run_id);
- ``build(con, traces, quick) -> Section``: tables, checks and readings.

A new paper's experiment plugs in by adding a module with that interface and
one line to :data:`PAPERS`. Core types are in ``core.py``, output in ``render.py``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from .. import progress
from ..checks import check_out_dir, check_regular, write_file
from ..errors import WalltimeError
from ..warehouse import Warehouse
from . import render
from .core import tally, validate

PAPERS = {  # key -> module name; the order of the document
    "mualem": "mualem",
    "mualem-models": "mualem_probes",  # Figs. 4, 6, 7 on models not the paper's: exploratory, apart from the headline
    "tang": "tang",
    "klusacek": "klusacek",
    "klusacek-nodes": "klusacek_nodes",  # Section 4 (node predictions); `--paper klusacek` includes it
    "smith": "smith",
}
TITLE = "Reproduction: the papers' numbers beside ours"


def paper_module(key: str):
    return import_module(f"{__name__}.{PAPERS[key]}")


def default_traces_dir() -> Path:
    return Path(os.environ.get("WALLTIME_TRACES") or Path.cwd().parent / "shared" / "traces")


@dataclass
class ReproduceResult:
    out: str
    markdown: str
    html: str
    checks_json: str
    papers: list[str]
    quick: bool
    checks: int
    verdicts: dict[str, int]
    headline: str = ""  # value and direction agreement apart (core.tally), exploratory checks left out
    seconds: dict[str, float] = field(default_factory=dict)
    exploratory: int = 0  # checks of exploratory sections (in ``checks``, not in ``verdicts`` or ``headline``)


def parse_papers(keys: list[str] | None) -> list[str]:
    keys = keys or list(PAPERS)
    keys = [x for k in keys for x in (k, *[p for p in PAPERS if p.startswith(k + "-")])]
    for k in keys:
        if k not in PAPERS:
            raise WalltimeError(f'--paper: unknown paper "{k}"; known: {", ".join(PAPERS)}')
    return list(dict.fromkeys(keys))


def ensure_traces(wh: Warehouse, names: list[str], traces_dir: Path) -> None:
    """Ingest the traces the set-up needs and the warehouse lacks, from traces_dir/NAME.swf.gz.

    Raises WalltimeError, before anything is written, for a missing file or
    one whose content the warehouse holds under another name (the ingest
    would keep it there, and the papers read each trace by its own name)."""
    from ..ingest import ingest, reader

    have: dict[str, str] = {}
    if wh.exists():
        con = wh.reader()
        try:
            have = dict(con.execute("SELECT trace, sha256 FROM traces").fetchall())
        finally:
            con.close()
    todo = []
    for name in names:
        if name in have:
            continue
        path = traces_dir / f"{name}.swf.gz"
        if not path.exists():
            raise WalltimeError(f"{path}: trace file not found (--traces DIR or $WALLTIME_TRACES; get it from "
                                "the Parallel Workloads Archive)")
        todo.append(path)
    for path in todo:
        other = None
        if have:  # a content hash: BLAKE3, or the SHA-256 of a trace stored before migration 329
            data, memo = reader.read_bytes(path), {}
            digest = reader.content_digest(data)
            other = next((t for t, sha in have.items() if reader.same_content(sha, data, digest, memo)), None)
        if other is not None:
            raise WalltimeError(f'{path}: already in the warehouse as trace "{other}", and reproduce reads it as '
                                f'"{path.name[:-len(".swf.gz")]}"; run reproduce with another --warehouse')
    if todo:
        ingest(sorted(todo), wh)


def reproduce(wh: Warehouse, papers: list[str] | None = None, out: str | os.PathLike = "docs",
              traces_dir: str | os.PathLike | None = None, quick: bool = False,
              md_name: str = "reproduction.md") -> ReproduceResult:
    """Run the chosen papers' experiments and write OUT/reproduction.md, .html and
    reproduction-checks.json."""
    keys = parse_papers(papers)
    out = check_out_dir(out, "--out")  # before any computing: a device or FIFO among the outputs is refused
    md_path, html_path = out / md_name, out / (Path(md_name).stem + ".html")
    json_path = out / (Path(md_name).stem + "-checks.json")
    for path in (md_path, html_path, json_path):
        check_regular(path, "--out")
    traces_dir = Path(traces_dir) if traces_dir else default_traces_dir()
    mods = {k: paper_module(k) for k in keys}
    sets = {k: (m.QUICK if quick else m.TRACES) for k, m in mods.items()}
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    ensure_traces(wh, list(dict.fromkeys(t for s in sets.values() for t in s)), traces_dir)
    seconds["ingest"] = round(time.perf_counter() - t0, 1)
    with progress.bar() as bar:
        task = bar.add_task("reproduce", total=len(mods)) if bar else None
        for k, m in mods.items():
            if bar:
                bar.update(task, description=f"reproduce: {k} ({len(sets[k])} traces)")
            t = time.perf_counter()
            with progress.silenced():
                m.compute(wh, sets[k], quick)
            seconds[k] = round(time.perf_counter() - t, 1)
            if bar:
                bar.advance(task)
            print(f"reproduce: {k} computed in {seconds[k]:.0f} s", file=sys.stderr, flush=True)
    con = wh.reader()
    try:
        sections = [mods[k].build(con, sets[k], quick) for k in keys]
    finally:
        con.close()
    validate(sections)
    total = round(time.perf_counter() - t0, 1)
    seconds["total"] = total
    head = _head(keys, quick, sets, seconds, sections)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"papers": keys, "quick": quick, "traces": sets, "seconds": seconds}
    stem = Path(md_name).stem
    render.write_figures(sections, out, stem)
    write_file(md_path, render.markdown(sections, head, stem), "--out")
    write_file(html_path, render.html(sections, TITLE, head, stem), "--out")
    write_file(json_path, render.checks_json(sections, meta), "--out")
    every = [c for s in sections for c in s.checks()]
    checks = [c for s in sections if not s.exploratory for c in s.checks()]  # the headline: reproduction only
    verdicts: dict[str, int] = {}
    for c in checks:
        verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
    return ReproduceResult(str(out), str(md_path), str(html_path), str(json_path), keys, quick, len(every),
                           verdicts, tally(checks), seconds, len(every) - len(checks))


def _head(keys, quick, sets, seconds, sections) -> list[str]:
    cmd = "walltime reproduce" + (" --quick" if quick else "") + "".join(
        f" --paper {k}" for k in keys if len(keys) < len(PAPERS))
    return [f"# {TITLE}", "",
            f"Generated by `{cmd}` (do not edit by hand: the published numbers are typed once in "
            "`pipeline/reproduce/<paper>*.py`, every comparison, difference and verdict is computed, and "
            "every sentence that compares is generated from the numbers it states). The checks are also "
            "written as JSON beside this file, and tests/test_reproduce.py re-derives each verdict from them.",
            "",
            "Two kinds of check, counted apart. *Value* checks hold a number to the paper's: *reproduced* "
            "(within the stated tolerance; above or below the paper's bound; inside the paper's range; or, for a "
            "gain, the paper's sign and at least half its size), *weaker* (a gain of the paper's sign but under "
            "half its size), *differs* / *not reproduced* / *outside range* (the rule fails). *Direction* checks "
            "hold the sign of a change the paper states in words or where its size is not the point, and count "
            "only a clear effect: at least the check's stated threshold (absolute, in its unit: 1% for a relative "
            "change, 0.5 points for a share, 0.1 h, 1 min, 60 s unless the check states another; and at least "
            "1% of the level it changes where that level is given) and, where seeds or months give one, a 95% "
            "bootstrap interval that excludes 0: *same direction* / *opposite direction* for a clear effect, "
            "*no clear effect* otherwise. *Not computed*: a number is missing.",
            "",
            "Intervals: every direction check (and every gain judged by half its size) carries a 95% bootstrap "
            "interval (2,000 resamples), shown in brackets after ours, over what its numbers can be split by: "
            "months of submission, paired across the runs or estimates compared (Table 3 of Mu'alem & Feitelson "
            "resamples its months and its seeds; Tang et al.'s checks of the estimates alone score each scheme "
            "month by month; a pooled weighted wait sums Eq. 4 by month); weeks for Smith et al.'s replays (their "
            "CTC window has two months); users for Klusacek & Soysal's per-user errors; the key's groups for Tang "
            "et al.'s Table 2 spread. A check that has none says why in its rule (a single month of a single "
            "run; a whole run's utilisation). *Unstable*: "
            "a check of the stand-in model whose sign differs between the `--quick` set-up and the full run. "
            "*Level*: a value against a published simulator figure that misses its tolerance by less than the "
            "two simulators' baselines differ (both baselines are stated).",
            "",
            "Headline: " + " ".join(f"{s.title.split(':')[0]}: {tally(s.checks())}." for s in sections
                                    if not s.exploratory),
            "",
            *(["Apart from the headline (exploratory, not the paper's model): " + " ".join(
                f"{s.title.split(':')[0]}: {tally(s.checks())}." for s in sections if s.exploratory), ""]
              if any(s.exploratory for s in sections) else []),
            "Traces: " + "; ".join(f"{k}: {', '.join(f'{t}' + (f' at {c} nodes' if c else '') for t, c in s.items())}"
                                   for k, s in sets.items()) + ".",
            "",
            f"This generation took {seconds['total']:.0f} s on a 2-core machine (host load "
            f"{os.getloadavg()[0]:.1f}): " + ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items() if k != "total")
            + ".", ""]


def load_checks(path: str | os.PathLike) -> dict:
    return json.loads(Path(path).read_text())
