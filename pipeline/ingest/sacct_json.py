"""Slurm accounting as ``sacct --json`` / ``sacct --yaml`` (the openapi
dbv0.0.3x / data_parser output): ``{"meta": ..., "errors": [...], "jobs": [...]}``.

How it is read (JSON): sacct prints one big object, so line readers (Polars'
NDJSON) do not fit and a whole-document parser would hold the file and its
objects in memory at once. sacct pretty-prints: every job object of the
``jobs`` array opens and closes on a line of its own at one indentation, and a
raw newline can never be inside a JSON string. The reader therefore cuts the
array into windows of about ``WINDOW`` bytes at a job's closing line and hands
each window, as one small array, to orjson (a well-kept C parser, 1-2 GB/s;
ijson's event streaming costs a Python call per value). Memory stays bounded
by the window's objects plus the jobs' columns; pages of a mapped file behind
the window are dropped (``madvise``). A wrong cut cannot pass unnoticed:
orjson then fails on the window, and the record at fault is found one by one
and named. A dump without newlines (``jq -c``) is parsed whole (not bounded).
YAML (``sacct --yaml``, the same structure) is read whole with PyYAML's C
loader; it need not be fast.

Each job object becomes one row of the internal columns that the text reader
(sacct.py) builds, and the rest is sacct.py's: ordering, numbering, names,
live jobs, counts. docs/ingest.md, "--format sacct-json", lists the mapping.
"""

from __future__ import annotations

import mmap
import os
import re

import polars as pl

from ..errors import WalltimeError, quote
from . import ranges, sacct_json_fast
from .sacct_codes import STATUS
from .sacct_json_codes import INFINITE, NO_VAL
from .reader import sniff  # noqa: F401  (the formats this module reads, told by their first bytes)
from .swf import BadLine, ParsedTrace

WINDOW = 4 << 20  # bytes of job objects parsed at once
FAST = os.environ.get("WALLTIME_SACCT_JSON_FAST", "1") != "0"  # 0: the reference path only (tests, benches)
_JOBS = re.compile(rb'"jobs"\s*:\s*\[')


# --- the column builder -------------------------------------------------------------------------

_TEXT = ("JobID", "User", "Group", "Account", "Partition", "QOS", "JobName", "State", "ExitCode", "Cluster")
_INTS = ("_submit", "_eligible", "_start", "_end", "_elapsed", "_limit", "_procs_c", "_procs_n", "_req_c", "_req_n",
         "_mem_mb", "_gpus", "_req_gpus", "_base", "_task_id", "_het", "_steps", "line")
_FLAGS = ("_has_task", "_no_limit")


