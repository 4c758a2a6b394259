"""Issue 25: Eligible. Holds, dependencies, --begin and requeues make a job
eligible after its Submit; its wait, and the replay's release time, count
from Eligible (`ingest --release submit`: from Submit, as before). On
tests/data/slurm/attempts-sacct-D.txt from a real Slurm: 26 held and
released, 27 --begin=now+40, 29 after its dependency 28, 21/22/23/32
requeued (eligible again 121 s after the requeue)."""

from __future__ import annotations

import csv
from datetime import datetime, timezone

import pytest

from conftest import run_cli
from sacct_dumps import ATTEMPTS, load
from test_reliability import one_line_error
from pipeline.warehouse import Warehouse


def _t(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp())


def naive_jobs(path) -> dict[str, dict]:
    """Each job's last attempt (latest Submit) with csv: wait from Submit and from max(Submit, Eligible)."""
    rows: dict[str, dict] = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="|"):
            if "." in row["JobID"]:
                continue
            if row["JobID"] not in rows or _t(row["Submit"]) > _t(rows[row["JobID"]]["Submit"]):
                rows[row["JobID"]] = row
    t0 = min(_t(r["Submit"]) for r in rows.values())
    return {sid: {"submit": _t(r["Submit"]) - t0, "eligible": max(_t(r["Eligible"]), _t(r["Submit"])) - t0,
                  "start": _t(r["Start"]) - t0, "end": _t(r["End"]) - t0}
            for sid, r in rows.items()}


def _jobs(wh: Warehouse, trace: str) -> dict[str, dict]:
    con = wh.reader()
    try:
        cur = con.execute('SELECT slurm_id, submit, eligible, wait, "end" FROM jobs WHERE trace = ?', [trace])
        return {r[0]: dict(zip(("submit", "eligible", "wait", "end"), r[1:])) for r in cur.fetchall()}
    finally:
        con.close()


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    d = tmp_path_factory.mktemp("eligible")
    res, wh, _ = load(d, path=ATTEMPTS, name="elig")
    from pipeline.ingest import ingest
    from pipeline.ingest.formats import IngestOptions

    ingest([ATTEMPTS], wh, name="subm", options=IngestOptions(format="sacct", tz="UTC", release="submit"))
    return wh


def test_wait_counts_from_eligible_job_by_job(both):
    twin = naive_jobs(ATTEMPTS)
    elig, subm = _jobs(both, "elig"), _jobs(both, "subm")
    assert set(elig) == set(twin) == set(subm)
    for sid, t in twin.items():
        assert elig[sid] == {"submit": t["submit"], "eligible": t["eligible"], "wait": t["start"] - t["eligible"],
                             "end": t["end"]}, sid
        assert subm[sid] == {**elig[sid], "wait": t["start"] - t["submit"]}, sid  # eligible stored under both rules
    # the cases, by hand from the dump
    assert (elig["26"]["eligible"] - elig["26"]["submit"], elig["26"]["wait"], subm["26"]["wait"]) == (31, 0, 31)
    assert elig["27"]["eligible"] - elig["27"]["submit"] == 40  # --begin=now+40
    assert elig["29"]["eligible"] == twin["28"]["end"]         # afterok:28
    assert (elig["21"]["eligible"] - elig["21"]["submit"], elig["21"]["wait"]) == (121, 4)  # requeued
    con = both.reader()
    try:
        assert dict(con.execute("SELECT trace, release FROM traces").fetchall()) == {"elig": "eligible",
                                                                                     "subm": "submit"}
    finally:
        con.close()


@pytest.mark.slow
def test_the_replay_releases_jobs_at_eligible(both):
    from pipeline.simulate import simulate
    from pipeline.simulate.config import SimConfig

    got = {}
    for trace in ("elig", "subm"):
        res = simulate(both, trace, SimConfig(estimate="actual", backfill="none", capacity=64))
        con = both.reader()
        try:
            got[trace] = dict(con.execute(
                "SELECT j.slurm_id, s.submit FROM sim_jobs s JOIN jobs j ON j.trace = ? AND j.job_id = s.job_id "
                "WHERE s.run_id = ?", [trace, res.run_id]).fetchall())
        finally:
            con.close()
    elig, subm = _jobs(both, "elig"), _jobs(both, "subm")
    assert got["elig"] == {s: j["eligible"] for s, j in elig.items()}
    assert got["subm"] == {s: j["submit"] for s, j in subm.items()}
    assert got["elig"]["29"] > got["elig"]["28"]  # the dependent job is not replayed before its parent's end


