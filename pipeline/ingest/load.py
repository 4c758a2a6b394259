"""The ingest itself: trace files into the warehouse, all or nothing.

Library entry point :func:`ingest`; the CLI's ``walltime ingest`` is a thin
wrapper. Files are read and parsed before the warehouse is touched; the writes
of one call happen in one DuckDB transaction, and the Parquet mirrors are
renamed into place only after it commits.
"""

from __future__ import annotations

import contextlib
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace as replace_options
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from .. import progress, sqlfiles
from ..errors import WalltimeError
from .. import derived, jobs_files
from ..transactions import fault_hook
from ..warehouse import Warehouse, check_trace_name, transaction
from . import early, reader, swf
from .derive import derive_columns, month_dictionary, resolve_tz
from .names import string_ids_arrow
from .formats import IngestOptions, parse_file, partition_rows

BIG_FILE = 2 << 20  # show progress bars for files above this many bytes (2 MiB)


@dataclass
class IngestResult:
    trace: str
    path: str
    status: str  # 'loaded', 'replaced', 'unchanged'
    jobs: int = 0
    rejected: int = 0
    sha256: str = ""  # the content hash as traces.sha256 holds it: "blake3:<hex>" (reader.content_digest)
    same_as: str | None = None
    notes: list[str] = field(default_factory=list)
    counts: dict = field(default_factory=dict)  # sacct: steps_skipped, never_started, no_limit, ...
    timings: dict[str, float] = field(default_factory=dict)  # read_s, parse_s, write_s

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


@dataclass
class _Loaded:
    result: IngestResult
    parsed: swf.ParsedTrace
    size: int
    tz: str
    jobs: pl.DataFrame | None = None  # parsed jobs plus the derived columns
    big: bool = False  # file large enough for progress bars
    month: object = None  # SWF: the month column as an Arrow dictionary (derive.month_dictionary)
    options: str | None = None  # IngestOptions.identity(): traces.ingest_options


def default_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".swf", ".txt", ".csv", ".parquet", ".jsonl", ".json", ".yaml", ".yml"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def ingest(
    paths: list[str | os.PathLike],
    warehouse: Warehouse | None = None,
    name: str | None = None,
    lenient: bool = False,
    replace: bool = False,
    options: IngestOptions | None = None,
) -> list[IngestResult]:
    """Load trace files (plain or gzip) as traces. Returns one result per file.
    ``options`` picks the format (SWF by default; sacct, table) and its
    settings (zone, size, capacities, column mapping).

    Raises WalltimeError (nothing written) for any bad file unless ``lenient``,
    in which case bad lines are stored in ``rejects``.
    """
    wh = warehouse or Warehouse()
    opts = (options or IngestOptions()).checked()
    paths = [Path(p) for p in paths]
    if not paths:
        raise WalltimeError("ingest: give at least one trace file")
    if name is not None and len(paths) > 1:
        raise WalltimeError("--name: only with a single file (each file becomes its own trace)")
    names = [check_trace_name(name or default_name(p)) for p in paths]
    if len(set(names)) != len(names):
        raise WalltimeError(f"ingest: two files would become the same trace name ({_first_dup(names)}); use separate runs with --name")

    with wh.lock():
        existing, target = _existing(wh)
        # a new warehouse: its database is built while the files are read (renamed into place by _write)
        new_db = wh.new_database() if target is None else None
        try:
            todo: list[_Loaded] = []
            results = []
            for path, trace in zip(paths, names):
                res = _read_one(path, trace, existing, lenient, replace, opts, named=name is not None)
                results.append(res.result)
                if res.result.status != "unchanged":
                    todo.append(res)
            if todo:
                fault_hook("parsed")  # tests: a kill while a new warehouse's database is still a temporary
                with _bar(any(item.big for item in todo)) as bar:
                    if bar:
                        bar.add_task(f"writing {sum(i.result.jobs for i in todo):,} jobs", total=None)
                    _write(wh, todo, target, new_db)
        finally:
            if new_db is not None:
                new_db.discard()
    return results


def _bar(big: bool):
    """A progress bar for big files only (small ones finish before it would show)."""
    return progress.bar(unit="bytes") if big else contextlib.nullcontext(None)