class _Columns:
    """Python lists, one per internal column, filled record by record."""

    def __init__(self):
        self.cols = {c: [] for c in (*_TEXT, *_INTS, *_FLAGS)}
        self.frames: list[pl.DataFrame] = []  # rows the fast path read (sacct_json_fast), in these columns

    def add(self, j: dict, record: int, steps: int | None = None) -> None:
        """One job object; KeyError/TypeError/ValueError for a record that is not sacct's (:class:`_Bad`:
        a value of the wrong kind, named)."""
        c = self.cols
        t = j["time"]
        submit = _int(t["submission"], "time.submission")
        if submit is None:
            raise ValueError("time.submission")
        start, end = _int(t.get("start"), "time.start"), _int(t.get("end"), "time.end")
        limit = _int(t.get("limit"), "time.limit")
        job_id = _int(j["job_id"], "job_id")
        if job_id is None:
            raise _Bad("job_id", None, "expected a whole number")
        arr, het = j.get("array") or {}, j.get("het") or {}
        if not isinstance(arr, dict) or not isinstance(het, dict):
            raise _Bad("array" if not isinstance(arr, dict) else "het", arr if not isinstance(arr, dict) else het,
                       "expected an object")
        a_id, task = _int(arr.get("job_id"), "array.job_id") or 0, _int(arr.get("task_id"), "array.task_id")
        h_id, h_off = _int(het.get("job_id"), "het.job_id") or 0, _int(het.get("job_offset"), "het.job_offset")
        if a_id and task is not None and task != NO_VAL:
            slurm_id, base, has_task = f"{a_id}_{task}", a_id, True
        elif a_id:  # the never-started remainder of an array: its tasks as a bitmap (0x3F) or a range
            task = None
            slurm_id, base, has_task = f"{a_id}_[{_task_range(arr)}]", a_id, True
        else:
            slurm_id, base, has_task, task = str(job_id), job_id, False, None
        if h_id and h_off is not None and h_off != NO_VAL:
            slurm_id, base = f"{h_id}+{h_off}", h_id
        else:
            h_off = None
        alloc, req = _tres(j.get("tres"), "allocated"), _tres(j.get("tres"), "requested")
        required = j.get("required") or {}
        req_cpus = _int(required.get("CPUs"), "required.CPUs") if isinstance(required, dict) else None
        state = (j.get("state") or {}).get("current")
        if isinstance(state, list):  # data_parser >= 0.0.39: a list of flags, the state first
            state = state[0] if state else None
        row = {"JobID": slurm_id, **{col: _text(j.get(key), key) for col, key in (
            ("User", "user"), ("Group", "group"), ("Account", "account"), ("Partition", "partition"), ("QOS", "qos"),
            ("JobName", "name"), ("Cluster", "cluster"))}}
        row["State"] = _text(state, "state.current")
        row["ExitCode"] = _exit_code(j.get("exit_code"))
        row["_submit"] = submit
        row["_eligible"] = _int(t.get("eligible"), "time.eligible") or None  # 0: never eligible
        row["_start"] = start or None  # 0: not started (pending)
        row["_end"] = end or None  # 0: not ended (running, pending)
        row["_elapsed"] = _int(t.get("elapsed"), "time.elapsed")
        unlimited = limit is None or limit >= NO_VAL
        row["_limit"] = None if unlimited else limit
        row["_no_limit"] = unlimited
        alloc_nodes = _int(j.get("allocation_nodes"), "allocation_nodes") or None
        row["_procs_c"] = alloc.get("cpu") or req_cpus or req.get("cpu")
        row["_procs_n"] = alloc.get("node") or alloc_nodes or req.get("node")
        row["_req_c"] = req_cpus or req.get("cpu")
        row["_req_n"] = req.get("node")
        row["_mem_mb"] = req.get("mem")
        row["_gpus"] = alloc.get("gres/gpu", req.get("gres/gpu"))
        # asked for: 0 when the request lists cpu, node or mem but no GPU (sacct_json_fast: the same rule)
        row["_req_gpus"] = req.get("gres/gpu", 0 if ("cpu" in req or "node" in req or "mem" in req) else None)
        row["_base"], row["_task_id"], row["_het"], row["line"] = base, task, h_off, record
        row["_has_task"] = has_task
        row["_steps"] = len(j.get("steps") or ()) if steps is None else steps
        for k, v in row.items():  # (only once every value is read: a bad record adds nothing)
            c[k].append(v)

    def frame(self) -> pl.DataFrame:
        c = self.cols
        df = pl.DataFrame({**{k: pl.Series(k, c[k], pl.String) for k in _TEXT},
                           **{k: pl.Series(k, c[k], pl.Int64, strict=False) for k in _INTS},
                           **{k: pl.Series(k, c[k], pl.Boolean) for k in _FLAGS}})
        return pl.concat([df, *self.frames]) if self.frames else df


class _Bad(ValueError):
    """A record's value of the wrong kind: ``why`` names the field, quotes the value and says what was expected."""

    def __init__(self, field: str, value, expected: str):
        super().__init__(field)
        import json

        shown = f'"{quote(value)}"' if isinstance(value, str) else quote(json.dumps(value, default=str))
        self.why = f"{field} is {shown}, {expected}"


INT64 = 1 << 63
MAX_ARRAY = 4_000_001  # Slurm's largest MaxArraySize: task ids below it, so a task bitmap of at most as many bits


def _int(v, field: str):
    """A whole number within 64 bits (plain, or data_parser's number object), or None (null, absent, unset)."""
    raw = v
    v = _num(v)
    if v is None:
        return None
    if v.__class__ is not int:
        raise _Bad(field, raw, "expected a whole number")
    if not -INT64 <= v < INT64:
        raise _Bad(field, v, "expected a whole number within 64 bits")
    return v


def _text(v, field: str):
    if v is None or v.__class__ is str:
        return v
    raise _Bad(field, v, "expected a string")


def _num(v):
    """A number as Slurm prints it: plain, or data_parser >= 0.0.39's {set, infinite, number}."""
    if v.__class__ is not dict:  # (the usual case first: this runs ~20 times per record)
        return v
    if v.get("infinite"):
        return INFINITE
    return v.get("number") if v.get("set", True) else None


def _tres(tres, kind: str) -> dict:
    """{type or type/name: count} of tres.allocated or tres.requested (cpu, node, mem in MB, gres/gpu)."""
    out = {}
    for t in (tres or {}).get(kind) or ():
        key = t["type"] if not t.get("name") else f"{t['type']}/{t['name']}"
        count = _int(t.get("count"), f"tres.{kind} {key}")
        if count is not None:
            out[key] = count
    return out


