"""Issue 25, item 3: sacct does not escape its separator. A `|` inside a
free-text field (job 12 of the real dumps was submitted with -J 'a|b', so
its JobName and its SubmitLine each hold one) is read as part of that field
when exactly one reading fits the other columns, and counted; otherwise the
line is refused, named. `--delimiter` reads `sacct --delimiter=X` output."""

from __future__ import annotations

import shutil

import pytest

from ingest_support import run_inproc, snapshot
from sacct_dumps import DUMPS, LIVE, LIVE_SHORT, LIVE_US, load
from pipeline.errors import WalltimeError
from pipeline.ingest import sacct_fields
from pipeline.ingest.formats import delimiter_byte

AMBIGUOUS = DUMPS / "pipe-ambiguous-sacct.txt"


@pytest.mark.parametrize("path", [LIVE, LIVE_SHORT], ids=["JobName-and-SubmitLine", "JobName-only"])
def test_a_bar_in_a_job_name_is_rejoined_and_counted(tmp_path, path):
    line = next(x for x in path.read_text().splitlines() if x.startswith("12|"))
    header = path.read_text().splitlines()[0]
    assert line.count("|") > header.count("|")  # as Slurm printed it
    res, _, jobs = load(tmp_path, path)
    assert res.counts["separators_in_fields"] == 1 and res.rejected == 0
    assert jobs["12"]["job_name"] == "a|b" and jobs["12"]["run"] == 8 and jobs["12"]["req"] == 600


def test_the_other_delimiter_gives_the_same_jobs(tmp_path):
    _, _, bars = load(tmp_path / "a", LIVE)
    res, _, us = load(tmp_path / "b", LIVE_US, delimiter="0x1f")
    assert "separators_in_fields" not in res.counts and us == bars and us["12"]["job_name"] == "a|b"


def test_two_readings_are_refused_naming_the_line(tmp_path):
    shutil.copy(AMBIGUOUS, tmp_path / "amb.txt")
    wh = tmp_path / "wh"
    run_inproc("ingest", "--format", "sacct", "--tz", "UTC", str(LIVE_SHORT), warehouse=wh).check_returncode()
    before = snapshot(wh)
    proc = run_inproc("ingest", "--format", "sacct", "--tz", "UTC", "amb.txt", warehouse=wh, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ("error: amb.txt:3: the line has 9 fields, the header 8: a | inside a field, but 2 readings "
                           "fit (in JobName, Comment); dump with sacct --delimiter (docs/ingest.md, Delimiters)\n")
    assert snapshot(wh) == before


def test_a_dump_read_with_the_wrong_delimiter_is_refused(tmp_path):
    proc = run_inproc("ingest", "--format", "sacct", "--tz", "UTC", "--delimiter", "^", str(LIVE_SHORT),
                      warehouse=tmp_path / "wh")
    assert proc.returncode == 1 and "the sacct header lacks" in proc.stderr and not (tmp_path / "wh").exists()


def test_readings_try_every_free_column():
    cols = ["JobID", "JobName", "User", "Submit", "State", "WorkDir", "SubmitLine"]
    t = "2026-11-27T12:04:57"
    fits = ["1", "a", "b", "u1", t, "COMPLETED", "/tmp", "sbatch -J a", "b"]
    assert sacct_fields.readings(fits, cols) == [(1, 0, 1)]
    none = ["1", "a", "u1", t, "b", "COMPLETED", "/tmp", "sbatch"]  # the extra field sits between typed ones
    assert sacct_fields.readings(none, cols) == []
    assert sacct_fields.readings(["1", "a", "b"], ["JobID", "State"]) == []  # no free-text column


@pytest.mark.parametrize("text, byte", [("US", 31), ("0x1f", 31), ("TAB", 9), ("\\t", 9), ("^", 94), (";", 59)])
def test_delimiter_forms(text, byte):
    assert delimiter_byte(text) == byte


@pytest.mark.parametrize("text", ["ab", "a", "7", "0x0a", "0xzz", ""])
def test_bad_delimiters_are_refused(text):
    with pytest.raises(WalltimeError, match=f"^--delimiter {text}: expected one ASCII character"):
        delimiter_byte(text)


def test_the_bar_dump_read_as_the_twin_reads_the_unit_separator_dump(tmp_path):
    from naive_sacct import parse as naive_parse

    _, _, jobs = load(tmp_path, LIVE)
    twin = naive_parse(LIVE_US, "UTC", sep="\x1f")  # what Slurm printed with a separator no name holds
    assert set(twin) == set(jobs)
    for sid, n in twin.items():
        for k in ("wait", "run", "req", "status", "state", "job_name"):
            assert jobs[sid][k] == n[k], (sid, k, jobs[sid][k], n[k])


def test_lenient_keeps_the_ambiguous_line_in_rejects(tmp_path):
    from pipeline.ingest import ingest
    from pipeline.ingest.formats import IngestOptions
    from pipeline.warehouse import Warehouse

    w = Warehouse(tmp_path / "wh")
    [res] = ingest([AMBIGUOUS], w, lenient=True, options=IngestOptions(format="sacct", tz="UTC"))
    assert (res.jobs, res.rejected) == (1, 1)
    con = w.reader()
    try:
        line, reason, raw = con.execute("SELECT line, reason, raw FROM rejects WHERE trace = ?", [res.trace]).fetchone()
    finally:
        con.close()
    assert (line, raw) == (3, AMBIGUOUS.read_text().splitlines()[2])
    assert reason.endswith("2 readings fit (in JobName, Comment); dump with sacct --delimiter (docs/ingest.md, Delimiters)")


def test_a_study_reads_the_other_delimiter_as_ingest_does(tmp_path):
    """Every `walltime ingest` option is a [[traces]] key of the same name."""
    from pipeline.ingest import ingest
    from pipeline.study.config import load_study
    from pipeline.warehouse import Warehouse
    from sacct_dumps import CONF, jobs_of

    shutil.copy(CONF, tmp_path / "slurm.conf")
    cfg = tmp_path / "s.toml"
    cfg.write_text(f'[study]\nname = "s"\n[[traces]]\npath = "{LIVE_US}"\nname = "us"\nformat = "sacct"\n'
                   'tz = "UTC"\ndelimiter = "0x1f"\nslurm_conf = "slurm.conf"\n')
    [t] = load_study(cfg).traces
    assert t.options.delimiter == "0x1f" and t.options.slurm_conf == str((tmp_path / "slurm.conf").resolve())
    wh = Warehouse(tmp_path / "wh")
    [res] = ingest([t.path], wh, name=t.name, options=t.options)
    _, _, bars = load(tmp_path / "a", LIVE, slurm_conf=str(CONF))
    assert jobs_of(wh, res.trace) == bars


@pytest.mark.parametrize("line, message", [
    ("delimiter = 5", "traces[0].delimiter: expected a string, got 5"),
    ('delimiter = ";"\nformat = "swf"', "traces[0]: --delimiter ;: only with --format sacct"),
    ('mapping = "none.toml"', "traces[0].mapping: "),
])
def test_a_bad_ingest_option_in_a_study_is_named(tmp_path, line, message):
    from pipeline.study.config import load_study

    cfg = tmp_path / "s.toml"
    cfg.write_text(f'[study]\nname = "s"\n[[traces]]\npath = "{LIVE_US}"\n{line}\n')
    with pytest.raises(WalltimeError) as e:
        load_study(cfg)
    assert message in str(e.value) and "\n" not in str(e.value)
