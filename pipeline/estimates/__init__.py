"""Estimate stage: per-job runtime estimates under a scheme, and their accuracy.

Library entry points (the CLI's ``walltime estimate`` is a thin wrapper):

- :func:`ensure_estimates` computes and stores every scheme not yet stored
  for a trace (the simulator calls it before a run);
- :func:`load_estimates` reads one stored scheme back;
- :func:`estimate` does both for the CLI, plus the Tang grid.

Estimates are computed in Polars (pipeline/estimates/compute.py) from the
trace's jobs with the database open read-only (readers are not locked out
meanwhile), each scheme's written to a Parquet file of its own as soon as it is
computed (:class:`Spool`: a ``.tmp-estimates-*`` directory in the warehouse,
removed after, or by the next writer if the command is killed), then all of
them written in ONE short transaction with their accuracy rows and
the staged Parquet mirror ``parquet/estimates/<trace>.parquet``, renamed into
place after the commit (pipeline/warehouse.py: staged, recorded, self-healing). Stored estimates are keyed by the canonical scheme string and
the trace's content hash, so re-ingesting different content recomputes them.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import uuid
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl

from .. import derived, progress, sqlfiles
from ..errors import WalltimeError
from ..timed import require_times
from ..schemes import Scheme, parse
from ..warehouse import Warehouse, transaction
from .accuracy import COLUMNS as ACCURACY_COLUMNS
from .accuracy import score
from .compute import compute
from .templates import resolve
from .grid import GRID_SIZES, GRIDS, scored_jobs, tang_grid_rows

__all__ = ["ensure_estimates", "compute_missing", "insert_computed", "load_estimates", "estimate", "EstimateReport",
           "ACCURACY_COLUMNS"]


@dataclass
class EstimateReport:
    trace: str
    jobs: int
    schemes: list[dict] = field(default_factory=list)  # accuracy rows + "computed"
    grid: str | None = None
    grid_rows: list[dict] = field(default_factory=list)
    grid_computed: bool = False

    def as_dict(self) -> dict:
        grid = None if self.grid is None else {"name": self.grid, "computed": self.grid_computed,
                                               "rows": self.grid_rows}
        return {"trace": self.trace, "jobs": self.jobs, "schemes": self.schemes, "grid": grid}


def parse_specs(specs: list[str], option: str = "--scheme") -> list[Scheme]:
    """Parse and de-duplicate (by canonical string), keeping the given order."""
    seen, out = set(), []
    for spec in specs:
        s = parse(spec, option)
        if s.canonical not in seen:
            seen.add(s.canonical)
            out.append(s)
    return out


def ensure_estimates(wh: Warehouse, trace: str, specs: list[str],
                     con: duckdb.DuckDBPyConnection | None = None) -> list[str]:
    """Canonical scheme strings of ``specs``; computes and stores the ones not
    yet stored for ``trace``. With ``con`` (an open read-write connection) the
    writes go through it, inside the caller's transaction, and the caller
    stages the mirror (``wh.stage_mirror(con, "estimates", trace)``)."""
    schemes = parse_specs(specs)
    if con is not None:
        _ensure(con, trace, schemes)
        return [s.canonical for s in schemes]
    _must_exist(wh)
    with wh.lock():
        rcon = wh.reader()
        try:
            work = _compute_missing(rcon, trace, schemes)
        finally:
            rcon.close()
        try:
            if work[0]:
                _store(wh, trace, work, None)
        finally:
            _close(work)
    return [s.canonical for s in schemes]


def compute_missing(con: duckdb.DuckDBPyConnection, trace: str, specs: list[str]) -> tuple:
    """The schemes of ``specs`` not yet stored for ``trace``, computed from a
    read-only ``con`` and not stored: ``(names, estimates, accuracy)`` for
    :func:`insert_computed`, which a caller runs in its own transaction
    (``walltime simulate`` commits them with the run). ``estimates`` is a
    :class:`Spool` (its files are removed when it is closed or collected)."""
    return _compute_missing(con, trace, parse_specs(specs))


def insert_computed(con: duckdb.DuckDBPyConnection, trace: str, work: tuple) -> None:
    """Write what :func:`compute_missing` computed, inside the caller's transaction."""
    if work[0]:
        _insert(con, trace, *work)


