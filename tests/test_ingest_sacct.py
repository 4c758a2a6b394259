"""`ingest --format sacct` on the real lab dumps, checked against slurm-lab.md
record by record and job by job against the naive twin (tests/naive_sacct.py)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from conftest import run_cli, trace_path
from naive_sacct import parse as naive_parse
from pipeline.errors import WalltimeError
from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions
from pipeline.warehouse import Warehouse

FULL = "slurm-lab-sacct.txt"
ALLOC = "slurm-lab-sacct-X.txt"
DEFAULT = "slurm-lab-sacct-default.txt"
CONF = "slurm-lab.conf"
COLS = ("slurm_id", "job_id", "submit", "wait", "run", "procs", "req_procs", "req", "req_mem", "status", "state",
        "exit_code", "user", "group_name", "account", "partition", "qos", "job_name", "array_job_id",
        "array_task_id", "het_job_id", "het_offset", "gpus", "user_id", "group_id", "partition_id", "queue_id")


def load(tmp_path, name=FULL, **opts):
    wh = Warehouse(tmp_path / "wh")
    [res] = ingest([trace_path(name)], wh, options=IngestOptions(format="sacct", tz="UTC", **opts))
    con = wh.reader()
    try:
        cols = ", ".join(f'"{c}"' for c in COLS)
        rows = con.execute(f"SELECT {cols} FROM jobs WHERE trace = ? ORDER BY job_id", [res.trace]).fetchall()
        cur = con.execute("SELECT format, tz, capacity, capacity_source, size_unit, unix_start_time, steps_skipped, "
                          "never_started, no_limit FROM traces WHERE trace = ?", [res.trace])
        trace = dict(zip([d[0] for d in cur.description], cur.fetchone()))
        parts = con.execute('SELECT "partition", capacity FROM trace_partitions WHERE trace = ? ORDER BY 1',
                            [res.trace]).fetchall()
    finally:
        con.close()
    jobs = {r[0]: dict(zip(COLS, r)) for r in rows}
    return res, jobs, trace, dict(parts)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    return load(tmp_path_factory.mktemp("lab"))


def test_counts_steps_and_ids(lab):
    res, jobs, trace, _ = lab
    assert res.jobs == 96 and len(jobs) == 96
    assert res.counts["steps_skipped"] == 203 and trace["steps_skipped"] == 203
    assert not any("." in s for s in jobs)
    assert sorted(j["job_id"] for j in jobs.values()) == list(range(1, 97))
    by_id = sorted(jobs.values(), key=lambda j: j["job_id"])
    assert all(a["submit"] <= b["submit"] for a, b in zip(by_id, by_id[1:])), "job_id follows submission order"
    assert jobs["1"]["submit"] == 0
    start = datetime(2026, 11, 22, 13, 54, 43, tzinfo=timezone.utc)
    assert trace["unix_start_time"] == int(start.timestamp()) and trace["format"] == "sacct"
    # the caveats: 26 and the never-eligible remainder of 70 are not in the window query
    assert "26" not in jobs and not any(s.startswith("70_[") for s in jobs)
    assert trace["tz"] == "UTC" and trace["size_unit"] == "cpus"


def test_states_and_status(lab):
    _, jobs, trace, _ = lab
    for s in ("15", "74", "95", "96", "99_3"):
        assert jobs[s]["state"] == "TIMEOUT" and jobs[s]["status"] == 0, s
    for s, code in (("16", "1:0"), ("25", "2:0"), ("11_7", "3:0"), ("78", None), ("93", None), ("33", "0:9"),
                    ("12+0", "1:0"), ("12+1", "1:0")):
        assert jobs[s]["state"] == "FAILED" and jobs[s]["status"] == 0, s
        if code:
            assert jobs[s]["exit_code"] == code
    assert jobs["32"]["state"] == "COMPLETED" and jobs["32"]["status"] == 1  # its failed step does not count
    for s in ("28", "30", "41", "31", "48_[0-19%2]", "71+0", "71+1"):  # cancelled while pending
        j = jobs[s]
        assert j["state"].startswith("CANCELLED by") and j["status"] == 5, s
        assert j["wait"] is None and j["run"] is None, s
    assert jobs["31"]["state"] == "CANCELLED by 0"
    for s, by in (("67", "1001"), ("68", "0"), ("70_4", "1002"), ("70_5", "1002")):  # cancelled while running
        assert jobs[s]["state"] == f"CANCELLED by {by}" and jobs[s]["status"] == 5 and jobs[s]["run"] is not None
    assert jobs["47"]["state"] == "DEADLINE" and jobs["47"]["wait"] is None
    assert trace["never_started"] == 8 == sum(j["wait"] is None for j in jobs.values())


def test_arrays_and_het(lab):
    _, jobs, _, _ = lab
    def tasks(a):
        return sorted(j["array_task_id"] for j in jobs.values() if j["array_job_id"] == a)
    assert tasks(10) == list(range(6)) and tasks(11) == list(range(10)) and tasks(99) == list(range(4))
    assert tasks(70) == list(range(6))
    assert tasks(48) == [None] and jobs["48_[0-19%2]"]["slurm_id"] == "48_[0-19%2]"
    assert jobs["99_3"]["array_job_id"] == 99 and jobs["99_3"]["array_task_id"] == 3
    for h in (12, 45, 71):
        comps = sorted((j["het_offset"], j["slurm_id"]) for j in jobs.values() if j["het_job_id"] == h)
        assert comps == [(0, f"{h}+0"), (1, f"{h}+1")]
    assert (jobs["12+0"]["partition"], jobs["12+1"]["partition"]) == ("short", "long")
    assert (jobs["45+0"]["procs"], jobs["45+1"]["procs"]) == (2, 4)


def test_times_limits_and_sizes(lab):
    _, jobs, trace, _ = lab
    assert jobs["75"]["req"] == 7200 and jobs["75"]["run"] == 59
    assert jobs["84"]["req"] == jobs["85"]["req"] == 86400 and jobs["84"]["procs"] == 4
    assert jobs["18"]["req"] == 4 * 3600 and jobs["20"]["req"] == 120
    assert jobs["17"]["req"] is None and jobs["19"]["req"] is None and trace["no_limit"] == 2
    assert jobs["51"]["req"] == 20 * 60  # limit lowered while pending: the final one
    assert jobs["49"]["run"] == 77  # wall time held, suspension included (Elapsed says 46)
    # Eligible later than Submit (21 held, released at 13:57:59; 22 --begin 13:57:28): the wait counts from
    # Eligible (issue 25; from Submit it was 266 and 91 s: ingest --release submit, tests/test_sacct_eligible.py)
    assert jobs["21"]["wait"] == 145 and jobs["22"]["wait"] == 1
    assert all(j["wait"] is None or j["wait"] >= 0 for j in jobs.values())
    assert jobs["14"]["procs"] == 8 and jobs["42"]["procs"] == 6 and jobs["39"]["procs"] == 16
    assert jobs["40"]["req_mem"] == 4500 * 1024 / 3  # the job total over its 3 CPUs, in KB
    assert all(j["gpus"] is None for j in jobs.values())


def test_names(lab):
    _, jobs, _, _ = lab
    assert jobs["53"]["job_name"] == "post process"
    assert jobs["29"]["qos"] == "high" and jobs["9"]["account"] == "proj_b"
    users = {(j["user"], j["group_name"]) for j in jobs.values()}
    assert users == {("u1", "physics"), ("u2", "physics"), ("u3", "chem"), ("u4", "chem")}
    accounts = {(j["user"], j["account"]) for j in jobs.values()}
    assert accounts <= {("u1", "proj_a"), ("u1", "proj_b"), ("u2", "proj_a"), ("u3", "proj_b"),
                        ("u4", "proj_c"), ("u4", "proj_b")}
    # integer codes are one-to-one with the names
    for s, i in (("user", "user_id"), ("account", "group_id"), ("partition", "partition_id"), ("qos", "queue_id")):
        pairs = {(j[s], j[i]) for j in jobs.values()}
        assert len(pairs) == len({p[0] for p in pairs}) == len({p[1] for p in pairs}), s


@pytest.mark.parametrize("size", ["cpus", "nodes"])
def test_twin_job_by_job(tmp_path, size):
    _, jobs, trace, _ = load(tmp_path, size=size)
    twin = naive_parse(trace_path(FULL), "UTC", size)
    assert set(twin) == set(jobs)
    t0 = trace["unix_start_time"]
    for sid, n in twin.items():
        j = jobs[sid]
        assert j["submit"] == n["submit_epoch"] - t0, sid
        for k in ("wait", "run", "procs", "req", "status", "state", "user", "account", "partition", "qos",
                  "job_name", "group_name", "array_job_id", "array_task_id", "het_job_id", "gpus"):
            assert j[k] == n[k], (sid, k, j[k], n[k])


def test_allocations_dump_gives_the_same_jobs(tmp_path, lab):
    res, jobs_x, trace, _ = load(tmp_path, ALLOC)
    assert res.counts["steps_skipped"] == 0 and trace["steps_skipped"] == 0
    assert jobs_x == lab[1]


def test_default_fields_dump_loads_without_times(tmp_path, lab):
    """`sacct -a -P` (JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode):
    the same 96 jobs as the full dump, record by record, with no times."""
    res, jobs, trace, _ = load(tmp_path, DEFAULT)
    full = lab[1]
    assert res.jobs == 96 and set(jobs) == set(full) and res.counts["steps_skipped"] == 203
    [note] = [n for n in res.notes if "no times" in n]
    assert note.startswith(f"{DEFAULT}: the dump has no times") and "--format=JobID," in note and "Submit" in note
    assert not any("machine's zone" in n for n in res.notes)  # no times: the zone does not matter
    assert sorted(j["job_id"] for j in jobs.values()) == list(range(1, 97))
    for sid, j in jobs.items():
        f = full[sid]
        for k in ("procs", "state", "status", "exit_code", "account", "partition", "job_name",
                  "array_job_id", "array_task_id", "het_job_id", "het_offset"):
            assert j[k] == f[k], (sid, k, j[k], f[k])
        assert j["req_procs"] == j["procs"], sid  # no ReqCPUS: the request is the allocation
        assert (j["submit"], j["wait"], j["run"], j["req"], j["user"], j["qos"]) == (None,) * 6, sid
    # slurm-lab.md, as for the full dump
    for s in ("15", "74", "95", "96", "99_3"):
        assert jobs[s]["state"] == "TIMEOUT" and jobs[s]["status"] == 0, s
    assert [jobs[s]["exit_code"] for s in ("16", "25", "11_7", "33", "12+0", "12+1")] == \
        ["1:0", "2:0", "3:0", "0:9", "1:0", "1:0"]
    assert jobs["31"]["state"] == "CANCELLED by 0" and jobs["67"]["state"] == "CANCELLED by 1001"
    assert jobs["47"]["state"] == "DEADLINE" and jobs["53"]["job_name"] == "post process"
    assert jobs["9"]["account"] == "proj_b" and (jobs["12+0"]["partition"], jobs["12+1"]["partition"]) == ("short", "long")
    assert jobs["14"]["procs"] == 8 and jobs["39"]["procs"] == 16 and jobs["48_[0-19%2]"]["array_task_id"] is None
    assert trace["unix_start_time"] is None and trace["never_started"] is None
    twin = naive_parse(trace_path(DEFAULT), "UTC")
    assert set(twin) == set(jobs)
    for sid, n in twin.items():
        for k in ("wait", "run", "procs", "req", "status", "state", "exit_code", "account", "partition", "job_name",
                  "array_job_id", "array_task_id", "het_job_id", "user"):
            assert jobs[sid][k] == n[k], (sid, k)


@pytest.fixture(scope="module")
def default_wh(tmp_path_factory):
    wh = tmp_path_factory.mktemp("default") / "wh"
    p = run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(trace_path(DEFAULT)), warehouse=wh, check=True)
    [note] = p.stderr.strip().splitlines()
    assert "the dump has no times" in note
    return wh


@pytest.mark.parametrize("command", [
    ["characterize"], ["estimate", "--scheme", "actual"], ["simulate", "--capacity", "16"], ["summary"],
    ["report", "--out", "{tmp}/r.html"], ["export", "--format", "swf", "--out", "{tmp}/x.swf"],
])
def test_default_fields_dump_is_refused_by_stages_that_need_times(tmp_path, default_wh, command):
    wh = default_wh
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    p = run_cli(args[0], "slurm-lab-sacct-default", *args[1:], warehouse=wh)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    [line] = p.stderr.strip().splitlines()
    assert line.startswith('error: trace "slurm-lab-sacct-default" has no job times') and \
        f"so {args[0]}" in line and "--format=JobID,JobIDRaw," in line and \
        line.endswith("then ingest that with --format sacct --delimiter US --replace")


def test_partial_times_are_refused(tmp_path):
    f = tmp_path / "nostart.txt"
    f.write_text("JobID|Submit|End|NCPUS|State\n1|2026-01-01T00:00:00|2026-01-01T00:00:05|1|COMPLETED\n")
    with pytest.raises(WalltimeError, match=r"nostart.txt:1: the sacct header lacks Start; run sacct with --format="):
        ingest([f], Warehouse(tmp_path / "wh"), options=IngestOptions(format="sacct", tz="UTC"))


def test_slurm_conf_sizes_partitions(tmp_path):
    _, _, trace, parts = load(tmp_path, slurm_conf=str(trace_path(CONF)))
    assert parts == {"short": 16, "long": 16, "unlim": 8}
    assert trace["capacity"] == 16 and trace["capacity_source"] == "slurm.conf slurm-lab.conf"
    _, _, trace, parts = load(tmp_path / "n", slurm_conf=str(trace_path(CONF)), size="nodes")
    assert parts == {"short": 4, "long": 4, "unlim": 2} and trace["capacity"] == 4


def test_capacity_option(tmp_path):
    _, _, trace, parts = load(tmp_path, capacity=["unlim=8", "32"])
    assert trace["capacity"] == 32 and parts == {"unlim": 8}
    with pytest.raises(WalltimeError, match="no job of the trace is in partition shrt"):
        load(tmp_path / "b", capacity=["shrt=4"])
    with pytest.raises(WalltimeError, match="--capacity x"):
        load(tmp_path / "c", capacity=["x"])


def test_cli_summary_and_zone_note(tmp_path):
    wh = tmp_path / "wh"
    p = run_cli("ingest", "--format", "sacct", str(trace_path(FULL)), warehouse=wh, env={"TZ": "UTC"})
    assert p.returncode == 0, p.stderr
    assert "96 jobs" in p.stdout and "203 job steps skipped" in p.stdout and "8 never started" in p.stdout
    assert "machine's zone, UTC" in p.stderr and "--tz" in p.stderr
    p = run_cli("ingest", "--format", "sacct", "--tz", "Mars/Olympus", str(trace_path(FULL)), warehouse=wh)
    assert p.returncode == 1 and "--tz Mars/Olympus: unknown time zone" in p.stderr


HEADER = "JobID|User|Account|Partition|Submit|Start|End|Timelimit|NCPUS|State\n"
GOOD = "4|a|p|q|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|01:00:00|1|COMPLETED"


def test_dst_changes_make_no_negative_waits(tmp_path):
    """New York: clocks go back at 02:00 on 2026-11-01 (01:00-02:00 twice) and
    jump from 02:00 to 03:00 on 2026-03-08."""
    rows = [
        # submitted 01:50 summer time, started 01:10 winter time: 20 min wait
        "1|a|p|q|2026-11-01T01:50:00|2026-11-01T01:10:00|2026-11-01T01:40:00|01:00:00|1|COMPLETED",
        # both in the first 01:xx: 10 min wait
        "2|a|p|q|2026-11-01T01:20:00|2026-11-01T01:30:00|2026-11-01T03:00:00|1-00:00:00|1|COMPLETED",
        # across the spring gap: 01:50 EST to 03:10 EDT is 20 min
        "3|a|p|q|2026-03-08T01:50:00|2026-03-08T03:10:00|2026-03-08T03:20:00|30|1|COMPLETED",
    ]
    f = tmp_path / "dst.txt"
    f.write_text(HEADER + "\n".join(rows) + "\n")
    wh = Warehouse(tmp_path / "wh")
    ingest([f], wh, options=IngestOptions(format="sacct", tz="America/New_York"))
    con = wh.reader()
    got = dict((r[0], r[1:]) for r in con.execute("SELECT slurm_id, wait, run, req FROM jobs").fetchall())
    con.close()
    assert got["1"] == (1200, 1800, 3600)
    assert got["2"] == (600, 5400 + 3600, 86400)  # 01:30 EDT to 03:00 EST is 2.5 h
    assert got["3"] == (1200, 600, 1800)


@pytest.mark.parametrize("row, where", [
    ("5|a|p|q|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|01:00:00|1", "the line has 9 fields, the header 10"),
    ("5|a|p|q|2026-13-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|01:00:00|1|COMPLETED", 'field 5 (Submit) is "2026-13-01T00:00:00"'),
    ("5|a|p|q|2026-01-01T00:00:00|soon|2026-01-01T00:00:02|01:00:00|1|COMPLETED", 'field 6 (Start) is "soon"'),
    ("5|a|p|q|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|1 hour|1|COMPLETED", 'field 8 (Timelimit) is "1 hour"'),
    ("5|a|p|q|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|01:00:00|1|EXPLODED", 'field 10 (State) is "EXPLODED"'),
    ("x5|a|p|q|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|01:00:00|1|COMPLETED", 'field 1 (JobID) is "x5"'),
    ("4|a|p|q|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|01:00:00|1|COMPLETED", 'field 1 (JobID) is "4", a duplicate of line 2'),
])
def test_bad_lines(tmp_path, row, where):
    f = tmp_path / "bad.txt"
    f.write_text(HEADER + GOOD + "\n" + GOOD.replace("4|", "4.batch|", 1) + "\n" + row + "\n")
    wh = Warehouse(tmp_path / "wh")
    with pytest.raises(WalltimeError) as e:
        ingest([f], wh, options=IngestOptions(format="sacct", tz="UTC"))
    assert str(e.value).startswith(f"{f}:4: {where}") and "\n" not in str(e.value)
    [res] = ingest([f], wh, lenient=True, options=IngestOptions(format="sacct", tz="UTC"))
    assert (res.jobs, res.rejected) == (1, 1)
    con = wh.reader()
    assert con.execute("SELECT line, reason FROM rejects").fetchall() == [(4, str(e.value).split(": ", 1)[1])]
    con.close()


def test_bad_line_cli_leaves_warehouse_as_it_was(tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text(HEADER + GOOD + "\n" + GOOD.replace("|1|COMPLETED", "|1|EXPLODED").replace("4|", "5|", 1) + "\n")
    wh = tmp_path / "wh"
    run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(trace_path(ALLOC)), warehouse=wh, check=True)
    before = run_cli("sql", "SELECT trace, count(*) FROM jobs GROUP BY ALL", warehouse=wh, check=True).stdout
    p = run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(f), warehouse=wh)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.strip() == f'error: {f}:3: field 10 (State) is "EXPLODED", expected a Slurm job state (COMPLETED, FAILED, TIMEOUT, CANCELLED, ...)'
    assert run_cli("sql", "SELECT trace, count(*) FROM jobs GROUP BY ALL", warehouse=wh, check=True).stdout == before


def test_missing_column_is_named(tmp_path):
    f = tmp_path / "nosubmit.txt"
    f.write_text("JobID|Start|End|NCPUS\n1|2026-01-01T00:00:00|2026-01-01T00:00:05|1\n")
    p = run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(f), warehouse=tmp_path / "wh")
    assert p.returncode == 1 and f"{f}:1: the sacct header lacks Submit" in p.stderr


@pytest.mark.parametrize("text, seconds", [
    ("05:30", 330), ("02:00:00", 7200), ("1-12", 129600), ("1-12:30", 131400), ("2-00:00:10", 172810),
    ("90", 5400), ("UNLIMITED", None), ("Partition_Limit", None),
])
def test_timelimit_formats(tmp_path, text, seconds):
    f = tmp_path / "limits.txt"
    f.write_text("JobID|Submit|Start|ElapsedRaw|NCPUS|AllocTRES|Timelimit|State\n"
                 f"7|2026-01-01T00:00:00|2026-01-01T00:00:05|40|8|billing=8,cpu=8,gres/gpu=2,node=1|{text}|TIMEOUT\n")
    wh = Warehouse(tmp_path / "wh")
    [res] = ingest([f], wh, options=IngestOptions(format="sacct", tz="UTC"))
    con = wh.reader()
    row = con.execute("SELECT req, wait, run, procs, gpus, status FROM jobs").fetchone()
    con.close()
    assert row == (seconds, 5, 40, 8, 2, 0)  # no End: the run is ElapsedRaw
    assert res.counts["no_limit"] == (seconds is None)


@pytest.mark.parametrize("text, msg", [
    ("", ":1: empty file"),
    ("JobID|Submit|Start|End|NCPUS\n", ":1: no job lines"),
    ("JobID|Submit|Start|End|NCPUS\n1.batch|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:01|1\n",
     ":2: no job lines"),
])
def test_empty_and_steps_only(tmp_path, text, msg):
    f = tmp_path / "few.txt"
    f.write_text(text)
    with pytest.raises(WalltimeError, match=msg):
        ingest([f], Warehouse(tmp_path / "wh"), options=IngestOptions(format="sacct", tz="UTC"))


@pytest.mark.parametrize("text, kb", [
    ("100M", 100 * 1024 / 4), ("4500M", 4500 * 1024 / 4), ("512K", 512 / 4), ("1.5G", 1.5 * 1024**2 / 4),
    ("2T", 2 * 1024**3 / 4), ("1000Mc", 1000 * 1024), ("2Gn", 2 * 1024**2 / 4), ("300", 300 * 1024 / 4),
    ("", None), ("lots", None), ("12MM", None), ("M", None),
])
def test_reqmem_forms(tmp_path, text, kb):
    """ReqMem as KB per processor: job total (Slurm >= 21), c = per CPU, n = per node (over the job's CPUs)."""
    f = tmp_path / "mem.txt"
    f.write_text("JobID|Submit|Start|End|NCPUS|ReqMem|State\n"
                 f"7|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:09|4|{text}|COMPLETED\n")
    wh = Warehouse(tmp_path / "wh")
    ingest([f], wh, options=IngestOptions(format="sacct", tz="UTC"))
    con = wh.reader()
    got = con.execute("SELECT req_mem FROM jobs").fetchone()[0]
    con.close()
    assert got == pytest.approx(kb) if kb is not None else got is None


def test_non_utf8_field_is_named(tmp_path):
    f = tmp_path / "latin1.txt"
    f.write_bytes(b"JobID|JobName|Submit|Start|End|NCPUS|State\n"
                  b"6|cafe|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:09|4|COMPLETED\n"
                  b"7|caf\xe9|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:00:09|4|COMPLETED\n")
    with pytest.raises(WalltimeError, match=r"latin1.txt:3: field 2 \(JobName\) is not UTF-8"):
        ingest([f], Warehouse(tmp_path / "wh"), options=IngestOptions(format="sacct", tz="UTC"))


def test_views_over_several_buffers_give_the_same_jobs(tmp_path, lab, monkeypatch):
    """Dumps over 2 GiB are cut into several Arrow buffers at line starts;
    a 5,000-byte cut on the lab dump must change nothing."""
    from pipeline.ingest import sacct

    monkeypatch.setattr(sacct, "VIEW_BUFFER", 5000)
    _, jobs, _, _ = load(tmp_path)
    assert jobs == lab[1]
