"""``walltime generate``: a synthetic SWF workload with realistic user estimates.

Library API (the demo and the benchmarks import these):

- :func:`generate` -> a Polars frame of the 18 SWF columns, sorted by submit;
- :func:`swf_header` -> the header lines for that frame;
- :func:`write_swf` -> the file (plain, or gzip when the name ends in .gz),
  written to a temporary name and renamed, byte-reproducible;
- :func:`generate_file` -> all three, plus a summary dict.

The model is described in docs/generate.md; its numbers live in
:class:`~pipeline.generate.model.Model`.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import numpy as np
import polars as pl

from ..errors import WalltimeError
from . import jobs as jb
from .model import Model
from .options import DEFAULT_START, DEFAULT_TZ, WAITS, check_end, check_options, unix_start_of
from .population import population
from .swf_out import offered_load, swf_header, swf_text, temp_beside, write_swf
from .waits import easy_waits

UNREACHED = 0.5  # an offered load below this share of --load is said (a note), not written silently
MAX_SPAN_YEARS = 200  # the arrival clock is an hourly grid over the span

__all__ = ["DEFAULT_START", "DEFAULT_TZ", "WAITS", "Model", "generate", "generate_file", "offered_load", "swf_header",
           "swf_text", "unix_start_of", "write_swf"]


def generate(jobs: int, seed: int, capacity: int, load: float, start: str | dt.datetime = DEFAULT_START,
             tz: str = DEFAULT_TZ, model: Model | None = None, waits: str = "easy") -> pl.DataFrame:
    """``jobs`` synthetic jobs on a ``capacity``-processor machine at offered load ``load``.

    Same arguments, same frame. Submit times are seconds after ``start``
    (local time in ``tz``). ``waits="easy"``: wait times from the site's
    FCFS + EASY schedule (requested times as estimates); ``"none"``: -1.
    """
    check_options(jobs, seed, capacity, load, waits)
    m = model or Model()
    unix_start = unix_start_of(start, tz)
    pop_rng, job_rng, time_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))
    templates = population(pop_rng, jobs, capacity, m)
    cols = jb.job_table(job_rng, templates, jobs, m)
    work = float(np.sum(cols["procs"].astype(np.float64) * cols["run"]))
    span = max(work / (capacity * load), 1.0)
    if span > MAX_SPAN_YEARS * 365.25 * 86400:
        raise WalltimeError(
            f"--load: {jobs:,} jobs at load {load:g} on {capacity:,} processors would span "
            f"{span / (365.25 * 86400):,.0f} years (at most {MAX_SPAN_YEARS}); raise --load or --capacity, or lower --jobs"
        )
    check_end(unix_start, int(span) + int(cols["req"].max(initial=0)) + 1)  # before the waits: no job runs past its request
    submit = jb.submit_times(time_rng, cols, span, unix_start, tz, m)
    df = jb.to_frame(cols, submit)
    if waits == "easy":
        wait = easy_waits(df["submit"].to_numpy(), df["run"].to_numpy(), df["req"].to_numpy(),
                          df["procs"].to_numpy(), capacity)
        df = df.with_columns(pl.Series("wait", wait, dtype=pl.Int64))
        check_end(unix_start, int((df["submit"] + df["wait"].clip(0, None) + df["run"]).max() or 0))
    return df


def generate_file(out: str | os.PathLike, jobs: int, seed: int, capacity: int, load: float,
                  start: str | dt.datetime = DEFAULT_START, tz: str = DEFAULT_TZ,
                  model: Model | None = None, waits: str = "easy") -> dict:
    """Generate and write a workload; return the summary ``--json`` prints."""
    out = Path(out)
    check_options(jobs, seed, capacity, load, waits)
    unix_start_of(start, tz)
    temp_beside(out).unlink()  # fail on an unwritable --out before the work
    t0 = time.perf_counter()
    df = generate(jobs, seed, capacity, load, start=start, tz=tz, model=model, waits=waits)
    t1 = time.perf_counter()
    header = swf_header(df, seed=seed, capacity=capacity, load=load, start=start, tz=tz, model=model, waits=waits)
    digest, size = write_swf(df, header, out)
    t2 = time.perf_counter()
    span = int(df["submit"].max() - df["submit"].min())
    r = (df["run"] / df["req"])
    reached = offered_load(df, capacity)
    notes = [] if reached >= load * UNREACHED else [
        f"--load {load:g}: the trace's offered load is {reached:.3g}, less than half of it: the jobs of a "
        "burst arrive at the model's own gaps, so arrivals cannot be packed denser; raise --jobs per "
        "processor (lower --capacity) for a heavier load"]
    return {
        "path": str(out),
        "jobs": df.height,
        "seed": seed,
        "capacity": capacity,
        "load": load,
        "span_s": span,
        "span_days": round(span / 86400, 3),
        "offered_load": round(reached, 6),
        "users": df["user_id"].n_unique(),
        "projects": df["group_id"].n_unique(),
        "share_r_below_half": round(float((r < 0.5).mean()), 4),
        "killed_at_limit": int(((df["status"] == 0) & (df["run"] == df["req"])).sum()),
        "waits": waits,
        "mean_wait_s": round(float(df["wait"].mean()), 1) if waits != "none" else None,
        "bytes": size,
        "sha256": digest,
        "timings": {"generate_s": round(t1 - t0, 3), "write_s": round(t2 - t1, 3)},
        "notes": notes,
    }
