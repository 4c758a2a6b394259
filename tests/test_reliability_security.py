"""Issue 22, security: log text cannot forge export records, reach the terminal
raw or crash a table; no writer replaces a device node or other non-regular
file; no lock, control or temporary file is followed through a link.

Everything runs the real CLI on warehouses built from real logs (the NREL
Eagle sample, the lab's sacct dump) with hostile values written into them.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import stat
from pathlib import Path

import polars as pl
import pytest

from conftest import run_cli, trace_path
from ingest_support import run_inproc
from test_reliability import files, one_line_error, wh  # noqa: F401  (wh: a copy of this module's base)

FORGED = "99 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"  # 18 numbers: a whole SWF job line
# hostile text, each a way to forge a line or field of an output, or to act on a terminal
HOSTILE = {
    "newline": f"x\n{FORGED}",
    "carriage return": f"x\r{FORGED}",
    "header": "x\n; MaxProcs: 1",
    "separator": "a 7=forged",
    "semicolon": "; Note: x",
    "terminal": "\x1b]0;pwned\x07\x1b[31mred",
    "markup": "[/x] [bold]b[/bold] [link=http://x]y[/link]",
    "bidi": "\u202eevil",
}
EAGLE_COLUMNS = {"name": "job_name", "user": "user", "account": "account", "partition": "partition", "qos": "qos"}
JOB_LINE = re.compile(r"^-?\d+(\.\d+)?( -?\d+(\.\d+)?){17}$")


def hostile_eagle() -> pl.DataFrame:
    """The first 20 jobs of the real Eagle sample, each hostile value in the
    name, user, account, partition and qos of one job."""
    df = pl.read_csv(gzip.open(trace_path("NREL-Eagle-sample-1000.csv.gz")), infer_schema_length=0).head(20)
    row = pl.int_range(pl.len())
    for col in EAGLE_COLUMNS:
        expr = pl.col(col)
        for k, value in enumerate(HOSTILE.values()):
            expr = pl.when(row == 2 * k + 1).then(pl.lit(value)).otherwise(expr)
        df = df.with_columns(expr.alias(col))
    return df


def hostile_sacct(path: Path) -> Path:
    """The lab's real sacct dump with hostile job names (sacct lines cannot
    hold a newline, so the hostile values without one)."""
    names = iter(v for v in HOSTILE.values() if "\n" not in v and "\r" not in v)
    out = []
    for line in trace_path("slurm-lab-sacct.txt").read_text().splitlines():
        f = line.split("|")
        if f[0].isdigit():
            name = next(names, None)
            if name is not None:
                f[2] = name
        out.append("|".join(f))
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A warehouse with trace `eagle` (hostile CSV), `jsonl` (the same as
    JSON lines) and `lab` (hostile sacct)."""
    d = tmp_path_factory.mktemp("hostile")
    wh = d / "wh"
    df = hostile_eagle()
    df.write_csv(d / "eagle.csv")
    df.write_ndjson(d / "jsonl.jsonl")
    run_cli("ingest", str(d / "eagle.csv"), "--format", "table", "--preset", "eagle", "--tz", "America/Denver",
            warehouse=wh, check=True)
    run_cli("ingest", str(d / "jsonl.jsonl"), "--format", "table", "--preset", "eagle", "--tz", "America/Denver",
            warehouse=wh, check=True)
    run_cli("ingest", str(hostile_sacct(d / "lab.txt")), "--format", "sacct", "--tz", "Europe/Berlin",
            "--slurm-conf", str(trace_path("slurm-lab.conf")), "--name", "lab", warehouse=wh, check=True)
    return wh


def swf_cols(wh: Path, trace: str) -> list:
    # SWF has no Eligible: export writes a job's release (Eligible where the log has it) as its submit
    ran = run_inproc("sql", "SELECT job_id, coalesce(eligible, submit) AS submit, wait, run, procs, req_procs, req, "
                     "status, user_id, group_id, "
                     f"partition_id FROM jobs WHERE trace = '{trace}' ORDER BY job_id",
                     "--json", warehouse=wh)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