def _first_dup(names):
    seen = set()
    for n in names:
        if n in seen:
            return n
        seen.add(n)


def _existing(wh: Warehouse):
    """trace -> (content hash, decompressed bytes, ingest options) of what is
    stored (the hash: "blake3:<hex>", or a bare SHA-256 of before migration 329),
    and the Arrow schema of ``jobs`` (None for a new warehouse)."""
    if not wh.exists():
        return {}, None
    con = wh.reader(attach_results=False)
    try:
        rows = con.execute("SELECT trace, sha256, bytes, ingest_options FROM traces").fetchall()
        return {t: (sha, n, o) for t, sha, n, o in rows}, jobs_files.schema(con)
    finally:
        con.close()


def _read_one(path: Path, trace: str, existing: dict[str, tuple[str, int, str | None]], lenient: bool,
              replace: bool, opts: IngestOptions, named: bool = False) -> _Loaded:
    size = path.stat().st_size if path.exists() else 0
    truncated = None
    t0 = time.perf_counter()
    kind = reader.sniff(reader.head(path)) if opts.format in ("swf", "sacct") else None
    streamed = kind == "sacct-json" or opts.format == "sacct-json"  # mapped, not populated: read window by window
    with _bar(size > BIG_FILE) as bar:
        task = bar.add_task(f"reading {path.name}", total=size) if bar else None
        advance = (lambda n: bar.advance(task, n)) if task is not None else None
        try:
            data = reader.read_bytes(path, advance, allow_map=opts.format in ("swf", "sacct", "sacct-json"),
                                     populate=not streamed)
        except reader.Truncated as t:
            truncated, data = t, t.data
    if opts.format in ("swf", "sacct"):  # sacct --json / --yaml output, told by its first bytes
        kind = reader.sniff(data[:4096])  # (of a gzip file: once decompressed)
        if kind is not None:
            opts = replace_options(opts, format=kind)
            if opts.delimiter is not None:
                raise WalltimeError(f"--delimiter {opts.delimiter}: {path} is `sacct --json`/`--yaml` output, "
                                    "which has no field separator; drop --delimiter")
    told = False
    if opts.format == "swf" and kind is None:  # a sacct text dump without --format sacct: told by its header
        head = bytes(data[:4096])
        first = head.removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0]
        if b"JobID" in first and not first.lstrip().startswith(b";"):  # (an SWF header line starts with ;)
            opts, told = replace_options(opts, format="sacct"), True
    # The hash (BLAKE3: reader.content_digest) says whether these bytes are stored already; only a trace
    # of the same length can be, so otherwise it is computed in a thread while the file is parsed (blake3,
    # Numba and Polars all release the GIL).
    hasher = None
    started = early.pending_digest(data)  # started before the imports (the CLI: pipeline/ingest/early.py)
    if started is not None:
        sha, pending = "", started
        if any(n is None or n == len(data) for _, n, _ in existing.values()):
            sha, pending = started.result(), None
    elif any(n is None or n == len(data) for _, n, _ in existing.values()):
        pending = None
        sha = reader.content_digest(data)
    else:
        hasher = ThreadPoolExecutor(1)
        pending = hasher.submit(lambda: reader.content_digest(data))
        sha = ""
    try:
        loaded = _parse_one(path, trace, data, sha, pending, truncated, existing, lenient, replace, opts, t0, size,
                            named)
        if told:
            loaded.result.notes.insert(0, f"{path.name}: read as `sacct --parsable2` output (its first line is a "
                                          "sacct header naming JobID); --format sacct says so")
        return loaded
    finally:
        if hasher:
            hasher.shutdown()


