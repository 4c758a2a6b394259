"""Which reader a file goes through, and the settings every reader shares.

Why here: ``ingest`` itself stays format-blind (read bytes, parse, derive,
write in one transaction); this module picks SWF, sacct or table, resolves
the time zone and attaches the capacities from ``--capacity`` and
``--slurm-conf``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pyarrow as pa

from ..errors import WalltimeError
from . import sacct, swf
from .slurm_conf import Partition, parse_capacity, read_slurm_conf

FORMATS = ("swf", "sacct", "sacct-json", "sacct-yaml", "table")


@dataclass
class IngestOptions:
    format: str = "swf"
    tz: str | None = None            # zone of zone-less local times (sacct, table)
    size: str = "cpus"               # what procs counts for sacct/table: cpus or nodes
    capacity: list[str] = field(default_factory=list)  # "N" or "PARTITION=N"
    slurm_conf: str | None = None
    gres_conf: str | None = None     # with slurm_conf: the GPUs of each node (the Slurm-shaped replay)
    assoc: str | None = None         # with slurm_conf: `sacctmgr show assoc -P` (shares for fair-share)
    qos: str | None = None           # with slurm_conf: `sacctmgr show qos -P format=Name,Priority`
    columns: list[str] = field(default_factory=list)   # table: "name=source"
    mapping: str | None = None       # table: TOML file with a [columns] table
    preset: str | None = None        # table: eagle, walltime
    delimiter: str | None = None     # sacct: the field separator of `sacct --delimiter=X` (default |)
    release: str = "eligible"        # sacct: the wait (and the replay) counts from Eligible, or from Submit
    time_format: str | None = None   # sacct: the dump's SLURM_TIME_FORMAT (%s: Unix seconds); None: ISO or detected

    def checked(self) -> IngestOptions:
        """Refuse bad option values before any file is read."""
        if self.format not in FORMATS:
            raise WalltimeError(f'--format {self.format}: unknown format; use one of {", ".join(FORMATS)}')
        if self.size not in ("cpus", "nodes"):
            raise WalltimeError(f"--size {self.size}: use cpus or nodes")
        if self.tz is not None:
            check_zone(self.tz, "--tz")
        parse_capacity(self.capacity)
        for option, value in (("--gres-conf", self.gres_conf), ("--assoc", self.assoc), ("--qos", self.qos)):
            if value and not self.slurm_conf:
                raise WalltimeError(f"{option}: only with --slurm-conf")
        if self.format != "table" and (self.columns or self.mapping or self.preset):
            raise WalltimeError("--column/--mapping/--preset: only with --format table")
        if self.delimiter is not None:
            if self.format != "sacct":
                raise WalltimeError(f"--delimiter {self.delimiter}: only with --format sacct")
            delimiter_byte(self.delimiter)
        if self.release not in ("eligible", "submit"):
            raise WalltimeError(f"--release {self.release}: use eligible or submit")
        if self.release != "eligible" and not self.format.startswith("sacct"):
            raise WalltimeError(f"--release {self.release}: only with --format sacct (or sacct-json, sacct-yaml)")
        if self.time_format is not None:
            if self.format != "sacct":
                raise WalltimeError(f"--time-format {self.time_format}: only with --format sacct")
            from .slurmtime import check_time_format
            try:
                check_time_format(self.time_format)
            except ValueError as e:
                raise WalltimeError(f"--time-format {self.time_format}: {e}") from None
        return self

    def identity(self) -> str:
        """The options that change what is stored from the same bytes, as
        canonical JSON (``traces.ingest_options``): the same bytes with other
        such options are another trace. Files named by an option count by
        their content."""
        def content(path):
            if path is None:
                return None
            try:
                return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
            except OSError:
                return str(path)  # (reading it later says why it cannot be read)
        key = {"format": self.format, "capacity": sorted(self.capacity), "slurm_conf": content(self.slurm_conf)}
        for name in ("gres_conf", "assoc", "qos"):  # (absent unless given: older traces keep their identity)
            if getattr(self, name) is not None:
                key[name] = content(getattr(self, name))
        if self.format != "swf":
            key.update(tz=self.tz or machine_zone(), size=self.size)
        if self.format.startswith("sacct"):
            key["release"] = self.release
        if self.format == "sacct":
            key["delimiter"] = "|" if self.delimiter is None else chr(delimiter_byte(self.delimiter))
            if self.time_format is not None:  # (absent: ISO or detected from the bytes, as before)
                key["time_format"] = self.time_format
        if self.format == "table":
            key.update(columns=sorted(self.columns), mapping=content(self.mapping), preset=self.preset)
        return json.dumps(key, sort_keys=True, separators=(",", ":"))

    def changes_derived(self) -> bool:
        """Options that change what is stored from the same bytes."""
        return bool(self.capacity or self.slurm_conf or self.tz or self.format != "swf")


_DELIMITER_NAMES = {"TAB": 9, "US": 31, "RS": 30, "GS": 29, "FS": 28}


def delimiter_byte(text: str) -> int:
    """``--delimiter``: one ASCII character (``^``, ``;``), a name (TAB, US
    for the unit separator 0x1f, RS, GS, FS) or a code (``0x1f``, ``\\t``)."""
    t = {"\\t": "TAB"}.get(text, text)
    if t.upper() in _DELIMITER_NAMES:
        return _DELIMITER_NAMES[t.upper()]
    if t.lower().startswith("0x"):
        try:
            b = int(t, 16)
        except ValueError:
            b = -1
    else:
        b = ord(t) if len(t) == 1 else -1
    if not 0 < b < 128 or b in (10, 13) or chr(b).isalnum():
        raise WalltimeError(f"--delimiter {text}: expected one ASCII character that is not a letter, digit or "
                            "newline (e.g. ^), a name (TAB, US) or a code such as 0x1f")
    return b


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
        if opts.format.startswith("sacct"):
            finite = ()
            if opts.slurm_conf:  # partitions with a finite MaxTime: a 365-day limit there is a real request
                conf = read_slurm_conf(opts.slurm_conf, opts.size)
                finite = tuple(n for n, p in conf.items() if p.max_time is not None)
        if opts.format in ("sacct-json", "sacct-yaml"):  # epoch times: the zone only places months
            from . import sacct_json
            parsed = sacct_json.parse(data, str(path), tz, opts.size, finite, opts.format, opts.release)
        elif opts.format == "sacct":
            delim = None if opts.delimiter is None else delimiter_byte(opts.delimiter)
            parsed = sacct.parse(data, str(path), tz, opts.size, finite, delim, opts.time_format, opts.release)
        else:
            from . import table
            parsed = table.parse(data, path, tz, opts)
        parsed.header["time_zone_string"] = tz
        parsed.size_unit = opts.size
        if opts.tz is None and parsed.header.get("has_times") is not False and parsed.format in ("sacct", "table"):
            parsed.notes.append(f"local times read in this machine's zone, {tz}; give --tz ZONE if the log was written elsewhere")
        elif opts.tz is None and parsed.format in ("sacct-json", "sacct-yaml"):  # (instants: nothing to read in a zone)
            parsed.notes.append(f"times are Unix seconds, read without a zone; this machine's zone, {tz}, only decides "
                                "the months jobs fall in and how dates are shown (traces.tz); give --tz ZONE for the "
                                "site's zone")
    _attach_capacity(parsed, opts)
    _attach_slurm_files(parsed, opts)
    return parsed


def _attach_slurm_files(parsed: swf.ParsedTrace, opts: IngestOptions) -> None:
    """Keep the Slurm configuration with the trace (trace_slurm_files), after reading it as the replay
    will: a line the cluster model cannot use fails the ingest here, naming file:line."""
    if not opts.slurm_conf:
        return
    from .slurm_cluster import read_cluster, read_qos, read_qos_preemption

    read_cluster(opts.slurm_conf, opts.gres_conf, opts.assoc)
    if opts.qos:
        read_qos(opts.qos)
        read_qos_preemption(opts.qos)
    for kind, path in (("slurm.conf", opts.slurm_conf), ("gres.conf", opts.gres_conf), ("assoc", opts.assoc),
                       ("qos", opts.qos)):
        if path:
            try:
                text = Path(path).read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise WalltimeError(f"{path}: cannot read as UTF-8 text: {e}") from None
            parsed.slurm_files.append((kind, Path(path).name, text))


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
