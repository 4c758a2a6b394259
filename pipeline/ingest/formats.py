"""Which reader a file goes through, and the settings every reader shares.

Why here: ``ingest`` itself stays format-blind (read bytes, parse, derive,
write in one transaction); this module picks SWF, sacct or table, resolves
the time zone and attaches the capacities from ``--capacity`` and
``--slurm-conf``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pyarrow as pa

from ..errors import WalltimeError
from . import sacct, swf
from .slurm_conf import Partition, parse_capacity, read_slurm_conf

FORMATS = ("swf", "sacct", "table")


@dataclass
class IngestOptions:
    format: str = "swf"
    tz: str | None = None            # zone of zone-less local times (sacct, table)
    size: str = "cpus"               # what procs counts for sacct/table: cpus or nodes
    capacity: list[str] = field(default_factory=list)  # "N" or "PARTITION=N"
    slurm_conf: str | None = None
    columns: list[str] = field(default_factory=list)   # table: "name=source"
    mapping: str | None = None       # table: TOML file with a [columns] table
    preset: str | None = None        # table: eagle, walltime

    def checked(self) -> IngestOptions:
        """Refuse bad option values before any file is read."""
        if self.format not in FORMATS:
            raise WalltimeError(f'--format {self.format}: unknown format; use one of {", ".join(FORMATS)}')
        if self.size not in ("cpus", "nodes"):
            raise WalltimeError(f"--size {self.size}: use cpus or nodes")
        if self.tz is not None:
            check_zone(self.tz, "--tz")
        parse_capacity(self.capacity)
        if self.format != "table" and (self.columns or self.mapping or self.preset):
            raise WalltimeError("--column/--mapping/--preset: only with --format table")
        return self

    def changes_derived(self) -> bool:
        """Options that change what is stored from the same bytes."""
        return bool(self.capacity or self.slurm_conf or self.tz or self.format != "swf")


def check_zone(tz: str, option: str) -> str:
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise WalltimeError(f"{option} {tz}: unknown time zone; use an IANA name such as Europe/Berlin or UTC") from None
    return tz


def machine_zone() -> str:
    """The IANA name of this machine's zone ($TZ, else /etc/localtime), UTC if unknown."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz:
        try:
            return check_zone(tz, "TZ")
        except WalltimeError:
            pass
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            return check_zone(target.split("zoneinfo/", 1)[1], "/etc/localtime")
    except (OSError, WalltimeError):
        pass
    return "UTC"


def parse_file(data: bytes, path: Path, opts: IngestOptions) -> swf.ParsedTrace:
    if opts.format == "swf":
        parsed = swf.parse(data)
    else:
        tz = opts.tz or machine_zone()
        if opts.format == "sacct":
            parsed = sacct.parse(data, str(path), tz, opts.size)
        else:
            from . import table
            parsed = table.parse(data, path, tz, opts)
        parsed.header["time_zone_string"] = tz
        parsed.size_unit = opts.size
        if opts.tz is None and parsed.header.get("has_times") is not False:
            parsed.notes.append(f"local times read in this machine's zone, {tz}; give --tz ZONE if the log was written elsewhere")
    _attach_capacity(parsed, opts)
    return parsed


def _attach_capacity(parsed: swf.ParsedTrace, opts: IngestOptions) -> None:
    whole, parts = parse_capacity(opts.capacity)
    conf: dict[str, Partition] = {}
    if opts.slurm_conf:
        conf = read_slurm_conf(opts.slurm_conf, "nodes" if parsed.size_unit == "nodes" else "cpus")
    merged = {**conf, **parts}
    if merged and parsed.jobs is not None and "partition" in parsed.jobs.columns:
        present = set(parsed.jobs["partition"].drop_nulls().unique().to_list())
        for name in parts:
            if name not in present:
                raise WalltimeError(f"--capacity {name}={parts[name].capacity}: no job of the trace is in partition "
                                    f"{name} (partitions: {', '.join(sorted(present)) or 'none'})")
        missing = sorted(present - set(merged))
        if missing:
            parsed.notes.append(f"no size for partition {', '.join(missing)}; simulate --partition cannot replay it alone")
    parsed.partitions = merged
    if whole is not None:
        parsed.set_capacity(whole, "--capacity")
    elif conf:
        from .slurm_conf import union_capacity
        parsed.set_capacity(union_capacity(list(conf.values())), f"slurm.conf {Path(opts.slurm_conf).name}")
    else:
        parsed.set_capacity(None, "")


def partition_rows(trace: str, parts: dict[str, Partition]) -> pa.Table:
    ps = list(parts.values())
    return pa.table({
        "trace": [trace] * len(ps), "partition": [p.name for p in ps],
        "capacity": pa.array([p.capacity for p in ps], pa.int64()),
        "nodes": pa.array([p.nodes_text() for p in ps], pa.string()), "source": [p.source for p in ps],
    })
