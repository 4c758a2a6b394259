"""Slurm accounting: ``sacct --parsable2`` output (header line, ``|``-separated).

``parse`` turns decompressed bytes into a :class:`~.swf.ParsedTrace` whose jobs
carry the SWF columns plus the names (user, account, partition, ...) and the
Slurm structure (slurm_id, array and het ids). Every step is a Polars
expression over all lines at once; only bad lines are looked at one by one.
docs/ingest.md lists the full mapping.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from ..errors import WalltimeError, quote
from . import early
from . import ranges
from . import slurmtime as st
from .names import add_codes
from . import sacct_fields, sacct_scan as sc
from .sacct_scan import STATUS, TIMES, TRES, VIEW_BUFFER, Plan, buffer_bases, job_rows, scan, split, split_plan
from .sacct_advice import no_times_note, rerun
from .swf import BadLine, ParsedTrace

SIZE_COLUMNS = ("NCPUS", "AllocCPUS", "NNodes", "AllocTRES", "ReqCPUS", "ReqNodes", "ReqTRES")
# JobID: base, optional _task or _[range], optional +het offset, optional .step (table.py reads
# job ids with it; for sacct dumps the scan reads them, sacct_scan._read_jobid, its twin)
_JOBID = r"^(\d+)(?:_(\d+|\[[^\]]*\]))?(?:\+(\d+))?(?:\.(.+))?$"
# the limit the backfill scheduler prints for a job without one (MaxTime=UNLIMITED): 365 days
BACKFILL_YEAR = 365 * 86400


def parse(data: bytes, label: str, tz: str, size: str = "cpus", finite_max: tuple[str, ...] = (),
          delimiter: int | None = None, time_format: str | None = None, release: str = "eligible") -> ParsedTrace:
    """Parse a sacct dump. ``label`` names the file in messages; ``tz`` is the
    zone of its local times; ``size`` 'cpus' or 'nodes' (what procs counts);
    ``finite_max``: partitions whose slurm.conf MaxTime is finite, where a
    365-day limit is a real request (elsewhere it is backfill's "no limit");
    ``delimiter``: the field separator byte (``sacct --delimiter``; default |);
    ``time_format``: the dump's SLURM_TIME_FORMAT (``%s``: Unix seconds; None:
    ISO, else detected where only one form reads every time: slurmtime.detect_format);
    ``release``: what the wait counts from, 'eligible' (Eligible where the dump has it) or 'submit'.
    Raises WalltimeError for whole-file problems (no header, missing columns);
    bad lines go to ``ParsedTrace.bad``."""
    back: dict[str, str] = {}  # stand-in character -> the original, in the stored strings (sacct_fields)
    table = None
    if delimiter is not None and delimiter != sacct_fields.BAR:
        table = sacct_fields.swap_table(delimiter)
        data = data[:].translate(table)  # the scan splits at | (a mapped file's slice is bytes)
        back[chr(delimiter)] = "|"
    lines = _Lines(data, table)
    if lines.count == 0:
        raise WalltimeError(f"{label}:1: empty file, expected `sacct --parsable2` output with its header line")
    cols = data[lines.starts[0]:lines.ends[0]].decode("utf-8", "replace").split("|")
    if cols[0][:1] == "\ufeff":  # a UTF-8 byte-order mark (an editor's save): read past it
        cols[0] = cols[0][1:]
    if len(cols) == 1:
        _one_field(bytes(data[lines.starts[0]:lines.ends[0]]).translate(table) if table else
                   bytes(data[lines.starts[0]:lines.ends[0]]), label, delimiter)
    timed = _check_columns(cols, label)
    out = ParsedTrace(format="sacct", lines=lines.count)
    if not timed:
        out.notes.append(no_times_note())
    n = len(cols)
    blank = lines.blank_after_header()  # (per line after the header; slices below: no copies of 2 M-line arrays)
    wrong = np.flatnonzero((lines.fields[1:] != n) & ~blank) + 1
    why = {}
    over = wrong[lines.fields[wrong] > n]
    if len(over):  # a separator inside a free-text field: read the line once more (sacct_fields)
        stand_in = sacct_fields.free_byte(data, delimiter or sacct_fields.BAR)
        fixed, rejoined, why = sacct_fields.rejoin(data, lines.starts, lines.ends, over, cols, stand_in,
                                                   delimiter or sacct_fields.BAR)
        if rejoined:
            data = fixed
            back[chr(stand_in)] = chr(delimiter or sacct_fields.BAR)
            lines = _Lines(data, table, stand_in, delimiter or sacct_fields.BAR)
            wrong = np.flatnonzero((lines.fields[1:] != n) & ~blank) + 1
            out.counts["separators_in_fields"] = rejoined
    fields, step = lines.fields[1:], lines.step[1:]
    bad = [BadLine(int(i) + 1, None, why.get(int(i), f"the line has {lines.fields[i]} fields, the header {n}"),
                   lines.text(i)) for i in wrong]
    out.counts["steps_skipped"] = int(((fields == n) & step).sum())
    good = job_rows(lines.fields, lines.step, n)  # (n >= 2 once _check_columns passed: no blank line fits)
    headers = _second_header(data, lines, wrong, cols)
    if headers:
        good = good[~np.isin(good, list(headers))]
        bad = [b for b in bad if b.line - 1 not in headers]
        bad += [BadLine(k + 1, None, w, lines.text(k)) for k, w in headers.items()]
    if not len(good) and not len(wrong) and out.counts["steps_skipped"]:
        k = int(np.flatnonzero(lines.step[1:])[0]) + 1
        m = out.counts["steps_skipped"]
        raise WalltimeError(f"{label}:{k + 1}: no job lines, only job steps ({m:,} line{'s' * (m > 1)} such as "
                            f"{quote(lines.text(k).split('|')[0])}): the job (allocation) lines were filtered out (a "
                            f"grep, or sacct --jobs N.batch?); dump the jobs themselves: {rerun()}")
    df = lines.table(good, cols, label)

    def fetch(frame: pl.DataFrame, names) -> pl.DataFrame:
        return lines.with_text(frame, names, cols, label)

    df, fmt = _typed(df, cols, tz, size, fetch, finite_max, time_format, label)
    if fmt is not None and time_format is None:
        out.notes.append(f"times read as SLURM_TIME_FORMAT={fmt} (detected; --time-format sets it)")
    df, errors = _errors(df, cols, lines.text_of_line, fetch, size, fmt)
    bad += errors
    df, dups, attempts = _duplicates(df, cols, lines.text_of_line)
    bad += dups
    bad.sort(key=lambda b: b.line)
    out.bad = bad
    jobs, out.header = _jobs(df, cols, release)
    out.header["release"] = release if "Eligible" in cols else "submit"
    out.header["submit_lines"] = "SubmitLine" in cols  # (traces.submit_lines: a NULL max_nodes is "no -N")
    if release == "eligible" and "Eligible" not in cols and timed:  # (recorded so: load.py, header_columns)
        out.notes.append("no Eligible column: waits counted from Submit; add Eligible to --format (holds, "
                         f"dependencies and --begin then do not count as waiting): {rerun()}")
    out.counts.update(_counts(jobs))
    out.header["has_times"] = timed
    if not timed:
        out.counts["never_started"] = None  # unknown, not "all of them"
    if out.counts["running_at_dump"]:
        out.notes.append(_live_note(jobs))
    out.jobs = jobs.drop("_unlimited", "_year", "_live", "_held_end")
    out.counts["earlier_attempts"] = 0
    if attempts is not None:  # the job each earlier attempt belongs to (its last attempt, numbered by _jobs)
        out.attempts = attempts.join(jobs.select("slurm_id", "job_id"), on="slurm_id", how="left")
        out.counts["earlier_attempts"] = attempts.height
        out.counts["requeued_jobs"] = attempts["slurm_id"].n_unique()
    if back:
        out.jobs = sacct_fields.restore(out.jobs, back)
    return out


def header_columns(data, delimiter: int | None = None) -> list[str]:
    """The names in a dump's first line (a UTF-8 byte-order mark skipped), split at ``delimiter`` (default |)."""
    cut = data.find(b"\n")
    first = bytes(data[:cut if cut >= 0 else len(data)]).rstrip(b"\r")
    if first[:3] == b"\xef\xbb\xbf":
        first = first[3:]
    return first.decode("utf-8", "replace").split(chr(delimiter or sacct_fields.BAR))


