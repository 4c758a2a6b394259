"""Standard Workload Format: header lines and the 18 typed job fields.

``parse`` turns decompressed bytes into a :class:`ParsedTrace`: the header (every
``; Key: Value`` line kept, the known keys typed), a Polars frame of jobs with
-1 as null, and the bad lines with the reason each was refused.

Ranges are checked here, once, so that no later stage overflows: times (submit,
wait, run, requested time, think time, UnixStartTime) within 200 years, sizes
and ids within 32 bits; a known header key whose value is not a number in range
(``; MaxProcs: lots``) is a bad line too. A UTF-8 byte-order mark is skipped.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass, field

import numpy as np
import polars as pl
import pyarrow as pa

from ..errors import quote
from . import early
from . import tokenizer as tk
from .ranges import AREA_WHY, INT32, MAX_AREA, MAX_SPAN, TIME_WHY

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
# 0-based fields holding times (seconds) and 32-bit sizes or ids
TIME_FIELDS = (1, 2, 3, 8, 17)
SIZE_FIELDS = (4, 7, 11, 12, 13, 14, 15)
# header key -> largest magnitude allowed
_INT_LIMITS = {"unix_start_time": MAX_SPAN, "max_nodes": INT32, "max_procs": INT32,
               "max_jobs": 2**62, "max_records": 2**62, "time_zone": 7 * 86400}
OUT_OF_RANGE = 6
TOO_LARGE_AREA = 7
BOM = b"\xef\xbb\xbf"
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
    format: str = "swf"
    counts: dict = field(default_factory=dict)      # trace-level counts (sacct: steps skipped, ...)
    partitions: dict = field(default_factory=dict)  # partition -> capacity, when known
    slurm_files: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, name, text): trace_slurm_files
    capacity_override: int | None = None            # --capacity N at ingest
    capacity_source: str | None = None
    size_unit: str = "procs"
    notes: list[str] = field(default_factory=list)
    attempts: pl.DataFrame | None = None  # sacct --duplicates: the earlier attempts of requeued jobs (job_attempts)

    @property
    def capacity(self) -> int | None:
        if self.capacity_override is not None:
            return self.capacity_override
        return self.header.get("max_procs") or self.header.get("max_nodes")

    def set_capacity(self, n: int | None, source: str) -> None:
        if n is not None:
            self.capacity_override, self.capacity_source = n, source
        elif self.capacity is not None and self.capacity_source is None:
            self.capacity_source = "header"


def field_label(f: int) -> str:
    """'field 4 (run time)' for 1-based field number f."""
    return f"field {f} ({FIELDS[f - 1][1]})"


def parse(data: bytes | mmap.mmap) -> ParsedTrace:
    """Parse SWF bytes. Columns are built as Arrow arrays straight over the
    tokenizer's output (-1 becomes a null through the validity bitmap), so
    the job data is not copied when all lines are good."""
    if data[:len(BOM)] == BOM:  # (data may be an mmap: no startswith)
        data = data[len(BOM):]  # offsets below are into the bytes after the mark; lines are unchanged
    buf = np.frombuffer(data, dtype=np.uint8)
    got = early.result(data, "scan")  # tokenized while the command imported its libraries (early.py)
    (ints, floats, line_no, status, err_field, err_start, err_end,
     line_start, line_end, inexact, extra, hdr_line, hdr_start, hdr_end), newlines = (
        got[1] if got is not None and got[0] == "swf" else tk.run(buf))
    out = ParsedTrace(lines=newlines + (0 if data[-1:] == b"\n" or not len(data) else 1))
    out.extended = extra > 0
    _parse_header(data, hdr_line, hdr_start, hdr_end, out)
    _check_ranges(data, ints, status, err_field, err_start, err_end, line_start, line_end)

    _reread_inexact(data, inexact, floats, line_start, line_end)
    ok = status == tk.OK
    for i in np.flatnonzero(~ok):
        out.bad.append(_bad_line(data, i, status, err_field, err_start, err_end, line_no, line_start, line_end))

    keep = None if ok.all() else np.flatnonzero(ok)
    ids = ints[0] if keep is None else ints[0][keep]
    dup, first = _duplicate_rows(ids)
    if dup.size:
        rows = dup if keep is None else keep[dup]
        first_rows = first if keep is None else keep[first]
        for i, j in zip(rows, first_rows):
            raw = data[line_start[i]:line_end[i]].decode("utf-8", "replace").rstrip("\r")
            out.bad.append(BadLine(int(line_no[i]), 1,
                                   f'{field_label(1)} is "{ints[0][i]}", a duplicate of line {line_no[j]}', raw))
        keep = np.setdiff1d(np.arange(len(status)) if keep is None else keep, rows, assume_unique=True)
    out.bad.sort(key=lambda b: b.line)

    pick = (lambda a: a) if keep is None else (lambda a: a[keep])
    arrays, names = [], []
    for f, (name, _, is_int) in enumerate(FIELDS):
        values = pick(ints[f] if is_int else floats[f])
        if name == "status":
            values = values.astype(np.int32)
        arrays.append(_with_nulls(values, nullable=name != "submit"))
        names.append(name)
    arrays.append(pa.array(pick(line_no)))
    names.append("line")
    out.jobs = pl.from_arrow(pa.Table.from_arrays(arrays, names=names))
    return out


def _check_ranges(data, ints, status, err_field, err_start, err_end, line_start, line_end) -> None:
    """Mark good lines with a time beyond 200 years or a size beyond 32 bits
    as OUT_OF_RANGE, locating the first such field (one compiled pass,
    tokenizer.range_flags; the few bad lines are then split in Python to
    find the token)."""
    if not (status == tk.OK).any():
        return
    bad, area = tk.range_flags(ints, status, np.array(TIME_FIELDS, np.int64), np.array(SIZE_FIELDS, np.int64),
                               MAX_SPAN, INT32, float(MAX_AREA))
    width = np.maximum(np.abs(ints[4]), np.abs(ints[7])).astype(np.float64) if area.any() else None
    for i in np.flatnonzero(area):
        f = next(f for f in (2, 3, 8) if abs(float(ints[f, i])) * width[i] > MAX_AREA)
        _locate(data, i, f, TOO_LARGE_AREA, status, err_field, err_start, err_end, line_start, line_end)
    for i in np.flatnonzero(bad):
        f = next(f for f in sorted(TIME_FIELDS + SIZE_FIELDS)
                 if abs(int(ints[f, i])) > (MAX_SPAN if f in TIME_FIELDS else INT32))
        _locate(data, i, f, OUT_OF_RANGE, status, err_field, err_start, err_end, line_start, line_end)


def _locate(data, i, f, code, status, err_field, err_start, err_end, line_start, line_end) -> None:
    """Mark line i bad with ``code`` at 0-based field f (found by splitting the line)."""
    a, b = int(line_start[i]), int(line_end[i])
    tokens = list(re.finditer(rb"[^ \t\r\v\f]+", data[a:b]))
    status[i] = code
    err_field[i] = f
    err_start[i], err_end[i] = a + tokens[f].start(), a + tokens[f].end()


def _reread_inexact(data, inexact, floats, line_start, line_end) -> None:
    """Float fields with too many digits for the tokenizer's exact path: read
    them with Python's float (rare; real traces have none)."""
    for i in np.flatnonzero(inexact):
        tokens = data[line_start[i]:line_end[i]].split()
        for k, f in enumerate(tk.FLOAT_FIELDS):
            if inexact[i] >> k & 1:
                floats[f, i] = float(tokens[f])


