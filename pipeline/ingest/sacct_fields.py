"""Field separators of a sacct dump: ``sacct --delimiter=X``, and a ``|``
inside a free-text field of a ``--parsable2`` dump.

Why: sacct does not escape its separator. A job named ``a|b`` (``sbatch -J
'a|b'``) prints one field more than the header, and its SubmitLine (``... -J
a|b ...``) another. The compiled scan (sacct_scan) splits at ``|`` only, so
both cases are turned into bytes it reads as they are meant:

- ``--delimiter X``: X and ``|`` swap places in the bytes (one C-level
  ``bytes.translate``), and a ``|`` of the text, now an X, is put back in
  the stored strings (:func:`restore`).
- A line with more fields than the header: the extra separators must sit in
  free-text columns (FREE: JobName, WorkDir, SubmitLine, Comment, ...). Every
  way of giving them to those columns is tried against the shapes of the
  other columns (a time where a time is, a number where a count is, a
  SubmitLine that starts with sbatch/srun/salloc, a WorkDir that starts with
  /). When exactly one way fits, those separators become a byte the file
  does not contain (put back as ``|`` in the strings) and the line is read;
  otherwise it stays a bad line whose reason says why. Only such lines are
  looked at, one by one (they are rare); the usual dump costs nothing here.
"""

from __future__ import annotations

import re
from itertools import combinations

import numpy as np
import polars as pl

BAR = 124
# columns whose text is free (a user or a path chose it): they may hold the separator
FREE = ("JobName", "WorkDir", "SubmitLine", "Comment", "AdminComment", "SystemComment", "Constraints",
        "Container", "Extra", "StdIn", "StdOut", "StdErr", "Licenses", "MCSLabel")
_TIME = r"|None|Unknown|\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?|\d\d/\d\d(?:/\d\d)?-\d\d:\d\d(?::\d\d)?"
_COUNT = r"|\d+|UNLIMITED|Partition_Limit|INFINITE"
_DURATION = r"|UNLIMITED|Partition_Limit|INVALID|(?:\d+-)?\d+(?::\d+){0,2}(?:\.\d+)?"
_WORD = r"\S*"
SHAPES = {
    "JobID": r"\d+(?:_(?:\d+|\[[^\]]*\]))?(?:\+\d+)?(?:\.\S+)?", "JobIDRaw": r"\d+(?:\.\S+)?",
    **{c: _TIME for c in ("Submit", "Eligible", "Start", "End")},
    **{c: _DURATION for c in ("Elapsed", "Timelimit", "CPUTime", "TotalCPU", "UserCPU", "SystemCPU", "Reserved",
                              "Planned", "PlannedCPU")},
    **{c: _COUNT for c in ("ElapsedRaw", "TimelimitRaw", "NNodes", "NCPUS", "AllocCPUS", "AllocNodes", "ReqCPUS",
                           "ReqNodes", "Priority", "CPUTimeRAW", "UID", "GID", "NTasks", "ArrayJobID",
                           "ArrayTaskID", "HetJobID", "HetJobOffset")},
    "State": r"(?:[A-Z_]+(?: by \d+)?)?", "ExitCode": r"(?:\d+:\d+)?", "DerivedExitCode": r"(?:\d+:\d+)?",
    "ReqMem": r"(?:[\d.]+[KMGTP]?[cn]?)?", "AllocTRES": r"(?:[^\s,=]+=[^\s,=]+(?:,[^\s,=]+=[^\s,=]+)*)?",
    "ReqTRES": r"(?:[^\s,=]+=[^\s,=]+(?:,[^\s,=]+=[^\s,=]+)*)?", "NodeList": r"None assigned|\S*",
    **{c: _WORD for c in ("User", "Group", "Account", "Partition", "QOS", "Reason", "Cluster", "ReservationId",
                          "Reservation", "QOSRAW")},
    "WorkDir": r"|/.*", "SubmitLine": r"|\S*(?:sbatch|srun|salloc)(?: .*)?",
}
_COMPILED = {c: re.compile(f"(?:{s})", re.S) for c, s in SHAPES.items()}
MAX_EXTRA = 8  # extra separators on one line tried at most (the ways grow as C(extra + free - 1, extra))


def swap_table(delimiter: int) -> bytes:
    """``bytes.translate`` table exchanging ``delimiter`` and ``|`` (its own inverse)."""
    return bytes.maketrans(bytes([delimiter, BAR]), bytes([BAR, delimiter]))