def _second_header(data, lines: _Lines, wrong: np.ndarray, cols: list[str]) -> dict[int, str]:
    """Second header lines (two dumps concatenated, ``cat a.txt b.txt``), line index -> why: the same header
    again (found by its bytes), or one with other columns (among the lines with another number of fields).
    They are bad lines, named as such (not as a JobID "JobID"): refused, or rejects with --lenient."""
    head = bytes(data[lines.starts[0]:lines.ends[0]]).removeprefix(b"\xef\xbb\xbf")
    why = "a second header line ({}): two dumps concatenated? ingest each dump as its own file"
    found = {}
    at = data.find(head, lines.ends[0])
    while at >= 0:  # (a find over the bytes: fast, and the header again is rare)
        k = int(np.searchsorted(lines.starts, at))
        if k < lines.count and lines.starts[k] == at and lines.ends[k] - at == len(head):
            found[k] = why.format("the same as line 1")
        at = data.find(head, at + 1)
    for k in wrong:
        if b"JobID" in bytes(data[lines.starts[k]:lines.ends[k]]).split(b"|"):
            found[int(k)] = why.format("other columns than line 1")
    return found


class _Lines:
    """Where each line of the dump starts and ends, its number of fields and
    whether it is a job step: one compiled pass over the bytes (sacct_scan)."""

    def __init__(self, data: bytes, table: bytes | None = None, stand_in: int | None = None, delimiter: int = 124):
        self.data = data
        # the original text of a line (messages): the separators swapped back, a stand-in its separator again
        self.back = table
        if stand_in is not None:
            self.back = bytes.maketrans(bytes([stand_in]), bytes([delimiter]))
            if table is not None:
                self.back = bytes(self.back[table[i]] for i in range(256))
        self.buf = np.frombuffer(data, np.uint8)
        cut = data.find(b"\n")
        first = data[:cut if cut >= 0 else len(data)].rstrip(b"\r").decode("utf-8", "replace").split("|")
        first[0] = first[0].removeprefix("\ufeff")  # (a byte-order mark)
        jobid = first.index("JobID") if "JobID" in first else -1
        got = early.result(data, "scan")  # scanned while the command imported its libraries (early.py)
        self.early_split = None
        if got is not None and got[0] == "sacct" and got[1] == jobid:
            self.starts, self.ends, self.fields, self.step = got[2]
            self.early_split = got[3]  # (plan, rows, split outputs) of the job lines, or None
        else:
            self.starts, self.ends, self.fields, self.step = scan(self.buf, jobid)
        self.count = len(self.starts)

    def text(self, i: int) -> str:
        raw = self.data[self.starts[i]:self.ends[i]]
        return (raw if self.back is None else raw.translate(self.back)).decode("utf-8", "replace")

    def text_of_line(self, line: int) -> str:
        return self.text(line - 1)

    def blank_after_header(self) -> np.ndarray:
        """Per line after the first: empty, or one field of spaces only."""
        out = self.ends[1:] == self.starts[1:]
        for k in np.flatnonzero((self.fields[1:] == 1) & ~out):  # one field: maybe only spaces
            out[k] = not self.text(k + 1).strip()
        return out

    def _bases(self) -> np.ndarray:
        """Line starts that cut the bytes into buffers under 2 GiB (sacct_scan.buffer_bases)."""
        bases = buffer_bases(self.starts, len(self.buf))
        if bases is None:
            k = int(np.flatnonzero(np.diff(np.append(self.starts, len(self.buf))) > VIEW_BUFFER)[0])
            raise WalltimeError(f"line {k + 1} is longer than {VIEW_BUFFER:,} bytes; is the file sacct output?")
        return bases

    def table(self, rows: np.ndarray, cols: list[str], label: str) -> pl.DataFrame:
        """The given lines (0-based, ascending) as a frame with their line
        number (``line``): the TEXT columns as Arrow string views into the
        dump's bytes (sacct_scan.split; empty fields NULL), handed to Polars
        without copying the text; the values the scan reads (COUNTS as
        ``_i_*``, ISO times as ``_n_*`` with ``_m_*`` missing flags, JobID
        parts, ReqMem, gres/gpu counts). The text of a read column is split
        out only where a value is left to Polars (:meth:`with_text`), so
        Submit, NCPUS, AllocTRES, ... cost no string per line; WorkDir,
        NodeList, ... are never looked at. The lines must have
        the header's number of fields."""
        plan = Plan(cols)
        bases = self._bases()
        early_split = self.early_split
        if (early_split is not None and early_split[0].cols == plan.cols and len(bases) == 1
                and np.array_equal(early_split[1], rows)):
            got = early_split[2]  # split while the command imported its libraries (early.py)
        else:
            got = split_plan(self.buf, self.starts, self.ends, rows, plan, bases)
        (views, valid, high, times, tstat, ids, idflags, mem, mstat, gpus, gfound, nums, nstat, scode) = got
        viewed = [i for i, v in zip(plan.fields, plan.viewed) if v]
        arrays = self._text_arrays(rows, viewed, cols, label, bases, views, valid, high)
        arrays["line"] = pa.array(rows + 1)
        # what the scan read: ISO times (NULL where not read: _typed reads the rest), JobID parts
        for t, c in enumerate(plan.times):
            arrays[f"_n_{c}"] = _with_mask(pa.timestamp("us"), times[t], tstat[t] == sc.T_READ)
            arrays[f"_m_{c}"] = pa.array(tstat[t] == sc.T_MISSING)
        if "JobID" in cols:
            ok = (idflags & sc.ID_OK) > 0
            arrays["_badid"] = pa.array(~ok)
            arrays["_base"] = _with_mask(pa.int64(), ids[0], ok)
            arrays["_has_task"] = pa.array((idflags & sc.ID_TASK) > 0)
            arrays["_task_id"] = _with_mask(pa.int64(), ids[1], (idflags & sc.ID_TASK_NUM) > 0)
            arrays["_het"] = _with_mask(pa.int64(), ids[2], (idflags & sc.ID_HET) > 0)
        # State: the SWF status of its first word, and whether that is a known state
        if "State" in cols:
            status = np.array([-1 if v is None else v for v in STATUS.values()] + [-1], np.int32)[scode]
            arrays["_status"] = _with_mask(pa.int32(), status, status >= 0)
            given = valid[viewed.index(cols.index("State"))]  # (an empty State is NULL, not a bad one)
            arrays["_bad_state"] = pa.array((scode < 0) & given)
        else:
            arrays["_status"] = pa.nulls(len(rows), pa.int32())
            arrays["_bad_state"] = pa.array(np.zeros(len(rows), np.bool_))
        # the counts (a column with a value that is not plain digits is read by Polars from its text)
        later = []
        for i, c in enumerate(plan.counts):
            if (nstat[i] == sc.N_OTHER).any():
                later.append(c)
            else:
                arrays[f"_i_{c}"] = _with_mask(pa.int64(), nums[i], nstat[i] == sc.N_READ)
                no_limit = nstat[i] == sc.N_NO_LIMIT
                if no_limit.any():
                    arrays[f"_u_{c}"] = pa.array(no_limit)
        # ReqMem (KB as written) unless some value needs the Polars rule; gres/gpu counts of the TRES columns
        if "ReqMem" in cols:
            if (mstat == sc.M_OTHER).any():
                later.append("ReqMem")
            else:
                arrays["_mem_kb"] = _with_mask(pa.float64(), mem, mstat <= sc.M_PER_CPU)
                arrays["_mem_per_cpu"] = pa.array(mstat == sc.M_PER_CPU)
        for g, c in enumerate(plan.tres):
            arrays[f"_gpus_{c}"] = _with_mask(pa.int64(), gpus[g], gfound[g])
        return self.with_text(pl.from_arrow(pa.table(arrays)), later, cols, label)

    def with_text(self, df: pl.DataFrame, names, cols: list[str], label: str) -> pl.DataFrame:
        """``df`` (lines of the dump, ascending ``line``) with the text of the
        columns ``names`` it lacks, split out of the dump's bytes (for the
        rare values the scan leaves to the Polars readers, and for messages)."""
        want = sorted({cols.index(c) for c in names if c in cols and c not in df.columns})
        if not want:
            return df
        rows = df["line"].to_numpy().astype(np.int64) - 1
        slot = np.full(len(cols), -1, np.int64)
        slot[want] = np.arange(len(want))
        bases = self._bases()
        views, valid, high, *_ = split(self.buf, self.starts, self.ends, rows, slot, bases)
        arrays = self._text_arrays(rows, want, cols, label, bases, views, valid, high)
        return df.with_columns(pl.from_arrow(pa.table(arrays)).get_columns())

    def _text_arrays(self, rows, fields, cols, label, bases, views, valid, high) -> dict[str, pa.Array]:
        """Arrow string-view arrays of ``fields`` (0-based, in the order of the
        split's views) over the dump's bytes; a field that is not UTF-8 is
        named in a WalltimeError."""
        ends = [*bases[1:], len(self.buf)]
        data = [pa.py_buffer(self.buf[a:b]) for a, b in zip(bases, ends)]
        arrays = {}
        for j, i in enumerate(fields):
            mask = None if valid[j].all() else pa.py_buffer(np.packbits(valid[j], bitorder="little"))
            arr = pa.Array.from_buffers(pa.string_view(), len(rows), [mask, pa.py_buffer(views[j]), *data])
            if high >= 128:
                try:
                    arr.validate(full=True)
                except pa.ArrowInvalid:
                    k = _first_not_utf8(arr.view(pa.binary_view()).to_pylist())  # error path only
                    raise WalltimeError(f"{label}:{int(rows[k]) + 1}: field {i + 1} ({cols[i]}) is not UTF-8 text; "
                                        "is the file `sacct --parsable2` output?") from None
            arrays[cols[i]] = arr
        return arrays


