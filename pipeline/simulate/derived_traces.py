"""Derived traces: a trace in the warehouse whose jobs are another trace's jobs
transformed (a window of months, queues left out, requests replaced,
interarrival times scaled, only the jobs a machine can run), stored like any
trace (a ``traces`` row, its own jobs files) with what it was derived from in
``derived_traces`` (sql/335_derived_traces.sql).

Why stored: estimates, template sets and runs are stored per trace, so an
experiment on a transformed workload (Smith, Taylor & Foster's CTC window,
SDSC Paragon without its interactive queue, SDSC96 with halved
interarrivals) is planned like any replay (``simulate/many.plan_runs``) and a
second reproduction reuses it. The load factor of a run (transforms.py) stays
the way to scale arrivals for one run of a trace; a derived trace is for a
workload whose estimates must be made on the transformed jobs themselves.

A derived trace is a snapshot: its content is the source's content when it
was derived, and its ``traces.sha256`` is a hash of the source's sha256 and the
recipe (so deriving it again from the same source is a no-op that keeps what
is stored). After ``ingest --replace`` of the source it is stale until it is
derived again (:func:`derive`, as ``walltime reproduce --paper smith`` does),
which replaces its content and forgets what was stored for it, as
``ingest --replace`` does for an ingested trace (``derived.forget``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import datetime, timezone

import polars as pl

from .. import derived, jobs_files, sqlfiles
from ..errors import WalltimeError
from ..warehouse import Warehouse, check_trace_name, transaction

VERSION = 1  # of the transformations below: a change that alters a derived trace's jobs bumps it


@dataclass(frozen=True)
class Recipe:
    """The transformation, applied in this order (each step sees the jobs the one before kept).

    months: keep the jobs whose month of submission (``jobs.month``, 'YYYY-MM') starts with one of
        these (a year '1996' keeps its twelve months); empty: every month.
    drop_queues: leave out the jobs of these queues (``queue_id``).
    req: None, or 'queue_max': every job's request = the longest run in its queue (Smith, Taylor &
        Foster's SDSC Paragon: each queue's limit stands for its jobs' requests), at least 1 s.
    interarrival: submit' = first + floor((submit - first) x interarrival), ``first`` the earliest
        submission of the jobs kept; each job keeps its wait and run, so its end (and submit_ts) move
        with it; its month stays the month of its original submission.
    capacity: when given, keep only the jobs a machine of that many nodes can run (run >= 0,
        0 < nodes <= capacity) and give a job without a request max(run, 1), the simulator's rule.
    """
    months: tuple[str, ...] = ()
    drop_queues: tuple[int, ...] = ()
    req: str | None = None
    interarrival: float = 1.0
    capacity: int | None = None

    def __post_init__(self):
        if self.req not in (None, "queue_max"):
            raise WalltimeError(f"derived trace: req {self.req!r}: expected 'queue_max' or none")
        if not self.interarrival > 0:
            raise WalltimeError(f"derived trace: interarrival {self.interarrival}: expected a factor > 0")
        object.__setattr__(self, "months", tuple(self.months))
        object.__setattr__(self, "drop_queues", tuple(int(q) for q in self.drop_queues))

    def canonical(self) -> str:
        return json.dumps({**asdict(self), "version": VERSION}, sort_keys=True, separators=(",", ":"))


def in_months(months: tuple[str, ...]) -> pl.Expr:
    """The jobs submitted in one of ``months`` (prefixes of 'YYYY-MM')."""
    expr = pl.lit(False)
    for m in months:
        expr = expr | pl.col("month").str.starts_with(m)
    return expr


def queue_max(jobs: pl.DataFrame) -> pl.DataFrame:
    """Every job's request = the longest run in its queue, at least 1 s."""
    return jobs.with_columns(pl.max_horizontal(pl.col("run").max().over("queue_id"), pl.lit(1)).cast(pl.Int64)
                             .alias("req"))