def _store(wh: Warehouse, trace: str, work: tuple, grid: tuple | None) -> None:
    """One short transaction: the computed estimates (and grid), and the
    staged estimates mirror; the mirror is published after COMMIT."""
    staged = []
    try:
        with wh.writer() as con:
            with transaction(con):
                if work[0]:
                    _insert(con, trace, *work)
                    staged += wh.stage_mirror(con, "estimates", trace)
                if grid is not None:
                    _insert_grid(con, trace, *grid)
    except BaseException:
        wh.discard(staged)
        raise
    wh.publish(staged)


def load_estimates(con: duckdb.DuckDBPyConnection, trace: str, scheme: str) -> pl.DataFrame:
    """job_id, est of one stored scheme (any spelling of it), sorted by job_id."""
    canon = parse(scheme).canonical
    out = query(con, "estimates_load", [trace, canon])
    if out.is_empty():
        raise WalltimeError(f'trace "{trace}": no estimates stored for scheme "{canon}"; '
                            f'run `walltime estimate {trace} --scheme {canon}`')
    return out


def estimate(wh: Warehouse, trace: str, specs: list[str], grid: str | None = None) -> EstimateReport:
    """Compute (or reuse) the schemes' estimates and accuracy, and the grid if
    asked; store everything in one transaction."""
    schemes = parse_specs(specs)
    if grid is not None and grid not in GRIDS:
        raise WalltimeError(f'--grid "{grid}": unknown grid; known: {", ".join(GRIDS)}')
    if not schemes and grid is None:
        raise WalltimeError("estimate: give at least one --scheme SPEC, or --grid tang")
    _must_exist(wh)
    with wh.lock():
        con = wh.reader()
        try:
            sha, jobs_n = _trace_row(con, trace)
            work = _compute_missing(con, trace, schemes)
            grid_work = _grid_rows(con, trace, sha, jobs_n, grid) if grid else None
        finally:
            con.close()
        try:
            if work[0] or grid_work is not None:
                _store(wh, trace, work, None if grid_work is None else (grid, grid_work))
        finally:
            _close(work)
        con = wh.reader()
        try:
            rows = _report_rows(con, trace, [s.canonical for s in schemes])
            grid_rows = query(con, "estimates_grid_report", [trace, grid]).to_dicts() if grid else []
        finally:
            con.close()
    computed = work[0]
    for r in rows:
        r["computed"] = r["scheme"] in computed
    return EstimateReport(trace, jobs_n, rows, grid, grid_rows, grid_work is not None)


def mirror_parquet(wh: Warehouse, trace: str, con: duckdb.DuckDBPyConnection) -> None:
    """Rewrite parquet/estimates/<trace>.parquet from the committed rows, through
    the staged, recorded path (its own transaction on ``con``)."""
    staged = []
    try:
        with transaction(con):
            staged = wh.stage_mirror(con, "estimates", trace)
    except BaseException:
        wh.discard(staged)
        raise
    wh.publish(staged)


# -- internals ---------------------------------------------------------------

def _must_exist(wh: Warehouse) -> None:
    """Refuse (without creating anything) when there is no warehouse yet."""
    if not wh.exists():
        wh.reader()  # raises the one-line "no warehouse here yet" error

def _trace_row(con, trace: str) -> tuple[str, int]:
    rows = con.execute(sqlfiles.load("estimates_trace"), [trace]).fetchall()
    row = rows[0] if rows else None
    if row is None:
        raise WalltimeError(f'trace "{trace}": not in the warehouse (see `walltime traces`)')
    require_times(con, trace, "estimate")
    return row[0], int(row[1])


