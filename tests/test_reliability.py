"""Issue 9, one test per defect: `sql` writes nothing anywhere; every Parquet
mirror heals (also after a kill right after COMMIT); local workers die with
their coordinator; readers answer during a write; no traceback for bad
ingest input, bad options, bad study files, a full disk, a read-only file
system or a damaged warehouse; refused commands and dry runs create nothing;
error messages quote raw input safely.

Everything runs the real CLI on real DuckDB files and real processes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from conftest import run_cli
from ingest_support import run_inproc, snapshot
from pipeline.generate import generate_file
from pipeline.jobs_files import committed_files

LINE = "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"


def files(wh: Path) -> dict[str, str]:
    """Every byte of the warehouse (the writer lock file, which holds the last
    writer's pid, aside): equal dicts mean byte-identical warehouses."""
    if not wh.exists():
        return {}
    return {str(f.relative_to(wh)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(wh.rglob("*")) if f.is_file() and f.name != ".writer.lock"}


def one_line_error(proc, *needles) -> None:
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    for n in needles:
        assert n in proc.stderr, (n, proc.stderr)


@pytest.fixture(scope="module")
def swf(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("swf")
    generate_file(d / "small.swf", jobs=1500, seed=5, capacity=64, load=0.7)
    return d / "small.swf"


@pytest.fixture(scope="module")
def base(tmp_path_factory, swf) -> Path:
    """A warehouse with one small trace, its request estimates and one run."""
    wh = tmp_path_factory.mktemp("base") / "wh"
    run_cli("ingest", str(swf), warehouse=wh, check=True)
    run_cli("simulate", "small", warehouse=wh, check=True)
    return wh


@pytest.fixture
def wh(base, tmp_path) -> Path:
    out = tmp_path / "wh"
    shutil.copytree(base, out)
    return out


def table_rows(wh: Path, sql: str, params=()) -> int:
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchone()[0]
    finally:
        con.close()


# -- data safety -------------------------------------------------------------

def test_sql_import_database_cannot_overwrite_the_warehouse(wh, tmp_path):
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "schema.sql").write_text(f"COPY (SELECT 1) TO '{wh / 'walltime.duckdb'}';\n")
    (evil / "load.sql").write_text("")
    before = files(wh)
    for q in (f"PRAGMA import_database('{evil}')", f"IMPORT DATABASE '{evil}'",
              f"COPY (SELECT 1) TO '{tmp_path / 'x.csv'}'", f"EXPLAIN PRAGMA import_database('{evil}')",
              "SET enable_external_access = true", "CALL pragma_version()",
              f"SELECT 1; ATTACH '{tmp_path / 'y.duckdb'}' AS y"):
        ran = run_inproc("sql", q, warehouse=wh)
        one_line_error(ran, "statements are refused")
    assert files(wh) == before and not (tmp_path / "x.csv").exists() and not (tmp_path / "y.duckdb").exists()
    assert run_inproc("traces", warehouse=wh).returncode == 0


def test_sql_reads_nothing_outside_the_database(wh):
    for q in ("SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM glob('/etc/*')",
              f"SELECT count(*) FROM read_parquet('{wh}/parquet/estimates/small.parquet')"):
        one_line_error(run_inproc("sql", q, warehouse=wh), "sql: ")
    ok = run_inproc("sql", "SELECT count(*) AS n FROM jobs", "--json", warehouse=wh)
    assert ok.returncode == 0 and json.loads(ok.stdout) == [{"n": 1500}]
    ok = run_inproc("sql", "EXPLAIN SELECT count(*) FROM jobs", warehouse=wh)
    assert ok.returncode == 0, ok.stderr


def test_sqlite_file_as_warehouse_loads_no_extension(tmp_path):
    wh = tmp_path / "wh"
    wh.mkdir()
    con = sqlite3.connect(wh / "walltime.duckdb")
    con.execute("CREATE TABLE x(a)")
    con.commit()
    con.close()
    before = files(wh)
    env = {"HOME": str(tmp_path)}  # an extension download would land in $HOME/.duckdb
    for args in (("traces",), ("sql", "SELECT 1"), ("ingest", str(tmp_path / "none.swf"))):
        one_line_error(run_cli(*args, warehouse=wh, env=env), "walltime.duckdb")
    assert files(wh) == before
    assert not (tmp_path / ".duckdb").exists()


def _mirror_rows(wh: Path, mirror: str, key: str) -> int | None:
    path = wh / "parquet" / mirror / f"{key}.parquet"
    return pq.ParquetFile(path).metadata.num_rows if path.exists() else None


def test_estimates_mirror_survives_a_kill_right_after_commit(wh):
    proc = run_cli("estimate", "small", "--scheme", "ave2", warehouse=wh,
                   env={"WALLTIME_TEST_KILL_AT": "after-commit"})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    # committed: the table has both schemes; the next command brings the mirror in step
    assert table_rows(wh, "SELECT count(*) FROM estimates WHERE trace = 'small'") == 3000
    run_cli("estimate", "small", "--scheme", "request", warehouse=wh, check=True)
    assert _mirror_rows(wh, "estimates", "small") == 3000
    assert not list(wh.rglob(".tmp-*"))


def test_every_mirror_survives_a_kill_right_after_commit(wh, swf, tmp_path):
    """ingest (jobs files), simulate (sim_jobs, and estimates computed on the way)."""
    other = tmp_path / "other.swf"
    generate_file(other, jobs=700, seed=8, capacity=64, load=0.7)
    kill = {"WALLTIME_TEST_KILL_AT": "after-commit"}
    assert run_cli("ingest", str(other), warehouse=wh, env=kill).returncode == -signal.SIGKILL
    assert run_cli("simulate", "small", "--estimate", "actual", warehouse=wh,
                   env=kill).returncode == -signal.SIGKILL  # one COMMIT: estimates and run
    run_id = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True).execute(
        "SELECT run_id FROM runs WHERE estimate = 'actual'").fetchone()[0]
    run_cli("estimate", "small", "--scheme", "request", warehouse=wh, check=True)  # any writer heals
    assert sum(pq.ParquetFile(f).metadata.num_rows for f in committed_files(wh, "other")) == 700
    assert table_rows(wh, "SELECT count(*) FROM jobs WHERE trace = 'other'") == 700
    assert _mirror_rows(wh, "estimates", "small") == 3000
    assert _mirror_rows(wh, "sim_jobs", run_id) == 1500
    assert not list(wh.rglob(".tmp-*"))


@pytest.mark.parametrize("damage", ["stale", "missing"])
def test_a_stale_or_missing_mirror_is_rebuilt_by_the_next_writer(wh, swf, tmp_path, damage):
    """A warehouse from before staged estimates mirrors may hold one out of step."""
    path = wh / "parquet" / "estimates" / "small.parquet"
    if damage == "stale":
        t = pq.read_table(path)
        pq.write_table(t.slice(0, t.num_rows // 2), path)
    else:
        path.unlink()
    (wh / "parquet" / "sim_jobs").joinpath("gone.parquet").write_bytes(b"junk")  # a mirror of no run
    # a study with two local worker processes: the workers read the mirrors
    study = tmp_path / "s.toml"
    study.write_text(f'[[traces]]\npath = "{swf}"\n[[simulations]]\npolicy = ["sjf", "wfp"]\n')
    proc = run_cli("run", str(study), "--workers", "2", warehouse=wh)
    assert proc.returncode == 0, proc.stderr
    assert _mirror_rows(wh, "estimates", "small") == 1500
    assert not (wh / "parquet" / "sim_jobs" / "gone.parquet").exists()
    for run_id in [r for (r,) in duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
                   .execute("SELECT run_id FROM runs").fetchall()]:
        assert _mirror_rows(wh, "sim_jobs", run_id) == 1500


def test_a_mirror_with_old_columns_is_rebuilt_by_the_next_writer(wh):
    """A mirror written by an older version may lack a column while holding
    every row: healing compares the columns too, so the next writer rebuilds it.
    (A trace's jobs are no mirror since migration 190: their files are the data.)"""
    path = wh / "parquet" / "estimates" / "small.parquet"
    new = pq.read_table(path)
    pq.write_table(new.drop_columns(["hist"]), path)
    assert pq.ParquetFile(path).metadata.num_rows == new.num_rows
    run_cli("estimate", "small", "--scheme", "request", warehouse=wh, check=True)  # any writer heals
    healed = pq.read_table(path)
    assert healed.schema.names == new.schema.names and healed.to_pydict() == new.to_pydict()
    assert not list(wh.rglob(".tmp-*"))


def test_a_mirror_with_renamed_columns_is_rebuilt(wh):
    """Same row count, same number of columns, one name different."""
    path = wh / "parquet" / "estimates" / "small.parquet"
    new = pq.read_table(path)
    pq.write_table(new.rename_columns([("estimate" if n == "est" else n) for n in new.schema.names]), path)
    run_cli("estimate", "small", "--scheme", "request", warehouse=wh, check=True)
    assert pq.read_table(path).to_pydict() == new.to_pydict()


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
def test_local_workers_die_with_their_coordinator(tmp_path):
    trace = tmp_path / "big.swf"
    generate_file(trace, jobs=40000, seed=9, capacity=128, load=0.9)
    study = tmp_path / "s.toml"
    study.write_text(f'[[traces]]\npath = "{trace}"\n[[simulations]]\npolicy = ["fcfs", "sjf", "lwf", "wfp"]\n'
                     'backfill = ["easy", "conservative"]\nload_factor = [0.8, 0.9, 1.1]\n')
    env = {**os.environ, "WALLTIME_PROGRESS": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "run", str(study), "--workers", "2",
                             "--warehouse", str(tmp_path / "wh")], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 300
        family: set[int] = set()
        while time.monotonic() < end and len(family) < 3:  # forkserver + 2 workers (+ tracker)
            assert proc.poll() is None, "the run ended before its workers started"
            family = _descendants(proc.pid)
            time.sleep(0.2)
        assert len(family) >= 3, family
        time.sleep(1.0)
        family = _descendants(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    end = time.monotonic() + 15
    while time.monotonic() < end and any(_alive(p) for p in family):
        time.sleep(0.2)
    left = [p for p in family if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"processes outlived their coordinator: {left}"


# -- readers are never locked out ----------------------------------------------

def test_readers_answer_while_a_long_simulation_runs(wh):
    env = {**os.environ, "WALLTIME_PROGRESS": "0"}
    writer = subprocess.Popen([sys.executable, "-m", "pipeline", "simulate", "small", "--policy", "wfp",
                               "--backfill", "conservative", "--split", "month", "--force",
                               "--warehouse", str(wh)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    answers = 0
    try:
        while writer.poll() is None:
            t0 = time.monotonic()
            ran = run_cli("sql", "SELECT count(*) AS n FROM jobs", "--json", warehouse=wh)
            assert ran.returncode == 0, ran.stderr
            assert json.loads(ran.stdout) == [{"n": 1500}]
            assert time.monotonic() - t0 < 15
            ran = run_cli("traces", "--json", warehouse=wh)
            assert ran.returncode == 0, ran.stderr
            answers += 1
    finally:
        out, err = writer.communicate(timeout=300)
    assert writer.returncode == 0, err
    assert answers >= 1


def test_a_writer_blocked_by_a_reader_says_so(wh, swf, tmp_path):
    script = ("import duckdb, sys, time\n"
              f"con = duckdb.connect({str(wh / 'walltime.duckdb')!r}, read_only=True)\n"
              "print('ready', flush=True)\ntime.sleep(60)\n")
    reader = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "ready"
        before = files(wh)
        other = tmp_path / "other.swf"
        other.write_text(swf.read_text().replace("\n1 ", "\n1 ", 1) + "\n")
        proc = run_cli("ingest", str(other), "--name", "other", warehouse=wh, env={"WALLTIME_WRITE_WAIT": "1"})
        one_line_error(proc, "warehouse is busy", "a reader", f"(pid {reader.pid})")
        assert files(wh) == before
    finally:
        reader.kill()
        reader.wait()


# -- no traceback: ingest -------------------------------------------------------

INGEST_BAD = {
    "submit_year_10000": ("; MaxProcs: 8\n" + LINE + "2 999999999999999999 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n",
                          ":3: field 2 (submit time)"),
    "maxprocs_20_digits": ("; MaxProcs: 99999999999999999999\n" + LINE, ':1: header "MaxProcs"'),
    "unixstart_20_digits": ("; UnixStartTime: 99999999999999999999\n" + LINE, ':1: header "UnixStartTime"'),
    "unixstart_far": ("; UnixStartTime: 999999999999\n" + LINE, ':1: header "UnixStartTime"'),
    "run_overflows_later": ("; MaxProcs: 8\n1 0 10 999999999999999999 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n",
                            ":2: field 4 (run time)"),
    "area_overflows_later": ("; MaxProcs: 8\n1 0 10 6000000000 2000000000 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n",
                             ":2: field 4 (run time)"),
    "procs_beyond_int32": ("1 0 10 100 99999999999 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n",
                           ":1: field 5 (number of allocated processors)"),
    "maxprocs_lots": ("; MaxProcs: lots\n" + LINE, ':1: header "MaxProcs" is "lots"'),
}


@pytest.mark.parametrize("case", sorted(INGEST_BAD))
def test_ingest_out_of_range_is_one_line(wh, tmp_path, case):
    text, needle = INGEST_BAD[case]
    f = tmp_path / f"{case}.swf"
    f.write_text(text)
    before = files(wh)
    ran = run_inproc("ingest", str(f), warehouse=wh)
    one_line_error(ran, f"{f}{needle}")
    assert files(wh) == before


def test_ingest_into_a_regular_file_or_a_foreign_duckdb(tmp_path, swf):
    plain = tmp_path / "plain"
    plain.write_text("x")
    one_line_error(run_inproc("ingest", str(swf), warehouse=plain), "is a file, not a warehouse directory")
    assert plain.read_text() == "x"
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    con = duckdb.connect(str(foreign / "walltime.duckdb"))
    con.execute("CREATE TABLE accounts AS SELECT 1 AS id")
    con.close()
    before = files(foreign)
    one_line_error(run_inproc("ingest", str(swf), warehouse=foreign), "not a walltime warehouse")
    one_line_error(run_inproc("traces", warehouse=foreign), "not a walltime warehouse")
    assert files(foreign) == before


def test_bom_is_skipped(tmp_path):
    f = tmp_path / "bom.swf"
    f.write_bytes(b"\xef\xbb\xbf; MaxProcs: 8\n" + LINE.encode())
    ran = run_inproc("ingest", str(f), "--json", warehouse=tmp_path / "wh")
    assert ran.returncode == 0, ran.stderr
    doc = json.loads(run_inproc("traces", "--json", warehouse=tmp_path / "wh").stdout)
    assert doc[0]["capacity"] == 8 and doc[0]["jobs"] == 1


def test_messages_quote_raw_input_safely(tmp_path, base):
    f = tmp_path / "ctrl.swf"
    token = "x\x1b[31m" + "y" * 500
    f.write_bytes((token + LINE[1:]).encode())
    ran = run_inproc("ingest", str(f), warehouse=tmp_path / "wh")
    one_line_error(ran, "\\x1b[31m", "(506 characters)")
    assert "\x1b" not in ran.stderr and "y" * 100 not in ran.stderr
    ran = run_inproc("simulate", "small", "--policy", "z" * 300 + "\x07", warehouse=base)
    one_line_error(ran, "--policy", "characters)")
    assert "\x07" not in ran.stderr and len(ran.stderr) < 300


# -- no traceback: options --------------------------------------------------------

@pytest.mark.parametrize("args,needle", [
    (("--capacity", "99999999999999999999"), "--capacity"),
    (("--load-factor", "1e300"), "--load-factor"),
    (("--estimate", "uniform:f=4,seed=99999999999999999999"), "--estimate"),
])
def test_simulate_options_out_of_range(wh, args, needle):
    before = files(wh)
    one_line_error(run_inproc("simulate", "small", *args, warehouse=wh), needle)
    assert files(wh) == before


def test_report_out_paths_are_checked_before_computing(wh, tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("x")
    folder = tmp_path / "folder"
    folder.mkdir()
    before = files(wh)
    for args, needle in ((("--out", str(plain / "r.html")), "is a file, not a directory"),
                         (("--out", str(folder)), "is a directory"),
                         (("--csv", str(plain), "--out", str(tmp_path / "r.html")), "is a file; give a directory")):
        one_line_error(run_inproc("report", *args, warehouse=wh), needle)
    assert files(wh) == before  # nothing computed
    assert not list(tmp_path.rglob(".tmp-*")) and list(folder.iterdir()) == []


@pytest.mark.parametrize("body,needle", [
    ('[study]\nlog = 5\n[[traces]]\npath = "{swf}"\n', "study.log"),
    ('[[traces]]\npath = "{swf}"\nlenient = "yes"\n', "traces[0].lenient"),
    ('[[traces]]\npath = "{swf}"\n[[simulations]]\ncapacity = 9223372036854775807\n', "simulations[0].capacity"),
    ('[[traces]]\npath = "{swf}"\n[[simulations]]\nload_factor = 1e300\n', "simulations[0].load_factor"),
    ('[study]\nname = "../../etc/x"\n[[traces]]\npath = "{swf}"\n', "study.name"),
    ('# caf\xe9\n[[traces]]\npath = "{swf}"\n', "not UTF-8"),
])
def test_run_bad_study_files(tmp_path, swf, body, needle):
    cfg = tmp_path / "s.toml"
    cfg.write_bytes(body.format(swf=swf).encode("latin-1"))
    wh = tmp_path / "wh"
    one_line_error(run_inproc("run", str(cfg), warehouse=wh), str(cfg), needle)
    assert not wh.exists()


def test_run_a_directory_as_config(tmp_path):
    one_line_error(run_inproc("run", str(tmp_path), warehouse=tmp_path / "wh"), "is a directory")
    assert not (tmp_path / "wh").exists()


# -- no traceback: the file system -----------------------------------------------

@pytest.fixture
def tmpfs(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mnt)],
                                           capture_output=True).returncode != 0:
        pytest.skip("needs root to mount a small tmpfs")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(mnt: Path) -> Path:
    filler = mnt / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * (1 << 16))
                fh.flush()
        except OSError:
            pass
    return filler


@pytest.mark.slow
def test_full_disk_during_ingest_simulate_and_run(tmpfs, base, swf, tmp_path):
    wh = tmpfs / "wh"
    shutil.copytree(base, wh)
    study = tmp_path / "s.toml"
    study.write_text(f'[[traces]]\npath = "{swf}"\n[[simulations]]\npolicy = ["sjf", "lwf"]\n'
                     'split = "month"\n')
    other = tmp_path / "other.swf"
    generate_file(other, jobs=20000, seed=11, capacity=64, load=0.7)
    before = snapshot(wh)
    filler = _fill(tmpfs)
    for args in (("ingest", str(other)), ("simulate", "small", "--policy", "wfp", "--split", "month"),
                 ("run", str(study))):
        one_line_error(run_cli(*args, warehouse=wh), "disk is full")
    filler.unlink()
    after = snapshot(wh)
    after["files"].pop("logs/s.log", None)  # the study log (empty: the disk was full) is no data
    assert after == before
    assert run_cli("traces", warehouse=wh).returncode == 0
    run_cli("simulate", "small", "--policy", "wfp", warehouse=wh, check=True)


@pytest.mark.slow
def test_read_only_file_system(tmpfs, base, swf, tmp_path):
    wh = tmpfs / "wh"
    shutil.copytree(base, wh)
    before = files(wh)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    study = tmp_path / "s.toml"
    study.write_text(f'[[traces]]\npath = "{swf}"\n[[simulations]]\npolicy = "sjf"\n')
    for args in (("ingest", str(swf), "--name", "again"), ("simulate", "small", "--policy", "wfp"),
                 ("run", str(study))):
        one_line_error(run_cli(*args, warehouse=wh), "read-only")
    # readers still work on a read-only warehouse
    assert run_cli("traces", warehouse=wh).returncode == 0
    assert files(wh) == before


# -- no traceback: a damaged warehouse ----------------------------------------------

@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty"])
def test_damaged_warehouse_is_one_line(wh, swf, damage):
    db = wh / "walltime.duckdb"
    data = db.read_bytes()
    if damage == "truncated":
        db.write_bytes(data[: len(data) // 3])
    elif damage == "garbage":  # every block after the headers
        db.write_bytes(data[:3 * 4096] + os.urandom(len(data) - 3 * 4096))
    else:
        db.write_bytes(b"")
    before = files(wh)
    # (`sql` reads a table of the database file: the jobs are Parquet files beside it, which this damage
    # leaves whole, and a query of them alone may answer from the blocks that survived)
    for args in (("traces",), ("sql", "SELECT * FROM traces"), ("simulate", "small", "--policy", "sjf"),
                 ("ingest", str(swf), "--name", "x")):
        ran = run_cli(*args, warehouse=wh)
        one_line_error(ran, "damaged warehouse")
    assert files(wh) == before


# -- clearer behaviour ---------------------------------------------------------------

def test_dry_run_and_refusals_create_nothing(tmp_path, swf):
    wh = tmp_path / "deep" / "wh"
    log = tmp_path / "study.log"
    study = tmp_path / "s.toml"
    study.write_text(f'[study]\nlog = "{log}"\n[[traces]]\npath = "{swf}"\n[[simulations]]\npolicy = "sjf"\n')
    ran = run_inproc("run", str(study), "--dry-run", warehouse=wh)
    assert ran.returncode == 0, ran.stderr
    assert not (tmp_path / "deep").exists() and not log.exists()
    bad = tmp_path / "bad.swf"
    bad.write_text("not swf\n")
    one_line_error(run_inproc("ingest", str(bad), warehouse=wh), f"{bad}:1:")
    one_line_error(run_inproc("simulate", "small", warehouse=wh), "no warehouse here yet")
    study.write_text(f'[[traces]]\npath = "{bad}"\n')
    one_line_error(run_inproc("run", str(study), warehouse=wh), f"{bad}:1:")
    assert not (tmp_path / "deep").exists()