def _with_mask(dtype: pa.DataType, values: np.ndarray, known: np.ndarray) -> pa.Array:
    """Arrow array over ``values`` (no copy), NULL where not ``known``."""
    mask = None if known.all() else pa.py_buffer(np.packbits(known, bitorder="little"))
    return pa.Array.from_buffers(dtype, len(values), [mask, pa.py_buffer(np.ascontiguousarray(values))])


def _first_not_utf8(values: list[bytes | None]) -> int:
    for k, v in enumerate(values):
        try:
            (v or b"").decode("utf-8")
        except UnicodeDecodeError:
            return k
    return 0


TIME_COLUMNS = ("Submit", "Start", "End", "Elapsed", "ElapsedRaw")
_DELIMITER_NAMES = {9: "TAB", 31: "US", 30: "RS", 29: "GS", 28: "FS"}


def _shown(b: int) -> str:
    """A delimiter as --delimiter takes it: |, ^, TAB, US (0x1f), 0x01."""
    name = _DELIMITER_NAMES.get(b)
    return f"{name} ({b:#04x})" if name else (chr(b) if 32 < b < 127 else f"{b:#04x}")


def _one_field(header: bytes, label: str, delimiter: int | None) -> None:
    """The header does not split at the delimiter: say why, when it can be told (the original bytes of the
    first line: sacct's fixed-width columns, or fields split by another byte)."""
    head = header[3:] if header[:3] == b"\xef\xbb\xbf" else header
    given = "|" if delimiter in (None, sacct_fields.BAR) else _shown(delimiter)
    for b in sorted(set(head)):  # another one-byte separator that yields a JobID field
        if b < 128 and not chr(b).isalnum() and b not in (32, 10, 13) and b != (delimiter or sacct_fields.BAR):
            names = head.decode("utf-8", "replace").split(chr(b))
            if "JobID" in names:
                how = "drop --delimiter" if b == sacct_fields.BAR else f"give --delimiter {_shown(b).split()[0]}"
                where = f"with --delimiter {given}" if delimiter is not None else "at |"
                raise WalltimeError(f"{label}:1: the sacct header lacks JobID because it splits into one field "
                                    f"{where}; at {_shown(b)} it splits into {len(names)} fields: {how}")
    if b"JobID" in head.split():  # sacct without --parsable2: columns padded with spaces
        raise WalltimeError(f"{label}:1: not |-separated: the header is sacct's fixed-width columns "
                            f"(\"{quote(head[:40].decode('utf-8', 'replace').strip())} ...\"), which cut long values; "
                            f"rerun sacct with --parsable2 (-P): {rerun()}")