def _parse_one(path, trace, data, sha, pending, truncated, existing, lenient, replace, opts, t0, size,
               named=False) -> _Loaded:
    result = IngestResult(trace=trace, path=str(path), status="loaded", sha256=sha)
    t1 = time.perf_counter()
    result.timings["read_s"] = round(t1 - t0, 4)
    key = asked = opts.identity()
    if opts.format == "sacct" and opts.release == "eligible":  # no Eligible column: waits from Submit, recorded so
        from .formats import delimiter_byte
        from .sacct import header_columns

        delim = None if opts.delimiter is None else delimiter_byte(opts.delimiter)
        if "Eligible" not in header_columns(data, delim):
            key = replace_options(opts, release="submit").identity()
    # a trace is its bytes and the options that change what is stored from them (traces.ingest_options;
    # NULL: loaded before migration 230, compared by content only)
    # (asked: what an earlier walltime recorded for a dump without Eligible: release eligible, waits from Submit)
    memo: dict = {}  # the sha256 of the bytes, once, only to compare with a trace stored before migration 329

    def holds(stored: str, n: int | None) -> bool:
        """Whether a trace stored with content hash ``stored`` of ``n`` bytes has these bytes (a BLAKE3
        hash against ``sha``: "" while it is pending, i.e. no stored trace is of this length)."""
        if not stored.startswith(reader.DIGEST_PREFIX) and n is not None and n != len(data):
            return False  # (an old SHA-256 trace of another length: not hashed again to say so)
        return reader.same_content(stored, data, sha, memo)

    same = [t for t, (s, n, o) in existing.items() if o in (None, key, asked) and holds(s, n)]
    if trace in existing:
        same = [trace] if trace in same else []  # the trace named is the one asked about
    elif named:
        same = []  # a new --name: a new trace, even of content stored under another name
    # (a trace of before 230 with a new --capacity/--slurm-conf/--tz and --replace: reload the same bytes)
    reload = replace and trace in existing and existing[trace][2] is None and opts.changes_derived()
    if same and truncated is None and not reload:
        result.status, result.same_as = "unchanged", same[0]
        result.sha256 = existing[same[0]][0]  # as stored (a SHA-256 until the trace is written again)
        return _Loaded(result, None, len(data), "UTC")
    if trace in existing:
        if not replace:
            old_sha, old_n, old_key = existing[trace]
            what = ("different content" if not holds(old_sha, old_n)
                    else f"other options ({_options_diff(old_key, key)})")
            raise WalltimeError(
                f'{path}: trace "{trace}" is already in the warehouse with {what}; '
                "use --replace to overwrite it, or --name to load it under another name"
            )
        result.status = "replaced"

    if truncated is not None:
        last_line = data.count(b"\n") + 1
        if not lenient:
            raise WalltimeError(f"{path}:{last_line}: {truncated.why}")
        # keep the complete lines; the cut one is a reject
        cut = data.rfind(b"\n") + 1
        partial = data[cut:].decode("utf-8", "replace")
        data = data[:cut]
        tail = swf.BadLine(last_line, None, truncated.why, partial)
    else:
        tail = None

    with _bar(size > BIG_FILE) as bar:
        if bar:
            bar.add_task(f"parsing {path.name}", total=None)
        parsed = parse_file(data, path, opts)
    if tail is not None:
        parsed.bad.append(tail)
    if parsed.jobs.height == 0 and not parsed.bad:
        what = {"swf": "SWF job lines", "sacct": "sacct job lines", "sacct-json": "sacct --json job records",
                "sacct-yaml": "sacct --yaml job records"}.get(parsed.format, "job rows")
        raise WalltimeError(f"{path}:{max(parsed.lines, 1)}: no job lines (empty file or header only), expected {what}")
    if parsed.bad and not lenient:
        b = parsed.bad[0]
        n = len(parsed.bad) - 1
        more = f" (and {n} more bad line{'s' * (n > 1)}; --lenient loads the good ones)" if n else ""
        raise WalltimeError(f"{path}:{b.line}: {b.reason}{more}")
    if parsed.jobs.height == 0:
        raise WalltimeError(f"{path}: no good job lines ({len(parsed.bad)} bad); nothing to load")
    if parsed.extended:
        result.notes.append(f"{path.name}: lines carry more than 18 fields (extended SWF); using the first 18")
    if parsed.format == "swf":
        tz, tz_note = resolve_tz(parsed.header.get("time_zone_string"))
    else:
        tz, tz_note = parsed.header["time_zone_string"], None
    if tz_note:
        result.notes.append(f"{path.name}: {tz_note}")
    result.notes += [f"{path.name}: {n}" for n in parsed.notes]
    result.jobs = parsed.jobs.height
    result.rejected = len(parsed.bad)
    result.counts = dict(parsed.counts)
    # An SWF trace's months and string ids are made as Arrow dictionaries when written (_arrow_jobs)
    base = parsed.header.get("unix_start_time")
    month = (month_dictionary(parsed.jobs["submit"].to_numpy() + (base or 0), tz)
             if parsed.format == "swf" and parsed.jobs["submit"].null_count() == 0 else None)
    jobs = derive_columns(parsed.jobs, trace, base, tz, month=month is None, release=parsed.header.get("release"))
    if pending is not None:
        result.sha256 = pending.result()
    result.timings["parse_s"] = round(time.perf_counter() - t1, 4)
    return _Loaded(result, parsed, len(data), tz, jobs, big=size > BIG_FILE, month=month, options=key)


