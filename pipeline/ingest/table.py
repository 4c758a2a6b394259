"""Tabular job logs (CSV, Parquet, JSON lines): one job per row, a column mapping.

Why a mapping instead of guessing: published datasets (NREL Eagle, ...) name
their columns freely; ``--column submit=submit_time``, a ``[columns]`` table
in a TOML file (``--mapping``) or a preset says which column is which. Rows
become the same jobs frame as a sacct dump (pipeline/ingest/sacct.py), so
every later stage sees one schema.
"""

from __future__ import annotations

import io
import tomllib
from pathlib import Path
from typing import NamedTuple

import polars as pl

from ..errors import WalltimeError, quote
from . import ranges, sacct
from . import slurmtime as st
from .swf import BadLine, ParsedTrace

# our name -> what it means (docs/ingest.md repeats this)
FIELDS = {
    "job_id": "the log's job id (kept as slurm_id; jobs are renumbered in submission order)",
    "submit": "submission time (epoch seconds or timestamp)",
    "start": "start time", "end": "end time",
    "wait": "wait, seconds or [D-]HH:MM:SS", "run": "run time, seconds or [D-]HH:MM:SS",
    "req": "requested time limit, seconds or Slurm string",
    "procs": "allocated processors", "nodes": "allocated nodes", "req_procs": "requested processors",
    "req_nodes": "requested nodes",
    "user": "user name", "group": "Unix group", "account": "account (Tang's project)", "partition": "partition",
    "qos": "QOS", "job_name": "job name", "state": "Slurm state (COMPLETED, FAILED, ...)",
    "status": "SWF status (1 completed, 0 failed, 5 cancelled)", "gpus": "allocated GPUs",
    "req_gpus": "requested GPUs", "req_mem": "requested memory, KB per processor",
}


class Col(NamedTuple):
    """A preset's column as its dataset publishes it: the name; the type
    (checked in Parquet and JSON lines, whose columns are typed: "int",
    "float" (any number), "time" (a timestamp, or its text), "text"); the unit
    of a duration ("s", or "min": minutes, where Slurm's INFINITE, 0xFFFFFFFF
    minutes, is no limit); for a state, the dataset's words for Slurm's states."""
    source: str
    kind: str
    unit: str = "s"
    words: dict[str, str] | None = None