def _check_columns(cols: list[str], label: str) -> bool:
    """Refuse a header without the columns the reader needs; True when the
    dump has times. A dump with no time column at all (sacct's default
    fields) is read without times; one with only some of them is refused."""
    have = set(cols)
    timeless = not have & set(TIME_COLUMNS)
    need = [] if timeless else [c for c in ("JobID", "Submit", "Start") if c not in have]
    if timeless and "JobID" not in have:
        need.append("JobID")
    if not timeless and not have & {"End", "Elapsed", "ElapsedRaw"}:
        need.append("End (or Elapsed/ElapsedRaw)")
    if not have & set(SIZE_COLUMNS):
        need.append("a size (NCPUS, AllocCPUS, NNodes or AllocTRES)")
    if need:
        raise WalltimeError(
            f"{label}:1: the sacct header lacks {', '.join(need)}; {rerun()}"
        )
    return not timeless


def _opt(cols: list[str], name: str, dtype=pl.String) -> pl.Expr:
    return pl.col(name) if name in cols else pl.lit(None, dtype)


# `-p LIST`, `-pLIST`, `--partition=LIST`, `--partition LIST` (sbatch, srun, salloc)
PARTITION_OPTION = r"(?:^|\s)(?:-p\s*|--partition(?:=|\s+))([^\s]+)"


def _req_partitions(cols: list[str]) -> pl.Expr:
    """The partitions the job was submitted to (sql/328_req_partitions.sql): the `-p`/`--partition` option of
    its SubmitLine before any `--wrap` (the wrapped command's options are not sbatch's), else a never-started
    job's Partition when it is a list; NULL otherwise."""
    line = _opt(cols, "SubmitLine").str.replace(r"\s--wrap(?:=|\s).*$", "")
    listed = _opt(cols, "Partition")
    return pl.coalesce(line.str.extract(PARTITION_OPTION), pl.when(listed.str.contains(",", literal=True))
                       .then(listed))


# `-N N`, `-NN`, `--nodes=N`, `--nodes N` in a submit line (sbatch, srun, salloc); the last one given counts,
# as getopt reads them (each found, then the last kept: a greedy `^.*` to reach it took 4x the time)
NODES_OPTION = r"\s(?:-N\s*|--nodes(?:=|\s+))\S+"
# a node count as 22.05 reads it (common/proc_args.c verify_node_count, _str_to_nodes): N or MIN-MAX, each a
# number with an optional k/K (x 1024) then m/M (x 1024^2) suffix; an empty MIN is 1
NODE_COUNT = r"^(?:(\d{1,10})([kK]?)([mM]?))?(-)?(?:(\d{1,10})([kK]?)([mM]?))?$"
INT32_MAX = 2**31 - 1  # sbatch keeps a node count in an int


def _max_nodes(cols: list[str]) -> pl.Expr:
    """The maximum node count the job asked for (sql/333_req_nodes.sql): the `-N`/`--nodes` option of its
    SubmitLine before any `--wrap` (the wrapped command's options are not sbatch's); `-N 2` 2, `-N 1-3` 3.
    NULL without such an option, and for a value sbatch would refuse (never an error: it is what the log
    says, not ours to judge) or a maximum of 0 (Slurm's "no maximum")."""
    if "SubmitLine" not in cols:
        return pl.lit(None, pl.Int64)
    return pl.col("SubmitLine").map_batches(_max_nodes_of, return_dtype=pl.Int64)


def _max_nodes_of(lines: pl.Series) -> pl.Series:
    """:func:`_max_nodes` on a column of submit lines, each step once (an expression refers to the parsed
    parts seven times, and eager Polars would redo the line's regexes for each: 14 s a million lines), and
    only on the lines that hold `-N` or `--nodes` at all (0.6 s a million lines that all do)."""
    cand = (lines.str.contains("-N", literal=True) | lines.str.contains("--nodes", literal=True)).fill_null(False)
    out = pl.repeat(None, lines.len(), dtype=pl.Int64, eager=True).alias(lines.name)
    if not cand.any():
        return out
    idx = cand.arg_true()
    # cut at ` --wrap` (`--wrap CMD`, `--wrap=CMD`: the rest is the wrapped command's)
    before = lines.gather(idx).str.splitn(" --wrap", 2).struct.field("field_0")
    value = before.str.extract_all(NODES_OPTION).list.last().str.extract_groups(
        r"^\s(?:-N\s*|--nodes(?:=|\s+))" + NODE_COUNT[1:])  # (the option, then its value)
    parts = value.struct.unnest()

    def count(i: int) -> pl.Expr:  # group i's number times its suffixes (NULL when absent or too large)
        n = pl.col(str(i)).cast(pl.Int64, strict=False)
        k = pl.when(pl.col(str(i + 1)) != "").then(1024).otherwise(1)
        m = pl.when(pl.col(str(i + 2)) != "").then(1024 * 1024).otherwise(1)
        return pl.when(n * k * m <= INT32_MAX).then(n * k * m)

    ranged = pl.col("4").is_not_null()
    top = pl.when(ranged).then(count(5)).otherwise(pl.when(pl.col("5").is_null()).then(count(1)))
    low = pl.coalesce([count(1), pl.lit(1, pl.Int64)])
    got = parts.select(pl.when((top > 0) & (~ranged | (top >= low))).then(top).cast(pl.Int64).alias("m"))["m"]
    return out.scatter(idx, got)


def _tres(cols: list[str], name: str, key: str) -> pl.Expr:
    """The integer count of ``key`` (cpu, node, gres/gpu) in a TRES string."""
    return _opt(cols, name).str.extract(rf"(?:^|,){key}=(\d+)").cast(pl.Int64, strict=False)


def _count(df: pl.DataFrame, cols: list[str], name: str) -> pl.Expr:
    """A count column (COUNTS): as the scan read it, or from its text when
    the scan left some value to Polars (``table``)."""
    if name not in cols:
        return pl.lit(None, pl.Int64)
    return pl.col(name).cast(pl.Int64, strict=False) if name in df.columns else pl.col(f"_i_{name}")


def _given(df: pl.DataFrame, cols: list[str], name: str) -> pl.Expr:
    """The count field is not empty (its text; or the scan's count, NULL only
    when empty or a no-limit word, ``_u_*``)."""
    if name not in cols:
        return pl.lit(False)
    if name in df.columns:
        return pl.col(name).is_not_null()
    return pl.col(f"_i_{name}").is_not_null() | _no_limit_word(df, name)


def _no_limit_word(df: pl.DataFrame, name: str) -> pl.Expr:
    """The count field says UNLIMITED, Partition_Limit or INFINITE (sacct_scan._read_int; else its text)."""
    if name in df.columns:
        return pl.col(name).is_in(st.NO_LIMIT)
    return pl.col(f"_u_{name}") if f"_u_{name}" in df.columns else pl.lit(False)


