"""Numbers a site can trust (issue 40, round 2), on the "trust" lab's real
dumps (tests/data/slurm-trust/README.md) and the first lab's (tests/data/slurm/):
requested GPUs apart from allocated ones, what the zone of a JSON/YAML dump
affects, waits without Eligible said, the suggested sacct command the
README's, and precise words for dumps sacct did not write as asked (fixed
width, a BOM, another delimiter, no --format, steps only, two dumps in one,
--time-format that is not the file's). Every test runs the real CLI."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb

from conftest import run_cli
from test_reliability import one_line_error

REPO = Path(__file__).resolve().parent.parent
TRUST = Path(__file__).parent / "data" / "slurm-trust"
LAB = Path(__file__).parent / "data" / "slurm"
DUMP = TRUST / "trust-sacct.txt"


def ingest(wh: Path, *args: str):
    return run_cli("ingest", *args, warehouse=wh)


def rows(wh: Path, sql: str, *params) -> list[tuple]:
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    try:
        from pipeline import jobs_files

        jobs_files.attach(con, wh)
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def nothing_written(wh: Path) -> None:
    assert not (wh / "walltime.duckdb").exists(), "a refused first ingest leaves no database"


# --- 1. requested GPUs apart from allocated ones ------------------------------------------------------------


def test_exclusive_job_without_gpu_request_has_req_gpus_0_and_gpus_2(tmp_path):
    """Job 12 `excl_nogpu` (--exclusive in gpu, no GPU asked): AllocTRES gres/gpu=2 (the node's), ReqTRES
    without gpu. gpus stays what it held (2); req_gpus is what it asked for (0). Job 11 asked for 2 and got 2;
    jobs 27_* asked for 2 each; a job on a CPU node asked for none."""
    wh = tmp_path / "wh"
    ingest(wh, "--format", "sacct", "--tz", "UTC", str(DUMP), "--name", "t").check_returncode()
    got = {s: (g, r) for s, g, r in rows(wh, "SELECT slurm_id, gpus, req_gpus FROM jobs WHERE trace = 't'")}
    assert got["12"] == (2, 0)
    assert got["11"] == (2, 2) and got["10"] == (1, 1) and got["27_0"] == (2, 2) and got["33"] == (1, 1)
    assert got["1"] == (None, 0)  # no GPU held (NULL, as before) and none asked for (the request is there)


def test_json_and_yaml_req_gpus_from_tres_requested(tmp_path):
    """The same jobs from sacct --json / --yaml: req_gpus from tres.requested, gpus from tres.allocated."""
    wh = tmp_path / "wh"
    for f in ("trust-sacct.json", "trust-sacct.yaml"):
        ingest(wh, "--tz", "UTC", str(TRUST / f), "--name", f.split(".")[1]).check_returncode()
    for trace in ("json", "yaml"):
        got = {s: (g, r) for s, g, r in rows(wh, "SELECT slurm_id, gpus, req_gpus FROM jobs WHERE trace = ?", trace)}
        assert got["12"] == (2, 0), trace
        assert got["11"] == (2, 2) and got["27_0"] == (2, 2) and got["1"][1] == 0, trace


def test_req_gpus_null_where_the_log_cannot_say(tmp_path):
    """A dump without ReqTRES (trust-sacct.txt with that column left out, as a --format without it gives):
    req_gpus NULL, not 0; gpus still from AllocTRES."""
    wh = tmp_path / "wh"
    src = TRUST / "trust-sacct.txt"
    lines = src.read_text().splitlines(keepends=True)
    header = lines[0].rstrip("\n").split("|")
    keep = [i for i, c in enumerate(header) if c != "ReqTRES"]
    cut = tmp_path / "no-reqtres.txt"  # a real dump with one column left out (as sacct --format without it)
    cut.write_text("".join("|".join(line.rstrip("\n").split("|")[i] for i in keep) + "\n" for line in lines))
    ingest(wh, "--format", "sacct", "--tz", "UTC", str(cut)).check_returncode()
    got = rows(wh, "SELECT count(*), count(req_gpus), max(gpus) FROM jobs")
    assert got == [(33, 0, 2)]


def test_warehouse_from_before_320_gets_req_gpus_null_in_old_files(tmp_path):
    """A warehouse whose jobs files were written before migration 320 (no req_gpus): the next writer adds
    the column (sql/320_req_gpus.sql, jobs_files._add_columns): NULL in the old files (the old ingest did not
    read it), read from the log in new ones."""
    wh = tmp_path / "wh"
    ingest(wh, "--format", "sacct", "--tz", "UTC", str(DUMP), "--name", "old").check_returncode()
    [f] = list((wh / "parquet" / "jobs" / "old").glob("*.parquet"))
    con = duckdb.connect(str(wh / "walltime.duckdb"))
    try:  # the file and the schema as before 320
        con.execute(f"COPY (SELECT * EXCLUDE (req_gpus) FROM read_parquet('{f}')) TO '{f}.tmp' (FORMAT parquet)")
        con.execute("ALTER TABLE jobs_legacy DROP COLUMN req_gpus")
        con.execute("DELETE FROM schema_migrations WHERE version = 320")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    f.with_name(f.name + ".tmp").replace(f)
    ingest(wh, "--format", "sacct", "--tz", "UTC", str(DUMP), "--name", "new").check_returncode()
    got = dict(rows(wh, "SELECT trace, count(req_gpus) FROM jobs GROUP BY trace"))
    assert got == {"old": 0, "new": 33}
    assert rows(wh, "SELECT gpus, req_gpus FROM jobs WHERE trace = 'new' AND slurm_id = '12'") == [(2, 0)]
    assert rows(wh, "SELECT count(*) FROM schema_migrations WHERE version = 320") == [(1,)]


# --- 2. the zone of a JSON/YAML dump: what it affects, said ----------------------------------------------------


def test_json_and_yaml_without_tz_say_what_the_machine_zone_affects(tmp_path):
    """JSON/YAML times are Unix seconds: without --tz the machine's zone (TZ here) only decides the months and
    how dates are shown; a note says so, on stderr and in --json. With --tz, no note."""
    wh = tmp_path / "wh"
    for f in ("trust-sacct.json", "trust-sacct.yaml"):
        p = run_cli("ingest", "--json", "--name", f.split(".")[1], str(TRUST / f), warehouse=wh,
                    env={"TZ": "America/Denver"})
        assert p.returncode == 0, p.stderr
        [note] = [n for n in json.loads(p.stdout)["traces"][0]["notes"] if "America/Denver" in n]
        assert "Unix seconds" in note and "months" in note and "--tz" in note, note
        assert f"note: {note}" in p.stderr
    p = run_cli("ingest", "--tz", "UTC", "--name", "utc", str(TRUST / "trust-sacct.json"), warehouse=wh,
                env={"TZ": "America/Denver"})
    assert p.returncode == 0 and "zone" not in p.stderr, p.stderr


# --- 3. a dump without Eligible: waits from Submit, recorded and said ----------------------------------------------


def test_dump_without_eligible_records_and_says_waits_from_submit(tmp_path):
    """trust-sacct-noeligible.txt (the same jobs, Eligible left out of --format): the waits count from
    Submit; ingest_options and traces.release say "submit", a note says why and what to add. The same file
    again is unchanged (its options compare equal); the full dump keeps "eligible", with no such note."""
    wh = tmp_path / "wh"
    noelig = TRUST / "trust-sacct-noeligible.txt"
    p = run_cli("ingest", "--json", "--format", "sacct", "--tz", "UTC", str(noelig), warehouse=wh)
    assert p.returncode == 0, p.stderr
    notes = json.loads(p.stdout)["traces"][0]["notes"]
    assert any("no Eligible column: waits counted from Submit; add Eligible to --format" in n for n in notes), notes
    assert "no Eligible column" in p.stderr
    [(opts, release)] = rows(wh, "SELECT ingest_options, release FROM traces")
    assert json.loads(opts)["release"] == "submit" and release == "submit"
    again = run_cli("ingest", "--json", "--format", "sacct", "--tz", "UTC", str(noelig), warehouse=wh)
    assert json.loads(again.stdout)["traces"][0]["status"] == "unchanged", again.stderr
    full = run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(DUMP), warehouse=wh)
    assert full.returncode == 0 and "Eligible" not in full.stderr, full.stderr
    assert json.loads(rows(wh, "SELECT ingest_options FROM traces WHERE trace = 'trust-sacct'")[0][0])["release"] \
        == "eligible"
    # --release submit asked for: the same, with no note (nothing was silently changed)
    p = run_cli("ingest", "--format", "sacct", "--tz", "UTC", "--release", "submit", "--name", "sub", str(noelig),
                warehouse=wh)
    assert p.returncode == 0 and "Eligible" not in p.stderr, p.stderr


# --- 4. the suggested sacct command is the README's ----------------------------------------------------------------


def readme_command() -> str:
    """The README's recommended sacct command ("Slurm sites"), its continuation lines joined, without the redirect."""
    text = (REPO / "README.md").read_text()
    block = text[text.index("\nsacct --allusers"):]
    block = block[:block.index("> ")]
    return re.sub(r"\s*\\\n\s*", " ", block.strip()).rstrip(" \\")


def drop_columns(src: Path, dst: Path, names: set[str]) -> Path:
    """A copy of a real dump with some columns left out (what a --format without them prints)."""
    lines = src.read_text().splitlines()
    keep = [i for i, c in enumerate(lines[0].split("|")) if c not in names]
    dst.write_text("".join("|".join(line.split("|")[i] for i in keep) + "\n" for line in lines))
    return dst


def test_every_suggested_sacct_command_is_the_readmes(tmp_path):
    """The header-lacks error, the no-times note and the no-Eligible note all give the README's command:
    --allusers --parsable2 --allocations, a --starttime/--endtime window, the US delimiter and the --format list
    with Eligible."""
    cmd = readme_command()
    assert "--starttime" in cmd and "Eligible" in cmd and "--parsable2" in cmd
    wh = tmp_path / "wh"
    p = ingest(wh, "--format", "sacct", "--tz", "UTC", str(drop_columns(DUMP, tmp_path / "nostart.txt", {"Start"})))
    one_line_error(p, "nostart.txt:1: the sacct header lacks Start", cmd, "--delimiter US")
    p = ingest(wh, "--format", "sacct", "--tz", "UTC", str(drop_columns(
        DUMP, tmp_path / "notimes.txt", {"Submit", "Eligible", "Start", "End", "Elapsed", "ElapsedRaw"})))
    assert p.returncode == 0 and "the dump has no times" in p.stderr and cmd in p.stderr, p.stderr
    p = ingest(wh, "--format", "sacct", "--tz", "UTC", str(TRUST / "trust-sacct-noeligible.txt"))
    assert p.returncode == 0 and cmd in p.stderr, p.stderr
    for f in (REPO / "pipeline" / "ingest").glob("*.py"):  # no other --format list is suggested
        assert "--format=JobID" not in f.read_text() or f.name == "sacct_advice.py", f


# --- 5. dumps sacct did not write as asked: say what is wrong ---------------------------------------------------


def test_fixed_width_dump_is_named_not_bar_separated(tmp_path):
    """trust-sacct-fixed.txt (sacct without --parsable2): not "the header lacks JobID" but what to rerun, with
    --format sacct and without it."""
    fixed = TRUST / "trust-sacct-fixed.txt"
    for args in (["--format", "sacct"], []):
        p = ingest(tmp_path / "wh", *args, "--tz", "UTC", str(fixed))
        one_line_error(p, "trust-sacct-fixed.txt:1: not |-separated", "rerun sacct with --parsable2 (-P)",
                       readme_command())
        assert "lacks" not in p.stderr
        nothing_written(tmp_path / "wh")


def test_bom_before_the_header_is_read_past(tmp_path):
    """A UTF-8 byte-order mark before the header (an editor's save): the dump loads, the same jobs."""
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + DUMP.read_bytes())
    wh = tmp_path / "wh"
    ingest(wh, "--format", "sacct", "--tz", "UTC", str(bom)).check_returncode()
    ingest(wh, "--format", "sacct", "--tz", "UTC", str(DUMP)).check_returncode()
    q = "SELECT * EXCLUDE (trace) FROM jobs WHERE trace = ? ORDER BY job_id"
    a, b = rows(wh, q, "bom"), rows(wh, q, "trust-sacct")
    assert len(a) == 33 and a == b


