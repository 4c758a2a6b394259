"""Slurm accounting as ``sacct --json`` / ``sacct --yaml`` (the openapi
dbv0.0.3x / data_parser output): ``{"meta": ..., "errors": [...], "jobs": [...]}``.

How it is read (JSON): sacct prints one big object, so line readers (Polars'
NDJSON) do not fit and a whole-document parser would hold the file and its
objects in memory at once. sacct pretty-prints: every job object of the
``jobs`` array opens and closes on a line of its own at one indentation, and a
raw newline can never be inside a JSON string. The reader therefore cuts the
array into windows at a job's closing line. In each window the records'
``steps`` arrays (~80% of the bytes; no column comes from them) are emptied
with bytes.find/count. Slurm 21.08-22.05's records (openapi dbv0.0.36-38)
then go to pyarrow's JSON reader (C++, with an explicit schema of the few
fields used) and are mapped by Polars expressions (``_arrow_window``); any
other layout, and any window that does not fit it, goes to orjson (a
well-kept C parser; ijson's event streaming costs a Python call per value)
and one Python call per record (``_Columns.add``), which names bad records.
The tests hold the two paths equal. Memory stays bounded
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

import io
import mmap
import os
import re

import polars as pl

from ..errors import WalltimeError, quote
from . import ranges
from .sacct_codes import STATUS
from .reader import sniff  # noqa: F401  (the formats this module reads, told by their first bytes)
from .swf import BadLine, ParsedTrace

WINDOW = 4 << 20  # bytes of job objects parsed at once (Python objects: about 10x this in memory)
ARROW_WINDOW = 32 << 20  # the same read by pyarrow (Arrow columns of the records' few fields)
INFINITE = 0xFFFFFFFF  # Slurm's INFINITE (a time limit); NO_VAL is one below
NO_VAL = 0xFFFFFFFE
_JOBS = re.compile(rb'"jobs"\s*:\s*\[')


# --- the column builder -------------------------------------------------------------------------

_TEXT = ("JobID", "User", "Group", "Account", "Partition", "QOS", "JobName", "State", "ExitCode")
_INTS = ("_submit", "_start", "_end", "_elapsed", "_limit", "_procs_c", "_procs_n", "_req_c", "_req_n",
         "_mem_mb", "_gpus", "_base", "_task_id", "_het", "_steps", "line")
_FLAGS = ("_has_task", "_no_limit")


class _Columns:
    """Python lists, one per internal column, filled record by record."""

    def __init__(self):
        self.cols = {c: [] for c in (*_TEXT, *_INTS, *_FLAGS)}
        self.frames: list[pl.DataFrame] = []  # windows read by the Arrow path (_arrow_window)

    def add(self, j: dict, record: int, steps: int | None = None) -> None:
        """One job object; KeyError/TypeError/ValueError for a record that is not sacct's."""
        c = self.cols
        t = j["time"]
        submit = _num(t["submission"])
        if not isinstance(submit, int) or isinstance(submit, bool):
            raise ValueError("time.submission")
        start, end = _num(t.get("start")), _num(t.get("end"))
        limit = _num(t.get("limit"))
        job_id = _num(j["job_id"])
        arr, het = j.get("array") or {}, j.get("het") or {}
        a_id, task = _num(arr.get("job_id")) or 0, _num(arr.get("task_id"))
        h_id, h_off = _num(het.get("job_id")) or 0, _num(het.get("job_offset"))
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
        state = (j.get("state") or {}).get("current")
        if isinstance(state, list):  # data_parser >= 0.0.39: a list of flags, the state first
            state = state[0] if state else None
        c["JobID"].append(slurm_id)
        c["User"].append(j.get("user"))
        c["Group"].append(j.get("group"))
        c["Account"].append(j.get("account"))
        c["Partition"].append(j.get("partition"))
        c["QOS"].append(j.get("qos"))
        c["JobName"].append(j.get("name"))
        c["State"].append(state)
        c["ExitCode"].append(_exit_code(j.get("exit_code")))
        c["_submit"].append(submit)
        c["_start"].append(start or None)  # 0: not started (pending)
        c["_end"].append(end or None)  # 0: not ended (running, pending)
        c["_elapsed"].append(_num(t.get("elapsed")))
        unlimited = limit is None or limit is True or limit >= NO_VAL
        c["_limit"].append(None if unlimited else limit)
        c["_no_limit"].append(unlimited)
        alloc_nodes = _num(j.get("allocation_nodes")) or None
        c["_procs_c"].append(alloc.get("cpu") or _num(required.get("CPUs")) or req.get("cpu"))
        c["_procs_n"].append(alloc.get("node") or alloc_nodes or req.get("node"))
        c["_req_c"].append(_num(required.get("CPUs")) or req.get("cpu"))
        c["_req_n"].append(req.get("node"))
        c["_mem_mb"].append(req.get("mem"))
        c["_gpus"].append(alloc.get("gres/gpu", req.get("gres/gpu")))
        c["_base"].append(base)
        c["_task_id"].append(task)
        c["_het"].append(h_off)
        c["line"].append(record)
        c["_has_task"].append(has_task)
        c["_steps"].append(len(j.get("steps") or ()) if steps is None else steps)

    def frame(self) -> pl.DataFrame:
        c = self.cols
        mine = pl.DataFrame({**{k: pl.Series(k, c[k], pl.String) for k in _TEXT},
                             **{k: pl.Series(k, c[k], pl.Int64, strict=False) for k in _INTS},
                             **{k: pl.Series(k, c[k], pl.Boolean) for k in _FLAGS}})
        return pl.concat([mine, *self.frames]) if self.frames else mine


