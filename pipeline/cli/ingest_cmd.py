"""``walltime ingest``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .. import progress
from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, say, warehouse


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Trace files, plain or .gz.", show_default=False)],
    name: Annotated[str | None, typer.Option(help="Trace name (default: file name without .swf/.gz). One file only.")] = None,
    format: Annotated[str, typer.Option("--format", help="swf (Standard Workload Format), sacct (`sacct --parsable2` output), sacct-json / sacct-yaml (`sacct --json` / `--yaml`; also told by a file's first bytes) or table (CSV/Parquet/JSON lines).")] = "swf",
    tz: Annotated[str | None, typer.Option("--tz", help="IANA zone of the log's local times (sacct, table), e.g. Europe/Berlin. Default: this machine's zone.")] = None,
    size: Annotated[str, typer.Option("--size", help="sacct/table: what a job's size counts, cpus or nodes.")] = "cpus",
    capacity: Annotated[list[str] | None, typer.Option("--capacity", help="Machine size N, or PARTITION=N for one partition (repeatable).")] = None,
    slurm_conf: Annotated[Path | None, typer.Option("--slurm-conf", help="slurm.conf: size each partition from its NodeName CPUs and PartitionName Nodes=; kept with the trace as the cluster model of simulate --scheduler slurm.")] = None,
    gres_conf: Annotated[Path | None, typer.Option("--gres-conf", help="gres.conf (with --slurm-conf): the GPUs of nodes whose slurm.conf line gives no count.")] = None,
    assoc: Annotated[Path | None, typer.Option("--assoc", help="`sacctmgr show assoc -P` output (with --slurm-conf): accounts, users and their shares, for the replay's fair-share.")] = None,
    qos: Annotated[Path | None, typer.Option("--qos", help="`sacctmgr show qos -P format=Name,Priority` output (with --slurm-conf): each QOS's priority, for the replay's QOS term.")] = None,
    column: Annotated[list[str] | None, typer.Option("--column", help="table: NAME=SOURCE, e.g. submit=submit_time (repeatable).")] = None,
    mapping: Annotated[Path | None, typer.Option("--mapping", help="table: TOML file with a [columns] table NAME = \"SOURCE\".")] = None,
    preset: Annotated[str | None, typer.Option("--preset", help="table: built-in column mapping: eagle (NREL Eagle), fdata (Fugaku's F-DATA), pm100 (Marconi100's PM100) or walltime (our export --format parquet).")] = None,
    delimiter: Annotated[str | None, typer.Option("--delimiter", help="sacct: the field separator of `sacct --delimiter=X` output: one character, TAB, US (0x1f) or a code like 0x1f. Default |.")] = None,
    release: Annotated[str, typer.Option("--release", help="sacct: what a job's wait counts from, and when the replay releases it: eligible (Eligible where the dump has it: after holds, dependencies, --begin, requeues) or submit (Submit, as before).")] = "eligible",
    time_format: Annotated[str | None, typer.Option("--time-format", help="sacct: the SLURM_TIME_FORMAT the dump was made with: %s (Unix seconds) or a strftime form such as '%d/%m/%Y %H:%M:%S'. Default: ISO; Unix seconds and day/month forms are detected when only one form reads every time.")] = None,
    lenient: Annotated[bool, typer.Option(help="Load the good lines; keep bad ones, with reasons, in `rejects`.")] = False,
    replace: Annotated[bool, typer.Option(help="Overwrite a trace of the same name whose content (or capacity/zone options) differs.")] = False,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Load job traces into the warehouse, all or nothing.

    Re-ingesting the same content (BLAKE3 of the decompressed bytes) with the same
    options (--format, --tz, --size, --capacity, --slurm-conf, --delimiter, --time-format, --release, ...) is a no-op;
    other options, or a new --name, make another trace.
    A bad line refuses the whole command with file:line: field, unless --lenient.
    """
    from ..ingest import early

    early.start(paths, format if delimiter is None else "")  # hash and scan big files on the other core while the libraries import
    from ..ingest import ingest as ingest_files
    from ..ingest.formats import IngestOptions

    opts = IngestOptions(format=format, tz=tz, size=size, capacity=list(capacity or []),
                         slurm_conf=str(slurm_conf) if slurm_conf else None,
                         gres_conf=str(gres_conf) if gres_conf else None, assoc=str(assoc) if assoc else None,
                         qos=str(qos) if qos else None,
                         columns=list(column or []),
                         mapping=str(mapping) if mapping else None, preset=preset, delimiter=delimiter,
                         time_format=time_format, release=release)
    try:
        results = ingest_files(paths, warehouse(wh), name=name, lenient=lenient, replace=replace, options=opts)
    finally:
        early.forget()
    for r in results:
        for n in r.notes:
            progress.note(f"note: {n}")
    _compile_simulator_ahead()
    if as_json:
        print_json({"warehouse": str(wh), "traces": [r.as_dict() for r in results]})
        return
    for r in results:
        if r.status == "unchanged":
            say(f"{r.path}: unchanged: same content as trace {r.same_as!r} already in the warehouse; nothing to do")
        else:
            extra = f", {r.rejected:,} bad line{'s' * (r.rejected > 1)} kept in rejects" if r.rejected else ""
            say(f"{r.path}: {r.status} as trace {r.trace!r}: {r.jobs:,} jobs{extra}{_counts(r.counts)}")