def _task_range(arr: dict) -> str:
    """`0-19%2`: an unexpanded array's tasks (sacct --json: a hex bitmap such as 0x3F) and throttle.
    Linear in the bitmap's length (a bitmap of more than MAX_ARRAY bits is refused)."""
    task = _num(arr.get("task")) or ""
    if isinstance(task, str) and task.lower().startswith("0x"):
        digits = task[2:]
        if not re.fullmatch(r"[0-9a-fA-F]+", digits):
            raise _Bad("array.task", task, "expected a hex bitmap of task ids such as 0x3F")
        digits = digits.lstrip("0") or "0"
        if (len(digits) - 1) * 4 + int(digits[0], 16).bit_length() > MAX_ARRAY:
            raise _Bad("array.task", task, f"expected a bitmap of at most {MAX_ARRAY:,} task ids (Slurm's "
                                           "largest MaxArraySize)")
        import numpy as np

        raw = bytes.fromhex(digits.rjust(len(digits) + len(digits) % 2, "0"))
        bits = np.unpackbits(np.frombuffer(raw, np.uint8))[::-1]  # bit i: task i
        ids = np.flatnonzero(bits)
        if len(ids) == 0:
            task = ""
        else:
            cut = np.flatnonzero(np.diff(ids) != 1)
            firsts, lasts = ids[np.r_[0, cut + 1]], ids[np.r_[cut, len(ids) - 1]]
            task = ",".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(firsts.tolist(), lasts.tolist()))
    elif not isinstance(task, (str, int)) or isinstance(task, bool) or not re.fullmatch(r"[0-9,\-%:]*", str(task)):
        raise _Bad("array.task", task, "expected a hex bitmap of task ids such as 0x3F, or ids such as 0-5")
    limit = (((arr.get("limits") or {}).get("max") or {}).get("running") or {}).get("tasks")
    limit = _int(limit, "array.limits.max.running.tasks")
    return f"{task}%{limit}" if limit else str(task)


def _exit_code(e) -> str | None:
    """`code:signal` as sacct prints ExitCode."""
    if not isinstance(e, dict):
        return None
    status = e.get("status")
    status = status[0] if isinstance(status, list) and status else status
    sig = e.get("signal") or {}
    sig_id = _int(sig.get("signal_id", sig.get("id")), "exit_code.signal.signal_id") or 0
    code = _int(e.get("return_code"), "exit_code.return_code") or 0
    return f"{code}:{sig_id if status == 'SIGNALED' or sig_id else 0}"


# --- JSON: the jobs array in windows ------------------------------------------------------------