def load_jobs(con, trace: str) -> pl.DataFrame:
    """The trace's jobs as every estimator reads them (sql/estimates_jobs.sql, and tz: sql/estimates_tz.sql), sorted by job_id
    (in the files' order, which is job_id order: sorted here only when it is not)."""
    reader = con.sql(sqlfiles.load("estimates_jobs"), params=[trace]).to_arrow_reader(1 << 20)
    # the name columns (learned's categoricals) as categoricals, batch by batch: as text (Arrow's, then
    # Polars' copy) they held 1.5 GB of an 11M-job load's 3.0 GB; the values are the same
    parts = [_coded(pl.from_arrow(batch)) for batch in reader]
    jobs = pl.concat(parts) if parts else _coded(pl.from_arrow(reader.schema.empty_table()))
    del parts
    # a column the log never fills (F-DATA: queues, accounts, GPUs) as one null, not a column of nulls:
    # seven of them were 1.1 GB of a 24M-job load, held through every scheme
    jobs = jobs.with_columns(pl.lit(None, jobs.schema[c]).alias(c) for c in jobs.columns
                             if c != "job_id" and jobs.height and jobs[c].null_count() == jobs.height)
    rows = con.execute(sqlfiles.load("estimates_tz"), [trace]).fetchall()
    # the zone as one value (a scalar column), not a text column of every job
    jobs = jobs.with_columns(pl.lit(rows[0][0] if rows else None, pl.String).alias("tz"))
    return jobs if jobs["job_id"].is_sorted() else jobs.sort("job_id")


NAME_COLUMNS = ("user", "account", "partition", "qos", "job_name")


def _coded(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col(c).cast(pl.Categorical) for c in NAME_COLUMNS if c in frame.columns)


def query(con, name: str, params: list) -> pl.DataFrame:
    """Run sql/<name>.sql and return a Polars frame (via Arrow)."""
    return pl.from_arrow(con.sql(sqlfiles.load(name), params=params).to_arrow_table())


def _ensure(con, trace: str, schemes: list[Scheme]) -> list[str]:
    """Compute and store the missing schemes; returns their canonical strings."""
    work = _compute_missing(con, trace, schemes)
    try:
        if work[0]:
            _insert(con, trace, *work)
    finally:
        _close(work)
    return work[0]


