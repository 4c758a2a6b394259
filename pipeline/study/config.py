"""A study in one TOML file: traces, estimate schemes, simulation grids, report.

``load_study`` validates the whole file before anything runs: an unknown key or
a bad value is a one-line error naming the file and the key path
(``study.toml: simulations[1].policy: ...``). Grids are expanded here into
the plain list of work items the planner checks against the warehouse.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from .. import schemes
from ..checks import check_out_dir, check_out_file, check_regular
from ..errors import WalltimeError, quote, why
from ..ingest import default_name
from ..ingest.formats import IngestOptions
from ..report import SECTIONS
from ..simulate.config import SimItem, check_capacity, make_config
from ..warehouse import TRACE_NAME, check_trace_name

TOP = {"study", "traces", "estimates", "simulations", "report"}
STUDY = {"name", "log", "workers"}
# Every option of `walltime ingest` is a [[traces]] key of the same name, so a
# new ingest option works in a study the day it exists.
INGEST_KEYS = tuple(f.name for f in fields(IngestOptions))
INGEST_FILES = ("slurm_conf", "mapping")  # option values that name a file, relative to the study file
TRACE = {"path", "name", "lenient", *INGEST_KEYS}
ESTIMATES = {"schemes", "grid", "traces"}
GRID_AXES = {"key": schemes.KEYS, "window": schemes.WINDOWS, "stat": schemes.STATS}
GRID = set(GRID_AXES) | {"floor", "min"}
SIMULATION = {"traces", "policy", "backfill_order", "backfill", "adjust", "overrun", "estimate", "split", "load_factor",
              "capacity", "drop_oversized", "predict_wait", "forecast_with", "history"}
REPORT = {"out", "sections", "csv", "traces"}


@dataclass
class TraceItem:
    name: str
    path: Path
    lenient: bool = False
    options: IngestOptions | None = None  # `walltime ingest`'s options (sacct and table logs)


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


def _shown(v) -> str:
    """A TOML value in an error message, cut and escaped."""
    return quote(repr(v))


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
                          f"expected {kind.__name__ if not isinstance(kind, tuple) else ' or '.join(k.__name__ for k in kind)}, got {_shown(v)}")
        return items


def read_toml(file: Path) -> dict:
    """The file's TOML, or a one-line error: missing, a directory, unreadable,
    not UTF-8 (a byte-order mark is skipped), or not TOML."""
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise WalltimeError(f"{quote(file)}: no such file") from None
    except IsADirectoryError:
        raise WalltimeError(f"{quote(file)}: is a directory; give the study file (TOML)") from None
    except OSError as e:
        raise WalltimeError(f"{quote(file)}: cannot read: {why(e)}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise WalltimeError(f"{quote(file)}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x}); "
                            "a study file is TOML in UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise WalltimeError(f"{quote(file)}: {quote(' '.join(str(e).split()), 200)}") from None


def load_study(file: str | Path) -> Study:
    file = Path(file)
    raw = read_toml(file)
    w = _Where(file)
    w.keys(raw, TOP, "")
    study = raw.get("study", {})
    w.keys(study, STUDY, "study")
    base = file.resolve().parent

    traces = _traces(w, raw.get("traces"), base)
    names = [t.name for t in traces]
    estimates = _estimates(w, raw.get("estimates", {}), names)
    sims = _simulations(w, raw.get("simulations", []), names)
    for s in sims:  # a simulation's estimate (and forecast scheme) is computed with the others
        for scheme in (s.config.estimate, s.config.forecast_with):
            if scheme is not None and scheme not in estimates[s.trace]:
                estimates[s.trace].append(scheme)
    report = _report(w, raw.get("report"), names, base)
    log = study.get("log")
    if log is not None and (not isinstance(log, str) or not log.strip()):
        w.fail("study.log", f"expected a file name, got {_shown(log)}")
    workers = study.get("workers")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                or not 1 <= workers <= 4096):
        w.fail("study.workers", f"expected an integer from 1 to 4096, got {_shown(workers)}")
    name = study.get("name", file.stem)
    if not isinstance(name, str) or not TRACE_NAME.match(name):
        # the name becomes the log file's name: no paths, no control bytes
        w.fail("study.name", f"expected a name of letters, digits and . _ + - (at most 128), got {_shown(name)}")
    if log is not None and (base / log).is_dir():
        w.fail("study.log", f"{quote(base / log)} is a directory; give a file name")
    if log is not None:  # a device or FIFO would be written into (or block): refused before any work
        try:
            check_regular(base / log, "study.log")
        except WalltimeError as e:
            w.fail("study.log", str(e).removeprefix("study.log "))
    return Study(file, name, (base / log) if log else None, workers,
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
        if "path" not in t or not isinstance(t["path"], str) or not t["path"].strip() or "\0" in t["path"]:
            w.fail(f"{p}.path", "required: the trace file (.swf or .swf.gz), relative to the config file")
        path = (base / t["path"]).resolve() if not Path(t["path"]).is_absolute() else Path(t["path"])
        name = t.get("name") or default_name(path)
        if not isinstance(name, str):
            w.fail(f"{p}.name", f"expected a trace name, got {_shown(name)}")
        try:
            check_trace_name(name)
        except WalltimeError as e:
            w.fail(f"{p}.name", str(e))
        if name in [o.name for o in out]:
            w.fail(f"{p}.name", f'trace name "{name}" is used twice')
        lenient = t.get("lenient", False)
        if not isinstance(lenient, bool):
            w.fail(f"{p}.lenient", f"expected true or false, got {_shown(lenient)}")
        if t.get("format", "swf") == "swf" and _sacct_header(path):
            w.fail(f"{p}.format", f'{quote(path)} is `sacct --parsable2` output (its first line names JobID|...); '
                   'add format = "sacct"')
        out.append(TraceItem(name, path, lenient, _ingest_options(w, t, p, base)))
    return out


def _sacct_header(path: Path) -> bool:
    """Whether the file's first line is a sacct --parsable2 header (a
    missing or unreadable file is left to the ingest's own message)."""
    import gzip

    try:
        with (gzip.open if path.name.endswith(".gz") else open)(path, "rb") as fh:
            first = fh.readline(4096)
    except (OSError, EOFError):
        return False
    return b"|" in first and first.split(b"|", 1)[0].strip() == b"JobID"