def _num(v):
    """A number as Slurm prints it: plain, or data_parser >= 0.0.39's {set, infinite, number}."""
    if isinstance(v, dict):
        if v.get("infinite"):
            return INFINITE
        return v.get("number") if v.get("set", True) else None
    return v


def _tres(tres, kind: str) -> dict:
    """{type or type/name: count} of tres.allocated or tres.requested (cpu, node, mem in MB, gres/gpu)."""
    out = {}
    for t in (tres or {}).get(kind) or ():
        key = t["type"] if not t.get("name") else f"{t['type']}/{t['name']}"
        if t.get("count") is not None:
            out[key] = _num(t["count"])
    return out


def _task_range(arr: dict) -> str:
    """`0-19%2`: an unexpanded array's tasks (sacct --json: a hex bitmap such as 0x3F) and throttle."""
    task = _num(arr.get("task")) or ""
    if isinstance(task, str) and task.lower().startswith("0x"):
        bits = int(task, 16)
        ids = [i for i in range(bits.bit_length()) if bits >> i & 1]
        runs, k = [], 0
        while k < len(ids):
            e = k
            while e + 1 < len(ids) and ids[e + 1] == ids[e] + 1:
                e += 1
            runs.append(str(ids[k]) if e == k else f"{ids[k]}-{ids[e]}")
            k = e + 1
        task = ",".join(runs)
    limit = (((arr.get("limits") or {}).get("max") or {}).get("running") or {}).get("tasks")
    limit = _num(limit)
    return f"{task}%{limit}" if limit else str(task)


