"""Forecasts with a predictor that depends on a job's age: the running jobs
at each forecast instant, re-predicted given how long they have run.

Smith, Taylor & Foster forecast a wait by simulating the scheduler forward
with the predictor's run times; a job already running at the forecast
instant is predicted given its running time (Smith's running-time ranges,
Downey's conditional median / average). The real schedule never depends on
the forecasts, so it is replayed first (kernel.simulate); that fixes, for
every forecast instant T (a submission time), the running jobs (start < T <
start + run) and their ages T - start. Each predictor is then asked, in one
vectorised pass, for every (T, running job) pair: a query row is a copy of
the job submitted at T with its age, added to the predictor's own event
pass (pipeline/estimates/smith.py, downey.py, gibbons.py), so the history a
query sees is exactly the jobs that completed by T.

History is on the simulated schedule: a job is history once its simulated
end (start + run) is <= T, so nothing still running at T, and nothing
submitted after T, reaches a forecast at T (tests/test_forecast_running.py).
The submission predictions (fc_run) are recomputed the same way.

The kernel receives the pairs as a CSR table (kernel.simulate_forecast_running,
pipeline/simulate/_cond.py). Size: one pair per running job per submission
instant (CTC two months: see docs/simulate.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from ..estimates import downey, gibbons, smith
from ..estimates.templates import resolve
from ..schemes import Scheme

CONDITIONAL = ("smith", "gibbons", "downey")  # schemes re-predicted for running jobs


@dataclass
class Table:
    """The kernel's conditional table (see kernel.simulate_forecast_running)."""

    ctime: np.ndarray
    coff: np.ndarray
    cjob: np.ndarray
    cval: np.ndarray

    def args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.ctime, self.coff, self.cjob, self.cval

    def as_dict(self) -> dict[tuple[int, int], int]:
        """{(instant, job): value} for the naive twin."""
        out = {}
        for k, t in enumerate(self.ctime.tolist()):
            for p in range(int(self.coff[k]), int(self.coff[k + 1])):
                out[(t, int(self.cjob[p]))] = int(self.cval[p])
        return out


def loop_frame(inp) -> pl.DataFrame:
    """The predictor's frame of a simulation's jobs (inputs.Inputs with
    ``fc_jobs``): its columns, with the loop's submit and run times (after load
    scaling)."""
    return inp.fc_jobs.with_columns(pl.Series("submit", inp.submit), pl.Series("run", inp.run),
                                    pl.lit(None, pl.Int64).alias("end"))


def running_pairs(submit: np.ndarray, start: np.ndarray, run: np.ndarray):
    """(ctime, coff, pair instant index, pair job, pair age): every submission
    instant T and job j with start_j < T < start_j + run_j, by (T, j)."""
    ctime = np.unique(submit)
    lo = np.searchsorted(ctime, start, "right")     # first instant after the start
    hi = np.searchsorted(ctime, start + run, "left")  # first instant at or after the end
    cnt = np.maximum(hi - lo, 0)
    job = np.repeat(np.arange(len(submit), dtype=np.int64), cnt)
    first = np.repeat(np.cumsum(cnt) - cnt, cnt)
    k = lo[job] + (np.arange(len(job)) - first)
    order = np.argsort(k, kind="stable")  # jobs stay ascending within an instant
    k, job = k[order], job[order]
    coff = np.searchsorted(k, np.arange(len(ctime) + 1)).astype(np.int64)
    return ctime.astype(np.int64), coff, k, job, (ctime[k] - start[job]).astype(np.int64)


def predict_rows(frame: pl.DataFrame, scheme: Scheme, age: np.ndarray, templates=None,
                 src: np.ndarray | None = None) -> np.ndarray:
    """The scheme's prediction (s, NaN where none) for every row of ``frame``
    (estimates_jobs columns), a row of age > 0 asked given that age. ``src``:
    the row each row copies its characteristics from (smith.Prepared)."""
    prep = smith.Prepared(frame, src)
    if scheme.name == "smith":
        return smith.predict(prep, templates if templates is not None else resolve(scheme["set"]), age)[0]
    if scheme.name == "downey":
        return downey.predict(prep, scheme["key"], scheme["stat"], age)[0]
    if scheme.name == "gibbons":
        return gibbons.predict(prep, age)[0]
    raise ValueError(f"{scheme.canonical}: not a predictor from history")


def forecast_inputs(jobs: pl.DataFrame, start: np.ndarray, scheme: Scheme, templates=None,
                    rounding=np.ceil) -> tuple[np.ndarray, Table]:
    """(fc_run, table) for kernel.simulate_forecast_running.

    ``jobs``: the simulated jobs in loop order (estimates_jobs columns; ``run``
    the simulated run time, ``req`` the request or NULL); ``start``: their
    starts in the real schedule. Both on the simulated schedule's history;
    missing predictions fall back to the request (else the run time's
    stand-in max(run, 1), the simulator's rule)."""
    n = jobs.height
    submit = jobs["submit"].to_numpy().astype(np.int64)
    run = jobs["run"].to_numpy().astype(np.int64)
    ctime, coff, k, job, age = running_pairs(submit, start, run)
    sim = jobs.with_columns(pl.Series("end", start + run), pl.Series("_row", np.arange(n)))
    query = sim[job].with_columns(pl.Series("submit", ctime[k]), pl.lit(None, pl.Int64).alias("end"),
                                  pl.lit(None, sim.schema["run"]).alias("run"))
    both = pl.concat([sim, query.with_columns(pl.Series("job_id", -1 - np.arange(len(job), dtype=np.int64)))])
    ages = np.concatenate([np.zeros(n, np.int64), age])
    est = predict_rows(both.drop("_row"), scheme, ages, templates, np.concatenate([np.arange(n), job]))
    fallback = jobs["req"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    fallback = np.where(np.isnan(fallback), np.maximum(run, 1), fallback)
    fb = np.concatenate([fallback, fallback[job]])
    est = np.where(np.isnan(est), fb, est)
    val = np.clip(rounding(est), 0, 2 ** 40).astype(np.int64)
    return val[:n], Table(ctime, coff, job.astype(np.int64), val[n:])
