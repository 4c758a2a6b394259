"""The plain-Python twin of the SWF tokenizer: split each line, convert each field.

Obviously correct and slow; tests compare the Numba path against it job by job.
"""

from __future__ import annotations

from pipeline.ingest.swf import FIELDS


def naive_jobs(data: bytes) -> list[dict]:
    """Job rows ({column: value or None for -1, 'line': n}) of a valid SWF."""
    rows = []
    for n, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
        s = line.strip()
        if not s or s.startswith(";"):
            continue
        tokens = s.split()[:18]
        row = {}
        for (name, _, is_int), tok in zip(FIELDS, tokens):
            value = int(tok) if is_int else float(tok)
            row[name] = None if value == -1 and name != "submit" else value
        row["line"] = n
        rows.append(row)
    return rows
