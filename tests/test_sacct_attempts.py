"""Issue 25: `sacct --duplicates` dumps. Each attempt of a requeued job is a
row; the last attempt is the job, the earlier ones (REQUEUED, PREEMPTED,
NODE_FAIL) go to `job_attempts`, and characterize and summary report the
core-hours they used. On tests/data/slurm/attempts-sacct-D.txt, a dump from
a real Slurm with a requeue by hand, a QOS preemption and a node failure."""

from __future__ import annotations

import csv
from datetime import datetime, timezone

import pytest

from conftest import run_cli
from sacct_dumps import ATTEMPTS, ATTEMPTS_PLAIN, jobs_of, load, trace_row
from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions


def naive_attempts(path) -> dict[str, list[dict]]:
    """The dump's job rows (no steps) per JobID, in the order of their Submit: a
    twin of the reader's rule written with csv and datetime, line by line."""
    out: dict[str, list[dict]] = {}
    with open(path, newline="") as f:
        for line, row in enumerate(csv.DictReader(f, delimiter="|"), start=2):
            if "." in row["JobID"]:
                continue
            t = {k: int(datetime.fromisoformat(row[k]).replace(tzinfo=timezone.utc).timestamp())
                 for k in ("Submit", "Start", "End")}
            out.setdefault(row["JobID"], []).append({**t, "line": line, "State": row["State"],
                                                    "NCPUS": int(row["NCPUS"]), "NNodes": int(row["NNodes"])})
    for rows in out.values():
        rows.sort(key=lambda r: (r["Submit"], r["line"]))
    return out


@pytest.fixture(scope="module")
def attempts(tmp_path_factory):
    return load(tmp_path_factory.mktemp("attempts"), path=ATTEMPTS)


def test_each_job_is_its_last_attempt(attempts, tmp_path):
    res, wh, jobs = attempts
    # the same jobs as the dump without --duplicates, which shows only each job's last attempt
    _, _, plain = load(tmp_path, path=ATTEMPTS_PLAIN)
    assert len(jobs) == len(plain) == 13
    for sid, job in plain.items():
        assert {k: jobs[sid][k] for k in ("run", "state", "req")} == {k: job[k] for k in ("run", "state", "req")}, sid
    # the case of the issue: preempted after 17 s, then completed in 41 s
    assert (jobs["22"]["state"], jobs["22"]["run"]) == ("COMPLETED", 41)
    assert (jobs["23"]["state"], jobs["23"]["run"]) == ("COMPLETED", 40)  # NODE_FAIL first
    assert (jobs["32"]["state"], jobs["32"]["run"]) == ("COMPLETED", 30)  # requeued twice
    assert (res.counts["earlier_attempts"], res.counts["requeued_jobs"]) == (5, 4)
    assert trace_row(wh, res.trace)["earlier_attempts"] == 5


def test_job_attempts_match_a_naive_reading(attempts):
    res, wh, _ = attempts
    twin = naive_attempts(ATTEMPTS)
    want = sorted((sid, k + 1, r["State"], r["End"] - r["Start"], r["NCPUS"], r["NNodes"], r["Submit"], r["line"])
                  for sid, rows in twin.items() for k, r in enumerate(rows[:-1]))
    con = wh.reader()
    try:
        got = con.execute("SELECT a.slurm_id, attempt, a.state, a.run, a.cpus, a.nodes, epoch(a.submit_ts)::BIGINT, "
                          "a.line, j.slurm_id FROM job_attempts a JOIN jobs j USING (trace, job_id) "
                          "WHERE trace = ? ORDER BY 1, 2", [res.trace]).fetchall()
    finally:
        con.close()
    assert [g[:-1] for g in got] == want
    assert all(g[0] == g[-1] for g in got)  # each attempt names its job
    assert [w[2] for w in want] == ["REQUEUED", "PREEMPTED", "NODE_FAIL", "REQUEUED", "REQUEUED"]
    # the first submission is kept: job 21's Submit is its requeue time, 16 s after attempt 1's
    first = {sid: rows[0]["Submit"] for sid, rows in twin.items() if len(rows) > 1}
    assert twin["21"][-1]["Submit"] - first["21"] == 16
    con = wh.reader()
    try:
        view = {r[0]: r[1:] for r in con.execute(
            "SELECT slurm_id, attempts, epoch(first_submit_ts)::BIGINT, lost_core_hours FROM requeued_jobs "
            "WHERE trace = ?", [res.trace]).fetchall()}
    finally:
        con.close()
    assert {s: v[:2] for s, v in view.items()} == {s: (len(twin[s]), first[s]) for s in first}
    assert view["32"][2] == pytest.approx((12 + 16) * 4 / 3600)


