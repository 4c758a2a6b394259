"""A study in one TOML file: traces, estimate schemes, simulation grids, report.

``load_study`` validates the whole file before anything runs: an unknown key or
a bad value is a one-line error naming the file and the key path
(``study.toml: simulations[1].policy: ...``). Grids are expanded here into
the plain list of work items the planner checks against the warehouse.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .. import schemes
from ..errors import WalltimeError
from ..ingest import default_name
from ..ingest.formats import IngestOptions
from ..report import SECTIONS
from ..simulate.config import SimConfig, make_config
from ..warehouse import check_trace_name

TOP = {"study", "traces", "estimates", "simulations", "report"}
STUDY = {"name", "log", "workers"}
TRACE = {"path", "name", "lenient", "format", "tz", "size", "capacity", "slurm_conf"}
ESTIMATES = {"schemes", "grid", "traces"}
GRID_AXES = {"key": schemes.KEYS, "window": schemes.WINDOWS, "stat": schemes.STATS}
GRID = set(GRID_AXES) | {"floor", "min"}
SIMULATION = {"traces", "policy", "backfill", "adjust", "overrun", "estimate", "split", "load_factor",
              "capacity", "drop_oversized", "predict_wait"}
REPORT = {"out", "sections", "csv", "traces"}


@dataclass
class TraceItem:
    name: str
    path: Path
    lenient: bool = False
    options: IngestOptions | None = None  # format, tz, size, capacity, slurm_conf (sacct sites)


@dataclass
class SimItem:
    trace: str
    config: SimConfig  # capacity may still be None (the trace's own)


@dataclass
class Study:
    file: Path
    name: str
    log: Path | None
    workers: int | None
    traces: list[TraceItem]
    estimates: dict[str, list[str]]  # trace -> canonical schemes
    simulations: list[SimItem]
    report: dict | None = None
    notes: list[str] = field(default_factory=list)


class _Where:
    """Error helper that knows the file and the key path."""

    def __init__(self, file: Path):
        self.file = file

    def fail(self, path: str, msg: str) -> None:
        raise WalltimeError(f"{self.file}: {path}: {msg}")

    def keys(self, table, allowed: set[str], path: str) -> None:
        if not isinstance(table, dict):
            self.fail(path, f"expected a table, got {type(table).__name__}")
        for k in table:
            if k not in allowed:
                self.fail(f"{path}.{k}" if path else k, f"unknown key; allowed: {', '.join(sorted(allowed))}")

    def listof(self, value, path: str, kind=str) -> list:
        items = value if isinstance(value, list) else [value]
        for i, v in enumerate(items):
            if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
                self.fail(f"{path}[{i}]" if isinstance(value, list) else path,
                          f"expected {kind.__name__ if not isinstance(kind, tuple) else ' or '.join(k.__name__ for k in kind)}, got {v!r}")
        return items


def load_study(file: str | Path) -> Study:
    file = Path(file)
    try:
        raw = tomllib.loads(file.read_text())
    except FileNotFoundError:
        raise WalltimeError(f"{file}: no such file") from None
    except tomllib.TOMLDecodeError as e:
        raise WalltimeError(f"{file}: {e}") from None
    w = _Where(file)
    w.keys(raw, TOP, "")
    study = raw.get("study", {})
    w.keys(study, STUDY, "study")
    base = file.resolve().parent

    traces = _traces(w, raw.get("traces"), base)
    names = [t.name for t in traces]
    estimates = _estimates(w, raw.get("estimates", {}), names)
    sims = _simulations(w, raw.get("simulations", []), names)
    for s in sims:  # a simulation's estimate is computed with the others
        if s.config.estimate not in estimates[s.trace]:
            estimates[s.trace].append(s.config.estimate)
    report = _report(w, raw.get("report"), names, base)
    log = study.get("log")
    workers = study.get("workers")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        w.fail("study.workers", f"expected an integer >= 1, got {workers!r}")
    return Study(file, str(study.get("name", file.stem)), (base / log) if log else None, workers,
                 traces, estimates, sims, report)


def _traces(w: _Where, value, base: Path) -> list[TraceItem]:
    if not value:
        w.fail("traces", "the study needs at least one [[traces]] entry with a path")
    if not isinstance(value, list):
        w.fail("traces", "expected an array of tables ([[traces]])")
    out = []
    for i, t in enumerate(value):
        p = f"traces[{i}]"
        if isinstance(t, str):
            t = {"path": t}
        w.keys(t, TRACE, p)
        if "path" not in t or not isinstance(t["path"], str):
            w.fail(f"{p}.path", "required: the trace file (.swf or .swf.gz), relative to the config file")
        path = (base / t["path"]).resolve() if not Path(t["path"]).is_absolute() else Path(t["path"])
        name = t.get("name") or default_name(path)
        try:
            check_trace_name(name)
        except WalltimeError as e:
            w.fail(f"{p}.name", str(e))
        if name in [o.name for o in out]:
            w.fail(f"{p}.name", f'trace name "{name}" is used twice')
        out.append(TraceItem(name, path, bool(t.get("lenient", False)), _ingest_options(w, t, p, base)))
    return out


def _ingest_options(w: _Where, t: dict, p: str, base: Path) -> IngestOptions | None:
    """The [[traces]] keys of ``walltime ingest``'s options (sacct and table logs)."""
    if not any(k in t for k in ("format", "tz", "size", "capacity", "slurm_conf")):
        return None
    cap = t.get("capacity", [])
    caps = [str(c) for c in (cap if isinstance(cap, list) else [cap])]
    conf = t.get("slurm_conf")
    try:
        return IngestOptions(format=str(t.get("format", "swf")), tz=t.get("tz"), size=str(t.get("size", "cpus")),
                             capacity=caps, slurm_conf=str((base / conf).resolve()) if conf else None).checked()
    except WalltimeError as e:
        w.fail(p, str(e))


