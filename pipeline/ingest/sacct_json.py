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

_TEXT = ("JobID", "User", "Group", "Account", "Partition", "QOS", "JobName", "State", "ExitCode")
_INTS = ("_submit", "_eligible", "_start", "_end", "_elapsed", "_limit", "_procs_c", "_procs_n", "_req_c", "_req_n",
         "_mem_mb", "_gpus", "_base", "_task_id", "_het", "_steps", "line")
_FLAGS = ("_has_task", "_no_limit")


class _Columns:
    """Python lists, one per internal column, filled record by record."""

    def __init__(self):
        self.cols = {c: [] for c in (*_TEXT, *_INTS, *_FLAGS)}
        self.frames: list[pl.DataFrame] = []  # rows the fast path read (sacct_json_fast), in these columns

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
        c["_eligible"].append(_num(t.get("eligible")) or None)  # 0: never eligible (a dependency never met)
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
        df = pl.DataFrame({**{k: pl.Series(k, c[k], pl.String) for k in _TEXT},
                           **{k: pl.Series(k, c[k], pl.Int64, strict=False) for k in _INTS},
                           **{k: pl.Series(k, c[k], pl.Boolean) for k in _FLAGS}})
        return pl.concat([df, *self.frames]) if self.frames else df


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
                if limit >= self.n:  # the file ends inside the next record
                    self._cut(pos, record + 1)
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
        doc = yaml.load(text, Loader=loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        why = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise WalltimeError(f"{label}:{line}: not valid YAML ({why}); expected `sacct --yaml` output") from None
    _records_of(doc, sink, bad, lambda r: r, label)
    return len(text.splitlines())


def _finish(out: ParsedTrace, sink: _Columns, bad: list[BadLine], label: str, size: str,
            finite_max: tuple[str, ...], release: str = "eligible") -> ParsedTrace:
    from .sacct import BACKFILL_YEAR, _counts, _jobs, _live_note, attempt_rows

    df = sink.frame()
    # every attempt of a requeued job is a record (sacct --json prints them all, like --duplicates):
    # the last one (latest submission, then the later record) is the job, as in sacct's text output
    df = df.sort(["JobID", "_submit", "line"]).with_columns(
        pl.col("JobID").cum_count().over("JobID").alias("_attempt"),
        (pl.col("JobID").cum_count().over("JobID") < pl.len().over("JobID")).alias("_earlier")).sort("line")
    attempts = int(df["_earlier"].sum())
    earlier = attempt_rows(df.filter(pl.col("_earlier")), pl.col("_procs_c"), pl.col("_procs_n"),  # job_attempts
                           pl.col("State"), pl.col("ExitCode"))
    df = df.filter(~pl.col("_earlier")).drop("_earlier", "_attempt")
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
        (pl.col("_mem_mb").cast(pl.Float64) * 1024.0 / cpus).alias("_req_mem"),
        (pl.col("State").is_not_null() & status.is_null()
         & ~pl.col("State").str.extract(r"^(\S+)").is_in([k for k, v in STATUS.items() if v is None])
         ).alias("_bad_state"),
    )
    df, errors = _errors(df, label)
    bad = sorted(bad + errors, key=lambda b: b.line)
    out.bad = bad
    cols = list(_TEXT)
    jobs, out.header = _jobs(df, cols, release)
    out.header["release"] = release
    out.counts.update(_counts(jobs))
    out.counts["steps_skipped"] = int(df["_steps"].sum())  # (of the jobs kept, as the text dump's step lines)
    out.counts["earlier_attempts"] = attempts
    out.header["has_times"] = True
    if attempts:  # the job each earlier attempt belongs to (its last attempt, numbered by _jobs)
        out.attempts = earlier.join(jobs.select("slurm_id", "job_id"), on="slurm_id", how="left")
        out.counts["requeued_jobs"] = earlier["slurm_id"].n_unique()
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
