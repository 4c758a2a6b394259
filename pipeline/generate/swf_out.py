"""The generated trace as SWF text: header lines, aligned job lines, atomic write."""

from __future__ import annotations

import datetime as dt
import gzip
import os
from pathlib import Path

import polars as pl

from ..checks import check_regular, open_new, write_file
from ..errors import WalltimeError
from ..ingest.reader import content_digest
from .jobs import QUEUES
from .model import REQUEST_MENU, Model
from .options import DEFAULT_START, DEFAULT_TZ, unix_start_of, zone_of

MODEL_VERSION = 1


def offered_load(df: pl.DataFrame, capacity: int) -> float:
    """sum(procs * run) / (capacity * span of submissions)."""
    span = int(df["submit"].max() - df["submit"].min()) if df.height > 1 else 0
    work = float((df["procs"].cast(pl.Float64) * df["run"]).sum())
    return work / (capacity * span) if span > 0 else float("inf")


def swf_header(df: pl.DataFrame, *, seed: int, capacity: int, load: float, start: str | dt.datetime = DEFAULT_START,
               tz: str = DEFAULT_TZ, model: Model | None = None, waits: str = "easy") -> list[str]:
    """The header lines (without the leading '; ') for a generated frame."""
    m = model or Model()
    zone = zone_of(tz)
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
        *(f"Queue: {q} {name}" for q, name in QUEUES.items()),
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
    fixed gzip mtime so equal content gives equal bytes. Returns (the content hash of the
    SWF text, i.e. of the decompressed bytes as ``walltime ingest`` stores it in ``traces.sha256``:
    "blake3:<hex>", bytes written)."""
    path = Path(path)
    data = swf_text(df, header)
    digest = content_digest(data)

    def put(fh) -> None:
        if path.name.endswith(".gz"):
            with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=6) as gz:
                gz.write(data)
        else:
            fh.write(data)

    try:
        size = write_file(path, put, "--out")
    except OSError as e:
        raise WalltimeError(f"--out: cannot write {path}: {e.strerror or e}") from None
    return digest, size


def temp_beside(path: Path) -> Path:
    """A temporary file in the target's directory (so the rename is atomic); checks writability early."""
    if path.is_dir():
        raise WalltimeError(f"--out: {path} is a directory, expected a file name like workload.swf")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        why = "is not a directory" if parent.exists() else "does not exist"
        raise WalltimeError(f"--out: cannot write {path}: {parent} {why}")
    check_regular(path, "--out")
    try:
        tmp, fh = open_new(path)  # default permissions (umask), unlike mkstemp's 0600
        fh.close()
    except OSError as e:
        raise WalltimeError(f"--out: cannot write {path}: {e.strerror or e}") from None
    return tmp