# -- export: no text field can forge a line or a field ------------------------

@pytest.mark.parametrize("trace,jobs", [("eagle", 20), ("jsonl", 20), ("lab", 96)])
def test_export_round_trip_keeps_the_jobs_of_hostile_names(wh, tmp_path, trace, jobs):
    out = tmp_path / f"{trace}.swf"
    ran = run_inproc("export", trace, "--out", str(out), warehouse=wh)
    assert ran.returncode == 0, ran.stderr
    lines = out.read_text().split("\n")
    assert lines[-1] == ""
    body = [x for x in lines[:-1] if not x.startswith(";")]
    assert len(body) == jobs and all(JOB_LINE.match(x) for x in body), body[:3]
    assert "; MaxProcs: 1" not in lines and "; Note: x" not in lines
    assert all(x.isprintable() for x in lines), [x for x in lines if not x.isprintable()]
    for x in lines:  # every name list is "id=name" tokens, one per id
        if x.startswith("; Note: ") and "(field 1" in x:
            tokens = x.split(": ", 2)[2].split(" ")
            ids = [t.split("=", 1)[0] for t in tokens]
            assert all(i.isdigit() for i in ids) and len(set(ids)) == len(ids), x
    back = run_inproc("ingest", str(out), "--name", "back", warehouse=wh)
    assert back.returncode == 0 and f": {jobs} jobs" in back.stdout, (back.stdout, back.stderr)
    assert swf_cols(wh, "back") == swf_cols(wh, trace)


def test_export_header_quotes_a_hostile_source_file_name(tmp_path):
    name = f"lab\n{FORGED}\n; MaxProcs: 1.txt"
    src = tmp_path / name
    hostile_sacct(src)
    wh = tmp_path / "wh"
    run_cli("ingest", str(src), "--format", "sacct", "--tz", "Europe/Berlin", "--slurm-conf",
            str(trace_path("slurm-lab.conf")), "--name", "lab", warehouse=wh, check=True)
    out = tmp_path / "lab.swf"
    assert run_inproc("export", "lab", "--out", str(out), warehouse=wh).returncode == 0
    lines = out.read_text().splitlines()
    assert sum(not x.startswith(";") for x in lines) == 96
    assert "; MaxProcs: 16" in lines and "; MaxProcs: 1" not in lines
    assert any("lab\\n99 0 10" in x for x in lines)


def test_parquet_export_keeps_hostile_names_exact(wh, tmp_path):
    out = tmp_path / "eagle.parquet"
    assert run_inproc("export", "eagle", "--format", "parquet", "--out", str(out), warehouse=wh).returncode == 0
    names = set(pl.read_parquet(out)["job_name"].to_list())
    assert set(HOSTILE.values()) <= names


# -- no writer replaces a device node or other non-regular file ---------------

def special_files(folder: Path) -> list[Path]:
    """A FIFO, and when we are root a character device (a private /dev/null)."""
    folder.mkdir(parents=True, exist_ok=True)
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    made = [fifo]
    if os.geteuid() == 0:
        dev = folder / "null"
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        made.append(dev)
    return made


def still_special(path: Path) -> bool:
    mode = os.lstat(path).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def test_export_refuses_a_device_or_fifo(wh, tmp_path):
    before = files(wh)
    for fmt in ("swf", "parquet"):
        for target in special_files(tmp_path / fmt):
            one_line_error(run_inproc("export", "eagle", "--format", fmt, "--out", str(target), warehouse=wh),
                           "--out", str(target), "not a regular file")
            assert still_special(target)
    assert files(wh) == before
    assert not list(tmp_path.rglob(".tmp-*"))


def test_export_through_a_link_to_a_device_is_refused(wh, tmp_path):
    [fifo, *_] = special_files(tmp_path / "s")
    link = tmp_path / "link.swf"
    link.symlink_to(fifo)
    one_line_error(run_inproc("export", "eagle", "--out", str(link), warehouse=wh), "not a regular file")
    assert still_special(fifo)


