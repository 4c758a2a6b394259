"""Issue 25, item 1: jobs RUNNING or SUSPENDED when sacct ran are censored.
Their run is unknown (NULL), they are counted and named at ingest, no R,
estimate or history learns from them; simulate replays them holding their
CPUs until the dump (issue 40) and says so. PENDING jobs stay never-started. On tests/data/slurm/live-sacct.txt, a
dump from a real Slurm taken while jobs ran."""

from __future__ import annotations

import pytest

from sacct_dumps import CONF, LIVE, LIVE_US, load, trace_row
from pipeline.simulate import simulate
from pipeline.simulate.config import SimConfig


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    return load(tmp_path_factory.mktemp("live"), slurm_conf=str(CONF))


def test_running_and_suspended_jobs_have_no_run_and_are_counted(live):
    res, wh, jobs = live
    assert [s for s, j in jobs.items() if j["state"] in ("RUNNING", "SUSPENDED")] == ["13", "14", "16"]
    for s in ("13", "14", "16"):
        assert jobs[s]["run"] is None and jobs[s]["end"] is None, s  # not 134 s of a 7,200 s job
        assert jobs[s]["wait"] is not None and jobs[s]["status"] is None, s  # they did start
    assert jobs["13"]["req"] == 7200 and jobs["14"]["req"] == 3600
    assert res.counts["running_at_dump"] == 3 == trace_row(wh, res.trace)["running_at_dump"]
    assert any(n.endswith("3 jobs still running or suspended at the dump (13, 14, 16): run unknown (NULL), "
                          "so left out of R, estimates and accuracy; simulate replays them holding their CPUs "
                          "until the dump") for n in res.notes)


def test_pending_jobs_are_never_started_as_before(live):
    res, wh, jobs = live
    for s in ("19", "20"):
        assert (jobs[s]["state"], jobs[s]["wait"], jobs[s]["run"], jobs[s]["status"]) == ("PENDING", None, None, None)
    assert res.counts["never_started"] == 3 == trace_row(wh, res.trace)["never_started"]  # 18 (cancelled), 19, 20


def test_live_jobs_give_no_r_and_no_history(live):
    res, wh, jobs = live
    con = wh.reader()
    try:
        r_jobs = {s for (s,) in con.execute("SELECT j.slurm_id FROM summary_jobs_r r JOIN jobs j USING (trace, job_id) "
                                            "WHERE trace = ?", [res.trace]).fetchall()}
    finally:
        con.close()
    assert r_jobs == {"11", "12", "17"}  # finished with a limit: not 13/14 (live), not 10/15 (no limit)
    from pipeline.estimates import ensure_estimates

    ensure_estimates(wh, res.trace, ["ave2"])
    con = wh.reader()
    try:
        est = dict(con.execute("SELECT j.slurm_id, e.est FROM estimates e JOIN jobs j USING (trace, job_id) "
                               "WHERE e.trace = ? AND e.scheme = 'ave2'", [res.trace]).fetchall())
    finally:
        con.close()
    # u2's jobs: 12 ran 8 s, 14 is suspended (24 s so far: read as ended, it would be history), 16 runs;
    # 20 (pending, submitted after all of them) learns from 12 only
    assert est["20"] == 8