def _exit_code(e) -> str | None:
    """`code:signal` as sacct prints ExitCode."""
    if not isinstance(e, dict):
        return None
    status = e.get("status")
    status = status[0] if isinstance(status, list) and status else status
    sig = e.get("signal") or {}
    sig_id = _num(sig.get("signal_id", sig.get("id"))) or 0
    code = _num(e.get("return_code")) or 0
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
        plugin = ((head.get("meta") or {}).get("plugin") or {}).get("type") if isinstance(head["meta"], dict) else None
        arrow = plugin in _ARROW_LAYOUTS and os.environ.get("WALLTIME_JSON_ARROW", "1") != "0"
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
        base = ARROW_WINDOW if arrow else WINDOW
        record, lines, window, counted = 0, 0, base, 0
        while True:
            limit = min(pos + window, self.n)
            k = d.rfind(closer, pos, limit)
            if k < 0:
                if limit >= self.n:  # the file ends inside the next record
                    self._cut(pos, record + 1)
                window *= 2  # one record longer than the window
                continue
            end = k + len(closer)
            chunk = bytes(d[pos:end])
            lines += bytes(d[counted:pos]).count(b"\n") + chunk.count(b"\n")
            counted = end
            slim, steps = _without_steps(chunk, d[pos:pos + 4096])
            if arrow:
                got = _arrow_window(slim, steps, indent, record)
                if got is not None:
                    sink.frames.append(got)
                    record += got.height
                    _release(d, end)
                    window = base
                    nxt = _skip_ws(d, end)
                    if d[nxt:nxt + 1] == b",":
                        pos = _skip_ws(d, nxt + 1)
                        if d[pos:pos + 1] == b"{":
                            continue
                    # (the end of the array, or a problem: the same checks as below)
                    if d[nxt:nxt + 1] == b",":
                        if pos >= self.n:
                            self._cut(pos, record + 1)
                        self.fail(pos, f"record {record + 1} of \"jobs\" is not a job object; expected `sacct --json` output")
                    if d[nxt:nxt + 1] == b"]":
                        return lines + bytes(d[counted:nxt + 1]).count(b"\n") + self._tail(orjson, nxt + 1, 0)
                    if nxt >= self.n:
                        self._cut(nxt, record + 1, after=True)
                    self.fail(nxt, f"after record {record} of \"jobs\": expected , or ]")
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
        return BadLine(record, None, f"record {record} of \"jobs\"{_job_hint(o)} is not a sacct job object "
                                     f"(field {_field_name(e)} missing or of the wrong type)", "")


# sacct --json's record layouts that the Arrow path reads (Slurm 21.08-22.05: plain numbers and
# strings); others (data_parser >= 0.0.39: numbers as {set, infinite, number}) take the Python path
_ARROW_LAYOUTS = ("openapi/dbv0.0.36", "openapi/dbv0.0.37", "openapi/dbv0.0.38")
_ARROW_SCHEMA = None


def _arrow_schema():
    global _ARROW_SCHEMA
    if _ARROW_SCHEMA is None:
        import pyarrow as pa

        i64, s = pa.int64(), pa.string()
        tres = pa.list_(pa.struct([("type", s), ("name", s), ("count", i64)]))
        _ARROW_SCHEMA = pa.schema([
            ("job_id", i64), ("user", s), ("group", s), ("account", s), ("partition", s), ("qos", s), ("name", s),
            ("allocation_nodes", i64),
            ("time", pa.struct([("submission", i64), ("start", i64), ("end", i64), ("elapsed", i64), ("limit", i64)])),
            ("array", pa.struct([("job_id", i64), ("task", s), ("task_id", i64), ("limits", pa.struct([
                ("max", pa.struct([("running", pa.struct([("tasks", i64)]))]))]))])),
            ("het", pa.struct([("job_id", i64), ("job_offset", i64)])),
            ("required", pa.struct([("CPUs", i64)])),
            ("state", pa.struct([("current", s)])),
            ("exit_code", pa.struct([("status", s), ("return_code", i64), ("signal", pa.struct([("signal_id", i64)]))])),
            ("tres", pa.struct([("allocated", tres), ("requested", tres)])),
        ])
    return _ARROW_SCHEMA