# a preset's entry: the source column (unchecked), or a Col
PRESETS: dict[str, dict[str, str | Col]] = {
    # NREL Eagle (data.openei.org "Eagle HPC jobs"): its published columns, as in the sample
    "eagle": {
        "job_id": "job_id", "user": "user", "account": "account", "partition": "partition", "qos": "qos",
        "req": "wallclock_req", "nodes": "nodes_req", "procs": "processors_req",
        # Eagle publishes what jobs asked for: GPUs as requested, and held as asked (as processors_req, nodes_req)
        "req_gpus": "gpus_req", "gpus": "gpus_req",
        "submit": "submit_time", "start": "start_time", "end": "end_time", "run": "run_time",
        "state": "state", "job_name": "name",
    },
    # Fugaku's F-DATA (Zenodo, https://doi.org/10.5281/zenodo.11467483; the columns and types of
    # docs/feature_list.csv in https://github.com/francescoantici/F-DATA): one Parquet file per month; adt, sdt
    # and edt are text with their UTC offset ("2021-04-01 10:28:01+09"), elpl and duration float seconds
    "fdata": {
        "job_id": Col("jid", "text"), "user": Col("usr", "text"), "job_name": Col("jnam", "text"),
        "submit": Col("adt", "time"), "start": Col("sdt", "time"), "end": Col("edt", "time"),
        "run": Col("duration", "float"), "req": Col("elpl", "float"),
        "procs": Col("cnumat", "int"), "req_procs": Col("cnumr", "int"),
        "nodes": Col("nnuma", "int"), "req_nodes": Col("nnumr", "int"),
        # completed: exit code 0; failed: any other (also a job killed at its elapse limit)
        "state": Col("exit state", "text", words={"completed": "COMPLETED", "failed": "FAILED"}),
    },
    # Marconi100's PM100 (Zenodo, https://doi.org/10.5281/zenodo.8129257; the columns of
    # documentation/job_features.md in https://github.com/francescoantici/PM100-data): Slurm's job table,
    # times UTC timestamps, run_time seconds, time_limit MINUTES
    "pm100": {
        "job_id": Col("job_id", "int"), "user": Col("user_id", "int"), "group": Col("group_id", "int"),
        "partition": Col("partition", "text"), "qos": Col("qos", "text"),
        "submit": Col("submit_time", "time"), "start": Col("start_time", "time"), "end": Col("end_time", "time"),
        "run": Col("run_time", "int"), "req": Col("time_limit", "int", unit="min"),
        "procs": Col("num_cores_alloc", "int"), "req_procs": Col("num_cores_req", "int"),
        "nodes": Col("num_nodes_alloc", "int"), "req_nodes": Col("num_nodes_req", "int"),
        "gpus": Col("num_gpus_alloc", "int"), "req_gpus": Col("num_gpus_req", "int"),
        "state": Col("job_state", "text"),
    },
    # walltime's own `export --format parquet`
    "walltime": {
        "job_id": "slurm_id", "submit": "submit_epoch", "wait": "wait", "run": "run", "procs": "procs",
        "req_procs": "req_procs", "req": "req", "req_mem": "req_mem", "status": "status", "user": "user",
        "group": "group_name", "account": "account", "partition": "partition", "qos": "qos",
        "job_name": "job_name", "state": "state", "gpus": "gpus",
        "nodes": "node_count",  # the real node count (migration 240); cores come back as procs (--size cpus)
    },
}
# a Col's kind: (what the message says, the dtypes that are it)
_KINDS = {
    "int": ("an integer column", lambda d: d.is_integer()),
    "float": ("a numeric column", lambda d: d.is_numeric()),
    "time": ("a timestamp column (or timestamp text)", lambda d: isinstance(d, pl.Datetime) or d == pl.String),
    "text": ("a text column", lambda d: d in (pl.String, pl.Categorical) or isinstance(d, pl.Enum)),
}
UNITS = {"s": 1, "min": 60}  # a duration's unit -> seconds
SLURM_INFINITE = 0xFFFFFFFF  # Slurm's INFINITE in a 32-bit minutes field (time_limit): no limit
# text that can only be read by _OFFSET_FORMATS (no naive form, no number): a column of such text alone
# is read by them alone (24M F-DATA rows: the naive forms and the number tried first were most of the typing)
_OFFSET_TEXT = r"^\s*\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d(:?\d\d)?|Z)\s*$"
# a time with its UTC offset: PostgreSQL's text of a timestamptz ("2021-04-01 10:28:01+09", F-DATA's), ISO's
# "+09:00" and "Z", with or without fractions of a second; an instant, whatever --tz says
_OFFSET_FORMATS = ("%Y-%m-%d %H:%M:%S%.f%#z", "%Y-%m-%dT%H:%M:%S%.f%#z")
# our name -> the sacct column the shared code reads
_SACCT_NAMES = {"user": "User", "group": "Group", "account": "Account", "partition": "Partition", "qos": "QOS",
                "job_name": "JobName", "state": "State"}