class _Json:
    """The dump's bytes (bytes or a read-only mmap) and where its job records are."""

    def __init__(self, data, label: str):
        self.data, self.label = data, label
        self.n = len(data)
        self.opener, self.first = None, 0  # how a job record's line starts, and where the first one is

    def record_lines(self, records: set[int]) -> dict[int, int]:
        """Record number -> the line it starts on (error path: one find per record up to the last asked)."""
        return _nth_lines(self.data, self.opener, self.first, records)

    def line_of(self, offset: int) -> int:
        """1-based line of a byte offset (error path only)."""
        return bytes(self.data[:offset]).count(b"\n") + 1

    def fail(self, offset: int, why: str):
        raise WalltimeError(f"{self.label}:{self.line_of(offset)}: {why}")

    def records(self, sink: _Columns, bad: list[BadLine]) -> int:
        """Parse every job record into ``sink``; returns the number of lines."""
        import orjson

        d = self.data
        i = _skip_ws(d, 0)
        if d[i:i + 3] == b"\xef\xbb\xbf":
            i = _skip_ws(d, i + 3)
        if d[i:i + 1] != b"{":
            self.fail(i, "not JSON text starting with {; expected `sacct --json` output")
        m = _JOBS.search(d, i)
        if m is None:
            return self._whole(orjson, sink, bad)  # (names what is wrong: not JSON, or no jobs array)
        try:
            head = orjson.loads(bytes(d[i:m.start()]) + b'"jobs":[]}')
        except orjson.JSONDecodeError:
            return self._whole(orjson, sink, bad)
        if not isinstance(head, dict) or "meta" not in head:
            self.fail(i, 'a JSON object without "meta"; expected `sacct --json` output ({"meta": ..., "jobs": [...]})')
        pos = _skip_ws(d, m.end())
        if d[pos:pos + 1] == b"]":
            return bytes(d[:pos + 1]).count(b"\n") + self._tail(orjson, pos + 1, 0)
        if d[pos:pos + 1] != b"{":
            self.fail(pos, 'the "jobs" array holds something other than job objects; expected `sacct --json` output')
        nl = d.rfind(b"\n", m.end(), pos)
        if nl < 0:  # one line (jq -c): no job boundaries to cut at
            return self._whole(orjson, sink, bad)
        indent = bytes(d[nl + 1:pos])
        closer = b"\n" + indent + b"}"
        self.opener, self.first = b"\n" + indent + b"{", nl
        if FAST and indent and not indent.strip(b" "):
            got = sacct_json_fast.scan(d, nl + 1, len(indent), _Columns, self._read_slow(orjson))
            if got is not None:
                return self._fast(orjson, got, nl + 1, sink, bad)
        record, lines, window, counted = 0, 0, WINDOW, 0
        while True:
            limit = min(pos + window, self.n)
            k = d.rfind(closer, pos, limit)
            if k < 0:
                if limit >= self.n:  # no record closes on a line of its own: the rest is the last ones, or cut
                    rest = self._last_records(orjson, pos)
                    if rest is None:
                        self._cut(pos, record + 1)
                    for o in rest:
                        record += 1
                        try:
                            sink.add(o, record)
                        except (KeyError, TypeError, ValueError, AttributeError) as e:
                            bad.append(self._not_a_job(o, record, e))
                    return lines + bytes(d[counted:]).count(b"\n") + (not bytes(d[-1:]) == b"\n")
                window *= 2  # one record longer than the window
                continue
            end = k + len(closer)
            chunk = bytes(d[pos:end])
            lines += bytes(d[counted:pos]).count(b"\n") + chunk.count(b"\n")
            counted = end
            slim, steps = _without_steps(chunk, d[pos:pos + 4096])
            try:
                objs = orjson.loads(b"[" + slim + b"]")
                if len(steps) != len(objs):  # (a record without "steps", or another layout: count them parsed)
                    objs, steps = orjson.loads(b"[" + chunk + b"]"), [None] * len(objs)
            except orjson.JSONDecodeError:
                objs = self._one_by_one(orjson, pos, end, record, closer)
                steps = [None] * len(objs)
            for o, n_steps in zip(objs, steps):
                record += 1
                try:
                    sink.add(o, record, n_steps)
                except (KeyError, TypeError, ValueError, AttributeError) as e:
                    bad.append(self._not_a_job(o, record, e))
            _release(d, end)
            window = WINDOW
            nxt = _skip_ws(d, end)
            if d[nxt:nxt + 1] == b",":
                pos = _skip_ws(d, nxt + 1)
                if d[pos:pos + 1] != b"{":
                    if pos >= self.n:
                        self._cut(pos, record + 1)
                    self.fail(pos, f"record {record + 1} of \"jobs\" is not a job object; expected `sacct --json` output")
                continue
            if d[nxt:nxt + 1] == b"]":
                return lines + bytes(d[counted:nxt + 1]).count(b"\n") + self._tail(orjson, nxt + 1, 0)
            if nxt >= self.n:
                self._cut(nxt, record + 1, after=True)
            self.fail(nxt, f"after record {record} of \"jobs\": expected , or ]")

    def _read_slow(self, orjson):
        """The reference path for one record the scanner hands over (sacct_json_fast.scan's read_slow)."""
        def read(sink: _Columns, raw: bytes, record: int, offset: int, bad: list, broken: list) -> None:
            try:
                o = orjson.loads(raw)
            except orjson.JSONDecodeError as err:
                broken.append((record, offset, err.msg, _job_hint(raw)))
                return
            try:
                sink.add(o, record)
            except (KeyError, TypeError, ValueError, AttributeError) as err:
                bad.append(self._not_a_job(o, record, err))

        return read

    def _fast(self, orjson, got, first_line: int, sink: _Columns, bad: list[BadLine]) -> int:
        """The scanner's rows and its SLOW records' (read the reference way); returns the number of lines."""
        frames, slow_bad, broken, lines, end = got
        if broken:
            record, offset, msg, hint = min(broken)
            self.fail(offset, f"record {record} of \"jobs\"{hint} is not valid JSON ({msg}); "
                              "expected `sacct --json` output")
        sink.frames.extend(frames)
        bad.extend(slow_bad)
        return bytes(self.data[:first_line]).count(b"\n") + lines + self._tail(orjson, end + 1, 0)

    def _last_records(self, orjson, pos: int) -> list | None:
        """The records from ``pos`` to the end of a dump whose last records do not close on a line of their
        own (one written on one line): parsed with what follows the array, which must close the object;
        None when that is not valid JSON (a file cut short)."""
        try:
            doc = orjson.loads(b'{"jobs":[' + bytes(self.data[pos:]))
        except orjson.JSONDecodeError:
            return None
        return doc["jobs"] if isinstance(doc, dict) and isinstance(doc.get("jobs"), list) else None

    def _tail(self, orjson, at: int, _lines: int) -> int:
        """What follows the jobs array must close the object (other keys allowed)."""
        rest = bytes(self.data[at:])
        try:
            orjson.loads(b'{"jobs":[]' + rest)
        except orjson.JSONDecodeError:
            self.fail(self.n if not rest.strip() else at,
                      "the JSON ends early after the jobs array (truncated file?)" if not rest.strip() else
                      f"the JSON after the jobs array is not valid ({quote(rest.strip().decode('utf-8', 'replace'))})")
        return rest.count(b"\n") + (not rest.endswith(b"\n"))  # (a last line without its newline counts)

    def _cut(self, pos: int, record: int, after: bool = False):
        what = f"after record {record - 1}" if after else f"inside record {record} of \"jobs\""
        raise WalltimeError(f"{self.label}:{self.line_of(self.n)}: the JSON ends {what} (truncated file?); "
                            "expected the whole `sacct --json` output")

    def _one_by_one(self, orjson, pos: int, end: int, first: int, closer: bytes) -> list:
        """A window orjson refused: its records one at a time, the bad one named."""
        d, out, a, record = self.data, [], pos, first
        while a < end:
            k = d.find(closer, a, end)
            b = k + len(closer)
            record += 1
            try:
                out.append(orjson.loads(bytes(d[a:b])))
            except orjson.JSONDecodeError as e:
                self.fail(a, f"record {record} of \"jobs\"{_job_hint(d[a:b])} is not valid JSON ({e.msg}); "
                             "expected `sacct --json` output")
            nxt = _skip_ws(d, b)
            a = _skip_ws(d, nxt + 1) if d[nxt:nxt + 1] == b"," else end
        return out

    def _whole(self, orjson, sink: _Columns, bad: list[BadLine]) -> int:
        """A dump without one job per indented block: parsed in one piece (memory: the whole file)."""
        try:
            doc = orjson.loads(bytes(self.data))
        except orjson.JSONDecodeError as e:
            at = getattr(e, "pos", self.n) or 0
            if at >= self.n - 1 or "EOF" in e.msg:
                self.fail(self.n, f"the JSON ends early (truncated file?): {e.msg}")
            self.fail(at, f"not valid JSON ({e.msg}); expected `sacct --json` output")
        _records_of(doc, sink, bad, lambda r: r, self.label)
        return len(bytes(self.data).splitlines())

    def _not_a_job(self, o, record: int, e: Exception) -> BadLine:
        return BadLine(record, None, _not_a_job(o, record, e), "")


