"""Helpers for the ingest/warehouse tests: warehouse snapshots, SWF files made
from real traces, and the manifest of the shared traces.

A snapshot is everything a user could see: every table's rows (hashed in
DuckDB so big tables stay cheap), the Parquet files and their bytes, and the
lock/temporary-free file list. Two equal snapshots mean "warehouse unchanged".
"""

from __future__ import annotations

import gzip
import hashlib
import re
import sys
from pathlib import Path

import duckdb

from conftest import REPO, TRACES

sys.path.insert(0, str(REPO / "bench"))
import synth_swf  # noqa: E402  (bench/synth_swf.py: big SWF from a real trace)


VOLATILE = ("ingested_at", "written_at", "token", "applied_at")


def snapshot(wh_dir: Path, content_only: bool = False) -> dict:
    """Content of a warehouse: {table: (rows, row-hash sum)}, parquet files, traces rows.

    ``content_only`` leaves out the columns that differ between two runs that
    load the same data (times of writing, mirror tokens)."""
    snap: dict = {"files": {}, "tables": {}}
    if not wh_dir.exists():
        return snap
    for f in sorted(wh_dir.rglob("*")):
        if f.is_file() and not f.name.startswith(".") and f.suffix != ".wal":
            rel = str(f.relative_to(wh_dir))
            snap["files"][rel] = hashlib.sha256(f.read_bytes()).hexdigest() if f.suffix == ".parquet" else "db"
    db = wh_dir / "walltime.duckdb"
    if not db.exists():
        return snap
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [t for (t,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1"
        ).fetchall()]
        for t in tables:
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
                [t]).fetchall() if not (content_only and c in VOLATILE)]
            row = "struct_pack(" + ", ".join(f'"{c}"' for c in cols) + ")"
            snap["tables"][t] = con.execute(
                f'SELECT count(*), sum(hash(CAST({row} AS VARCHAR))::HUGEINT) FROM "{t}"'
            ).fetchone()
        keep = "* EXCLUDE (ingested_at)" if content_only else "*"
        snap["traces"] = [
            r for (r,) in con.execute(f"SELECT CAST(t AS VARCHAR) FROM (SELECT {keep} FROM traces) t ORDER BY 1").fetchall()
        ]
    finally:
        con.close()
    return snap


def temporaries(wh_dir: Path) -> list[Path]:
    return sorted(wh_dir.rglob(".tmp-*"))


def read_swf(name: str) -> bytes:
    """Decompressed bytes of a real trace from $WALLTIME_TRACES."""
    from conftest import trace_path

    return gzip.decompress(trace_path(name).read_bytes())


def job_line_numbers(text: str) -> list[int]:
    """1-based physical line numbers of the job (non-';', non-blank) lines."""
    return [i for i, ln in enumerate(text.split("\n"), 1) if ln.strip() and not ln.lstrip().startswith(";")]


def manifest_rows() -> list[dict]:
    """The table of MANIFEST.md, one dict per trace file (empty if missing)."""
    path = TRACES / "MANIFEST.md"
    if not path.exists():
        return []
    rows = []
    header = None
    for line in path.read_text().splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if set(cells[0]) <= set("-: "):
            continue
        row = dict(zip(header, cells))
        row["file"] = row["file"].strip("`")
        rows.append(row)
    return rows


def parse_manifest_row(row: dict) -> dict:
    """Typed fields of one manifest row."""
    users, groups = (int(x.replace(",", "")) for x in row["users / groups"].split("/"))
    out = {
        "jobs": int(row["jobs"].replace(",", "")),
        "capacity": None if row["capacity"] == "-" else int(row["capacity"].replace(",", "")),
        "req": float(row["req"]),
        "wait": float(row["wait"]),
        "users": users,
        "groups": groups,
    }
    m = re.match(r"(\d{4}-\d\d-\d\d) \.\. (\d{4}-\d\d-\d\d)", row["submissions"])
    if m:
        out["first"], out["last"] = m.group(1), m.group(2)
    else:
        out["relative_days"] = int(re.match(r"relative, (\d+) days", row["submissions"]).group(1))
    return out


class Ran:
    """What a CLI run returned (the fields of subprocess.CompletedProcess we use)."""

    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def check_returncode(self):
        assert self.returncode == 0, self.stderr


def run_inproc(*args: str, warehouse: Path | None = None, cwd: Path | None = None) -> Ran:
    """The real CLI entry point (pipeline.cli.main) in this process: same code
    path as the console script, without paying the interpreter start-up for
    each of many small cases. Subprocess runs cover the process boundary."""
    import contextlib
    import io
    import os

    from pipeline.cli import main

    argv = list(args) + (["--warehouse", str(warehouse)] if warehouse is not None else [])
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.environ["WALLTIME_PROGRESS"] = "0"
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(argv)
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        os.chdir(old)
    return Ran(code, out.getvalue(), err.getvalue())
