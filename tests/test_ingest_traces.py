"""Every shared trace loads, and what is stored matches MANIFEST.md.

One warehouse for all traces (one real `walltime ingest` of every .swf.gz);
the expected numbers are parsed from the manifest table, not copied here.
"""

from __future__ import annotations

import gzip
import json
import re
from datetime import datetime, timezone

import blake3
import duckdb
import pytest

from conftest import TRACES, run_cli, trace_path
from ingest_support import manifest_rows, parse_manifest_row

ROWS = {r["file"]: r for r in manifest_rows() if r["file"].endswith(".swf.gz")}
# Thunder has 1,190 lines whose every field is -1, submit time included: the
# default refuses the file, --lenient keeps them as rejects.
SUBMIT_UNKNOWN = 'field 2 (submit time) is "-1", expected a non-negative integer'


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """A warehouse holding every .swf.gz of the manifest, and the CLI's output."""
    if not ROWS:
        trace_path("MANIFEST.md")
    files = [str(trace_path(f)) for f in sorted(ROWS)]
    wh = tmp_path_factory.mktemp("all") / "wh"
    proc = run_cli("ingest", *files, "--lenient", "--json", warehouse=wh)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    con = duckdb.connect(str(wh / "walltime.duckdb"), read_only=True)
    yield {"wh": wh, "doc": doc, "stderr": proc.stderr, "con": con,
           "results": {r["trace"]: r for r in doc["traces"]}}
    con.close()


def _trace(file: str) -> str:
    return file.removesuffix(".gz").removesuffix(".swf")


def test_every_trace_file_of_the_folder_is_in_the_manifest():
    on_disk = {p.name for p in TRACES.glob("*.swf.gz")}
    if not on_disk:
        trace_path("MANIFEST.md")
    assert on_disk <= set(ROWS), f"traces missing from MANIFEST.md: {on_disk - set(ROWS)}"


@pytest.mark.parametrize("file", sorted(ROWS))
def test_trace_matches_manifest(loaded, file):
    con, want = loaded["con"], parse_manifest_row(ROWS[file])
    trace = _trace(file)
    row = con.execute(
        "SELECT jobs, rejected, max_procs, unix_start_time, sha256, lines FROM traces WHERE trace = ?", [trace]
    ).fetchone()
    assert row is not None, f"{trace} not loaded"
    jobs, rejected, max_procs, unix_start, sha, lines = row
    assert loaded["results"][trace]["jobs"] == jobs

    # every non-';' line is a job in the manifest; we reject only unknown submits
    assert jobs + rejected == want["jobs"]
    reasons = [r for (r,) in con.execute("SELECT DISTINCT reason FROM rejects WHERE trace = ?", [trace]).fetchall()]
    assert reasons in ([], [SUBMIT_UNKNOWN])
    assert con.execute("SELECT count(*) FROM jobs WHERE trace = ?", [trace]).fetchone()[0] == jobs

    assert max_procs == want["capacity"]

    first, last, span = _span(con, trace)
    if "first" in want:
        assert (first, last) == (want["first"], want["last"])
    else:
        assert unix_start is None
        assert abs(span / 86400 - want["relative_days"]) <= 1

    # shares and distinct ids over all lines (rejected lines carry -1 there)
    total = jobs + rejected
    req, wait, users, groups = con.execute(
        "SELECT count(*) FILTER (req > 0), count(*) FILTER (wait >= 0), "
        "count(DISTINCT coalesce(user_id, -1)), count(DISTINCT coalesce(group_id, -1)) "
        "FROM jobs WHERE trace = ?", [trace]
    ).fetchone()
    assert round(req / total, 2) == want["req"]
    assert round(wait / total, 2) == want["wait"]
    assert (users, groups) == (want["users"], want["groups"])

    # the content hash (traces.sha256: BLAKE3) is of the decompressed bytes; lines counts physical lines
    data = gzip.decompress(trace_path(file).read_bytes())
    assert sha == "blake3:" + blake3.blake3(data).hexdigest()
    assert lines == len(data.splitlines())

    # the trace's Parquet files (the jobs view reads them) hold the same jobs
    from pipeline.jobs_files import committed_files

    files = [str(f) for f in committed_files(loaded["wh"], trace)]
    assert con.execute("SELECT count(*) FROM read_parquet(?)", [files]).fetchone()[0] == jobs


