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
import gzip
import hashlib
import math
import os
import time
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import polars as pl

from ..errors import WalltimeError
from . import jobs as jb
from .model import REQUEST_MENU, Model
from .population import population
from .waits import easy_waits

DEFAULT_START = "2025-01-06"  # a Monday, midnight local time
DEFAULT_TZ = "Europe/Stockholm"
MODEL_VERSION = 1
WAITS = ("easy", "none")
MAX_SPAN_YEARS = 200  # the arrival clock is an hourly grid over the span

__all__ = ["Model", "generate", "swf_header", "write_swf", "generate_file", "offered_load", "unix_start_of"]


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
    submit = jb.submit_times(time_rng, cols, span, unix_start, tz, m)
    df = jb.to_frame(cols, submit)
    if waits == "easy":
        wait = easy_waits(df["submit"].to_numpy(), df["run"].to_numpy(), df["req"].to_numpy(),
                          df["procs"].to_numpy(), capacity)
        df = df.with_columns(pl.Series("wait", wait, dtype=pl.Int64))
    return df


def check_options(jobs: int, seed: int, capacity: int, load: float, waits: str = "easy") -> None:
    if not isinstance(jobs, (int, np.integer)) or jobs <= 0:
        raise WalltimeError(f"--jobs: must be a positive number of jobs, got {jobs}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise WalltimeError(f"--seed: must be a non-negative integer, got {seed}")
    if not isinstance(capacity, (int, np.integer)) or capacity < 1:
        raise WalltimeError(f"--capacity: must be at least 1 processor, got {capacity}")
    if not (isinstance(load, (int, float)) and math.isfinite(load) and load > 0):
        raise WalltimeError(f"--load: must be a positive number (offered utilization, e.g. 0.7), got {load}")
    if waits not in WAITS:
        raise WalltimeError(f'--waits: "{waits}" is not one of {", ".join(WAITS)}')


def unix_start_of(start: str | dt.datetime, tz: str) -> int:
    """Unix time of ``start`` read as local time in ``tz`` (an aware datetime keeps its own zone)."""
    zone = _zone(tz)
    if isinstance(start, str):
        try:
            start = dt.datetime.fromisoformat(start)
        except ValueError:
            raise WalltimeError(f'--start: "{start}" is not a date like 2025-01-06 or 2025-01-06T08:00') from None
    if start.tzinfo is None:
        start = start.replace(tzinfo=zone)
    return int(start.timestamp())


def _zone(tz: str) -> ZoneInfo:
    try:
        zone = ZoneInfo(tz)
        pl.Series([0]).cast(pl.Datetime("ms")).dt.replace_time_zone("UTC").dt.convert_time_zone(tz)  # Polars knows it too
        return zone
    except (ZoneInfoNotFoundError, ValueError, pl.exceptions.PolarsError):
        raise WalltimeError(f'--timezone: "{tz}" is not a known IANA time zone (e.g. Europe/Stockholm, UTC)') from None


def offered_load(df: pl.DataFrame, capacity: int) -> float:
    """sum(procs * run) / (capacity * span of submissions)."""
    span = int(df["submit"].max() - df["submit"].min()) if df.height > 1 else 0
    work = float((df["procs"].cast(pl.Float64) * df["run"]).sum())
    return work / (capacity * span) if span > 0 else float("inf")


def swf_header(df: pl.DataFrame, *, seed: int, capacity: int, load: float, start: str | dt.datetime = DEFAULT_START,
               tz: str = DEFAULT_TZ, model: Model | None = None, waits: str = "easy") -> list[str]:
    """The header lines (without the leading '; ') for a generated frame."""
    m = model or Model()
    zone = _zone(tz)
    unix_start = unix_start_of(start, tz)
    first = dt.datetime.fromtimestamp(unix_start, zone)
    last_end = int((df["submit"] + df["wait"].clip(0, None) + df["run"]).max()) if df.height else 0
    last = dt.datetime.fromtimestamp(unix_start + last_end, zone)
    std_offset = int(first.utcoffset().total_seconds() - (first.dst() or dt.timedelta()).total_seconds())
    stamp = "%a %b %d %H:%M:%S %Z %Y"
    menu = "/".join(_menu_label(s) for s in REQUEST_MENU)
    changed = [f"{k}={v}" for k, v in m.as_dict().items() if v != getattr(Model(), k)]
    lines = [
        "Version: 2.2",
        f"Computer: synthetic cluster, {capacity} processors",
        "Installation: none (synthetic workload written by `walltime generate`)",
        "Acknowledge: the walltime project; models after Lublin & Feitelson (2003),",
        "             Mu'alem & Feitelson (2001, Section 4.3) and Tang et al. (2013)",
        "Information: docs/generate.md in the walltime project",
        "             http://www.cs.huji.ac.il/labs/parallel/workload/swf.html",
        f"Conversion: none; generated directly in SWF (generator model v{MODEL_VERSION})",
        f"MaxJobs: {df.height}",
        f"MaxRecords: {df.height}",
        "Preemption: No",
        f"UnixStartTime: {unix_start}",
        f"TimeZone: {std_offset}",
        f"TimeZoneString: {tz}",
        f"StartTime: {first.strftime(stamp)}",
        f"EndTime:   {last.strftime(stamp)}",
        f"MaxNodes: {capacity}",
        f"MaxProcs: {capacity}",
        "MaxQueues: 3",
        *(f"Queue: {q} {name}" for q, name in jb.QUEUES.items()),
        "MaxPartitions: 1",
        f"Note: walltime generate --jobs {df.height} --seed {seed} --capacity {capacity} --load {load:g} --waits {waits}",
        f"      --start {first.strftime('%Y-%m-%dT%H:%M:%S')} --timezone {tz}",
        f"Note: offered load {offered_load(df, capacity):.4f} = sum(procs*run) / (capacity * submit span)",
        "Note: users (field 12) resubmit a few job templates each (size, runtime, habitual request,",
        "      executable = field 14) in repeat bursts; projects are field 13",
        "Note: sizes: serial share + log2 two-stage uniform with a power-of-two bias;",
        "      runtimes: per-template hyper-gamma log-median, lognormal spread per job",
        f"Note: requested times: Mu'alem & Feitelson T/u (x10 under 90 s), rounded up to {menu};",
        "      some requests too short: those jobs are killed at the limit (run = request, status 0)",
        "Note: arrivals follow daily and weekly cycles in the local time zone",
        *WAIT_NOTES[waits],
    ]
    if changed:
        lines.append("Note: model parameters changed from the defaults: " + ", ".join(changed))
    return lines


WAIT_NOTES = {
    "easy": ["Note: uses the EASY scheduler: FCFS queue, EASY backfilling, requested times as the estimates",
             "      (wait times in field 3; the same as `walltime simulate --policy fcfs --backfill easy`)"],
    "none": ["Note: wait times (field 3) are -1: no schedule is implied; replay one with `walltime simulate`"],
}


def _menu_label(s: int) -> str:
    return f"{s // 60}m" if s < 3600 else f"{s // 3600}h"


def swf_text(df: pl.DataFrame, header: list[str]) -> bytes:
    """The SWF file's bytes: header, then one right-aligned line per job."""
    widths = {c: max(len(str(df[c].max())), len(str(df[c].min()))) for c in df.columns} if df.height else {}
    lines = df.select(pl.concat_str(
        [pl.col(c).cast(pl.Int64).cast(pl.Utf8).str.pad_start(w) for c, w in widths.items()], separator=" "
    ).alias("l"))["l"] if df.height else pl.Series("l", [], dtype=pl.Utf8)
    head = "".join(f"; {h}\n" for h in header)
    body = lines.str.join("\n").item() if lines.len() else ""
    return (head + body + ("\n" if body else "")).encode("utf-8")


def write_swf(df: pl.DataFrame, header: list[str], path: str | os.PathLike) -> tuple[str, int]:
    """Write atomically (temp file + rename); gzip when ``path`` ends in .gz, with a
    fixed gzip mtime so equal content gives equal bytes. Returns (sha256 of the
    SWF text, i.e. the decompressed bytes as ``walltime ingest`` hashes them, bytes written)."""
    path = Path(path)
    data = swf_text(df, header)
    digest = hashlib.sha256(data).hexdigest()
    tmp = _temp_beside(path)
    try:
        with open(tmp, "wb") as fh:
            if path.name.endswith(".gz"):
                with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=6) as gz:
                    gz.write(data)
            else:
                fh.write(data)
        size = tmp.stat().st_size
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise WalltimeError(f"--out: cannot write {path}: {e.strerror or e}") from None
    return digest, size