def test_generate_refuses_a_device_or_fifo(tmp_path):
    for target in special_files(tmp_path):
        one_line_error(run_inproc("generate", "--out", str(target), "--jobs", "50", "--waits", "none"), "--out", "not a regular file")
        assert still_special(target)


def test_reproduce_refuses_a_device_or_fifo_among_its_outputs(wh, tmp_path):
    for target in special_files(tmp_path / "docs"):
        name = target.name
        target.rename(target.with_name("reproduction.md"))
        ran = run_inproc("reproduce", "--paper", "mualem", "--quick", "--out", str(target.parent), warehouse=wh)
        one_line_error(ran, "reproduction.md", "not a regular file")
        assert still_special(target.with_name("reproduction.md"))
        target.with_name("reproduction.md").rename(target.with_name(name))


def test_the_writers_shared_helper_refuses_special_files_found_late(tmp_path):
    """Writers whose file names are known only after computing (report --csv,
    --figures) go through the same helper; it refuses at write time."""
    from pipeline.checks import write_file
    from pipeline.errors import WalltimeError

    for target in special_files(tmp_path):
        with pytest.raises(WalltimeError, match="not a regular file"):
            write_file(target, "a,b\n", "--csv")
        assert still_special(target)
    assert not list(tmp_path.glob(".tmp-*"))


# -- no lock, control or temporary file is followed through a link -----------