def test_wrong_delimiter_names_the_one_that_splits_the_header(tmp_path):
    """--delimiter US on a |-separated dump, and a US-separated dump (live-sacct-X-us.txt) without it: the
    header splits into one field with the delimiter given; the message names the one that splits it."""
    p = ingest(tmp_path / "wh", "--format", "sacct", "--tz", "UTC", "--delimiter", "US", str(DUMP))
    one_line_error(p, "trust-sacct.txt:1: the sacct header lacks JobID because it splits into one field with "
                   "--delimiter US", "at | it splits into 30 fields", "drop --delimiter")
    us = LAB / "live-sacct-X-us.txt"
    p = ingest(tmp_path / "wh", "--format", "sacct", "--tz", "UTC", str(us))
    one_line_error(p, "live-sacct-X-us.txt:1: the sacct header lacks JobID because it splits into one field at |",
                   "at US (0x1f) it splits into", "give --delimiter US")
    nothing_written(tmp_path / "wh")


def test_sacct_dump_without_format_option_is_told_by_its_header(tmp_path):
    """trust-sacct.txt ingested without --format: read as sacct output (its header names JobID), as JSON and
    YAML are told by their first bytes; a note says so, ingest_options records format sacct."""
    wh = tmp_path / "wh"
    p = ingest(wh, "--tz", "UTC", str(DUMP))
    assert p.returncode == 0 and "expected an integer" not in p.stderr, p.stderr
    assert "read as `sacct --parsable2` output" in p.stderr, p.stderr
    [(fmt, opts, jobs)] = rows(wh, "SELECT format, ingest_options, jobs FROM traces")
    assert fmt == "sacct" and json.loads(opts)["format"] == "sacct" and jobs == 33
    us = LAB / "live-sacct-X-us.txt"  # another delimiter: the option to add is named
    one_line_error(ingest(wh, "--tz", "UTC", str(us)), "live-sacct-X-us.txt:1:", "--delimiter US")