def _temp_beside(path: Path) -> Path:
    """A temporary file in the target's directory (so the rename is atomic); checks writability early."""
    if path.is_dir():
        raise WalltimeError(f"--out: {path} is a directory, expected a file name like workload.swf")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        why = "is not a directory" if parent.exists() else "does not exist"
        raise WalltimeError(f"--out: cannot write {path}: {parent} {why}")
    tmp = parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        open(tmp, "wb").close()  # default permissions (umask), unlike mkstemp's 0600
    except OSError as e:
        raise WalltimeError(f"--out: cannot write {path}: {e.strerror or e}") from None
    return tmp


def generate_file(out: str | os.PathLike, jobs: int, seed: int, capacity: int, load: float,
                  start: str | dt.datetime = DEFAULT_START, tz: str = DEFAULT_TZ,
                  model: Model | None = None, waits: str = "easy") -> dict:
    """Generate and write a workload; return the summary ``--json`` prints."""
    out = Path(out)
    check_options(jobs, seed, capacity, load, waits)
    unix_start_of(start, tz)
    _temp_beside(out).unlink()  # fail on an unwritable --out before the work
    t0 = time.perf_counter()
    df = generate(jobs, seed, capacity, load, start=start, tz=tz, model=model, waits=waits)
    t1 = time.perf_counter()
    header = swf_header(df, seed=seed, capacity=capacity, load=load, start=start, tz=tz, model=model, waits=waits)
    digest, size = write_swf(df, header, out)
    t2 = time.perf_counter()
    span = int(df["submit"].max() - df["submit"].min())
    r = (df["run"] / df["req"])
    return {
        "path": str(out),
        "jobs": df.height,
        "seed": seed,
        "capacity": capacity,
        "load": load,
        "span_s": span,
        "span_days": round(span / 86400, 3),
        "offered_load": round(offered_load(df, capacity), 6),
        "users": df["user_id"].n_unique(),
        "projects": df["group_id"].n_unique(),
        "share_r_below_half": round(float((r < 0.5).mean()), 4),
        "killed_at_limit": int(((df["status"] == 0) & (df["run"] == df["req"])).sum()),
        "waits": waits,
        "mean_wait_s": round(float(df["wait"].mean()), 1) if waits != "none" else None,
        "bytes": size,
        "sha256": digest,
        "timings": {"generate_s": round(t1 - t0, 3), "write_s": round(t2 - t1, 3)},
    }