@pytest.mark.slow
@pytest.mark.parametrize("trace", ["elig", "subm"])
def test_workers_release_jobs_as_the_coordinator(both, trace):
    """Study and report workers (local or dask) read no database: the release
    rule travels with the task, so their inputs equal the coordinator's."""
    from pipeline.simulate import input_hash, simulate
    from pipeline.simulate.config import SimConfig
    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.tasks import parquet_connection, release_of

    simulate(both, trace, SimConfig(estimate="request", capacity=64))  # (writes the estimates mirror)
    con = both.reader()
    try:
        rule = release_of(con, trace)
        coordinator = load_inputs(con, trace, "request", 64, False, "regular")
    finally:
        con.close()
    worker = parquet_connection(both.root, trace, rule)
    try:
        inputs = load_inputs(worker, trace, "request", 64, False, "regular")
    finally:
        worker.close()
    assert rule == {"elig": "eligible", "subm": "submit"}[trace]
    assert input_hash(trace, inputs) == input_hash(trace, coordinator)
    jobs = _jobs(both, trace)
    want = sorted(j["eligible"] if rule == "eligible" else j["submit"] for j in jobs.values() if j["wait"] is not None)
    assert sorted(inputs.submit.tolist()) == want


@pytest.mark.slow
def test_bad_eligible_and_bad_release_are_one_line_errors(tmp_path):
    lines = ATTEMPTS.read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("26|"))
    cells = lines[k].split("|")
    cells[9] = "soon"
    lines[k] = "|".join(cells)
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    wh = tmp_path / "wh"
    p = run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(bad), warehouse=wh)
    one_line_error(p, f'{bad}:{k + 1}: field 10 (Eligible) is "soon", expected a time, None or Unknown')
    p = run_cli("ingest", "--format", "sacct", "--release", "start", str(ATTEMPTS), warehouse=wh)
    one_line_error(p, "--release start: use eligible or submit")
    assert not (wh / "walltime.duckdb").exists()


@pytest.mark.parametrize("release", ["eligible", "submit"])
def test_the_reader_equals_the_naive_twin_on_the_attempts_dump(tmp_path, release):
    from naive_sacct import parse as naive_parse

    twin = naive_parse(ATTEMPTS, release=release)
    _, wh, jobs = load(tmp_path, path=ATTEMPTS, release=release)
    assert set(jobs) == set(twin)
    for sid, t in twin.items():
        assert {k: jobs[sid][k] for k in ("wait", "run", "req", "status", "state")} == \
               {k: t[k] for k in ("wait", "run", "req", "status", "state")}, sid


def test_swf_export_keeps_submit_plus_wait_the_start(both, tmp_path):
    from pipeline.export import export

    twin = naive_jobs(ATTEMPTS)
    for trace in ("elig", "subm"):
        out = tmp_path / f"{trace}.swf"
        export(both, trace, "swf", out)
        lines = [x.split() for x in out.read_text().splitlines() if not x.startswith(";")]
        by_id = {sid: j for sid, j in _jobs(both, trace).items()}
        order = sorted(by_id, key=lambda s: _job_id(both, trace, s))
        for sid, f in zip(order, lines):
            assert int(f[1]) + int(f[2]) == twin[sid]["start"], (trace, sid)  # submit + wait = Start
            assert int(f[1]) == (twin[sid]["eligible"] if trace == "elig" else twin[sid]["submit"]), (trace, sid)


def _job_id(wh, trace, sid):
    con = wh.reader()
    try:
        return con.execute("SELECT job_id FROM jobs WHERE trace = ? AND slurm_id = ?", [trace, sid]).fetchone()[0]
    finally:
        con.close()


def test_jobs_files_from_before_251_read_eligible_as_null(tmp_path):
    """A warehouse whose jobs files were written before migration 251 (no
    eligible column): the next writer rewrites them (jobs_files._add_columns),
    eligible NULL, beside files written after it."""
    import duckdb

    from pipeline.jobs_files import jobs_dir

    res, wh, _ = load(tmp_path, path=ATTEMPTS, name="old")
    [f] = list((jobs_dir(wh.root) / "old").glob("*.parquet"))
    con = duckdb.connect(str(wh.db_path))
    try:  # the file and the schema as before 251
        con.execute(f"COPY (SELECT * EXCLUDE (eligible) FROM read_parquet('{f}')) TO '{f}.tmp' (FORMAT parquet)")
        con.execute("ALTER TABLE jobs_legacy DROP COLUMN eligible")
        con.execute("ALTER TABLE traces DROP COLUMN release")
        con.execute("DELETE FROM schema_migrations WHERE version = 251")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    f.with_name(f.name + ".tmp").replace(f)
    from pipeline.ingest import ingest
    from pipeline.ingest.formats import IngestOptions

    ingest([ATTEMPTS], wh, name="new", options=IngestOptions(format="sacct", tz="UTC"))  # migrates, writes eligible
    old, new = _jobs(wh, "old"), _jobs(wh, "new")
    assert all(j["eligible"] is None for j in old.values()) and new["26"]["eligible"] == 32
    assert {s: j["wait"] for s, j in old.items()} == {s: j["wait"] for s, j in new.items()}  # stored as loaded