def scale_interarrivals(jobs: pl.DataFrame, factor: float) -> pl.DataFrame:
    """Interarrival times x ``factor``; each job keeps its wait and run, so its end (and, when the
    frame has it, its submit_ts) move with its submission."""
    first = jobs["submit"].min()
    sub = (first + ((pl.col("submit") - first) * factor).floor()).cast(pl.Int64)
    out = jobs.with_columns(sub.alias("_new_submit"))
    moved = [(pl.col("end") - pl.col("submit") + pl.col("_new_submit")).alias("end")]
    if "submit_ts" in jobs.columns:
        moved.append((pl.col("submit_ts") + pl.duration(seconds=pl.col("_new_submit") - pl.col("submit")))
                     .alias("submit_ts"))
    return out.with_columns(moved).with_columns(pl.col("_new_submit").alias("submit")).drop("_new_submit")


def runnable(jobs: pl.DataFrame, capacity: int) -> pl.DataFrame:
    """The jobs a machine of ``capacity`` nodes can run, a missing request as max(run, 1)."""
    ok = (pl.col("run") >= 0) & (pl.col("nodes") > 0) & (pl.col("nodes") <= capacity)
    req = pl.when(pl.col("req") > 0).then(pl.col("req")).otherwise(pl.max_horizontal(pl.col("run"), pl.lit(1)))
    return jobs.filter(ok).with_columns(req.cast(pl.Int64).alias("req"))


def apply(jobs: pl.DataFrame, recipe: Recipe, through_capacity: bool = True) -> pl.DataFrame:
    """``recipe`` on a frame of jobs (the ``jobs`` table's columns, or load_jobs' with ``month``).
    ``through_capacity=False``: every step but the last (a caller that counts what it leaves out)."""
    if recipe.months:
        jobs = jobs.filter(in_months(recipe.months))
    if recipe.drop_queues:
        jobs = jobs.filter(~pl.col("queue_id").is_in(list(recipe.drop_queues)).fill_null(False))
    if recipe.req == "queue_max":
        jobs = queue_max(jobs)
    if recipe.interarrival != 1.0:
        jobs = scale_interarrivals(jobs, recipe.interarrival)
    if through_capacity and recipe.capacity is not None:
        jobs = runnable(jobs, recipe.capacity)
    return jobs


def content_sha(source_sha: str, recipe: Recipe) -> str:
    """A derived trace's ``traces.sha256``: its source's content and the recipe."""
    return hashlib.sha256(f"derived\n{source_sha}\n{recipe.canonical()}".encode()).hexdigest()


def _one(con, sql: str, params: list):
    """The query's one row or None, its result consumed (the connection is free for the next query)."""
    rows = con.execute(sql, params).fetchall()
    return rows[0] if rows else None


def stored(con, trace: str) -> dict | None:
    """The ``derived_traces`` row of ``trace`` with ``current`` (its source's content unchanged since),
    or None when ``trace`` is not a derived trace."""
    row = _one(con, "SELECT d.source, d.source_sha256, d.recipe, t.sha256 FROM derived_traces d "
                    "LEFT JOIN traces t ON t.trace = d.source WHERE d.trace = ?", [trace])
    if row is None:
        return None
    return {"trace": trace, "source": row[0], "source_sha256": row[1], "recipe": row[2],
            "current": row[3] == row[1]}