def _without_steps(chunk: bytes, first: bytes) -> tuple[bytes, list[int]]:
    """The window with every record's "steps" array emptied, and each record's number of steps.

    Why: steps (with their TRES statistics) are about 80% of a 22.05 dump's bytes and no
    column comes from them; parsing them would make most of orjson's objects. sacct prints
    a record's own keys on lines at one indentation, so "steps" opens at a line
    ``<inner>"steps": [`` and closes at the next ``<inner>]``, and each step opens on a line
    ``<inner>  {``; bytes.find/count skip the text between at memchr speed. A window where
    this does not hold (another layout) is parsed whole: the caller compares the counts."""
    m = re.match(rb"\{\r?\n([ \t]*)", first)
    if m is None:
        return chunk, []
    inner = m.group(1)
    # (the key's line ends at its [: an inline [] has no closing line of its own to cut to)
    key, close, step = b"\n" + inner + b'"steps": [\n', b"\n" + inner + b"]", b"\n" + inner + b"  {"
    parts, counts, a = [], [], 0
    while True:
        s = chunk.find(key, a)
        if s < 0:
            parts.append(chunk[a:])
            return b"".join(parts), counts
        e = chunk.find(close, s)
        if e < 0:
            return chunk, []
        parts.append(chunk[a:s + len(key) - 1])
        counts.append(chunk.count(step, s, e))
        a = e