def _compile_simulator_ahead() -> None:
    """A trace is in: the next step is often `walltime simulate`, so compile its
    loop now in the background (once per install; pipeline/simulate/aot.py);
    once it is compiled, the ingest kernels (pipeline/ingest/aot.py) for the
    next ingests, likewise. Only for a person at a terminal, who is told: a script
    gets no stray process (its first `walltime simulate` compiles, and says
    so; its ingests use Numba's JIT until `walltime warm-up` has run)."""
    import sys

    if not sys.stderr.isatty():
        return
    from ..ingest import aot as ingest_aot
    from ..simulate import aot

    pid = aot.start_background()
    if pid is not None:
        progress.note(f"compiling the simulator in the background (pid {pid}, about {aot.BUILD_S} s of CPU) "
                      "so that the first `walltime simulate` starts at once")
    elif not aot.building():
        pid = ingest_aot.target().start_background()
        if pid is not None:
            progress.note(f"compiling the ingest tokenizers in the background (pid {pid}, about "
                          f"{ingest_aot.BUILD_S} s of CPU) so that the next `walltime ingest` starts faster")


def _counts(c: dict) -> str:
    """What a sacct load skipped or could not know, in words."""
    parts = []
    if c.get("steps_skipped"):
        parts.append(f"{c['steps_skipped']:,} job steps skipped")
    if c.get("never_started"):
        parts.append(f"{c['never_started']:,} never started (no wait, no run)")
    if c.get("running_at_dump"):
        parts.append(f"{c['running_at_dump']:,} still running or suspended at the dump (run unknown)")
    if c.get("no_limit"):
        year = f", {c['backfill_year']:,} of them backfill's 365-00:00:00" if c.get("backfill_year") else ""
        parts.append(f"{c['no_limit']:,} without a time limit (UNLIMITED/Partition_Limit{year})")
    if c.get("separators_in_fields"):
        parts.append(f"{c['separators_in_fields']:,} line{'s' * (c['separators_in_fields'] > 1)} with the separator "
                     "inside a free-text field (JobName, SubmitLine, ...), read as one field")
    if c.get("earlier_attempts"):
        parts.append(f"{c['earlier_attempts']:,} earlier attempt{'s' * (c['earlier_attempts'] > 1)} of "
                     f"{c['requeued_jobs']:,} requeued job{'s' * (c['requeued_jobs'] > 1)} "
                     "kept in job_attempts; each job is its last attempt")
    if c.get("array_tasks"):
        parts.append(f"{c['array_tasks']:,} array tasks")
    if c.get("shared_job_ids"):
        parts.append(f"{c['shared_job_ids']:,} rows share their job id with other rows (array tasks: kept, "
                     "renumbered, the id in array_job_id)")
    if c.get("het_components"):
        parts.append(f"{c['het_components']:,} heterogeneous-job components")
    return f" ({'; '.join(parts)})" if parts else ""