def derive(wh: Warehouse, name: str, source: str, recipe: Recipe) -> str:
    """Make (or keep) trace ``name`` = ``recipe`` applied to ``source``'s jobs. Returns 'stored' (it
    was already, from the source's current content: nothing written), 'derived' (new) or 'replaced'
    (its source or recipe changed: its content replaced and what was stored for it forgotten).

    Raises: WalltimeError for a bad name, a missing source, a name an ingested trace holds, or a
    recipe that keeps no job."""
    check_trace_name(name)
    if name == source:
        raise WalltimeError(f"derived trace {name}: a trace cannot be derived from itself")
    with wh.lock():
        con = wh.reader()
        try:
            src = _one(con, "SELECT sha256 FROM traces WHERE trace = ?", [source])
            if src is None:
                raise WalltimeError(f'derived trace {name}: no trace "{source}" to derive it from; ingest it first')
            sha = content_sha(src[0], recipe)
            have = _one(con, "SELECT sha256 FROM traces WHERE trace = ?", [name])
            if have is not None and stored(con, name) is None:
                raise WalltimeError(f'derived trace {name}: an ingested trace has that name; choose another')
            if have is not None and have[0] == sha:
                return "stored"
            frame = pl.from_arrow(con.sql("SELECT * FROM jobs WHERE trace = $1", params=[source]).to_arrow_table())
            target = jobs_files.schema(con)
        finally:
            con.close()
        jobs = apply(frame, recipe).with_columns(pl.lit(name).alias("trace")).sort("job_id")
        if jobs.height == 0:
            raise WalltimeError(f"derived trace {name}: {recipe.canonical()} keeps no job of {source}")
        _write(wh, name, source, src[0], sha, recipe, jobs, target, replacing=have is not None)
    return "replaced" if have is not None else "derived"


def _write(wh: Warehouse, name: str, source: str, source_sha: str, sha: str, recipe: Recipe,
           jobs: pl.DataFrame, target, replacing: bool) -> None:
    """The ingest's order (pipeline/ingest/load.py ``_write``): the jobs files first, with the database
    closed; then one transaction: what was stored for the old content forgotten, the ``traces`` row
    (the source's, with this trace's name, content, counts and the recipe's capacity), the files' row, the view, the
    ``derived_traces`` row. Old files and forgotten runs' files go after COMMIT."""
    data = jobs_files.conform(jobs.select(target.names).to_arrow(), target)
    token, parts = jobs_files.write(wh.root, name, data)
    runs: list[str] = []
    staged: list = []
    committed = False
    try:
        with wh.writer(attach_results=False) as con, transaction(con):
            if replacing:
                forgotten, mirrors = derived.forget(con, name)
                runs += forgotten
                staged += [p for t in mirrors for p in wh.stage_mirror(con, "estimates", t)]
                con.execute("DELETE FROM derived_traces WHERE trace = ?", [name])
            for table in ("rejects", "trace_header", "trace_partitions", "trace_slurm_files", "job_attempts",
                          "traces"):
                con.execute(f"DELETE FROM {table} WHERE trace = ?", [name])
            now = datetime.now(timezone.utc)
            con.execute(
                "INSERT INTO traces SELECT * REPLACE ($2 AS trace, $3 AS source, $4 AS sha256, NULL AS bytes, "
                "NULL AS lines, $5 AS jobs, 0 AS rejected, $6 AS ingested_at, coalesce($7, capacity) AS capacity) "
                "FROM traces WHERE trace = $1",
                [source, name, f"derived from {source}: {recipe.canonical()}", sha, jobs.height, now,
                 recipe.capacity])
            stats = jobs.select(pl.col("submit_ts").min().alias("first"), pl.col("submit_ts").max().alias("last"),
                                pl.col("user_id").drop_nulls().n_unique().alias("users"),
                                pl.col("group_id").drop_nulls().n_unique().alias("groups")).row(0)
            con.execute(sqlfiles.load("ingest_trace_stats"), [name, *stats])
            jobs_files.record(con, wh.root, name, token, parts, jobs.height)
            jobs_files.refresh_view(con, wh.root)
            con.execute("INSERT INTO derived_traces VALUES (?, ?, ?, ?, ?)",
                        [name, source, source_sha, recipe.canonical(), now])
        committed = True
        wh.publish(staged)
        derived.drop_run_files(wh.root, runs)
        if replacing:
            derived.drop_model_files(wh.root, name)
        jobs_files.drop_others(wh.root, name, token)
    finally:
        if not committed:
            wh.discard(staged)
            jobs_files.discard(wh.root, name, token, parts)