def _needed(df: pl.DataFrame, expr: pl.Expr) -> bool:
    return bool(df.select(expr.fill_null(False).any()).item())


def _typed(df: pl.DataFrame, cols: list[str], tz: str, size: str, fetch, finite_max=(), time_format=None,
           label: str = "") -> tuple[pl.DataFrame, str | None]:
    """Typed values (NULL when unparseable; _errors finds those). The slow
    readings (other time formats, duration strings) run only when the fast
    ones (ISO times, ElapsedRaw, TimelimitRaw) leave values unread; each
    string column is parsed once into a column (``_n_*``) that
    the checks then reuse. ``fetch(df, names)`` adds the text of columns
    the scan read (Submit, AllocTRES, ...) for those slower readings.
    Returns the frame and the time form used for the times the scan left
    (``time_format``, or the one detected; None: ISO)."""
    times = TIMES
    fmt = time_format
    df = df.with_columns(pl.lit(None, pl.Datetime("us")).alias(f"_n_{c}") for c in times if c not in cols)
    if time_format is not None:  # asked for a form: the ISO times the scan read must be in it too
        _check_time_format(df, cols, fetch, time_format, label)
    slow = [c for c in times if c in cols and _needed(df, pl.col(f"_n_{c}").is_null() & ~_missing(cols, c))]
    if slow:
        df = fetch(df, slow)
        # detected only in a dump with no ISO time at all (a bad value among ISO ones stays a bad value)
        if fmt is None and not _needed(df, pl.any_horizontal([pl.col(f"_n_{c}").is_not_null() for c in times])):
            fmt = _detect_format(df, cols, slow, label)
        df = df.with_columns(st.parse_times(pl.col(c), fmt).alias(f"_n_{c}") for c in slow)
    naive = {c: pl.col(f"_n_{c}") for c in times}
    # Unix seconds (or a zone offset) are instants: read in UTC, whatever --tz says
    instant = st.is_instant(fmt)
    df = df.with_columns(st.local_epoch(naive[c], "UTC" if instant and c in slow else tz, "earliest").alias(f"_e{i}")
                         for i, c in enumerate(times))
    back = (pl.col("_e1") < pl.col("_e0")) | (pl.col("_e2") < pl.coalesce([pl.col("_e1"), pl.col("_e0")]))
    if not instant and _needed(df, back):  # only around the repeated hour of a DST change
        submit, start, end = st.ordered_epochs([naive["Submit"], naive["Start"], naive["End"]], tz)
    else:
        submit, start, end = pl.col("_e0"), pl.col("_e1"), pl.col("_e2")
    elapsed = _count(df, cols, "ElapsedRaw")
    if "ElapsedRaw" not in cols and "Elapsed" in cols:
        elapsed = st.duration_seconds(_opt(cols, "Elapsed"))
    tl = _opt(cols, "Timelimit")
    minutes = _count(df, cols, "TimelimitRaw")  # (a huge count would wrap when multiplied: ranges.BEYOND instead)
    limit = pl.when(minutes.abs() > ranges.BEYOND // 60).then(pl.lit(ranges.BEYOND)).otherwise(minutes * 60)
    if _needed(df, limit.is_null() & tl.is_not_null() & ~tl.is_in(st.NO_LIMIT)):
        limit = pl.coalesce([limit, st.duration_seconds(tl)])
    no_limit = tl.is_in(st.NO_LIMIT) | (_no_limit_word(df, "TimelimitRaw") if "TimelimitRaw" in cols else False)
    # backfill prints 365-00:00:00 (TimelimitRaw 525600) for a job it started without a limit:
    # no limit, unless slurm.conf gives the partition a finite MaxTime (then it is a real request)
    year = (limit == BACKFILL_YEAR).fill_null(False)
    if finite_max:
        year = year & ~_opt(cols, "Partition").is_in(list(finite_max)).fill_null(False)
    no_limit = no_limit.fill_null(False) | year

    def first(*options):
        """The first of the options that is known; a later option is only
        read when the earlier ones leave NULLs (a TRES one, ``(column,
        key)``, after splitting out that column's text: a regex per line)."""
        nonlocal df
        expr = None
        for alt in options:
            if expr is not None and not _needed(df, expr.is_null()):
                break
            if isinstance(alt, tuple):
                df = fetch(df, [alt[0]])
                alt = _tres(df.columns, *alt)
            expr = alt if expr is None else pl.coalesce([expr, alt])
        return expr

    cpus = first(_count(df, cols, "NCPUS"), _count(df, cols, "AllocCPUS"), ("AllocTRES", "cpu"))
    nodes = first(_count(df, cols, "NNodes"), ("AllocTRES", "node"))
    req_cpus = first(_count(df, cols, "ReqCPUS"), ("ReqTRES", "cpu"), cpus)
    req_nodes = first(_count(df, cols, "ReqNodes"), ("ReqTRES", "node"), nodes)
    # the minimum node count asked for (jobs.min_nodes): ReqNodes, else ReqTRES node=; never the nodes held
    min_nodes = first(_count(df, cols, "ReqNodes"), ("ReqTRES", "node"))
    # gres/gpu counts as read by the scan (sacct_scan._read_gpus, the twin of _tres(..., "gres/gpu"))
    gpus = pl.coalesce([pl.col(f"_gpus_{c}") if c in cols else pl.lit(None, pl.Int64) for c in TRES])
    # the GPUs asked for (ReqTRES), apart from those held: 0 where the request names none, NULL where the
    # dump cannot say (no ReqTRES column; an empty field; a gres/gpu count that does not fit)
    req_gpus = pl.lit(None, pl.Int64)
    if "ReqTRES" in cols:
        found, text = pl.col("_gpus_ReqTRES"), pl.col("ReqTRES")  # (ReqTRES is viewed: sacct_scan.Plan)
        unread = text.is_null() | (text.str.contains("gres/gpu=", literal=True)
                                   if _needed(df, found.is_null() & text.str.contains("gres/gpu=", literal=True))
                                   else pl.lit(False))
        req_gpus = pl.when(found.is_not_null()).then(found).when(unread).then(None).otherwise(pl.lit(0, pl.Int64))
    # a dump without Submit (default sacct fields) is read without times: no time is "bad"
    bad_submit = naive["Submit"].is_null() if "Submit" in cols else pl.lit(False)
    df = df.with_columns(
        submit.alias("_submit"), start.alias("_start"), end.alias("_end"), elapsed.alias("_elapsed"),
        bad_submit.alias("_bad_submit"),
        (naive["Start"].is_null() & ~_missing(cols, "Start")).alias("_bad_start"),
        (naive["Eligible"].is_null() & ~_missing(cols, "Eligible")).alias("_bad_eligible"),
        pl.col("_e3").alias("_eligible"),
        (naive["End"].is_null() & ~_missing(cols, "End")).alias("_bad_end"),
        (naive["Submit"].is_not_null() & submit.is_null()).alias("_gap_submit"),
        (naive["Start"].is_not_null() & start.is_null()).alias("_gap_start"),
        (naive["End"].is_not_null() & end.is_null()).alias("_gap_end"),
        pl.when(no_limit).then(None).otherwise(limit).alias("_req"),
        no_limit.alias("_unlimited"),
        year.alias("_year"),
        ((tl.is_not_null() | _given(df, cols, "TimelimitRaw")) & ~no_limit.fill_null(False)
         & limit.is_null()).alias("_bad_limit"),
        (cpus if size == "cpus" else nodes).alias("_procs"),
        cpus.alias("_cpus"), nodes.alias("_nodes"),
        (req_cpus if size == "cpus" else req_nodes).alias("_req_procs"),
        gpus.alias("_gpus"), req_gpus.alias("_req_gpus"),
        pl.coalesce([cpus, req_cpus]).alias("_cores"),  # cores and nodes apart, whatever --size counts
        pl.coalesce([nodes, req_nodes]).alias("_node_count"),
        min_nodes.alias("_min_nodes"),
        _mem_kb(cols, cpus, "_mem_kb" in df.columns).alias("_req_mem"),
        # a count given but not read as a whole number (20 digits, a sign, a fraction): named, not passed over
        *((_given(df, cols, c) & _count(df, cols, c).is_null() & ~_no_limit_word(df, c)).alias(f"_badn_{c}")
          for c in sc.COUNTS if c in cols),
    )
    return df.drop([f"_n_{c}" for c in times] + [f"_m_{c}" for c in times if c in cols] + ["_e0", "_e1", "_e2", "_e3"]
           + [f"_gpus_{c}" for c in TRES if c in cols] + [c for c in ("_mem_kb", "_mem_per_cpu") if c in df.columns]
           + [c for c in df.columns if c.startswith(("_i_", "_u_"))]), fmt


def _check_time_format(df: pl.DataFrame, cols: list[str], fetch, fmt: str, label: str) -> None:
    """Refuse ``--time-format`` on a dump whose times are ISO 8601 (sacct's default) and do not read so in
    ``fmt`` (``%s`` on ``2026-11-29T03:44:45``): the user asked for a form the file is not in."""
    for i, c in enumerate(cols):
        if c not in TIMES:
            continue
        first = df.filter(pl.col(f"_n_{c}").is_not_null()).head(1)
        if not first.height:
            continue
        row = fetch(first, [c])
        text, line = row[c][0], int(row["line"][0])
        if pl.select(st.parse_times(pl.lit(text), fmt)).item() != row[f"_n_{c}"][0]:
            raise WalltimeError(f'{label}:{line}: field {i + 1} ({c}) is "{quote(text)}", not a time in --time-format '
                                f"{fmt}: the dump's times are ISO 8601 (sacct's default); drop --time-format")
        return


def _detect_format(df: pl.DataFrame, cols: list[str], slow: list[str], label: str) -> str | None:
    """The SLURM_TIME_FORMAT of times the ISO reader left (slurmtime.detect_format);
    a WalltimeError naming a line when two forms read them all differently."""
    parts = [df.select(pl.col("line"), pl.col(c).alias("v")).filter(~pl.col("v").fill_null("").is_in(st.MISSING_TIME))
             for c in slow]
    values = pl.concat(parts)
    fmt, others = st.detect_format(values["v"])
    if others:
        other, k = others[0]
        raise WalltimeError(f'{label}:{values["line"][k]}: the time "{values["v"][k]}" reads differently as '
                            f"{fmt} and as {other}, and both read every time of the dump; give --time-format "
                            "(the SLURM_TIME_FORMAT sacct ran with)")
    return fmt


def _missing(cols: list[str], name: str) -> pl.Expr:
    """The time column is absent or says the event has not happened (None, Unknown, empty)."""
    if name in TIMES and name in cols:
        return pl.col(f"_m_{name}")  # read by the scan
    return pl.col(name).fill_null("").is_in(st.MISSING_TIME) if name in cols else pl.lit(True)


_MEM_UNIT = {"K": 1.0, "M": 1024.0, "G": 1024.0**2, "T": 1024.0**3}


def _mem_kb(cols: list[str], cpus: pl.Expr, scanned: bool = False) -> pl.Expr:
    """ReqMem as KB per processor (the SWF unit). Slurm >= 21 prints the job
    total (``4500M``); older ones add ``c`` (per CPU) or ``n`` (per node).
    ``scanned``: the scan read every value (``_mem_kb``, ``_mem_per_cpu``:
    sacct_scan._read_mem, the twin of the rule below); else read by slicing
    off the suffix letters (a regex costs 5x more)."""
    per_cpu = pl.when(cpus > 0).then(cpus).otherwise(None)
    if scanned:
        return pl.when(pl.col("_mem_per_cpu")).then(pl.col("_mem_kb")).otherwise(pl.col("_mem_kb") / per_cpu)
    s = _opt(cols, "ReqMem")
    last = s.str.slice(-1)
    per = pl.when(last.is_in(["c", "n"])).then(last)
    core = pl.when(per.is_not_null()).then(s.str.slice(0, s.str.len_bytes() - 1)).otherwise(s)
    u = core.str.slice(-1)
    unit = pl.when(u.is_in(list(_MEM_UNIT))).then(u)
    digits = pl.when(unit.is_not_null()).then(core.str.slice(0, core.str.len_bytes() - 1)).otherwise(core)
    ok = digits.str.contains(r"^[\d.]+$")
    value = pl.when(ok).then(digits.cast(pl.Float64, strict=False))
    kb = value * unit.replace_strict(_MEM_UNIT, default=1024.0, return_dtype=pl.Float64)
    return pl.when(per == "c").then(kb).otherwise(kb / pl.when(cpus > 0).then(cpus).otherwise(None))


_COUNT_WHY = {"TimelimitRaw": "a whole number of minutes", "ElapsedRaw": "a whole number of seconds"}


def _range_sources(cols: list[str], size: str) -> dict[str, str]:
    """The column each value checked by ranges.job_checks is read from (the first present, as _typed reads them)."""
    def first(*names):
        return next((c for c in names if c in cols), names[-1])

    procs = first("NCPUS", "AllocCPUS", "AllocTRES") if size == "cpus" else first("NNodes", "AllocTRES")
    req = first("ReqCPUS", "ReqTRES", procs) if size == "cpus" else first("ReqNodes", "ReqTRES", procs)
    return {"submit": "Submit", "start": "Start", "end": "End", "eligible": "Eligible",
            "run": first("ElapsedRaw", "Elapsed"),
            "req": first("TimelimitRaw", "Timelimit"), "procs": procs, "req_procs": req}


def _errors(df: pl.DataFrame, cols: list[str], raw, fetch, size: str = "cpus",
            fmt: str | None = None) -> tuple[pl.DataFrame, list[BadLine]]:
    """Rows with a value that cannot be read or is out of range (ranges.py),
    the first problem of each named (with the text of the fields named:
    ``fetch(df, names)`` adds it)."""
    def field(name):
        return f"field {cols.index(name) + 1} ({name})" if name in cols else name

    def v(name):
        return pl.lit('"') + _opt(cols, name).fill_null("") + pl.lit('"')

    like = (f"in --time-format {fmt}" if fmt is not None else
            "like 2026-11-22T13:54:43 or Unix seconds (SLURM_TIME_FORMAT=%s); for another SLURM_TIME_FORMAT "
            "give --time-format")
    checks = [
        (pl.col("_badid"), pl.lit(f"{field('JobID')} is ") + v("JobID") + pl.lit(", expected a Slurm job id like 123, 123_4 or 123+0")),
        (pl.col("_bad_submit"), pl.lit(f"{field('Submit')} is ") + v("Submit") + pl.lit(f", expected a time {like}")),
        (pl.col("_bad_start"), pl.lit(f"{field('Start')} is ") + v("Start") + pl.lit(", expected a time, None or Unknown")),
        (pl.col("_bad_end"), pl.lit(f"{field('End')} is ") + v("End") + pl.lit(", expected a time, None or Unknown")),
        (pl.col("_bad_eligible"), pl.lit(f"{field('Eligible')} is ") + v("Eligible")
         + pl.lit(", expected a time, None or Unknown")),
        (pl.col("_gap_submit") | pl.col("_gap_start") | pl.col("_gap_end"),
         pl.lit("a time falls in the hour skipped by a daylight-saving change; check --tz")),
        (pl.col("_bad_limit"), pl.lit(f"{field('Timelimit' if 'Timelimit' in cols else 'TimelimitRaw')} is ")
         + v("Timelimit" if "Timelimit" in cols else "TimelimitRaw")
         + pl.lit(", expected [D-]HH:MM:SS, MM, UNLIMITED or Partition_Limit")),
        (pl.col("_bad_state"), pl.lit(f"{field('State')} is ") + v("State")
         + pl.lit(", expected a Slurm job state (COMPLETED, FAILED, TIMEOUT, CANCELLED, ...)")),
        (pl.col("_procs").is_null() & pl.col("_req_procs").is_null(),
         pl.lit("no size: NCPUS/AllocCPUS/NNodes/AllocTRES are all empty or not numbers")),
    ]
    checks += [(pl.col(f"_badn_{c}"), pl.lit(f"{field(c)} is ") + v(c)
                + pl.lit(f", expected {_COUNT_WHY.get(c, ranges.SIZE_WHY[9:])}"))
               for c in sc.COUNTS if c in cols]
    source = _range_sources(cols, size)
    checks += ranges.job_checks(lambda k: pl.lit(f"{field(source[k])} is ") + v(source[k]),
                                lambda k: source.get(k) in cols)
    is_bad = pl.any_horizontal([ok.fill_null(False) for ok, _ in checks])
    if not _needed(df, is_bad):  # the usual case: keep every row, copy nothing
        return df, []
    df = df.with_columns(is_bad.alias("_is_bad"))
    bad_rows = fetch(df.filter(pl.col("_is_bad")), [*TIMES, "TimelimitRaw", *sc.COUNTS, *source.values()])
    reason = pl.coalesce([pl.when(ok).then(msg) for ok, msg in checks])
    bad = [BadLine(int(r["line"]), None, r["_reason"], raw(r["line"]))
           for r in bad_rows.select("line", reason.alias("_reason")).iter_rows(named=True)]
    return df.filter(~pl.col("_is_bad")).drop("_is_bad"), bad


def _duplicates(df: pl.DataFrame, cols: list[str], raw) -> tuple[pl.DataFrame, list[BadLine], pl.DataFrame | None]:
    """Rows that share a JobID. ``sacct --duplicates`` prints every attempt of
    a requeued job (REQUEUED, PREEMPTED, NODE_FAIL, ... then the last one),
    each with its own Submit: the attempt's queue entry, so a later attempt's
    Submit is the time of the requeue. The rule: the rows of one JobID, in
    the order of their Submit (then line), are its attempts; the last is the
    job, the earlier ones are returned apart (``job_attempts``). A row with
    the same Submit as the row before it, or after a row that has not ended,
    is not a new attempt but a repeated line: refused."""
    if df.select(pl.col("JobID").n_unique()).item() == df.height:  # the usual case: nothing to name
        return df, [], None
    df = df.sort(["JobID", "_submit", "line"], nulls_last=True).with_columns(
        pl.col("line").shift(1).over("JobID").alias("_prev_line"),
        ((pl.col("_submit") == pl.col("_submit").shift(1).over("JobID"))
         | (pl.col("line").shift(1).over("JobID").is_not_null() & pl.col("_end").shift(1).over("JobID").is_null()))
        .fill_null(False).alias("_repeat"),
        # an attempt that starts before the one before it ended: two attempts of one job at once
        (pl.col("_start") < pl.col("_end").shift(1).over("JobID")).fill_null(False).alias("_overlap"))
    f = cols.index("JobID") + 1
    bad = [BadLine(int(r["line"]), f, f'field {f} (JobID) is "{r["JobID"]}", a duplicate of line {r["_prev_line"]} '
                   "(same Submit, or after an attempt that has not ended: not a requeued attempt)", raw(r["line"]))
           for r in df.filter(pl.col("_repeat")).select("line", "JobID", "_prev_line").iter_rows(named=True)]
    g = cols.index("Start") + 1 if "Start" in cols else 0
    bad += [BadLine(int(r["line"]), g, f'field {g} (Start) of job {r["JobID"]}: this attempt starts before the '
                    f'attempt on line {r["_prev_line"]} ended; attempts of one job cannot overlap', raw(r["line"]))
            for r in df.filter(pl.col("_overlap") & ~pl.col("_repeat")).select("line", "JobID", "_prev_line")
            .iter_rows(named=True)]
    df = df.filter(~pl.col("_repeat") & ~pl.col("_overlap")).drop("_repeat", "_prev_line", "_overlap").with_columns(
        (pl.int_range(pl.len()).over("JobID") + 1).alias("_attempt"), pl.len().over("JobID").alias("_attempts"))
    last = pl.col("_attempt") == pl.col("_attempts")
    earlier = attempt_rows(df.filter(~last), pl.col("_cpus"), pl.col("_nodes"), _opt(cols, "State"),
                           _opt(cols, "ExitCode"))
    return df.filter(last).drop("_attempt", "_attempts").sort("line"), bad, (earlier if earlier.height else None)


def attempt_rows(df: pl.DataFrame, cpus: pl.Expr, nodes: pl.Expr, state: pl.Expr, exit_code: pl.Expr) -> pl.DataFrame:
    """The ``job_attempts`` rows (sql/ingest_attempts.sql) of earlier attempts
    numbered in ``_attempt``: times as Unix seconds, run = End - Start (else Elapsed).
    Shared by the text ``--duplicates`` reader and the JSON reader."""
    ended = pl.col("_start").is_not_null() & pl.col("_end").is_not_null()
    return df.select(
        pl.col("JobID").alias("slurm_id"), pl.col("_attempt").cast(pl.Int64).alias("attempt"),
        pl.col("_submit").alias("submit_epoch"), pl.col("_eligible").alias("eligible_epoch"),
        pl.col("_start").alias("start_epoch"), pl.col("_end").alias("end_epoch"),
        pl.when(ended).then(pl.col("_end") - pl.col("_start")).otherwise(pl.col("_elapsed")).alias("run"),
        cpus.alias("cpus"), nodes.alias("nodes"), pl.col("_gpus").alias("gpus"),
        state.alias("state"), exit_code.alias("exit_code"), pl.col("line"))


def _jobs(df: pl.DataFrame, cols: list[str], release: str = "eligible") -> tuple[pl.DataFrame, dict]:
    """The jobs in submission order, numbered 1.. (``job_id``), with the SWF
    columns relative to the first submission. ``release`` 'eligible': the
    wait counts from Eligible where the log has it (never before Submit),
    'submit': from Submit."""
    df = df.with_columns(
        pl.when(pl.col("_has_task")).then(pl.col("_base")).alias("array_job_id"),
        pl.col("_task_id").alias("array_task_id"),
        pl.when(pl.col("_het").is_not_null()).then(pl.col("_base")).alias("het_job_id"),
        pl.col("_het").alias("het_offset"),
    )
    order = df.select(pl.arg_sort_by(["_submit", "_base", "array_task_id", "het_offset", "line"], nulls_last=True))
    order = order.to_series()
    first = df["_submit"].min() if df.height else None
    start0 = int(first) if first is not None else None  # None: a dump without times
    started = pl.col("_start").is_not_null()
    ended = started & pl.col("_end").is_not_null()
    # RUNNING, SUSPENDED, ... at the dump (started, a state that has not ended): censored, run unknown
    live = (started & pl.col("_status").is_null()) if "State" in cols else pl.lit(False)
    run = (pl.when(live).then(None).when(ended).then(pl.col("_end") - pl.col("_start"))
           .when(started).then(pl.col("_elapsed")))
    given = pl.col("_eligible") if "_eligible" in df.columns else pl.lit(None, pl.Int64)  # (table.py: none)
    eligible = pl.max_horizontal(pl.col("_submit"), given)  # (NULL Eligible: Submit)
    waits_from = eligible if release == "eligible" else pl.col("_submit")
    jobs = df.select(
        (pl.col("_submit") - (start0 or 0)).alias("submit"),
        (pl.col("_start") - waits_from).alias("wait"),
        pl.when(given.is_not_null()).then(eligible - (start0 or 0)).alias("eligible"),
        run.alias("run"),
        pl.col("_procs").alias("procs"),
        pl.lit(None, pl.Float64).alias("avg_cpu"),
        pl.lit(None, pl.Float64).alias("used_mem"),
        pl.col("_req_procs").alias("req_procs"),
        pl.col("_req").alias("req"),
        pl.col("_req_mem").alias("req_mem"),
        pl.col("_status").alias("status"),
        _opt(cols, "User").alias("user"),
        _opt(cols, "Group").alias("group_name"),
        _opt(cols, "Account").alias("account"),
        _opt(cols, "Partition").alias("partition"),
        _req_partitions(cols).alias("req_partitions"),
        _opt(cols, "QOS").alias("qos"),
        _opt(cols, "JobName").alias("job_name"),
        pl.col("JobID").alias("slurm_id"),
        "array_job_id", "array_task_id", "het_job_id", "het_offset",
        pl.col("_gpus").alias("gpus"),
        (pl.col("_req_gpus") if "_req_gpus" in df.columns else pl.lit(None, pl.Int64)).alias("req_gpus"),
        pl.col("_cores").alias("cores"),
        pl.col("_node_count").alias("node_count"),
        # the node range asked for (sql/333_req_nodes.sql): ReqNodes (JSON: tres.requested node; tables have
        # none here) and the SubmitLine's -N maximum
        (pl.col("_min_nodes") if "_min_nodes" in df.columns else pl.lit(None, pl.Int64)).alias("min_nodes"),
        _max_nodes(cols).alias("max_nodes"),
        _opt(cols, "State").alias("state"),
        _opt(cols, "ExitCode").alias("exit_code"),
        pl.col("_unlimited"),
        (pl.col("_year") if "_year" in df.columns else pl.lit(False)).alias("_year"),  # (table.py has none)
        live.alias("_live"),
        # a live job's Start + Elapsed: the dump's time, on the submit clock (it held its CPUs until then)
        pl.when(live).then(pl.col("_start") + pl.col("_elapsed") - (start0 or 0)).alias("_held_end"),
        pl.col("line"),
    )
    # sacct prints by job id, not by submission: reorder only the columns kept (not the whole parse)
    if not (order == pl.int_range(0, df.height, eager=True, dtype=order.dtype)).all():
        jobs = jobs[order]
    jobs = jobs.select(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("job_id"), pl.all()).with_columns(
        pl.lit(None, pl.Int64).alias("prev_job_id"),
        pl.lit(None, pl.Int64).alias("think_time"),
    )
    jobs = add_codes(jobs, {"user_id": "user", "group_id": "account", "exe_id": "job_name",
                            "queue_id": "qos", "partition_id": "partition"})
    return jobs, {"unix_start_time": start0}


def _counts(jobs: pl.DataFrame) -> dict:
    return {
        "never_started": int(jobs["wait"].null_count()),
        "no_limit": int(jobs["_unlimited"].sum()),
        "backfill_year": int(jobs["_year"].sum()),
        "running_at_dump": int(jobs["_live"].sum()),
        # when the dump was taken (seconds on the jobs' submit clock): the latest live job's Start + Elapsed
        "dump_end": None if jobs["_held_end"].null_count() == jobs.height else int(jobs["_held_end"].max()),
        "array_tasks": int(jobs["array_job_id"].is_not_null().sum()),
        "het_components": int(jobs["het_job_id"].is_not_null().sum()),
    }


def _live_note(jobs: pl.DataFrame) -> str:
    """The jobs still running (or suspended) when the dump was taken, named."""
    live = jobs.filter(pl.col("_live"))
    ids = live["slurm_id"].head(5).to_list()
    more = f" and {live.height - 5:,} more" if live.height > 5 else ""
    return (f"{live.height:,} job{'s' * (live.height > 1)} still running or suspended at the dump "
            f"({', '.join(ids)}{more}): run unknown (NULL), so left out of R, estimates and accuracy; "
            "simulate replays them holding their CPUs until the dump")