# --- 6. --time-format that is not the file's, steps only, two dumps in one ---------------------------------------


def test_time_format_epoch_on_an_iso_dump_is_refused(tmp_path):
    """--time-format %s on trust-sacct.txt (ISO times): refused naming line 2's Submit, not ignored and recorded."""
    p = ingest(tmp_path / "wh", "--format", "sacct", "--tz", "UTC", "--time-format", "%s", str(DUMP))
    one_line_error(p, 'trust-sacct.txt:2: field 9 (Submit) is "2026-11-29T03:44:45", not a time in --time-format %s',
                   "drop --time-format")
    nothing_written(tmp_path / "wh")
    ok = ingest(tmp_path / "wh", "--format", "sacct", "--tz", "UTC", "--time-format", "%Y-%m-%dT%H:%M:%S", str(DUMP))
    assert ok.returncode == 0, ok.stderr  # the ISO form itself, given: the same times


def test_steps_only_dump_is_named(tmp_path):
    """The header and the step lines of trust-sacct.txt (a grep for '.'): "only job steps", not "empty file"."""
    lines = DUMP.read_text().splitlines(keepends=True)
    steps = tmp_path / "steps.txt"
    steps.write_text(lines[0] + "".join(x for x in lines[1:] if "." in x.split("|")[0]))
    p = ingest(tmp_path / "wh", "--format", "sacct", "--tz", "UTC", str(steps))
    one_line_error(p, "steps.txt:2: no job lines, only job steps (64 lines such as 1.batch): the job (allocation) "
                   "lines were filtered out")
    assert "empty file" not in p.stderr


def test_two_dumps_concatenated_name_the_second_header(tmp_path):
    """cat trust-sacct.txt trust-sacct.txt: refused at line 99, the second header; a dump with other columns
    after it (cat trust-sacct.txt trust-sacct-noeligible.txt) likewise, said to have other columns."""
    twice = tmp_path / "twice.txt"
    twice.write_bytes(DUMP.read_bytes() * 2)
    one_line_error(ingest(tmp_path / "wh", "--format", "sacct", "--tz", "UTC", str(twice)),
                   "twice.txt:99: a second header line (the same as line 1): two dumps concatenated?")
    mixed = tmp_path / "mixed.txt"
    mixed.write_bytes(DUMP.read_bytes() + (TRUST / "trust-sacct-noeligible.txt").read_bytes())
    one_line_error(ingest(tmp_path / "wh", "--format", "sacct", "--tz", "UTC", str(mixed)),
                   "mixed.txt:99: a second header line (other columns than line 1)")
    nothing_written(tmp_path / "wh")