def _records_of(doc, sink: _Columns, bad: list[BadLine], line_of, label: str) -> None:
    """Every record of a parsed document's jobs array (whole-document path, YAML)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise WalltimeError(f'{label}:1: no "jobs" array; expected `sacct --json` or `sacct --yaml` output '
                            '({"meta": ..., "jobs": [...]})')
    if "meta" not in doc:
        raise WalltimeError(f'{label}:1: a document without "meta"; expected `sacct --json` or `sacct --yaml` output')
    for record, o in enumerate(doc["jobs"], 1):
        try:
            sink.add(o, record)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            bad.append(BadLine(line_of(record), None, _not_a_job(o, record, e), ""))


def _not_a_job(o, record: int, e: Exception) -> str:
    if isinstance(e, _Bad):
        return f"record {record} of \"jobs\"{_job_hint(o)}: {e.why}"
    return (f"record {record} of \"jobs\"{_job_hint(o)} is not a sacct job object (field {_field_name(e)} missing "
            "or of the wrong type)")


def _field_name(e: Exception) -> str:
    if isinstance(e, KeyError):
        return str(e.args[0]) if e.args else "?"
    if isinstance(e, ValueError) and e.args:
        return str(e.args[0])
    return "time/job_id"


def _job_hint(o) -> str:
    """` (job 123)` when the record names its job id."""
    if isinstance(o, dict):
        v = _num(o.get("job_id"))
        return f" (job {v})" if isinstance(v, int) else ""
    text = bytes(o[:65536]) if o is not None else b""
    inner = re.match(rb"\{\r?\n([ \t]*)", text)  # the record's own keys (not array.job_id's) are at this indent
    pat = (rb"\n" + re.escape(inner.group(1)) if inner else rb"") + rb'"job_id"\s*:\s*(\d{1,18})'
    m = re.search(pat, text)
    return f" (job {int(m.group(1))})" if m else ""


def _skip_ws(d, i: int) -> int:
    n = len(d)
    while i < n and d[i:i + 1] in (b" ", b"\n", b"\r", b"\t"):
        i += 1
    return i


def _release(d, upto: int) -> None:
    """Drop a mapped file's pages before ``upto`` from this process (they stay in the page
    cache): the peak memory does not grow with the file."""
    if isinstance(d, mmap.mmap):
        n = upto - upto % mmap.PAGESIZE
        if n > 0:
            d.madvise(mmap.MADV_DONTNEED, 0, n)


# --- the parse ----------------------------------------------------------------------------------

def parse(data, label: str, tz: str, size: str = "cpus", finite_max: tuple[str, ...] = (),
          kind: str = "sacct-json", release: str = "eligible") -> ParsedTrace:
    """Parse ``sacct --json`` (``kind`` sacct-json) or ``--yaml`` (sacct-yaml)
    output. ``label`` names the file in messages; ``size`` 'cpus' or 'nodes';
    ``finite_max`` as for sacct.parse. A record's ``line`` is its 1-based
    index in the jobs array. Raises WalltimeError for a document that is not
    sacct's or is cut short; records with a bad value go to ``ParsedTrace.bad``.
    ``release``: the wait counts from time.eligible ('eligible') or from
    time.submission ('submit'), as for the text dump's Eligible."""
    sink, bad = _Columns(), []
    if kind == "sacct-yaml":
        lines = _yaml(data, label, sink, bad)
        m = re.search(rb"(?m)^(?:!!str )?jobs:", bytes(data))
        where = lambda records: _nth_lines(data, b"\n- ", m.end() if m else 0, records)  # noqa: E731
    else:
        js = _Json(data, label)
        lines = js.records(sink, bad)
        where = js.record_lines
    out = ParsedTrace(format=kind, lines=lines)
    out = _finish(out, sink, bad, label, size, finite_max, release)
    if out.bad:  # the record numbers as the lines they start on (messages say file:line: record N)
        at = where({b.line for b in out.bad})
        out.bad = [BadLine(at.get(b.line, 1), b.field, b.reason, b.raw) for b in out.bad]
    return out


def _nth_lines(data, opener: bytes | None, start: int, records: set[int]) -> dict[int, int]:
    """{k: line} of the k-th occurrence of ``opener`` (a newline and what starts a record) after ``start``."""
    out, last, k, at, line = {}, max(records, default=0), 0, start, None
    if opener is None:
        return {r: 1 for r in records}
    line = bytes(data[:start]).count(b"\n") + 1
    while k < last:
        nxt = data.find(opener, at)
        if nxt < 0:
            break
        line += bytes(data[at:nxt]).count(b"\n") + 1
        at, k = nxt + 1, k + 1
        if k in records:
            out[k] = line
    return out