def _select(w: _Where, value, names: list[str], path: str) -> list[str]:
    if value is None:
        return list(names)
    chosen = w.listof(value, path)
    for i, n in enumerate(chosen):
        if n not in names:
            w.fail(f"{path}[{i}]" if isinstance(value, list) else path,
                   f'"{n}" is not one of the study\'s traces ({", ".join(names)})')
    return chosen


def _estimates(w: _Where, value, names: list[str]) -> dict[str, list[str]]:
    w.keys(value, ESTIMATES, "estimates")
    specs = []
    for i, s in enumerate(w.listof(value.get("schemes", []), "estimates.schemes")):
        try:
            specs.append(schemes.canonical(s, "scheme"))
        except WalltimeError as e:
            w.fail(f"estimates.schemes[{i}]", str(e))
    grid = value.get("grid")
    if grid is not None:
        w.keys(grid, GRID, "estimates.grid")
        axes = []
        for axis, choices in GRID_AXES.items():
            vals = w.listof(grid.get(axis, list(choices)), f"estimates.grid.{axis}")
            for j, v in enumerate(vals):
                if v not in choices:
                    w.fail(f"estimates.grid.{axis}[{j}]", f'"{v}" is not one of {", ".join(choices)}')
            axes.append(vals)
        floors = w.listof(grid.get("floor", 0.5), "estimates.grid.floor", (int, float))
        mins = w.listof(grid.get("min", 10), "estimates.grid.min", int)
        for k, win, st, fl, mn in itertools.product(*axes, floors, mins):
            try:
                specs.append(schemes.canonical(f"tang:key={k},window={win},stat={st},floor={fl},min={mn}", "grid"))
            except WalltimeError as e:
                w.fail("estimates.grid", str(e))
    chosen = _select(w, value.get("traces"), names, "estimates.traces")
    uniq = list(dict.fromkeys(specs))
    return {n: (list(uniq) if n in chosen else []) for n in names}


def _simulations(w: _Where, value, names: list[str]) -> list[SimItem]:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        w.fail("simulations", "expected an array of tables ([[simulations]])")
    out: list[SimItem] = []
    seen = set()
    for i, s in enumerate(value):
        p = f"simulations[{i}]"
        w.keys(s, SIMULATION, p)
        traces = _select(w, s.get("traces"), names, f"{p}.traces")
        axes = {
            "policy": w.listof(s.get("policy", "fcfs"), f"{p}.policy"),
            "backfill": w.listof(s.get("backfill", "easy"), f"{p}.backfill"),
            "adjust": w.listof(s.get("adjust", "regular"), f"{p}.adjust"),
            "overrun": w.listof(s.get("overrun", "request"), f"{p}.overrun"),
            "estimate": w.listof(s.get("estimate", "request"), f"{p}.estimate"),
            "split": w.listof(s.get("split", "none"), f"{p}.split"),
            "load_factor": w.listof(s.get("load_factor", 1.0), f"{p}.load_factor", (int, float)),
        }
        capacity = s.get("capacity")
        if capacity is not None and (not isinstance(capacity, int) or isinstance(capacity, bool)):
            w.fail(f"{p}.capacity", f"expected an integer, got {capacity!r}")
        flags = {}
        for flag in ("drop_oversized", "predict_wait"):
            v = s.get(flag, False)
            if not isinstance(v, bool):
                w.fail(f"{p}.{flag}", f"expected true or false, got {v!r}")
            flags[flag] = v
        keys = list(axes)
        for combo in itertools.product(*axes.values()):
            opts = dict(zip(keys, combo))
            try:
                cfg = make_config(capacity=capacity, **flags, **opts)
            except WalltimeError as e:
                bad = next((k for k in keys if f"--{k.replace('_', '-')}" in str(e)), None)
                w.fail(f"{p}.{bad}" if bad else p, str(e))
            for t in traces:
                if (t, cfg) not in seen:
                    seen.add((t, cfg))
                    out.append(SimItem(t, cfg))
    return out


def _report(w: _Where, value, names: list[str], base: Path) -> dict | None:
    if value is None:
        return None
    w.keys(value, REPORT, "report")
    out = value.get("out", "report.html")
    if not isinstance(out, str):
        w.fail("report.out", "expected a file name")
    sections = w.listof(value.get("sections", list(SECTIONS)), "report.sections")
    for i, s in enumerate(sections):
        if s not in SECTIONS:
            w.fail(f"report.sections[{i}]", f'unknown section "{s}"; known: {", ".join(SECTIONS)}')
    csv = value.get("csv")
    if csv is not None and not isinstance(csv, str):
        w.fail("report.csv", "expected a directory name")
    return {"out": base / out, "sections": sections, "csv": (base / csv) if csv else None,
            "traces": _select(w, value.get("traces"), names, "report.traces")}