def _with_nulls(values: np.ndarray, nullable: bool) -> pa.Array:
    """Arrow array over ``values`` (no copy) with -1 marked null."""
    known = values != -1
    if not nullable or known.all():
        return pa.array(values)
    bitmap = pa.py_buffer(np.packbits(known, bitorder="little"))
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [bitmap, pa.py_buffer(values)], null_count=int(len(values) - known.sum()))


def _duplicate_rows(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows repeating an earlier job id, the row each first appeared in)."""
    none = np.empty(0, np.int64)
    if len(ids) < 2 or bool((ids[1:] > ids[:-1]).all()):
        return none, none
    order = np.argsort(ids, kind="stable")  # stable: the first line of a run comes first
    s = ids[order]
    again = np.zeros(len(s), np.bool_)
    again[1:] = s[1:] == s[:-1]
    if not again.any():
        return none, none
    run_start = np.maximum.accumulate(np.where(again, 0, np.arange(len(s))))
    return order[again], order[run_start[again]]


def _bad_line(data, i, status, err_field, err_start, err_end, line_no, line_start, line_end) -> BadLine:
    raw = data[line_start[i]:line_end[i]].decode("utf-8", "replace").rstrip("\r")
    f = int(err_field[i]) + 1
    token = quote(data[err_start[i]:err_end[i]])  # bytes: non-UTF-8 shown escaped (\xff), not as U+FFFD
    code = status[i]
    if code == tk.TOO_FEW:
        reason = f"{field_label(f)} is missing: the line has {f - 1} fields, expected 18"
    elif code == tk.NOT_NUMBER:
        reason = f'{field_label(f)} is "{token}", expected {"an integer" if FIELDS[f - 1][2] else "a number"}'
    elif code == tk.NOT_INTEGER:
        reason = f'{field_label(f)} is "{token}", expected an integer'
    elif code == tk.TOO_BIG:
        reason = f'{field_label(f)} is "{token}", expected an integer below 2147483648'
    elif code == OUT_OF_RANGE and f - 1 in TIME_FIELDS:
        reason = f'{field_label(f)} is "{token}", {TIME_WHY}'
    elif code == TOO_LARGE_AREA:
        reason = f'{field_label(f)} is "{token}": {AREA_WHY}'
    elif code == OUT_OF_RANGE:
        reason = f'{field_label(f)} is "{token}", expected an integer below 2147483648'
    else:
        reason = f'{field_label(f)} is "{token}", expected a non-negative integer'
    return BadLine(int(line_no[i]), f, reason, raw)


def _parse_header(data, hdr_line, hdr_start, hdr_end, out: ParsedTrace) -> None:
    raw_lines = []
    for ln, a, b in zip(hdr_line, hdr_start, hdr_end):
        text = data[a:b].decode("utf-8", "replace").rstrip("\r")
        raw_lines.append(text)
        m = _HEADER.match(text)
        if m:
            key, value = m.group(1), m.group(2)
            out.header_lines.append((int(ln), key, value))
            why = _type_header(key, value, out.header)
            if why:
                out.bad.append(BadLine(int(ln), None, why, text))
        else:
            out.header_lines.append((int(ln), None, text.lstrip()[1:].strip()))
    out.header_raw = "\n".join(raw_lines)


def _type_header(key: str, value: str, header: dict) -> str | None:
    """Type a known key into ``header``; returns why its value is refused."""
    if key in _INT_KEYS and _INT_KEYS[key] not in header:
        name = _INT_KEYS[key]
        m = re.match(r"^\s*(-?\d{1,19})(?!\d)", value)
        if not m:
            return f'header "{key}" is "{quote(value)}", expected a whole number'
        v = int(m.group(1))
        if abs(v) > _INT_LIMITS[name]:
            what = "seconds within 200 years of 1970" if name == "unix_start_time" else "a smaller number"
            return f'header "{key}" is "{quote(value)}", expected {what} (at most {_INT_LIMITS[name]:,})'
        header[name] = v
    elif key in _TEXT_KEYS and _TEXT_KEYS[key] not in header:
        header[_TEXT_KEYS[key]] = value.strip()
    return None