def test_simulate_holds_their_cpus_until_the_dump_and_says_so(live):
    """Issue 40: a job running at the dump held its CPUs until the dump: the
    replay runs it for the dump's time (the latest live job's Start + Elapsed:
    12:07:11, when the dumps were taken) less its logged start."""
    res, wh, jobs = live
    run = simulate(wh, res.trace, SimConfig(capacity=16))
    c = run.counts
    assert c["held_running"] == 3 and c["left_out_running"] == 0 and c["left_out_no_run"] == 3  # 3 never started
    assert c["jobs_simulated"] == 8 == c["jobs_in_trace"] - c["left_out_no_run"]
    con = wh.reader()
    try:
        assert con.execute("SELECT held_running, left_out_running FROM runs WHERE run_id = ?",
                           [run.run_id]).fetchone() == (3, 0)
        (dump_end,) = con.execute("SELECT dump_end FROM traces WHERE trace = ?", [res.trace]).fetchone()
        ran = dict(con.execute("SELECT j.slurm_id, s.run FROM sim_jobs s JOIN runs r USING (run_id) "
                               "JOIN jobs j ON j.trace = r.trace AND j.job_id = s.job_id WHERE s.run_id = ?",
                               [run.run_id]).fetchall())
        (t0,) = con.execute("SELECT unix_start_time FROM traces WHERE trace = ?", [res.trace]).fetchone()
    finally:
        con.close()
    from datetime import datetime, timezone

    assert t0 + dump_end == datetime(2026, 11, 27, 12, 7, 11, tzinfo=timezone.utc).timestamp()
    lines = LIVE.read_text().splitlines()
    head = lines[0].split("|")
    starts = {f[0]: datetime.fromisoformat(f[head.index("Start")]).replace(tzinfo=timezone.utc).timestamp()
              for f in (line.split("|") for line in lines[1:]) if f[0] in ("13", "14", "16")}  # the dump's Start (UTC)
    for s in ("13", "14", "16"):
        assert ran[s] == t0 + dump_end - starts[s], s


def test_the_other_delimiter_dump_gives_the_same_live_jobs(tmp_path, live):
    res, wh, jobs = load(tmp_path, LIVE_US, delimiter="US", slurm_conf=str(CONF))
    assert res.counts["running_at_dump"] == 3 and res.counts["steps_skipped"] == 0
    assert jobs == live[2]


def test_the_commands_say_so(tmp_path):
    from ingest_support import run_inproc

    wh = tmp_path / "wh"
    proc = run_inproc("ingest", "--format", "sacct", "--tz", "UTC", "--slurm-conf", str(CONF), str(LIVE), warehouse=wh)
    assert proc.returncode == 0, proc.stderr
    assert "3 still running or suspended at the dump (run unknown)" in proc.stdout
    assert "3 without a time limit (UNLIMITED/Partition_Limit, 2 of them backfill's 365-00:00:00)" in proc.stdout
    assert "1 line with the separator inside a free-text field" in proc.stdout
    assert "note: live-sacct.txt: 3 jobs still running or suspended at the dump (13, 14, 16)" in proc.stderr
    proc = run_inproc("simulate", "live-sacct", warehouse=wh)
    assert proc.returncode == 0, proc.stderr
    assert ("3 jobs running or suspended when the sacct dump was taken were replayed holding their CPUs until "
            "the dump (run unknown beyond it; docs/simulate.md)\n") in proc.stdout


def test_exact_runtimes_read_from_the_jobs_equal_the_stored_actual_estimates(live):
    """A replay with exact runtimes reads the ``actual`` scheme from the jobs (inputs.actual_column: the
    summary stores no estimates for it); the values are the stored scheme's, job by job, NULL (NaN) for
    the jobs running at the dump and those never started, so the replay's estimates and fallbacks
    (est_seconds) are the same."""
    import numpy as np

    from pipeline.estimates import ensure_estimates
    from pipeline.simulate.inputs import actual_column, estimate_column, job_columns

    res, wh, jobs = live
    ensure_estimates(wh, res.trace, ["actual"])
    con = wh.reader()
    try:
        col, _ = job_columns(con, res.trace)
        stored = estimate_column(con, res.trace, "actual", col["job_id"])
        slurm_id = dict(con.execute("SELECT job_id, slurm_id FROM jobs WHERE trace = ?", [res.trace]).fetchall())
    finally:
        con.close()
    read = actual_column(col)
    assert np.array_equal(np.isnan(read), np.isnan(stored)) and np.array_equal(read[~np.isnan(read)],
                                                                             stored[~np.isnan(stored)])
    unknown = {slurm_id[int(j)] for j in col["job_id"][np.isnan(read)]}
    assert {"13", "14", "16", "19", "20"} <= unknown  # running at the dump (13, 14, 16: held), pending
    assert col["running"][np.isnan(read)].sum() == 3 and (col["run"][~np.isnan(read)] >= 0).all()