def _yaml(data, label: str, sink: _Columns, bad: list[BadLine]) -> int:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    text = bytes(data)
    try:
        if b"&" in text or b"*" in text:  # (only then can there be an anchor or alias: sacct writes none)
            _no_aliases(yaml, loader, text, label)
        doc = yaml.load(text, Loader=loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        why = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise WalltimeError(f"{label}:{line}: not valid YAML ({why}); expected `sacct --yaml` output") from None
    except MemoryError:
        raise WalltimeError(f"{label}: the YAML document does not fit in memory ({len(text):,} bytes); "
                            "dump the jobs with `sacct --json` instead (read in bounded memory)") from None
    _records_of(doc, sink, bad, lambda r: r, label)
    return len(text.splitlines())


def _no_aliases(yaml, loader, text: bytes, label: str) -> None:
    """Refuse a YAML anchor (``&a``) or alias (``*a``): sacct --yaml never writes them, and aliases
    nested in each other make a few bytes stand for billions of objects ("billion laughs"). The
    parser's events are read, not composed: an alias is met as one event, never expanded."""
    for ev in yaml.parse(text, Loader=loader):
        anchor = getattr(ev, "anchor", None)
        if anchor is not None:
            what = f"alias *{anchor}" if isinstance(ev, yaml.AliasEvent) else f"anchor &{anchor}"
            raise WalltimeError(f"{label}:{ev.start_mark.line + 1}: YAML {quote(what)} refused: `sacct --yaml` writes "
                                "no anchors or aliases, and aliases can stand for billions of objects")


def _finish(out: ParsedTrace, sink: _Columns, bad: list[BadLine], label: str, size: str,
            finite_max: tuple[str, ...], release: str = "eligible") -> ParsedTrace:
    from .sacct import BACKFILL_YEAR, _counts, _jobs, _live_note, attempt_rows

    df = sink.frame()
    status = pl.col("State").str.extract(r"^(\S+)").replace_strict(
        {k: v for k, v in STATUS.items() if v is not None}, default=None, return_dtype=pl.Int32)
    limit = pl.col("_limit") * 60
    year = (limit == BACKFILL_YEAR).fill_null(False)
    if finite_max:
        year = year & ~pl.col("Partition").is_in(list(finite_max)).fill_null(False)
    no_limit = pl.col("_no_limit") | year
    procs = pl.col("_procs_c") if size == "cpus" else pl.col("_procs_n")
    req_procs = pl.coalesce([pl.col("_req_c"), procs]) if size == "cpus" else pl.coalesce([pl.col("_req_n"), procs])
    cpus = pl.when(pl.col("_procs_c") > 0).then(pl.col("_procs_c"))
    df = df.with_columns(
        status.alias("_status"),
        pl.when(no_limit).then(None).otherwise(limit).alias("_req"),
        no_limit.alias("_unlimited"), year.alias("_year"),
        procs.alias("_procs"), req_procs.alias("_req_procs"),
        # cores and nodes apart, whatever --size counts (as the text reader: NCPUS, else ReqCPUS; NNodes, else ReqNodes)
        pl.coalesce([pl.col("_procs_c"), pl.col("_req_c")]).alias("_cores"),
        pl.coalesce([pl.col("_procs_n"), pl.col("_req_n")]).alias("_node_count"),
        # the minimum node count asked for (jobs.min_nodes; the text reader's ReqNodes: the same tres_req_str);
        # 22.05's JSON has no submit line, so no maximum (max_nodes NULL)
        pl.col("_req_n").alias("_min_nodes"),
        (pl.col("_mem_mb").cast(pl.Float64) * 1024.0 / cpus).alias("_req_mem"),
        (pl.col("State").is_not_null() & status.is_null()
         & ~pl.col("State").str.extract(r"^(\S+)").is_in([k for k, v in STATUS.items() if v is None])
         ).alias("_bad_state"),
    )
    # every record is checked, earlier attempts too (their cpus, nodes and times go to job_attempts)
    df, errors = _errors(df, label)
    # a job is its cluster and its job id (sacct --json -M a,b prints the same ids for both clusters);
    # every attempt of a requeued job is a record (sacct --json prints them all, like --duplicates):
    # the last one (latest submission, then the later record) is the job, as in sacct's text output;
    # a record with the submission of the one before it is the same attempt twice: refused
    key = ["Cluster", "JobID"]
    df = df.sort([*key, "_submit", "line"], nulls_last=True).with_columns(
        pl.col("line").shift(1).over(key).alias("_prev_line"),
        (pl.col("_submit") == pl.col("_submit").shift(1).over(key)).fill_null(False).alias("_repeat"))
    errors += [BadLine(int(r["line"]), None, f"record {r['line']} (job {r['JobID']}): a duplicate of record "
                                             f"{r['_prev_line']} (the same cluster, job id and time.submission: not "
                                             "a requeued attempt)", "")
               for r in df.filter(pl.col("_repeat")).select("line", "JobID", "_prev_line").iter_rows(named=True)]
    df = df.filter(~pl.col("_repeat")).drop("_repeat", "_prev_line").with_columns(
        pl.col("JobID").cum_count().over(key).alias("_attempt"),
        (pl.col("JobID").cum_count().over(key) < pl.len().over(key)).alias("_earlier"),
        pl.col("line").last().over(key).alias("_job_line")).sort("line")
    attempts = int(df["_earlier"].sum())
    first = df.filter(pl.col("_earlier"))
    earlier = attempt_rows(first, pl.col("_procs_c"), pl.col("_procs_n"),  # job_attempts
                           pl.col("State"), pl.col("ExitCode")).with_columns(first["_job_line"])
    requeued = first.select(pl.struct(key).n_unique()).item() if attempts else 0
    df = df.filter(~pl.col("_earlier")).drop("_earlier", "_attempt", "_job_line")
    bad = sorted(bad + errors, key=lambda b: b.line)
    out.bad = bad
    cols = list(_TEXT)
    jobs, out.header = _jobs(df, cols, release)
    out.header["release"] = release
    out.header["submit_lines"] = False  # no submit line read (22.05 prints none): traces.submit_lines
    out.counts.update(_counts(jobs))
    out.counts["steps_skipped"] = int(df["_steps"].sum())  # (of the jobs kept, as the text dump's step lines)
    out.counts["earlier_attempts"] = attempts
    out.header["has_times"] = True
    if attempts:  # the job each earlier attempt belongs to (its last attempt, numbered by _jobs)
        out.attempts = earlier.join(jobs.select(pl.col("line").alias("_job_line"), "job_id"), on="_job_line",
                                    how="left").drop("_job_line")
        out.counts["requeued_jobs"] = requeued
    if out.counts["running_at_dump"]:
        out.notes.append(_live_note(jobs))
    out.jobs = jobs.drop("_unlimited", "_year", "_live", "_held_end")
    return out


_SOURCE = {"submit": "time.submission", "start": "time.start", "end": "time.end", "eligible": "time.eligible",
           "run": "time.elapsed", "req": "time.limit", "procs": "tres.allocated cpu", "req_procs": "required.CPUs",
           "cpus": "tres.allocated cpu", "nodes": "tres.allocated node", "gpus": "tres gres/gpu",
           "req_gpus": "tres.requested gres/gpu",
           "mem": "tres.requested mem", "job": "job_id", "task": "array.task_id", "het": "het.job_offset"}
_VALUE = {"submit": "_submit", "start": "_start", "end": "_end", "eligible": "_eligible", "run": "_elapsed",
          "req": "_limit", "procs": "_procs", "req_procs": "_req_procs", "cpus": "_procs_c", "nodes": "_procs_n",
          "gpus": "_gpus", "req_gpus": "_req_gpus", "mem": "_mem_mb", "job": "_base", "task": "_task_id", "het": "_het"}


def _errors(df: pl.DataFrame, label: str) -> tuple[pl.DataFrame, list[BadLine]]:
    """Records with a value out of range (ranges.py) or an unknown state, the first problem named."""
    def head(k):
        return (pl.lit("record ") + pl.col("line").cast(pl.String) + pl.lit(" (job ") + pl.col("JobID")
                + pl.lit(f"): {_SOURCE[k]} is ") + pl.col(_VALUE[k]).cast(pl.String).fill_null(""))

    checks = [
        (pl.col("_bad_state"), pl.lit("record ") + pl.col("line").cast(pl.String) + pl.lit(" (job ") + pl.col("JobID")
         + pl.lit('): state.current is "') + pl.col("State") + pl.lit('", expected a Slurm job state (COMPLETED, ...)')),
        (pl.col("_procs").is_null() & pl.col("_req_procs").is_null(),
         pl.lit("record ") + pl.col("line").cast(pl.String) + pl.lit(" (job ") + pl.col("JobID")
         + pl.lit("): no size: tres.allocated, required.CPUs and tres.requested give no cpu or node count")),
    ]
    checks += ranges.job_checks(head, lambda k: True)
    # what the text reader's forms bound by their own shape: counts of every attempt, ids, memory
    checks += [(ranges.outside(pl.col(_VALUE[k]), 0, hi), head(k) + pl.lit(f", {why}")) for k, hi, why in (
        ("cpus", ranges.INT32, ranges.SIZE_WHY), ("nodes", ranges.INT32, ranges.SIZE_WHY),
        ("gpus", ranges.INT32, ranges.SIZE_WHY), ("req_gpus", ranges.INT32, ranges.SIZE_WHY),
        ("job", ranges.INT32, ranges.SIZE_WHY),
        ("task", ranges.INT32, ranges.SIZE_WHY), ("het", ranges.INT32, ranges.SIZE_WHY),
        ("mem", ranges.MAX_AREA, f"expected megabytes from 0 to {ranges.MAX_AREA:,}"))]
    is_bad = pl.any_horizontal([ok.fill_null(False) for ok, _ in checks])
    if not df.select(is_bad.any()).item():
        return df, []
    reason = pl.coalesce([pl.when(ok).then(msg) for ok, msg in checks])
    rows = df.filter(is_bad).select("line", reason.alias("_r"))
    bad = [BadLine(int(r["line"]), None, r["_r"], "") for r in rows.iter_rows(named=True)]
    return df.filter(~is_bad), bad
