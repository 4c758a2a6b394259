"""Warehouse -> the event loop's NumPy arrays, via Arrow.

Why this way: one SQL query returns the jobs in loop order with unknowns as
sentinels, Arrow hands the columns over without a Python object per job, and
every input rule of simulation.md ("Inputs, per job") is a vectorised NumPy
step here, so the loop itself never sees a bad job.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .. import schemes, sqlfiles
from ..errors import WalltimeError
from ..timed import require_times
from .partitions import narrowed

EST_CAP = 1 << 40  # seconds; keeps absurd estimates (inf) inside int64 arithmetic


@dataclass
class TraceInfo:
    trace: str
    capacity: int | None
    sha256: str
    jobs: int
    max_nodes: int | None
    widest_job: int | None
    with_request: int
    runnable: int  # jobs with a run time and a size (the others are left out)


@dataclass
class Inputs:
    """Columns of the simulated jobs, sorted by (submit, job_id)."""

    job_id: np.ndarray
    submit: np.ndarray
    run: np.ndarray
    nodes: np.ndarray
    req: np.ndarray
    est_wait: np.ndarray
    est_run: np.ndarray
    month_idx: np.ndarray
    months: list[str]
    counts: dict[str, int] = field(default_factory=dict)
    fc_run: np.ndarray | None = None  # --forecast-with: each job's forecast run time (s), see with_forecast
    # --forecast-with a predictor from history: its columns per job (loop order), scheme and template set;
    # the loop then re-predicts running jobs at each forecast instant (conditional.py)
    fc_jobs: object | None = None
    fc_scheme: object | None = None
    fc_templates: tuple | None = None
    # the job's user id (-1 unknown): --history simulated learns each user's run times in the replay.
    # Not in arrays() (nor the input hash): a trace's users are fixed by its content
    user: np.ndarray | None = None
    # --history simulated with the learned scheme: _learned.learned_sim's arguments after ``overrun``
    # (ju, nusers, xs, model, jp, forest arrays; with_learned). Derived from the trace and the scheme
    learned: tuple | None = None
    # --scheduler slurm: the cluster model and each job's request (slurm/replay.py SlurmInputs), in loop order
    slurm: object | None = None

    @property
    def n(self) -> int:
        return len(self.job_id)

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in
                ("job_id", "submit", "run", "nodes", "req", "est_wait", "est_run", "month_idx")}

    def take(self, idx: np.ndarray) -> Inputs:
        return Inputs(**{k: v[idx] for k, v in self.arrays().items()}, months=self.months, counts=self.counts,
                      fc_run=None if self.fc_run is None else self.fc_run[idx],
                      fc_jobs=None if self.fc_jobs is None else self.fc_jobs[idx], fc_scheme=self.fc_scheme,
                      fc_templates=self.fc_templates, user=None if self.user is None else self.user[idx],
                      learned=None if self.learned is None else _take_learned(self.learned, idx))

    def user_index(self) -> np.ndarray:
        """Each job's user as 0 .. users - 1 (-1 unknown): the loop's per-user history slots."""
        u = np.full(self.n, -1, np.int64) if self.user is None else self.user
        out = np.full(self.n, -1, np.int64)
        known = u >= 0
        out[known] = np.unique(u[known], return_inverse=True)[1]
        return out


def no_runnable_message(trace: str, partitions: tuple[str, ...] = ()) -> str:
    """The refusal for a trace (or partitions) without a job the loop can run."""
    where = f'partition {", ".join(partitions)} of trace "{trace}"' if partitions else f'trace "{trace}"'
    return f"{where}: no job has both a run time and a size (each lacks one: -1 or empty), so there is nothing to simulate"


def trace_info(con, trace: str) -> TraceInfo:
    row = con.execute(sqlfiles.load("simulate_trace"), [trace]).fetchone()
    if row is None:
        raise WalltimeError(f'trace "{trace}": not in the warehouse (see `walltime traces`)')
    require_times(con, trace, "simulate")
    return TraceInfo(*row)


def est_seconds(est: np.ndarray, req: np.ndarray, rounding: str = "up") -> tuple[np.ndarray, int]:
    """Estimates (float seconds) -> integer seconds, rounded UP (a scheduler that
    reserves a fraction of a second must reserve the whole second; ``rounding``
    "nearest": to the nearest second, halves to even, as Smith, Taylor & Foster's
    replays always rounded their predictions, SimConfig.est_rounding). Missing
    (NaN) or negative estimates fall back to the job's request; returns how many."""
    bad = ~(est >= 0)  # NaN or negative
    whole = np.round if rounding == "nearest" else np.ceil
    out = whole(np.minimum(np.where(bad, 0.0, est), EST_CAP)).astype(np.int64)
    out[bad] = req[bad]
    return out, int(bad.sum())


