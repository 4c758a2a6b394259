"""Standard Workload Format: header lines and the 18 typed job fields.

``parse`` turns decompressed bytes into a :class:`ParsedTrace`: the header (every
``; Key: Value`` line kept, the known keys typed), a Polars frame of jobs with
-1 as null, and the bad lines with the reason each was refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from . import tokenizer as tk

# (column, SWF field label, integer?) in SWF order.
FIELDS: list[tuple[str, str, bool]] = [
    ("job_id", "job number", True),
    ("submit", "submit time", True),
    ("wait", "wait time", True),
    ("run", "run time", True),
    ("procs", "number of allocated processors", True),
    ("avg_cpu", "average CPU time used", False),
    ("used_mem", "used memory", False),
    ("req_procs", "requested number of processors", True),
    ("req", "requested time", True),
    ("req_mem", "requested memory", False),
    ("status", "status", True),
    ("user_id", "user ID", True),
    ("group_id", "group ID", True),
    ("exe_id", "executable number", True),
    ("queue_id", "queue number", True),
    ("partition_id", "partition number", True),
    ("prev_job_id", "preceding job number", True),
    ("think_time", "think time from preceding job", True),
]
COLUMNS = [c for c, _, _ in FIELDS]

_HEADER = re.compile(r"^\s*;\s*([A-Za-z][A-Za-z0-9 _/-]*?)\s*:\s?(.*?)\s*$")
_INT_KEYS = {
    "MaxJobs": "max_jobs",
    "MaxRecords": "max_records",
    "MaxNodes": "max_nodes",
    "MaxProcs": "max_procs",
    "UnixStartTime": "unix_start_time",
    "TimeZone": "time_zone",
}
_TEXT_KEYS = {
    "Version": "version",
    "Computer": "computer",
    "Installation": "installation",
    "TimeZoneString": "time_zone_string",
}


@dataclass
class BadLine:
    line: int
    field: int | None  # 1-based SWF field, None for whole-file problems
    reason: str
    raw: str


@dataclass
class ParsedTrace:
    header: dict = field(default_factory=dict)        # typed known keys
    header_lines: list[tuple[int, str | None, str]] = field(default_factory=list)
    header_raw: str = ""
    jobs: pl.DataFrame | None = None                   # good lines, SWF columns + line
    bad: list[BadLine] = field(default_factory=list)   # in line order
    lines: int = 0
    extended: bool = False

    @property
    def capacity(self) -> int | None:
        return self.header.get("max_procs") or self.header.get("max_nodes")


def field_label(f: int) -> str:
    """'field 4 (run time)' for 1-based field number f."""
    return f"field {f} ({FIELDS[f - 1][1]})"


def parse(data: bytes) -> ParsedTrace:
    buf = np.frombuffer(data, dtype=np.uint8)
    (ints, floats, line_no, status, err_field, err_start, err_end,
     line_start, line_end, extra, hdr_line, hdr_start, hdr_end) = tk.tokenize(buf, tk.float_mask())
    out = ParsedTrace(lines=data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1))
    out.extended = extra > 0
    _parse_header(data, hdr_line, hdr_start, hdr_end, out)

    ok = status == tk.OK
    bad_idx = np.flatnonzero(~ok)
    for i in bad_idx:
        raw = data[line_start[i]:line_end[i]].decode("utf-8", "replace").rstrip("\r")
        f = int(err_field[i]) + 1
        token = data[err_start[i]:err_end[i]].decode("utf-8", "replace")
        code = status[i]
        if code == tk.TOO_FEW:
            reason = f"{field_label(f)} is missing: the line has {f - 1} fields, expected 18"
        elif code == tk.NOT_NUMBER:
            reason = f'{field_label(f)} is "{token}", expected {"an integer" if FIELDS[f - 1][2] else "a number"}'
        elif code == tk.NOT_INTEGER:
            reason = f'{field_label(f)} is "{token}", expected an integer'
        else:
            reason = f'{field_label(f)} is "{token}", expected a non-negative integer'
        out.bad.append(BadLine(int(line_no[i]), f, reason, raw))

    cols = {"line": line_no[ok]}
    for f, (name, _, is_int) in enumerate(FIELDS):
        if is_int:
            cols[name] = ints[f][ok]
        else:
            cols[name] = floats[f][ok]
    jobs = pl.DataFrame(cols)
    # -1 means "unknown" in SWF: store it as null.
    jobs = jobs.with_columns(
        [pl.when(pl.col(c) == -1).then(None).otherwise(pl.col(c)).alias(c) for c in COLUMNS if c != "submit"]
    ).with_columns(pl.col("status").cast(pl.Int32))
    jobs, dups = _split_duplicates(jobs, line_start, line_end, line_no, ok, data)
    out.bad.extend(dups)
    out.bad.sort(key=lambda b: b.line)
    out.jobs = jobs.select(COLUMNS + ["line"])
    return out


def _split_duplicates(jobs, line_start, line_end, line_no, ok, data):
    """Keep the first line of each job id; the later ones are bad lines."""
    if jobs.height == 0:
        return jobs, []
    first = jobs.group_by("job_id").agg(pl.col("line").min().alias("first_line"))
    marked = jobs.join(first, on="job_id", how="left")
    dup = marked.filter(pl.col("line") != pl.col("first_line"))
    if dup.height == 0:
        return jobs, []
    where = {int(l): i for i, l in enumerate(line_no)}
    bad = []
    for job_id, line, first_line in dup.select("job_id", "line", "first_line").iter_rows():
        i = where[line]
        raw = data[line_start[i]:line_end[i]].decode("utf-8", "replace").rstrip("\r")
        bad.append(BadLine(line, 1, f'{field_label(1)} is "{job_id}", a duplicate of line {first_line}', raw))
    keep = marked.filter(pl.col("line") == pl.col("first_line")).drop("first_line")
    return keep.sort("line"), bad


def _parse_header(data, hdr_line, hdr_start, hdr_end, out: ParsedTrace) -> None:
    raw_lines = []
    for ln, a, b in zip(hdr_line, hdr_start, hdr_end):
        text = data[a:b].decode("utf-8", "replace").rstrip("\r")
        raw_lines.append(text)
        m = _HEADER.match(text)
        if m:
            key, value = m.group(1), m.group(2)
            out.header_lines.append((int(ln), key, value))
            _type_header(key, value, out.header)
        else:
            out.header_lines.append((int(ln), None, text.lstrip()[1:].strip()))
    out.header_raw = "\n".join(raw_lines)


def _type_header(key: str, value: str, header: dict) -> None:
    if key in _INT_KEYS and _INT_KEYS[key] not in header:
        m = re.match(r"^\s*(-?\d+)", value)
        if m:
            header[_INT_KEYS[key]] = int(m.group(1))
    elif key in _TEXT_KEYS and _TEXT_KEYS[key] not in header:
        header[_TEXT_KEYS[key]] = value.strip()