def _options_diff(old: str | None, new: str) -> str:
    """What differs between two ``IngestOptions.identity()`` keys, as 'name: stored -> now'."""
    import json

    a, b = json.loads(old or "{}"), json.loads(new)
    diff = [f"{k}: {a.get(k)} -> {b.get(k)}" for k in sorted({*a, *b}) if a.get(k) != b.get(k)]
    return "; ".join(diff)


def _write(wh: Warehouse, todo: list[_Loaded], target, new_db=None) -> None:
    """Each trace's jobs go to their own Parquet files first, with the database
    closed (pipeline/jobs_files.py); then one short DuckDB transaction records
    them, with the traces' other rows, and rewrites the ``jobs`` view. The
    trace's previous files are deleted after COMMIT."""
    t0 = time.perf_counter()
    if target is None and new_db is not None:  # a new warehouse: the input is good, so it may exist now
        target = new_db.install()
    if target is None:  # (or its build failed: create it here, which reports why)
        with wh.writer(attach_results=False) as con:
            target = jobs_files.schema(con)
    written: list[tuple[_Loaded, str, int]] = []
    runs: list[str] = []  # runs of replaced content: their files go after COMMIT
    staged: list[Path] = []  # estimates mirrors of replaced content
    committed = False
    try:
        for item in todo:
            # the table's columns and types; string views: Polars' own layout, no copy
            data = jobs_files.conform(_arrow_jobs(item, target), target)
            token, parts = jobs_files.write(wh.root, item.result.trace, data)
            written.append((item, token, parts))
            item.result.timings["files_s"] = round(time.perf_counter() - t0, 4)
        fault_hook("after-jobs-file")  # tests: a kill between the files and their commit
        t1 = time.perf_counter()
        now = datetime.now(timezone.utc)
        with wh.writer(attach_results=False) as con, transaction(con):
            for item, token, parts in written:
                if item.result.status == "replaced":  # results of the old content go with it
                    forgotten, mirrors = derived.forget(con, item.result.trace)
                    runs += forgotten
                    staged += [p for t in mirrors for p in wh.stage_mirror(con, "estimates", t)]
                _insert_trace(con, item, now)
                jobs_files.record(con, wh.root, item.result.trace, token, parts, item.result.jobs)
            jobs_files.refresh_view(con, wh.root)
        committed = True
        wh.publish(staged)
        derived.drop_run_files(wh.root, runs)
        for item, _, _ in written:
            if item.result.status == "replaced":
                derived.drop_model_files(wh.root, item.result.trace)
        for item, token, _ in written:
            jobs_files.drop_others(wh.root, item.result.trace, token)
    finally:
        if not committed:
            wh.discard(staged)
            for item, token, parts in written:
                jobs_files.discard(wh.root, item.result.trace, token, parts)
    # One transaction for all files: share its time out by size.
    total = sum(item.result.jobs for item in todo) or 1
    spent, commit = time.perf_counter() - t0, time.perf_counter() - t1
    for item in todo:
        share = item.result.jobs / total
        item.result.timings["write_s"] = round(spent * share, 4)
        item.result.timings["commit_s"] = round(commit * share, 4)