def free_byte(data: bytes, delimiter: int) -> int | None:
    """A control byte that is neither in ``data`` nor the delimiter (stands for a
    separator that belongs to a field); None when the file holds them all."""
    for b in (31, 30, 29, 28, 7, 1, 2, 3, 4, 5, 6, 8, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27):
        if b != delimiter and data.find(bytes([b])) < 0:
            return b
    return None


def readings(parts: list[str], cols: list[str]) -> list[tuple[int, ...]]:
    """Every way (extra separators per free-text column, in header order) that
    gives ``parts`` (one line split at every separator) the header's shape."""
    k = len(parts) - len(cols)
    free = [i for i, c in enumerate(cols) if c in FREE]
    if k <= 0 or not free or k > MAX_EXTRA:
        return []
    out = []
    m = len(free)
    for bars in combinations(range(k + m - 1), m - 1):  # stars and bars: k extras into m columns
        cuts = (-1, *bars, k + m - 1)
        extra = tuple(cuts[j + 1] - cuts[j] - 1 for j in range(m))
        if _fits(parts, cols, dict(zip(free, extra))):
            out.append(extra)
    return out


def _fits(parts: list[str], cols: list[str], extra: dict[int, int]) -> bool:
    p = 0
    for i, c in enumerate(cols):
        e = extra.get(i, 0)
        value = "|".join(parts[p:p + 1 + e])
        p += 1 + e
        shape = _COMPILED.get(c)
        if shape is not None and not shape.fullmatch(value):
            return False
    return True


def rejoin(data: bytes, starts: np.ndarray, ends: np.ndarray, rows: np.ndarray, cols: list[str],
           placeholder: int | None, delimiter: int = BAR):
    """Lines ``rows`` (0-based, more fields than the header) read once more.
    Returns (new bytes or None, lines rejoined, {row: reason} for the others)."""
    out = bytearray(data) if placeholder is not None else None
    done, why = 0, {}
    free_at = [i for i, c in enumerate(cols) if c in FREE]
    free = [cols[i] for i in free_at]
    sep = "|" if delimiter == BAR else f"delimiter {delimiter:#04x}"
    for r in rows:
        a, b = int(starts[r]), int(ends[r])
        line = data[a:b]
        parts = line.decode("utf-8", "replace").split("|")
        got = readings(parts, cols)
        nf, n = len(parts), len(cols)
        if len(got) == 1 and placeholder is not None:
            bars = [a + j for j, x in enumerate(line) if x == BAR]  # bar t ends field part t
            extra = dict(zip(free_at, got[0]))
            p = 0
            for i in range(n):
                e = extra.get(i, 0)
                for t in range(p, p + e):  # the separators inside field i
                    out[bars[t]] = placeholder
                p += 1 + e
            done += 1
            continue
        if len(got) == 1:  # (no stand-in byte: the file holds every control byte)
            why[r] = f"the line has {nf} fields, the header {n}: a {sep} inside a field; dump with sacct --delimiter"
        elif not free:
            why[r] = f"the line has {nf} fields, the header {n}; no free-text column ({', '.join(FREE[:3])}, ...) can hold the extra {sep}"
        elif len(got) > 1:
            cands = [cols[i] for k, i in enumerate(free_at) if any(x[k] for x in got)]
            why[r] = (f"the line has {nf} fields, the header {n}: a {sep} inside a field, but {len(got)} readings fit "
                      f"(in {', '.join(cands)}); dump with sacct --delimiter (docs/ingest.md, Delimiters)")
        else:
            why[r] = (f"the line has {nf} fields, the header {n}; no reading of the extra {sep} as part of "
                      f"{', '.join(free)} fits the other fields")
    return (bytes(out) if out is not None and done else None), done, why


def restore(jobs: pl.DataFrame, back: dict[str, str]) -> pl.DataFrame:
    """The string columns of ``jobs`` with the stand-in characters put back (``back``: stand-in -> original)."""
    cols = [c for c, t in jobs.schema.items() if t == pl.String and not c.startswith("_")]
    exprs = []
    for c in cols:
        e = pl.col(c)
        for a, b in back.items():
            e = e.str.replace_all(a, b, literal=True)
        exprs.append(e)
    return jobs.with_columns(exprs)