def test_writer_lock_that_is_a_link_is_refused(wh, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (wh / ".writer.lock").unlink(missing_ok=True)
    (wh / ".writer.lock").symlink_to(victim)
    before = files(wh)
    for args in (("ingest", str(tmp_path / "none.swf")), ("simulate", "lab")):
        (tmp_path / "none.swf").write_text("1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
        one_line_error(run_inproc(*args, warehouse=wh), ".writer.lock", "link")
    assert victim.read_text() == "precious\n" and files(wh) == before


def test_writer_lock_that_is_a_hard_link_is_refused(wh, tmp_path):
    victim = wh.parent / "victim"
    victim.write_text("precious\n")
    (wh / ".writer.lock").unlink(missing_ok=True)
    os.link(victim, wh / ".writer.lock")
    one_line_error(run_inproc("simulate", "lab", warehouse=wh), ".writer.lock", "link")
    assert victim.read_text() == "precious\n"


def test_a_new_warehouse_with_a_planted_lock_link_is_refused(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    wh = tmp_path / "wh"
    wh.mkdir()
    (wh / ".writer.lock").symlink_to(victim)
    (tmp_path / "a.swf").write_text("1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
    one_line_error(run_inproc("ingest", str(tmp_path / "a.swf"), warehouse=wh), ".writer.lock")
    assert victim.read_text() == "precious\n" and not (wh / "walltime.duckdb").exists()


def test_a_database_that_is_a_link_is_refused(wh, tmp_path):
    real = tmp_path / "elsewhere.duckdb"
    shutil.move(wh / "walltime.duckdb", real)
    (wh / "walltime.duckdb").symlink_to(real)
    before = real.read_bytes()
    one_line_error(run_inproc("simulate", "lab", warehouse=wh), "walltime.duckdb", "link")
    assert real.read_bytes() == before


def test_planted_temporary_links_are_not_followed(wh, tmp_path):
    """The export, report and reproduce temporaries were named .tmp-<pid>-<name>:
    a link planted under that name made the writer fill its target."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "eagle.swf"
    (tmp_path / f".tmp-{os.getpid()}-eagle.swf").symlink_to(victim)
    assert run_inproc("export", "eagle", "--out", str(out), warehouse=wh).returncode == 0
    assert victim.read_text() == "precious\n" and out.is_file() and not out.is_symlink()
    import pyarrow as pa

    from pipeline.warehouse import write_parquet_atomic

    target = tmp_path / "m.parquet"
    (tmp_path / f".tmp-{os.getpid()}-m.parquet").symlink_to(victim)
    write_parquet_atomic(pa.table({"a": [1]}), target)
    assert victim.read_text() == "precious\n" and pl.read_parquet(target)["a"].to_list() == [1]


# -- terminal output: control characters and markup are shown, not acted on ---

def shown(value: str) -> str:
    """How a human-readable table shows a value: control characters escaped."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in value)


@pytest.mark.parametrize("trace", ["eagle", "lab"])
def test_sql_table_shows_hostile_names_escaped(base, trace):
    ran = run_cli("sql", f"SELECT job_name, \"user\", \"partition\" FROM jobs WHERE trace = '{trace}'",
                  warehouse=base)
    assert ran.returncode == 0, ran.stderr
    assert "\x1b" not in ran.stdout and "\x07" not in ran.stdout and "\u202e" not in ran.stdout
    flat = "".join(ran.stdout.split())  # the table folds long cells over lines
    for v in HOSTILE.values():
        if "\n" not in v and "\r" not in v or trace == "eagle":
            assert "".join(shown(v).split()) in flat, v


def test_traces_table_shows_hostile_partitions_escaped(base):
    ran = run_cli("traces", warehouse=base)
    assert ran.returncode == 0, ran.stderr
    assert "\x1b" not in ran.stdout and "\x07" not in ran.stdout
    flat = "".join(ran.stdout.split())
    assert "\\x1b]0;pwned\\x07\\x1b[31mred" in flat and "[/x]" in flat and "[bold]b[/bold]" in flat


def test_sql_json_and_csv_keep_hostile_names_exact(base):
    q = "SELECT job_name FROM jobs WHERE trace = 'eagle' ORDER BY job_id"
    ran = run_cli("sql", q, "--json", warehouse=base)
    assert ran.returncode == 0 and set(HOSTILE.values()) <= {r["job_name"] for r in json.loads(ran.stdout)}
    ran = run_cli("sql", q, "--csv", warehouse=base)
    assert ran.returncode == 0 and HOSTILE["terminal"] in ran.stdout and HOSTILE["markup"] in ran.stdout


def test_characterize_tables_show_hostile_partitions_escaped(wh):
    ran = run_inproc("characterize", "eagle", warehouse=wh)
    assert ran.returncode == 0, ran.stderr
    assert "\x1b" not in ran.stdout and "[/x]" in "".join(ran.stdout.split())


def test_the_shared_printer_escapes_every_control_character():
    from pipeline.cli.plain import shown as printer_shown

    for c in [chr(i) for i in range(32)] + ["\x7f", "\x9b", "\u202e", "\u2028"]:
        text = str(printer_shown(f"a{c}b"))
        assert text.isprintable() and text.startswith("a") and text.endswith("b"), repr(c)


def test_report_refuses_a_device_or_fifo_among_its_files_before_computing(wh, tmp_path):
    before = files(wh)
    for option, name in (("--csv", "report_trace_overview.csv"), ("--figures", "01-jobs.png")):
        for target in special_files(tmp_path / option.strip("-")):
            target = target.rename(target.with_name(name))
            ran = run_inproc("report", "lab", "--sections", "overview", option, str(target.parent),
                             "--out", str(tmp_path / "r.html"), warehouse=wh)
            one_line_error(ran, option, name, "not a regular file")
            assert still_special(target)
            target.unlink()
    assert files(wh) == before and not (tmp_path / "r.html").exists()


def test_a_study_log_that_is_a_device_or_fifo_is_refused_before_any_work(tmp_path):
    for target in special_files(tmp_path):
        study = tmp_path / "s.toml"
        study.write_text(f'[study]\nname = "s"\nlog = "{target.name}"\n[[traces]]\n'
                         f'path = "{trace_path("KTH-SP2-1996-2.1-cln.swf.gz")}"\nname = "kth"\n')
        proc = run_cli("run", str(study), warehouse=tmp_path / "wh")
        one_line_error(proc, str(study), "study.log", "not a regular file")
        assert still_special(target) and not (tmp_path / "wh").exists()
