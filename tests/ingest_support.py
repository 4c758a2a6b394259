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


VOLATILE = ("ingested_at", "written_at", "token", "applied_at", "root")


def snapshot(wh_dir: Path, content_only: bool = False) -> dict:
    """Content of a warehouse: {table: (rows, row-hash sum)}, parquet files, traces rows.

    ``content_only`` leaves out the columns that differ between two runs that
    load the same data (times of writing, mirror tokens, the directory) and
    names a trace's jobs files by part, not by token. Jobs files that no
    committed ``jobs_files`` row names are invisible (a writer killed before its
    COMMIT left them; the next writer deletes them: :func:`uncommitted_jobs_files`)
    and are not part of the snapshot; the ``jobs`` view's rows are."""
    from pipeline.warehouse import Warehouse

    snap: dict = {"files": {}, "tables": {}}
    if not wh_dir.exists():
        return snap
    db = wh_dir / "walltime.duckdb"
    committed = _committed_jobs_files(wh_dir) if db.exists() else set()
    for f in sorted(wh_dir.rglob("*")):
        if f.is_file() and not f.name.startswith(".") and f.suffix != ".wal":
            rel = str(f.relative_to(wh_dir))
            m = _JOBS_FILE.match(rel)
            if m:
                if (m.group(1), m.group(2)) not in committed:
                    continue
                if content_only:
                    rel = f"parquet/jobs/{m.group(1)}/part-{m.group(3)}.parquet"
            snap["files"][rel] = hashlib.sha256(f.read_bytes()).hexdigest() if f.suffix == ".parquet" else "db"
    if not db.exists():
        return snap
    con = Warehouse(wh_dir).reader(attach_results=False)  # the jobs view over this directory's files
    try:
        tables = [t for (t,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1"
        ).fetchall()]
        if committed or con.execute("SELECT count(*) FROM information_schema.tables "
                                    "WHERE table_name = 'jobs_files'").fetchone()[0]:
            tables.append("jobs")  # a view over the files since migration 190
        for t in tables:
            cols = [d[0] for d in con.execute(f'SELECT * FROM "{t}" LIMIT 0').description
                    if not (content_only and d[0] in VOLATILE)]
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


_JOBS_FILE = re.compile(r"^parquet/jobs/([^/]+)/([0-9a-f]{32})-(\d+)\.parquet$")


def _committed_jobs_files(wh_dir: Path) -> set[tuple[str, str]]:
    con = duckdb.connect(str(wh_dir / "walltime.duckdb"), read_only=True)
    try:
        if not con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'jobs_files'"
                           ).fetchone()[0]:
            return set()
        return set(con.execute("SELECT trace, token FROM jobs_files").fetchall())
    finally:
        con.close()


def uncommitted_jobs_files(wh_dir: Path) -> list[str]:
    """Jobs files no committed row names (left by a writer killed before COMMIT)."""
    committed = _committed_jobs_files(wh_dir)
    return sorted(str(f.relative_to(wh_dir)) for f in wh_dir.rglob("*.parquet")
                  if (m := _JOBS_FILE.match(str(f.relative_to(wh_dir)))) and (m.group(1), m.group(2)) not in committed)


def temporaries(wh_dir: Path) -> list[Path]:
    return sorted(wh_dir.rglob(".tmp-*"))


def read_swf(name: str) -> bytes:
    """Decompressed bytes of a real trace from $WALLTIME_TRACES."""
    from conftest import trace_path

    return gzip.decompress(trace_path(name).read_bytes())


def swf_head(src: Path, dst: Path, jobs: int) -> Path:
    """``dst``: the header and the first ``jobs`` job lines of the SWF file ``src`` (plain or gzip)."""
    opener = gzip.open if str(src).endswith(".gz") else open
    n = 0
    with opener(src, "rt") as fh, open(dst, "w") as out:
        for line in fh:
            if not line.startswith(";"):
                n += 1
                if n > jobs:
                    break
            out.write(line)
    return dst


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


def back_to_pre_190(wh_dir: Path) -> None:
    """Take a warehouse back to before migration 190, as the code of that time
    left it: ``jobs`` a table holding the rows, each trace's mirror file
    ``parquet/jobs/<trace>.parquet`` recorded in ``parquet_mirrors``, no jobs
    files (for the upgrade tests)."""
    import shutil
    import uuid

    from pipeline.jobs_files import jobs_dir

    con = duckdb.connect(str(wh_dir / "walltime.duckdb"))
    try:
        con.execute("CREATE TEMP TABLE rows_now AS SELECT * FROM main.jobs")  # the view: this directory's files
        con.execute("DROP VIEW main.jobs")
        con.execute("ALTER TABLE jobs_legacy RENAME TO jobs")
        con.execute("INSERT INTO jobs SELECT * FROM rows_now")
        con.execute("DROP TABLE jobs_files")
        con.execute("DELETE FROM schema_migrations WHERE version = 190")
        shutil.rmtree(jobs_dir(wh_dir), ignore_errors=True)
        for (trace,) in con.execute("SELECT DISTINCT trace FROM jobs").fetchall():
            path = jobs_dir(wh_dir) / f"{trace}.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            con.execute(f"COPY (SELECT * FROM jobs WHERE trace = $1 ORDER BY job_id) TO '{path}' (FORMAT parquet)",
                        [trace])
            con.execute("INSERT INTO parquet_mirrors VALUES ('jobs', ?, ?, ?, now())",
                        [trace, uuid.uuid4().hex, con.execute("SELECT count(*) FROM jobs WHERE trace = ?",
                                                              [trace]).fetchone()[0]])
        con.execute("CHECKPOINT")
    finally:
        con.close()