def _span(con, trace):
    """UTC dates of the first/last submission and the span in seconds."""
    lo, hi, span = con.execute(
        "SELECT epoch(min(submit_ts))::BIGINT, epoch(max(submit_ts))::BIGINT, max(submit) - min(submit) "
        "FROM jobs WHERE trace = ?", [trace]
    ).fetchone()
    day = lambda s: datetime.fromtimestamp(s, timezone.utc).strftime("%Y-%m-%d")  # noqa: E731
    return day(lo), day(hi), span


@pytest.mark.parametrize("file", sorted(ROWS))
def test_header_lines_kept_and_typed(loaded, file):
    """Every ';' line is kept; Key: Value ones typed as a plain regex reads them."""
    con, trace = loaded["con"], _trace(file)
    text = gzip.decompress(trace_path(file).read_bytes()).decode("utf-8", "replace")
    semis = [ln for ln in text.splitlines() if ln.lstrip().startswith(";")]
    stored = con.execute("SELECT count(*) FROM trace_header WHERE trace = ?", [trace]).fetchone()[0]
    assert stored == len(semis)
    raw = con.execute("SELECT header_raw FROM traces WHERE trace = ?", [trace]).fetchone()[0]
    assert raw == "\n".join(s.rstrip("\r") for s in semis)

    def header(key):
        for ln in semis:
            m = re.match(rf"^\s*;\s*{key}\s*:\s*(.*?)\s*$", ln)
            if m:
                return m.group(1)
        return None

    got = con.execute(
        "SELECT max_procs, max_nodes, unix_start_time, time_zone_string, tz, capacity FROM traces WHERE trace = ?",
        [trace],
    ).fetchone()
    as_int = lambda v: None if v is None else int(v.split()[0])  # noqa: E731
    assert got[0] == as_int(header("MaxProcs"))
    assert got[1] == as_int(header("MaxNodes"))
    assert got[2] == as_int(header("UnixStartTime"))
    assert got[3] == header("TimeZoneString")
    assert got[4] == (header("TimeZoneString") or "UTC")
    assert got[5] == (got[0] or got[1])


def test_submit_ts_end_and_month_derived(loaded):
    """submit_ts = UnixStartTime + submit (UTC); end = submit + wait + run; month in the trace's zone."""
    con = loaded["con"]
    bad = con.execute(
        """
        SELECT count(*) FROM jobs j JOIN traces t USING (trace)
        WHERE epoch(j.submit_ts)::BIGINT <> coalesce(t.unix_start_time, 0) + j.submit
           OR j."end" IS DISTINCT FROM j.submit + j.wait + j.run
           OR j.month <> strftime(j.submit_ts AT TIME ZONE t.tz, '%Y-%m')
           OR j.nodes IS DISTINCT FROM CASE WHEN j.procs > 0 THEN j.procs WHEN j.req_procs > 0 THEN j.req_procs END
        """
    ).fetchone()[0]
    assert bad == 0


def test_special_traces_load(loaded):
    """NASA-iPSC (no requested times), wagap-2013 (21 tokens, no header),
    METACENTRUM (no header)."""
    con, res = loaded["con"], loaded["results"]
    for trace in ("NASA-iPSC-1993-3.1-cln", "wagap-2013", "METACENTRUM-2009-2"):
        if trace not in res:
            pytest.skip(f"{trace} not in the manifest")
        assert res[trace]["status"] == "loaded" and res[trace]["jobs"] > 0
    assert con.execute("SELECT count(req) FROM jobs WHERE trace = 'NASA-iPSC-1993-3.1-cln'").fetchone()[0] == 0
    ext = con.execute("SELECT trace FROM traces WHERE extended_tokens").fetchall()
    assert ext == [("wagap-2013",)]
    note = "lines carry more than 18 fields (extended SWF); using the first 18"
    assert loaded["stderr"].count(note) == 1
    assert res["wagap-2013"]["notes"] == [f"wagap-2013.swf.gz: {note}"]
    for trace in ("wagap-2013", "METACENTRUM-2009-2"):
        assert con.execute("SELECT count(*) FROM trace_header WHERE trace = ?", [trace]).fetchone()[0] == 0
    # wagap's submit times are absolute Unix times
    assert con.execute(
        "SELECT min(submit) FROM jobs WHERE trace = 'wagap-2013'"
    ).fetchone()[0] > 1_300_000_000


def test_traces_command_lists_them(loaded):
    proc = run_cli("traces", "--json", warehouse=loaded["wh"], process=True)  # the fixture holds a connection open
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert {r["trace"] for r in rows} == {_trace(f) for f in ROWS}
    for r in rows:
        assert set(r) >= {"trace", "jobs", "rejected", "first_submit", "last_submit", "capacity", "users", "sha256"}
        assert r["sha256"] == loaded["results"][r["trace"]]["sha256"]