class Spool:
    """Computed schemes' estimates, each in a Parquet file of its own (job_id, est, hist), until
    they are stored (:func:`_insert` reads them into the estimates table). Why: held in memory until
    the one commit, 6 schemes of an 11M-job trace were 1.5 GB beside the last scheme's computation,
    and their concatenation 1.9 GB more. The directory is ``.tmp-estimates-<hex>`` beside
    the database (a writer taking the lock removes any left by a killed command; the callers hold
    the lock while a spool exists), or a system temporary directory for a database without a file.
    Removed by :meth:`close`, or when the spool is collected."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        rows = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
        path = rows[0][0] if rows else None
        if path:
            self.dir = Path(path).resolve().parent / f".tmp-estimates-{uuid.uuid4().hex}"
            self.dir.mkdir()
        else:
            self.dir = Path(tempfile.mkdtemp(prefix="walltime-estimates-"))
        self.files: list[tuple[str, Path]] = []  # (canonical scheme, file), in the order computed
        self._remove = weakref.finalize(self, shutil.rmtree, self.dir, True)

    def add(self, scheme: str, frame: pl.DataFrame) -> None:
        path = self.dir / f"{len(self.files)}.parquet"
        frame.select("job_id", "est", "hist").write_parquet(path, compression="lz4", statistics=False)
        self.files.append((scheme, path))

    def close(self) -> None:
        self._remove()


def _close(work: tuple) -> None:
    if isinstance(work[1], Spool):
        work[1].close()


def _compute_missing(con, trace: str, schemes: list[Scheme]) -> tuple[list[str], Spool | None,
                                                                       pl.DataFrame | None]:
    """(names, estimates, accuracy) of the schemes not stored yet; reads only (the estimates
    are spooled to Parquet files, :class:`Spool`)."""
    sha, jobs_n = _trace_row(con, trace)
    stored = derived.stored_schemes(con, trace)
    todo = [s for s in schemes if s.canonical not in stored]
    if not todo:
        return [], None, None
    jobs = load_jobs(con, trace)
    base = jobs.select("job_id", pl.when(pl.col("cut_short")).then(None).otherwise(pl.col("run")).alias("run"),
                       "req")  # a run cut short is no runtime to score against (sql/estimates_jobs.sql)
    # each scheme scored as it is computed and written to its file: with every scheme's rows held
    # to the one commit, 6 schemes of an 11M-job trace did not fit in 15 GB
    names = pl.Enum([s.canonical for s in todo])  # the scheme to score by, 4 bytes a row (not its text)
    spool = Spool(con)
    accs, seconds = [], {}
    try:
        with progress.bar() as bar:
            task = bar.add_task(f"estimating {trace}", total=len(todo)) if bar else None
            for s in todo:
                t0 = time.perf_counter()
                ts = resolve(s["set"], con) if s.name == "smith" else None
                frame = compute(jobs, s, ts)
                seconds[s.canonical] = time.perf_counter() - t0
                accs.append(score(frame.with_columns(pl.lit(s.canonical, names).alias("scheme"))
                                  .join(base, on="job_id", how="left")))
                spool.add(s.canonical, frame)
                del frame
                if bar:
                    bar.advance(task)
    except BaseException:
        spool.close()
        raise
    del jobs, base
    acc = pl.concat(accs).with_columns(pl.col("scheme").cast(pl.String))
    now = datetime.now(timezone.utc)
    acc = acc.with_columns(
        pl.lit(trace).alias("trace"), pl.lit(sha).alias("trace_sha256"), pl.lit(jobs_n).alias("jobs"),
        pl.col("scheme").replace_strict(seconds, return_dtype=pl.Float64).alias("seconds"),
        pl.lit(now).alias("computed_at"),
    )
    return [s.canonical for s in todo], spool, acc


def _insert(con, trace: str, names: list[str], est: Spool, acc: pl.DataFrame) -> None:
    for stmt in sqlfiles.statements("estimates_forget"):
        con.execute(stmt, [trace, names])
    for scheme, path in est.files:  # DuckDB reads each file (not held in Python), in the order computed
        con.execute(sqlfiles.load("estimates_insert"), [trace, scheme, str(path)])
    con.register("new_accuracy", acc.to_arrow())
    con.execute(sqlfiles.load("estimates_accuracy_insert"))
    con.unregister("new_accuracy")


def _grid_rows(con, trace: str, sha: str, jobs_n: int, grid: str) -> pl.DataFrame | None:
    """The grid's rows, or None when it is stored for the current content; reads only."""
    ((have,),) = con.execute(sqlfiles.load("estimates_grid_stored"), [trace, grid]).fetchall()
    if have == GRID_SIZES[grid]:
        return None
    return tang_grid_rows(scored_jobs(load_jobs(con, trace))).with_columns(
        pl.lit(trace).alias("trace"), pl.lit(grid).alias("grid"), pl.lit(sha).alias("trace_sha256"),
        pl.lit(jobs_n).alias("jobs"), pl.lit(datetime.now(timezone.utc)).alias("computed_at"),
    )


def _insert_grid(con, trace: str, grid: str, rows: pl.DataFrame) -> None:
    con.execute(sqlfiles.load("estimates_grid_forget"), [trace, grid])
    con.register("new_grid", rows.to_arrow())
    con.execute(sqlfiles.load("estimates_grid_insert"))
    con.unregister("new_grid")


def _report_rows(con, trace: str, names: list[str]) -> list[dict]:
    if not names:
        return []
    return query(con, "estimates_report", [trace, names]).to_dicts()