@pytest.mark.slow
def test_lost_core_hours_in_characterize(attempts):
    res, wh, _ = attempts
    from pipeline.characterize import characterize

    doc = characterize(res.trace, wh)
    lost = doc["lost_attempts"]
    # by hand from the dump: 21 16 s x 2, 22 17 s x 4, 23 21 s x 2, 32 12 s x 4 and 16 s x 4 CPUs
    assert lost["core_hours"] == pytest.approx((32 + 68 + 42 + 48 + 64) / 3600)
    by = {r["state"]: (r["attempts"], r["jobs"], r["core_hours"]) for r in lost["by_state"]}
    assert by == {"REQUEUED": (3, 2, pytest.approx(144 / 3600)), "PREEMPTED": (1, 1, pytest.approx(68 / 3600)),
                  "NODE_FAIL": (1, 1, pytest.approx(42 / 3600))}
    twin = naive_attempts(ATTEMPTS)
    naive = sum((r["End"] - r["Start"]) * r["NCPUS"] for rows in twin.values() for r in rows[:-1]) / 3600
    assert lost["core_hours"] == pytest.approx(naive)
    p = run_cli("characterize", res.trace, warehouse=wh.root, check=True)
    assert ("5 earlier attempts of 4 requeued jobs used 0.07 CPU-hours before they were cut short and ran again: "
            "REQUEUED 0.04 CPU-hours (3 attempts), PREEMPTED 0.02 CPU-hours (1 attempt), NODE_FAIL 0.01 "
            "CPU-hours (1 attempt).") in " ".join(p.stdout.split())


def test_summary_names_the_lost_core_hours(attempts):
    res, wh, _ = attempts
    from pipeline.characterize import lost_attempts
    from pipeline.summary import Summary
    from pipeline.summary.words import sentences

    con = wh.reader()
    try:
        lost = lost_attempts(con, res.trace)
    finally:
        con.close()
    s = Summary(res.trace, 13, "fcfs", "easy", 16, "2026-11-27", "2026-11-27", lost=lost)
    head = sentences(s)[0]
    assert head.endswith(f"used {lost['core_hours']:.2f} CPU-hours before they were cut short and ran again: "
                         "REQUEUED 0.04 CPU-hours (3 attempts), PREEMPTED 0.02 CPU-hours (1 attempt), NODE_FAIL "
                         "0.01 CPU-hours (1 attempt).")
    assert sentences(Summary(res.trace, 13, "fcfs", "easy", 16, None, None))[0] == f"{res.trace}: 13 jobs, 16 processors."


def test_replace_forgets_the_attempts(tmp_path):
    res, wh, _ = load(tmp_path, path=ATTEMPTS, name="lab")
    ingest([ATTEMPTS_PLAIN], wh, name="lab", replace=True, options=IngestOptions(format="sacct", tz="UTC"))
    con = wh.reader()
    try:
        assert con.execute("SELECT count(*) FROM job_attempts WHERE trace = 'lab'").fetchone()[0] == 0
    finally:
        con.close()
    assert trace_row(wh, "lab")["earlier_attempts"] == 0
    assert jobs_of(wh, "lab")["22"]["run"] == 41


@pytest.mark.slow
def test_cli_says_what_the_attempts_became(tmp_path):
    p = run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(ATTEMPTS), warehouse=tmp_path / "wh", check=True)
    out = " ".join(p.stdout.split())
    assert "13 jobs (36 job steps skipped;" in out
    assert ("; 5 earlier attempts of 4 requeued jobs kept in job_attempts; each job is its last "
            "attempt") in out