def _ingest_options(w: _Where, t: dict, p: str, base: Path) -> IngestOptions | None:
    """The [[traces]] keys of ``walltime ingest``'s options (sacct and table logs)."""
    given = {k: t[k] for k in INGEST_KEYS if k in t}
    if not given:
        return None
    defaults = IngestOptions()
    for k, v in given.items():
        default = getattr(defaults, k)
        if isinstance(default, list):  # capacity, columns: a list or one value
            given[k] = [str(x) for x in (v if isinstance(v, list) else [v])]
        elif isinstance(default, bool):
            if not isinstance(v, bool):
                w.fail(f"{p}.{k}", f"expected true or false, got {_shown(v)}")
        elif not isinstance(v, str):
            w.fail(f"{p}.{k}", f"expected a string, got {_shown(v)}")
    for k in INGEST_FILES:
        if k in given:
            f = base / given[k]
            if not f.is_file():
                w.fail(f"{p}.{k}", f"{quote(f)}: no such file (a path relative to the study file)")
            given[k] = str(f.resolve())
    try:
        return IngestOptions(**given).checked()
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
            # first: its refusals name other options too (--estimate, --backfill), and the key named is the first
            "history": w.listof(s.get("history", "log"), f"{p}.history"),
            "policy": w.listof(s.get("policy", "fcfs"), f"{p}.policy"),
            # before backfill: its error names both options, and the first key named is the one at fault
            "backfill_order": w.listof(s.get("backfill_order", "queue"), f"{p}.backfill_order"),
            "backfill": w.listof(s.get("backfill", "easy"), f"{p}.backfill"),
            "adjust": w.listof(s.get("adjust", "regular"), f"{p}.adjust"),
            "overrun": w.listof(s.get("overrun", "request"), f"{p}.overrun"),
            "estimate": w.listof(s.get("estimate", "request"), f"{p}.estimate"),
            "split": w.listof(s.get("split", "none"), f"{p}.split"),
            "load_factor": w.listof(s.get("load_factor", 1.0), f"{p}.load_factor", (int, float)),
            # the wait forecast's scheme (walltime simulate --forecast-with); "none": the scheduler's estimates
            "forecast_with": w.listof(s.get("forecast_with", "none"), f"{p}.forecast_with"),
        }
        capacity = s.get("capacity")
        if capacity is not None and (not isinstance(capacity, int) or isinstance(capacity, bool)):
            w.fail(f"{p}.capacity", f"expected an integer, got {_shown(capacity)}")
        try:
            check_capacity(capacity, "capacity")
        except WalltimeError as e:
            w.fail(f"{p}.capacity", str(e))
        flags = {}
        for flag in ("drop_oversized", "predict_wait"):
            v = s.get(flag, False)
            if not isinstance(v, bool):
                w.fail(f"{p}.{flag}", f"expected true or false, got {_shown(v)}")
            flags[flag] = v
        keys = list(axes)
        for combo in itertools.product(*axes.values()):
            opts = dict(zip(keys, combo))
            if opts["forecast_with"] == "none":
                opts["forecast_with"] = None
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
    if not isinstance(out, str) or not out.strip() or "\0" in out:
        w.fail("report.out", "expected a file name")
    sections = w.listof(value.get("sections", list(SECTIONS)), "report.sections")
    for i, s in enumerate(sections):
        if s not in SECTIONS:
            w.fail(f"report.sections[{i}]", f'unknown section "{s}"; known: {", ".join(SECTIONS)}')
    csv = value.get("csv")
    if csv is not None and (not isinstance(csv, str) or "\0" in csv):
        w.fail("report.csv", "expected a directory name")
    try:  # before anything runs
        check_out_file(base / out, "out")
        if csv:
            check_out_dir(base / csv, "csv")
    except WalltimeError as e:
        w.fail("report.csv" if str(e).startswith("csv") else "report.out", str(e))
    return {"out": base / out, "sections": sections, "csv": (base / csv) if csv else None,
            "traces": _select(w, value.get("traces"), names, "report.traces")}