def _arrow_window(slim: bytes, steps: list[int], indent: bytes, record: int) -> pl.DataFrame | None:
    """A window of records (steps emptied) as the internal columns, read by pyarrow's JSON
    reader (C++, no Python object per value) and mapped with Polars expressions: the same
    rules as _Columns.add, which tests/test_ingest_sacct_json.py compares it with. None when
    the window does not fit (another layout, a value of another type, a missing submission
    time): the caller then reads it record by record, naming any bad one.

    Why the replaces: pyarrow reads one object per line; a raw newline is only ever
    whitespace in JSON and a byte below 0x20 never appears unescaped in a string, so the
    record separators become \\x1e, every newline goes, and \\x1e becomes the newline."""
    import pyarrow as pa
    import pyarrow.json as pj

    sep = b"\n" + indent + b"},\n" + indent + b"{"
    nd = slim.replace(sep, b"}\x1e{").replace(b"\n", b"").replace(b"\x1e", b"\n")
    try:
        tab = pj.read_json(io.BytesIO(nd), read_options=pj.ReadOptions(block_size=max(1 << 20, len(nd) // 2 + 1)),
                           parse_options=pj.ParseOptions(explicit_schema=_arrow_schema(),
                                                         unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if tab.num_rows != len(steps):
        return None
    w = pl.from_arrow(tab)
    t, arr, het = pl.col("time").struct, pl.col("array").struct, pl.col("het").struct
    if w.select(t.field("submission").is_null().any()).item():
        return None

    def nz(e):  # Python's `x or ...`: 0 and null pass to the next
        return pl.when(e != 0).then(e)

    def tres(kind, typ, name=None):
        el = pl.element().struct
        ok = (el.field("type") == typ) & el.field("count").is_not_null()
        ok = ok & (el.field("name") == name if name else el.field("name").fill_null("") == "")
        return (pl.col("tres").struct.field(kind).list.eval(pl.element().filter(ok).struct.field("count"))
                .list.last())

    a_id, task_id = arr.field("job_id").fill_null(0), arr.field("task_id")
    h_id, h_off = het.field("job_id").fill_null(0), het.field("job_offset")
    is_task = (a_id != 0) & task_id.is_not_null() & (task_id != NO_VAL)
    is_het = (h_id != 0) & h_off.is_not_null() & (h_off != NO_VAL)
    rest = (a_id != 0) & ~is_task
    remainder = pl.lit(None, pl.String)
    if w.select(rest.any()).item():  # never-started array remainders: their bitmaps as ranges (few)
        w = w.with_columns(pl.col("array").map_elements(_task_range, return_dtype=pl.String).alias("_range"))
        remainder = pl.col("_range")
    limit = t.field("limit")
    unlimited = limit.is_null() | (limit >= NO_VAL)
    cpus_req = nz(pl.col("required").struct.field("CPUs"))
    sig = pl.col("exit_code").struct.field("signal").struct.field("signal_id").fill_null(0)
    code = pl.col("exit_code").struct.field("return_code").fill_null(0)
    slurm_id = (pl.when(is_het).then(h_id.cast(pl.String) + "+" + h_off.cast(pl.String))
                .when(is_task).then(a_id.cast(pl.String) + "_" + task_id.cast(pl.String))
                .when(a_id != 0).then(a_id.cast(pl.String) + "_[" + remainder + "]")
                .otherwise(pl.col("job_id").cast(pl.String)))
    n = w.height
    return w.select(
        slurm_id.alias("JobID"), pl.col("user").alias("User"), pl.col("group").alias("Group"),
        pl.col("account").alias("Account"), pl.col("partition").alias("Partition"), pl.col("qos").alias("QOS"),
        pl.col("name").alias("JobName"), pl.col("state").struct.field("current").alias("State"),
        pl.when(pl.col("exit_code").is_not_null()).then(code.cast(pl.String) + ":" + sig.cast(pl.String))
        .alias("ExitCode"),
        t.field("submission").alias("_submit"), nz(t.field("start")).alias("_start"), nz(t.field("end")).alias("_end"),
        t.field("elapsed").alias("_elapsed"), pl.when(~unlimited).then(limit).alias("_limit"),
        pl.coalesce([nz(tres("allocated", "cpu")), cpus_req, tres("requested", "cpu")]).alias("_procs_c"),
        pl.coalesce([nz(tres("allocated", "node")), nz(pl.col("allocation_nodes")),
                     tres("requested", "node")]).alias("_procs_n"),
        pl.coalesce([cpus_req, tres("requested", "cpu")]).alias("_req_c"),
        tres("requested", "node").alias("_req_n"), tres("requested", "mem").alias("_mem_mb"),
        pl.coalesce([tres("allocated", "gres", "gpu"), tres("requested", "gres", "gpu")]).alias("_gpus"),
        pl.when(is_het).then(h_id).when(a_id != 0).then(a_id).otherwise(pl.col("job_id")).alias("_base"),
        pl.when(is_task).then(task_id).alias("_task_id"),
        pl.when(is_het).then(h_off).alias("_het"),
        pl.Series("_steps", steps, pl.Int64),
        pl.int_range(record + 1, record + n + 1, dtype=pl.Int64).alias("line"),
        ((a_id != 0)).alias("_has_task"), unlimited.alias("_no_limit"),
    ).select(*_TEXT, *_INTS, *_FLAGS)


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
    key, close, step = b"\n" + inner + b'"steps": [', b"\n" + inner + b"]", b"\n" + inner + b"  {"
    parts, counts, a = [], [], 0
    while True:
        s = chunk.find(key, a)
        if s < 0:
            parts.append(chunk[a:])
            return b"".join(parts), counts
        e = chunk.find(close, s)
        if e < 0:
            return chunk, []
        parts.append(chunk[a:s + len(key)])
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
            bad.append(BadLine(line_of(record), None, f"record {record} of \"jobs\"{_job_hint(o)} is not a sacct "
                                                      f"job object (field {_field_name(e)} missing or of the wrong "
                                                      "type)", ""))


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
          kind: str = "sacct-json") -> ParsedTrace:
    """Parse ``sacct --json`` (``kind`` sacct-json) or ``--yaml`` (sacct-yaml)
    output. ``label`` names the file in messages; ``size`` 'cpus' or 'nodes';
    ``finite_max`` as for sacct.parse. A record's ``line`` is its 1-based
    index in the jobs array. Raises WalltimeError for a document that is not
    sacct's or is cut short; records with a bad value go to ``ParsedTrace.bad``."""
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
    out = _finish(out, sink, bad, label, size, finite_max)
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
        doc = yaml.load(text, Loader=loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        why = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise WalltimeError(f"{label}:{line}: not valid YAML ({why}); expected `sacct --yaml` output") from None
    _records_of(doc, sink, bad, lambda r: r, label)
    return len(text.splitlines())


def _finish(out: ParsedTrace, sink: _Columns, bad: list[BadLine], label: str, size: str,
            finite_max: tuple[str, ...]) -> ParsedTrace:
    from .sacct import BACKFILL_YEAR, _counts, _jobs, _live_note

    df = sink.frame()
    # every attempt of a requeued job is a record (sacct --json prints them all, like --duplicates):
    # the last one (latest submission, then the later record) is the job, as in sacct's text output
    df = df.sort(["JobID", "_submit", "line"]).with_columns(
        (pl.col("JobID").cum_count().over("JobID") < pl.len().over("JobID")).alias("_earlier")).sort("line")
    attempts = int(df["_earlier"].sum())
    df = df.filter(~pl.col("_earlier")).drop("_earlier")
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
        (pl.col("_mem_mb").cast(pl.Float64) * 1024.0 / cpus).alias("_req_mem"),
        (pl.col("State").is_not_null() & status.is_null()
         & ~pl.col("State").str.extract(r"^(\S+)").is_in([k for k, v in STATUS.items() if v is None])
         ).alias("_bad_state"),
    )
    df, errors = _errors(df, label)
    bad = sorted(bad + errors, key=lambda b: b.line)
    out.bad = bad
    cols = list(_TEXT)
    jobs, out.header = _jobs(df, cols)
    out.counts.update(_counts(jobs))
    out.counts["steps_skipped"] = int(df["_steps"].sum())  # (of the jobs kept, as the text dump's step lines)
    out.counts["earlier_attempts"] = attempts
    out.header["has_times"] = True
    if attempts:
        out.notes.append(f"{attempts:,} earlier attempt{'s' * (attempts > 1)} of requeued jobs skipped "
                         "(sacct --json prints every attempt; the last one is the job, as in sacct's text output)")
    if out.counts["running_at_dump"]:
        out.notes.append(_live_note(jobs))
    out.jobs = jobs.drop("_unlimited", "_year", "_live")
    return out


_SOURCE = {"submit": "time.submission", "start": "time.start", "end": "time.end", "run": "time.elapsed",
           "req": "time.limit", "procs": "tres.allocated cpu", "req_procs": "required.CPUs"}
_VALUE = {"submit": "_submit", "start": "_start", "end": "_end", "run": "_elapsed", "req": "_limit",
          "procs": "_procs", "req_procs": "_req_procs"}


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
    is_bad = pl.any_horizontal([ok.fill_null(False) for ok, _ in checks])
    if not df.select(is_bad.any()).item():
        return df, []
    reason = pl.coalesce([pl.when(ok).then(msg) for ok, msg in checks])
    rows = df.filter(is_bad).select("line", reason.alias("_r"))
    bad = [BadLine(int(r["line"]), None, r["_r"], "") for r in rows.iter_rows(named=True)]
    return df.filter(~is_bad), bad