def _arrow_jobs(item: _Loaded, target):
    """The trace's jobs as Arrow, in the table's columns (string views: Polars'
    own layout, no copy); an SWF trace's string ids added as dictionaries."""
    newest = pl.CompatLevel.newest()
    if item.parsed.format != "swf":
        return item.jobs.select(target.names).to_arrow(compat_level=newest)
    have = [c for c in target.names if c in item.jobs.columns and c != "trace"]
    ready = {"month": item.month} if item.month is not None else {}
    return string_ids_arrow(item.jobs.select(have).to_arrow(compat_level=newest), target, item.result.trace, ready)


def _insert_trace(con, item: _Loaded, now: datetime) -> None:
    """The trace's catalogue rows (its jobs are files: pipeline/jobs_files.py)."""
    r, p = item.result, item.parsed
    for table in ("rejects", "trace_header", "trace_partitions", "trace_slurm_files", "job_attempts", "traces"):
        con.execute(f"DELETE FROM {table} WHERE trace = ?", [r.trace])
    if p.attempts is not None:  # sacct --duplicates: the earlier attempts of requeued jobs
        con.register("new_attempts", p.attempts.with_columns(pl.lit(r.trace).alias("trace")).to_arrow())
        con.execute(sqlfiles.load("ingest_attempts"))
        con.unregister("new_attempts")
    if p.bad:
        rej = pl.DataFrame(
            {"trace": [r.trace] * len(p.bad), "line": [b.line for b in p.bad],
             "reason": [b.reason for b in p.bad], "raw": [b.raw for b in p.bad]},
            schema={"trace": pl.String, "line": pl.Int64, "reason": pl.String, "raw": pl.String},
        )
        con.register("new_rejects", rej.to_arrow())
        con.execute("INSERT INTO rejects BY NAME SELECT * FROM new_rejects")
        con.unregister("new_rejects")
    if p.header_lines:
        hdr = pl.DataFrame(
            {"trace": [r.trace] * len(p.header_lines), "line": [h[0] for h in p.header_lines],
             "key": [h[1] for h in p.header_lines], "value": [h[2] for h in p.header_lines]},
            schema={"trace": pl.String, "line": pl.Int64, "key": pl.String, "value": pl.String},
        )
        con.register("new_header", hdr.to_arrow())
        con.execute("INSERT INTO trace_header BY NAME SELECT * FROM new_header")
        con.unregister("new_header")
    h = p.header
    row = {
        "trace": r.trace, "source": str(Path(r.path).resolve()), "format": p.format,
        "sha256": r.sha256, "bytes": item.size, "lines": p.lines,
        "jobs": r.jobs, "rejected": r.rejected, "extended_tokens": p.extended,
        "tz": item.tz, "capacity": p.capacity, "header_raw": p.header_raw, "ingested_at": now,
        "size_unit": p.size_unit, "capacity_source": p.capacity_source, "has_times": h.get("has_times"),
        "ingest_options": item.options, "release": h.get("release"), "submit_lines": h.get("submit_lines"),
        **{k: p.counts.get(k) for k in ("steps_skipped", "never_started", "no_limit", "running_at_dump",
                                        "earlier_attempts", "dump_end")},
        **{k: h.get(k) for k in ("version", "computer", "installation", "max_jobs", "max_records",
                                "max_nodes", "max_procs", "unix_start_time", "time_zone",
                                "time_zone_string")},
    }
    cols = ", ".join(f'"{c}"' for c in row)
    marks = ", ".join("?" for _ in row)
    con.execute(f"INSERT INTO traces ({cols}) VALUES ({marks})", list(row.values()))
    stats = item.jobs.lazy().select(
        pl.col("submit_ts").min().alias("first"), pl.col("submit_ts").max().alias("last"),
        pl.col("user_id").drop_nulls().n_unique().alias("users"),
        pl.col("group_id").drop_nulls().n_unique().alias("groups")).collect().row(0)
    con.execute(sqlfiles.load("ingest_trace_stats"), [r.trace, *stats])
    if p.partitions:
        con.register("new_partitions", partition_rows(r.trace, p.partitions))
        con.execute("INSERT INTO trace_partitions BY NAME SELECT * FROM new_partitions")
        con.unregister("new_partitions")
    for kind, name, text in p.slurm_files:
        con.execute("INSERT INTO trace_slurm_files VALUES (?, ?, ?, ?)", [r.trace, kind, name, text])