def mapping_from(opts, path: Path) -> dict[str, str]:
    """our name -> source column, from --preset, then --mapping, then --column."""
    m: dict[str, str] = {}
    if opts.preset:
        if opts.preset not in PRESETS:
            raise WalltimeError(f"--preset {opts.preset}: unknown; use one of {', '.join(PRESETS)}")
        m.update({k: c if isinstance(c, str) else c.source for k, c in PRESETS[opts.preset].items()})
    if opts.mapping:
        try:
            doc = tomllib.loads(Path(opts.mapping).read_text())
        except OSError as e:
            raise WalltimeError(f"--mapping {opts.mapping}: cannot read: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise WalltimeError(f"--mapping {opts.mapping}: not TOML: {e}") from None
        cols = doc.get("columns")
        if not isinstance(cols, dict) or not all(isinstance(v, str) for v in cols.values()):
            raise WalltimeError(f'--mapping {opts.mapping}: needs a [columns] table of NAME = "SOURCE" strings')
        m.update(cols)
    for item in opts.columns:
        name, eq, src = item.partition("=")
        if not eq or not name or not src:
            raise WalltimeError(f"--column {item}: expected NAME=SOURCE, e.g. submit=submit_time")
        m[name.strip()] = src.strip()
    unknown = [k for k in m if k not in FIELDS]
    if unknown:
        raise WalltimeError(f"--column {unknown[0]}: unknown name; use one of {', '.join(FIELDS)}")
    if not m:
        raise WalltimeError(f"{path}: --format table needs a column mapping: --column NAME=SOURCE, --mapping FILE "
                            f"or --preset ({', '.join(PRESETS)})")
    return m


def _preset_cols(opts, m: dict[str, str]) -> dict[str, Col]:
    """our name -> the preset's Col, for the names still read from the
    preset's column (not mapped elsewhere by --mapping or --column)."""
    cols = PRESETS.get(opts.preset, {}) if opts.preset else {}
    return {k: c for k, c in cols.items() if isinstance(c, Col) and m.get(k) == c.source}


def _read(data: bytes, path: Path, want=None) -> tuple[pl.DataFrame, list[str], int]:
    """The rows, every column's name, and the line of the first row (2 for
    CSV after its header: its columns are all text, we type them). Of a Parquet
    file only the columns in ``want`` are read: a dataset can carry wide
    columns no mapping reads (F-DATA: a 384-number embedding per job)."""
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    try:
        if data[:4] == b"PAR1" or name.endswith(".parquet"):
            names = list(pl.read_parquet_schema(io.BytesIO(data)))
            cols = names if want is None else [c for c in names if c in want]
            return pl.read_parquet(io.BytesIO(data), columns=cols), names, 1
        if name.endswith((".jsonl", ".ndjson", ".json")) or data.lstrip()[:1] == b"{":
            df = pl.read_ndjson(io.BytesIO(data), infer_schema_length=None)
            return df, df.columns, 1
        df = pl.read_csv(io.BytesIO(data), infer_schema_length=0)  # all strings: we type them
        return df, df.columns, 2
    except (pl.exceptions.PolarsError, OSError, ValueError) as e:
        if data[:4] != b"PAR1":
            _not_utf8(data, path)
        if not data[:4] == b"PAR1" and (name.endswith((".jsonl", ".ndjson", ".json")) or data.lstrip()[:1] == b"{"):
            _broken_record(data, path)
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise WalltimeError(f"{path}: cannot read as a table: {first}") from None


def _not_utf8(data: bytes, path: Path) -> None:
    """Raise naming the line of the first byte that is not UTF-8, the line quoted
    with such bytes escaped (``\\xff``); the reader's own error names no line."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        end = data.find(b"\n", e.start)
        line = data.count(b"\n", 0, e.start) + 1
        end = len(data) if end < 0 else end
        lo, hi = max(start, e.start - 60), min(end, e.start + 20)  # the bytes around it
        near = ("..." if lo > start else "") + quote(data[lo:hi], 400) + ("..." if hi < end else "")
        raise WalltimeError(f"{path}:{line}: not UTF-8 text (byte {data[e.start]:#04x}): {near}") from None


def _broken_record(data: bytes, path: Path) -> None:
    """Raise naming the first JSON-lines record that is not a JSON object (the
    reader's own error gives a character offset in the whole file)."""
    import json

    for no, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as e:
            why = e.msg if isinstance(e, json.JSONDecodeError) else "not UTF-8 text"
            where = f" at column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
            raise WalltimeError(f"{path}:{no}: not a JSON record: {why}{where}") from None
        if not isinstance(record, dict):
            raise WalltimeError(f"{path}:{no}: not a JSON record: expected an object {{...}}, "
                                f"got {type(record).__name__}") from None


def _seconds(col: pl.Expr, dtype: pl.DataType, unit: int = 1) -> pl.Expr:
    """A duration: a number of seconds (of ``unit`` seconds: 60 for minutes),
    or a Slurm string ([D-]HH:MM:SS)."""
    if dtype.is_numeric():
        return ranges.whole(col.cast(pl.Float64) * unit)
    s = col.cast(pl.String).str.strip_chars()
    num = ranges.whole(s.cast(pl.Float64, strict=False) * unit)
    return pl.coalesce([num, st.duration_seconds(s)])


def _naive_or_epoch(col: pl.Expr, dtype: pl.DataType, offset_only: bool = False
                    ) -> tuple[pl.Expr | None, pl.Expr | None]:
    """(naive local datetime, absolute epoch seconds): one of them applies.
    ``offset_only``: every value of this text column is a time with its UTC offset
    (:data:`_OFFSET_TEXT`), so only the offset forms are tried (F-DATA's times)."""
    if offset_only:
        s = col.cast(pl.String).str.strip_chars()
        return None, pl.coalesce([s.str.to_datetime(f, strict=False, time_unit="us").dt.epoch("s")
                                  for f in _OFFSET_FORMATS])
    if dtype.is_numeric():
        return None, ranges.whole(col.cast(pl.Float64))
    if isinstance(dtype, pl.Datetime):
        if dtype.time_zone:
            return None, col.dt.epoch("s")
        return col.cast(pl.Datetime("us")), None
    s = col.cast(pl.String).str.strip_chars()
    offset = [s.str.to_datetime(f, strict=False, time_unit="us").dt.epoch("s") for f in _OFFSET_FORMATS]
    return st.naive_time(s), pl.coalesce([ranges.whole(s.cast(pl.Float64, strict=False)), *offset])


def parse(data: bytes, path: Path, tz: str, opts) -> ParsedTrace:
    m = mapping_from(opts, path)
    preset = _preset_cols(opts, m)
    df, names, first_line = _read(data, path, set(m.values()))
    missing = [k for k, v in m.items() if v not in names]
    if missing:
        k = missing[0]
        given = f"--preset {opts.preset}" if k in preset else f"--column {k}={m[k]}"
        read_as = f", read as {k}" if k in preset else ""
        raise WalltimeError(f"{path}: {given}: the file has no column {m[k]!r}{read_as} "
                            f"(columns: {', '.join(names[:30])})")
    for k, c in preset.items():  # the published types (CSV: every column is text, typed row by row below)
        have = df.schema[c.source]
        if first_line == 1 and have != pl.Null and not _KINDS[c.kind][1](have):
            raise WalltimeError(f"{path}: --preset {opts.preset}: column {c.source!r} ({k}) is {have}, expected "
                                f"{_KINDS[c.kind][0]} as the dataset publishes it")
    need = [k for k in ("submit",) if k not in m]
    if "start" not in m and "wait" not in m:
        need.append("start or wait")
    if "end" not in m and "run" not in m:
        need.append("end or run")
    if not {"procs", "nodes", "req_procs", "req_nodes"} & set(m):
        need.append("procs or nodes")
    if need:
        raise WalltimeError(f"{path}: the mapping lacks {', '.join(need)}; add --column NAME=SOURCE")
    out = ParsedTrace(format="table", lines=df.height + first_line - 1)
    df = df.drop([c for c in df.columns if c not in m.values()])  # also frees names such as "line"
    df = df.with_row_index("line", offset=first_line).with_columns(pl.col("line").cast(pl.Int64))
    src = {k: pl.col(v) for k, v in m.items()}
    dt = {k: df.schema[v] for k, v in m.items()}
    for k, c in preset.items():
        if c.words:  # the dataset's words for states (F-DATA: completed, failed); others are read as they are
            src[k], dt[k] = pl.col(c.source).cast(pl.String).replace(c.words), pl.String
    units = {k: c.unit for k, c in preset.items() if c.unit != "s"}
    texts = [k for k in ("submit", "start", "end") if k in m and dt[k] == pl.String]
    offset_only = frozenset(k for k, every in zip(texts, df.select(
        pl.col(m[k]).str.contains(_OFFSET_TEXT).all() for k in texts).row(0)) if every) if texts else frozenset()
    exprs, checks, pre = _typed(src, dt, tz, opts.size, m, units, offset_only)
    # which rows are bad first, the messages for those rows only (as sacct.py)
    is_bad = pl.any_horizontal([bad.fill_null(False) for bad, _ in checks]) if checks else pl.lit(False)
    # eager: a lazy plan (CSE) was no faster once each time is parsed first (pre), and held more (1M: +18%)
    typed = (df.with_columns(pre).with_columns(exprs).with_columns(is_bad.alias("_is_bad"))
             .drop([e.meta.output_name() for e in pre]))
    reason = pl.coalesce([pl.when(bad).then(msg) for bad, msg in checks]) if checks else pl.lit(None, pl.String)
    raw = pl.concat_str([pl.col(c).cast(pl.String).fill_null("") for c in df.columns if c != "line"], separator=",")
    bad_rows = typed.filter(pl.col("_is_bad")).with_columns(reason.alias("_reason"), raw.alias("_raw"))
    out.bad = [BadLine(int(r["line"]), None, r["_reason"], r["_raw"])
               for r in bad_rows.select("line", "_reason", "_raw").iter_rows(named=True)]
    # the source columns go once typed (only a bad row's text needs them), and the frames that held them
    made = {e.meta.output_name() for e in exprs} | {"line"}
    good = (typed.filter(~pl.col("_is_bad")) if out.bad else typed).drop(
        ["_is_bad", *(c for c in df.columns if c not in made)])
    del df, typed, bad_rows
    jobs, out.header = sacct._jobs(good, [c for c in _SACCT_NAMES.values() if c in good.columns])
    out.counts.update(sacct._counts(jobs))
    if "job_id" in m:  # e.g. Eagle's array tasks, which share their array's job id
        shared = (pl.len().over("slurm_id") > 1) & pl.col("slurm_id").is_not_null()
        jobs = jobs.with_columns(pl.when(shared & pl.col("array_job_id").is_null())
                                 .then(pl.col("slurm_id").cast(pl.Int64, strict=False))
                                 .otherwise(pl.col("array_job_id")).alias("array_job_id"))
        out.counts["shared_job_ids"] = int(jobs.select(shared.sum()).item())
    out.jobs = jobs.drop("_unlimited", "_year", "_live", "_held_end")
    if "status" in m:
        out.jobs = out.jobs.with_columns(good.sort(["_submit", "_base", "line"], nulls_last=True)["_status_in"]
                                         .alias("status"))
    return out


def _typed(src: dict, dt: dict, tz: str, size: str, m: dict, units: dict | None = None,
           offset_only: frozenset = frozenset()) -> tuple[list[pl.Expr], list, list[pl.Expr]]:
    """The sacct reader's internal columns from the mapped ones, the checks
    (bad?, message) naming the source column of a value that cannot be read, and
    the columns to compute before both (``_nv_*``, ``_ep_*``: each time parsed once).
    ``units``: our name -> the unit of a duration given in other than seconds."""
    units = units or {}
    def label(k):
        return f'column {m[k]} ({k}) is "'

    def val(k):
        return pl.lit(label(k)) + src[k].cast(pl.String).fill_null("") + pl.lit('"')

    checks = []
    naive, epoch = {}, {}
    pre = []  # each time parsed once into a column of its own (computed first, by the caller): the DST
    # ordering below nests submit's expression in start's and both in end's, and text parsed inside
    # them was parsed again at each level (1M F-DATA times: 15 s)
    for k in ("submit", "start", "end"):
        if k in src:
            nv, ep = _naive_or_epoch(src[k], dt[k], k in offset_only)
            if nv is not None:
                pre.append(nv.alias(f"_nv_{k}"))
                nv = pl.col(f"_nv_{k}")
            if ep is not None:
                pre.append(ep.alias(f"_ep_{k}"))
                ep = pl.col(f"_ep_{k}")
            naive[k], epoch[k] = nv, ep
    local = [naive.get(k) for k in ("submit", "start", "end")]
    present = [x for x in local if x is not None]
    ordered = iter(st.ordered_epochs(present, tz)) if present else iter(())
    t = {}
    for k, nv in zip(("submit", "start", "end"), local):
        loc = next(ordered) if nv is not None else None
        parts = [e for e in (loc, epoch.get(k)) if e is not None]
        t[k] = pl.coalesce(parts) if parts else None
        if k in src:
            missing = src[k].is_null()
            if dt[k] == pl.String:  # only text can spell a missing time (a typed column has nulls)
                missing = missing | src[k].str.strip_chars().is_in(st.MISSING_TIME)
            # the typed column where it is this very time (not the checks' own second conversion:
            # 2.3 of the 2.9 s of a 1M-row Eagle table's checks)
            same = k != "start" or "wait" not in src
            bad = (pl.col(f"_{k}") if same else t[k]).is_null() & (~missing if k != "submit" else pl.lit(True))
            checks.append((bad, val(k) + pl.lit(", expected a time (epoch seconds or YYYY-MM-DD HH:MM:SS)")))
    dur = {k: _seconds(src[k], dt[k], UNITS[units.get(k, "s")]) for k in ("wait", "run", "req") if k in src}
    for k in dur:
        given = src[k].is_not_null()
        if dt[k] == pl.String:  # only text can spell no limit
            given = given & ~src[k].str.strip_chars().is_in(("", *st.NO_LIMIT))
        checks.append((given & dur[k].is_null(), val(k) + pl.lit(", expected seconds or [D-]HH:MM:SS")))
    submit = t["submit"]
    start = t.get("start")
    if start is None:
        start = submit + dur["wait"]
    elif "wait" in dur:
        start = pl.coalesce([start, submit + dur["wait"]])
    end = t.get("end")
    run = dur.get("run")
    if end is None:
        end = start + run
    ints = {k: ranges.whole(src[k].cast(pl.Float64, strict=False)) for k in
            ("procs", "nodes", "req_procs", "req_nodes", "gpus", "req_gpus", "status") if k in src}
    for k in ints:
        checks.append((src[k].is_not_null() & ints[k].is_null(), val(k) + pl.lit(", expected a whole number")))
    none = pl.lit(None, pl.Int64)
    procs = ints.get("procs", none) if size == "cpus" else ints.get("nodes", none)
    req_procs = ints.get("req_procs", procs) if size == "cpus" else ints.get("req_nodes", procs)
    procs = pl.coalesce([procs, req_procs])
    checks.append((procs.is_null(), pl.lit(f"no size: the {size} column is empty")))
    checks += _range_checks(m, size, val, dur, ints)
    state = src["state"].cast(pl.String).str.extract(r"^([A-Z_]+)") if "state" in src else pl.lit(None, pl.String)
    if "state" in src:
        # _status is null exactly where the state is not one of sacct.STATUS (replace_strict's default)
        checks.append((src["state"].is_not_null() & pl.col("_status").is_null(),
                       val("state") + pl.lit(", expected a Slurm job state (COMPLETED, FAILED, TIMEOUT, CANCELLED, ...)")))
    no_limit = (src["req"].cast(pl.String).str.strip_chars().is_in(st.NO_LIMIT)
                if "req" in src and dt["req"] == pl.String else pl.lit(False))
    if units.get("req") == "min":  # Slurm's minutes (PM100's time_limit): INFINITE is no limit
        no_limit = no_limit | (src["req"].cast(pl.Float64, strict=False) == SLURM_INFINITE).fill_null(False)
    job_id = src["job_id"].cast(pl.String) if "job_id" in src else pl.lit(None, pl.String)
    idp = job_id.str.extract_groups(sacct._JOBID)
    exprs = [
        submit.alias("_submit"), start.alias("_start"), end.alias("_end"),
        (run if run is not None else none).alias("_elapsed"),
        pl.when(no_limit).then(None).otherwise(dur.get("req", none)).alias("_req"),
        no_limit.fill_null(False).alias("_unlimited"),
        procs.alias("_procs"), req_procs.alias("_req_procs"), ints.get("gpus", none).alias("_gpus"),
        ints.get("req_gpus", none).alias("_req_gpus"),
        # cores and nodes apart, whatever --size counts (Eagle: processors_req, nodes_req)
        pl.coalesce([ints.get("procs", none), ints.get("req_procs", none)]).alias("_cores"),
        pl.coalesce([ints.get("nodes", none), ints.get("req_nodes", none)]).alias("_node_count"),
        state.replace_strict(sacct.STATUS, default=None, return_dtype=pl.Int32).alias("_status"),
        ints.get("status", none).cast(pl.Int32, strict=False).alias("_status_in"),
        (src["req_mem"].cast(pl.Float64, strict=False) if "req_mem" in src else pl.lit(None, pl.Float64)).alias("_req_mem"),
        job_id.alias("JobID"),
        idp.struct.field("1").cast(pl.Int64).alias("_base"),
        idp.struct.field("2").is_not_null().alias("_has_task"),
        idp.struct.field("2").cast(pl.Int64, strict=False).alias("_task_id"),
        idp.struct.field("3").cast(pl.Int64).alias("_het"),
    ]
    exprs += [src[k].cast(pl.String).alias(v) for k, v in _SACCT_NAMES.items() if k in src]
    return exprs, checks, pre


def _range_checks(m: dict, size: str, val, dur: dict, ints: dict) -> list:
    """The checks of ranges.py (every format's ranges), naming the mapped
    column of each value; a wait, the sizes not counted, GPUs, a status and
    memory checked here (the values only a table gives)."""
    def given(k):
        return k in m

    procs = ("procs" if given("procs") else "req_procs") if size == "cpus" else (
        "nodes" if given("nodes") else "req_nodes")
    req_procs = ("req_procs" if given("req_procs") else procs) if size == "cpus" else (
        "req_nodes" if given("req_nodes") else procs)
    source = {"submit": "submit", "start": "start" if given("start") else "wait",
              "end": "end" if given("end") else "run", "run": "run", "req": "req",
              "procs": procs, "req_procs": req_procs}
    out = []
    if "wait" in dur:
        out.append((ranges.outside(dur["wait"], 0, ranges.MAX_SPAN), val("wait") + pl.lit(f", {ranges.DURATION_WHY}")))
    out += ranges.job_checks(lambda k: val(source[k]), lambda k: k in source and given(source[k]))
    unused = [k for k in ("procs", "nodes", "req_procs", "req_nodes") if k not in (procs, req_procs)]
    for k, lo in [(k, 0) for k in unused] + [("gpus", 0), ("req_gpus", 0), ("status", -1)]:
        if k in ints:
            out.append((ranges.outside(ints[k], lo, ranges.INT32),
                        val(k) + pl.lit(f", expected a whole number from {lo} to {ranges.INT32:,}")))
    if given("req_mem"):
        mem = pl.col(m["req_mem"]).cast(pl.Float64, strict=False)
        out.append((((~mem.is_finite()) | (mem < 0)).fill_null(False),
                    val("req_mem") + pl.lit(", expected a non-negative number of KB")))
    return out