def job_columns(con, trace: str, partitions: tuple[str, ...] = ()) -> tuple[dict[str, np.ndarray], list[str]]:
    """The trace's jobs as the loop reads them (simulate_inputs.sql: loop order, sentinels for
    unknowns) and its months of submission. What every scheme's inputs share: a caller running
    several schemes over one trace (plan_runs) reads them once and passes them to load_inputs."""
    with warnings.catch_warnings():
        # DuckDB 2 warns that a parameterised execute() copies the batches once more
        # on the way to Arrow; con.sql() would not, but refuses to run while an
        # earlier result on this connection is unfinished. One copy is ~10 ms/1M jobs.
        warnings.simplefilter("ignore", UserWarning)
        tab = con.execute(*narrowed(sqlfiles.load("simulate_inputs"), partitions, [trace])).to_arrow_table()
    # writable copies, made once (Arrow's zero-copy views are read-only): the schemes' inputs share them,
    # as runs that differ only in policy already share their inputs (no loop writes into its inputs)
    col = {name: np.array(tab.column(name).to_numpy()) for name in tab.column_names}
    months = [m for (m,) in con.execute(*narrowed(sqlfiles.load("simulate_months"), partitions, [trace])).fetchall()]
    return col, months


def estimate_column(con, trace: str, scheme: str, job_id: np.ndarray) -> np.ndarray:
    """The scheme's stored estimate of each job of ``job_id`` (float seconds; NaN where none is stored)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        tab = con.execute(sqlfiles.load("simulate_estimates"), [trace, scheme]).to_arrow_table()
    ids = tab.column("job_id").to_numpy()
    est = tab.column("est").to_numpy(zero_copy_only=False)  # (a NULL estimate: NaN)
    if len(ids) == len(job_id) and np.array_equal(ids, job_id):  # the loop's order is the ids' (most logs)
        return est.astype(np.float64)
    out = np.full(len(job_id), np.nan)
    if len(ids):
        pos = np.minimum(np.searchsorted(ids, job_id), len(ids) - 1)  # ids sorted (the query's ORDER BY)
        hit = ids[pos] == job_id
        out[hit] = est[pos[hit]]
    return out


ACTUAL = "actual"  # the scheme whose estimate is the log's own run time


def actual_column(col: dict[str, np.ndarray]) -> np.ndarray:
    """The ``actual`` scheme's estimates from job_columns itself, the values it stores (estimates/compute.py:
    the jobs' run; NULL, here NaN, where the log has none, as for a job still running at a sacct dump):
    with exact runtimes, a replay needs no stored estimates (storing them rewrote the trace's estimates
    mirror: 20 s of an 11M-job summary)."""
    run = col["run"]
    return np.where(col["running"] | (run < 0), np.nan, run.astype(np.float64))


def load_inputs(con, trace: str, scheme: str, capacity: int, drop_oversized: bool,
                adjust: str, partitions: tuple[str, ...] = (), jobs=None, rounding: str = "up") -> Inputs:
    """Read the trace's jobs and the scheme's estimates and apply the input rules.

    Jobs with unknown run (< 0) or size (<= 0) are left out and counted; nodes >
    capacity is an error unless ``drop_oversized``; req <= 0 becomes
    max(run, 1) ("no request"); est_wait = est, est_run = est (regular) or req
    (selective). ``jobs``: job_columns(con, trace, partitions) already read.
    ``rounding``: of fractional estimates, est_seconds' (SimConfig.est_rounding).
    """
    col, months = jobs if jobs is not None else job_columns(con, trace, partitions)
    est = actual_column(col) if scheme == ACTUAL else estimate_column(con, trace, scheme, col["job_id"])
    col = {**col, "est": est}
    run, nodes = col["run"], col["nodes"]
    no_run = run < 0
    no_size = (nodes <= 0) & ~no_run
    keep = ~(no_run | no_size)
    if not keep.any():
        raise WalltimeError(no_runnable_message(trace, partitions))
    oversized = keep & (nodes > capacity)
    if oversized.any() and not drop_oversized:
        first = int(np.flatnonzero(oversized)[0])
        raise WalltimeError(
            f"--capacity {capacity}: job {int(col['job_id'][first])} of trace \"{trace}\" needs "
            f"{int(nodes[first])} nodes (widest: {int(nodes[oversized].max())}); "
            "raise --capacity or pass --drop-oversized"
        )
    keep &= ~oversized
    every = bool(keep.all())  # the usual case: no masked copy of every column
    sel = {k: np.ascontiguousarray(v if every else v[keep]) for k, v in col.items()}
    req = sel["req"].astype(np.int64)
    no_req = req <= 0
    req = np.where(no_req, np.maximum(sel["run"], 1), req).astype(np.int64)
    est, no_est = est_seconds(sel["est"].astype(np.float64), req, rounding)
    est_run = est if adjust == "regular" else req
    counts = {
        "jobs_in_trace": int(len(run)),
        "jobs_simulated": int(keep.sum()),
        "left_out_no_run": int(no_run.sum()),
        # running at the sacct dump: replayed holding their CPUs until the dump (held_running) where the
        # trace knows its time (traces.dump_end), else left out (of left_out_no_run)
        "left_out_running": int((col["running"] & no_run).sum()),
        "held_running": int((col["running"] & ~no_run).sum()),
        "left_out_no_size": int(no_size.sum()),
        "dropped_oversized": int(oversized.sum()),
        "no_request": int(no_req.sum()),
        "no_estimate": no_est,
    }
    def ints(name):  # job_columns' int64 arrays as they are (no copy per scheme)
        return sel[name].astype(np.int64, copy=False)

    return Inputs(
        job_id=ints("job_id"), submit=ints("submit"), run=ints("run"), nodes=ints("nodes"), req=req,
        est_wait=est, est_run=np.ascontiguousarray(est_run, dtype=np.int64),
        month_idx=ints("month_idx"), months=months, counts=counts, user=ints("user_id"),
    )


def with_forecast(con, inp: Inputs, trace: str, scheme: str, capacity: int, drop_oversized: bool,
                  partitions: tuple[str, ...] = (), templates=None, jobs=None) -> Inputs:
    """``inp`` with ``fc_run``: the run time ``scheme`` predicts for each job
    (integer seconds, rounded up; missing -> the request), read by the same
    query so the jobs and their order are the same. Smith, Taylor & Foster's
    set-up: the scheduler on ``inp``'s estimates, the wait forecast on these.
    A predictor from history (smith, gibbons, downey) also brings its columns,
    for the loop to re-predict running jobs (conditional.py); ``templates``: a
    smith set already resolved (a study's worker has no template_sets table); ``jobs``: as load_inputs."""
    other = load_inputs(con, trace, scheme, capacity, drop_oversized, "regular", partitions, jobs=jobs)
    if not np.array_equal(other.job_id, inp.job_id):
        raise AssertionError("forecast scheme read a different job list")  # same query: unreachable
    inp.fc_run = other.est_wait
    from .conditional import CONDITIONAL
    s = schemes.parse(scheme)
    if s.name in CONDITIONAL:  # re-predicted for running jobs: the loop needs the predictor's columns
        import polars as pl

        from ..estimates.templates import resolve

        with warnings.catch_warnings():  # the extra copy of load_inputs' note
            warnings.simplefilter("ignore", UserWarning)
            cols = pl.from_arrow(con.execute(sqlfiles.load("forecast_jobs"), [trace]).to_arrow_table())
        rows = np.searchsorted(cols["job_id"].to_numpy(), inp.job_id)
        inp.fc_jobs = cols[rows]
        inp.fc_scheme = s
        if s.name == "smith":
            inp.fc_templates = tuple(templates) if templates is not None else resolve(s["set"], con)
    return inp


def _take_learned(learned: tuple, idx: np.ndarray) -> tuple:
    ju, nusers, xs, model, jp, forest = learned
    return ju[idx], nusers, np.ascontiguousarray(xs[idx]), model[idx], jp[idx], forest


def with_learned(con, inp: Inputs, trace: str, cfg) -> Inputs:
    """A copy of ``inp`` with ``learned`` when ``cfg`` runs the learned scheme's trees in the replay
    (config.learned_in_loop): the walk-forward models trained on the log (learned.fit), the
    static features per job; ``inp`` itself otherwise or when already there. A copy: runs of
    the same scheme from the log's history share ``inp`` (and its input hash)."""
    from .config import learned_in_loop

    if not learned_in_loop(cfg) or inp.learned is not None:
        return inp
    from ..estimates import load_jobs
    from ._learned import loop_inputs

    from dataclasses import replace

    return replace(inp, learned=loop_inputs(load_jobs(con, trace), schemes.parse(cfg.estimate), inp.job_id))
