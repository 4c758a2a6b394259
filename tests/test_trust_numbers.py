"""Issue 40, numbers a site can trust, on a second real Slurm cluster
(tests/data/slurm-trust: hardware threads, GPUs, a --exclusive job, a
preemption, a node failure, a job cancelled while running, jobs without a
time limit, jobs running at the dump).

Every number is checked against a computation straight from the dump's text
(:func:`dump_jobs`: the top-level rows, parsed here with plain Python), not
from the warehouse it is compared with.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import polars as pl
import pytest

from conftest import run_cli

TRUST = Path(__file__).parent / "data" / "slurm-trust"
CUT_SHORT = {"PREEMPTED", "NODE_FAIL"}  # and CANCELLED after a start


def dump_jobs(name: str = "trust-sacct.txt") -> list[dict]:
    """The dump's job rows (not steps) as dicts of their fields, verbatim."""
    lines = (TRUST / name).read_text().splitlines()
    head = lines[0].split("|")
    return [dict(zip(head, line.split("|"))) for line in lines[1:] if "." not in line.split("|")[0]]


def gres_gpu(tres: str) -> int:
    return next((int(kv.split("=")[1]) for kv in tres.split(",") if kv.startswith("gres/gpu=")), 0)


def is_cut_short(j: dict) -> bool:
    state = j["State"].split(" ")[0]
    return state in CUT_SHORT or (state == "CANCELLED" and j["Start"] not in ("None", "Unknown"))


def finished_with_limit(j: dict) -> bool:
    """A job with an R: it ended (not running or pending at the dump), has a time limit and was not cut short."""
    return (j["State"].split(" ")[0] not in ("RUNNING", "PENDING", "SUSPENDED") and j["End"] != "Unknown"
            and j["Start"] != "None" and j["TimelimitRaw"] not in ("UNLIMITED", "Partition_Limit")
            and not is_cut_short(j))


@pytest.fixture(scope="module")
def trust(tmp_path_factory) -> tuple[Path, dict]:
    """The text dump ingested and summarised (24 processors: the cluster's CPUs), with the summary's JSON."""
    wh = tmp_path_factory.mktemp("trust") / "wh"
    run_cli("ingest", str(TRUST / "trust-sacct.txt"), "--format", "sacct", "--name", "trust", "--tz", "UTC",
            warehouse=wh, check=True)
    doc = json.loads(run_cli("summary", "trust", "--capacity", "24", "--json", warehouse=wh, check=True).stdout)
    return wh, doc


def test_the_dump_has_the_cases(trust):
    """The lab did what its README says (else the checks below test nothing)."""
    jobs = dump_jobs()
    states = [j["State"].split(" ")[0] for j in jobs]
    assert {"PREEMPTED", "NODE_FAIL", "CANCELLED", "RUNNING"} <= set(states)
    assert sum(is_cut_short(j) for j in jobs) == 3
    excl = next(j for j in jobs if j["JobName"] == "excl_nogpu")
    assert gres_gpu(excl["AllocTRES"]) == 2 and gres_gpu(excl["ReqTRES"]) == 0


def test_runs_cut_short_are_left_out_of_r_and_counted(trust):
    _, doc = trust
    jobs = [j for j in dump_jobs() if finished_with_limit(j)]
    r = [min(int(j["ElapsedRaw"]), 60 * int(j["TimelimitRaw"])) / (60 * int(j["TimelimitRaw"])) for j in jobs]
    w = doc["wrong"]
    assert w["jobs_r"] == len(r) == 24
    assert w["median_r"] == pytest.approx(statistics.median(r)) and w["mean_r"] == pytest.approx(statistics.mean(r))
    cpus = {j["JobID"]: int(j["NCPUS"]) for j in jobs}
    req_h = sum(cpus[j["JobID"]] * 60 * int(j["TimelimitRaw"]) for j in jobs) / 3600
    assert w["req_core_h"] == pytest.approx(req_h)
    cut = doc["cut_short"]
    assert (cut["jobs"], cut["preempted"], cut["node_fail"], cut["cancelled_running"]) == (3, 1, 1, 1)
    short = [j for j in dump_jobs() if is_cut_short(j)]
    assert cut["core_h"] == pytest.approx(sum(int(j["NCPUS"]) * int(j["ElapsedRaw"]) for j in short) / 3600)
    text = " ".join(doc["text"])
    assert "3 runs cut short (1 preempted, 1 lost with a node, 1 cancelled while running" in text


def test_accuracy_scores_only_true_runtimes(trust):
    """The requests' accuracy row is scored on the jobs with a request and a true runtime."""
    _, doc = trust
    req = next(e for e in doc["estimators"] if e["scheme"] == "request")
    assert req["scored"] == sum(finished_with_limit(j) for j in dump_jobs()) == 24


def test_estimators_never_learn_from_a_run_cut_short(trust, tmp_path):
    """The runs cut short moved (their End and ElapsedRaw changed in a copy of
    the dump): every estimate of every job but theirs is unchanged."""
    wh, _ = trust
    lines = (TRUST / "trust-sacct.txt").read_text().splitlines()
    head = lines[0].split("|")
    col = {c: head.index(c) for c in ("JobID", "End", "ElapsedRaw", "Start", "State")}
    short_ids = {j["JobID"] for j in dump_jobs() if is_cut_short(j)}
    out = [lines[0]]
    for line in lines[1:]:
        f = line.split("|")
        if f[col["JobID"]].split(".")[0] in short_ids:  # the job and its steps: 100 s shorter... or longer
            f[col["ElapsedRaw"]] = str(int(f[col["ElapsedRaw"]]) + 100)
            hh, mm, ss = f[col["End"]][-8:].split(":")
            f[col["End"]] = f[col["End"]][:-8] + f"{hh}:{int(mm) + 1:02d}:{int(ss):02d}"
        out.append("|".join(f))
    moved = tmp_path / "moved.txt"
    moved.write_text("\n".join(out) + "\n")
    run_cli("ingest", str(moved), "--format", "sacct", "--name", "moved", "--tz", "UTC", warehouse=wh, check=True)
    schemes = ["ave2", "klusacek:last=5", "tang:key=user_project_req,window=30d,stat=p85", "learned", "feitelson", "gibbons", "downey:stat=median,key=queue"]
    run_cli("estimate", "moved", *[a for s in schemes for a in ("--scheme", s)], warehouse=wh, check=True)
    run_cli("estimate", "trust", *[a for s in schemes for a in ("--scheme", s)], warehouse=wh, check=True)
    q = run_cli("sql", "SELECT e.trace, e.scheme, j.slurm_id, e.est FROM estimates e JOIN jobs j USING (trace, job_id) "
                "WHERE e.scheme <> 'actual' ORDER BY 1, 2, 3", "--csv", warehouse=wh, check=True)
    df = pl.read_csv(q.stdout.encode())
    a = df.filter(pl.col("trace") == "trust").drop("trace")
    b = df.filter(pl.col("trace") == "moved").drop("trace")
    both = a.join(b, on=["scheme", "slurm_id"], suffix="_moved")
    assert both.height == b.height and both.height > 100  # (trust also holds the summary's schemes)
    changed = both.filter(~(pl.col("est") == pl.col("est_moved")).fill_null(pl.col("est").is_null()
                                                                              & pl.col("est_moved").is_null()))
    assert changed["slurm_id"].cast(pl.String).to_list() == [], changed


def test_gpu_hours_count_finished_jobs_and_add_up(trust):
    """GPU-hours per partition over the jobs with an R (finished, a limit, not
    cut short): pending and running jobs are out, and the lines add up to the
    JSON's total; requested counts the GPUs asked for (ReqTRES: the --exclusive
    job 12 asked for none), used the GPUs held (AllocTRES); a small amount is
    printed, not rounded to 0."""
    _, doc = trust
    jobs = [j for j in dump_jobs() if finished_with_limit(j) and gres_gpu(j["AllocTRES"]) > 0]
    assert "excl_nogpu" in {j["JobName"] for j in jobs}
    req = sum(gres_gpu(j["ReqTRES"]) * 60 * int(j["TimelimitRaw"]) for j in jobs) / 3600
    used = sum(gres_gpu(j["AllocTRES"]) * min(int(j["ElapsedRaw"]), 60 * int(j["TimelimitRaw"])) for j in jobs) / 3600
    (g,) = doc["gpus"]
    assert g["partition"] == "gpu" and g["gpu_jobs"] == len(jobs)
    assert g["req_gpu_h"] == pytest.approx(req) and g["used_gpu_h"] == pytest.approx(used)
    assert doc["wrong"]["req_gpu_h"] == pytest.approx(g["req_gpu_h"])
    assert doc["wrong"]["used_gpu_h"] == pytest.approx(g["used_gpu_h"])
    text = " ".join(doc["text"])
    assert f"{used:.2g} GPU-hours used ({100 * used / req:.1f}%, {len(jobs)} jobs)" in text


def test_best_estimator_and_requests_on_the_same_jobs(trust):
    """The sentence's comparison is made on the jobs both score, recomputed here
    from the stored estimates and the dump's runtimes."""
    wh, doc = trust
    best = doc["best"]["scheme"]
    q = run_cli("sql", f"SELECT j.slurm_id, e.scheme, e.est FROM estimates e JOIN jobs j USING (trace, job_id) "
                f"WHERE e.trace = 'trust' AND e.scheme IN ('request', '{best}')", "--csv",
                warehouse=wh, check=True)
    est = {(str(r["slurm_id"]), r["scheme"]): r["est"] for r in pl.read_csv(q.stdout.encode()).iter_rows(named=True)}
    accs = {"request": [], best: []}
    for j in dump_jobs():
        if j["End"] == "Unknown" or j["Start"] == "None" or is_cut_short(j):
            continue
        run = int(j["ElapsedRaw"])
        e = {s: est.get((j["JobID"], s)) for s in accs}
        if any(v is None for v in e.values()):
            continue
        for s, v in e.items():
            accs[s].append(1.0 if v == run else min(v, run) / max(v, run))
    same = doc["same_jobs"]
    assert same["jobs"] == len(accs["request"]) == 24  # the two UNLIMITED jobs have no request to score
    assert same["request_acc"] == pytest.approx(statistics.mean(accs["request"]))
    assert same["best_acc"] == pytest.approx(statistics.mean(accs[best]))
    gain = 100 * (same["best_acc"] / same["request_acc"] - 1)
    assert f"On the 24 jobs both score (those with a time limit), the requests score {same['request_acc']:.2f}" \
        in " ".join(doc["text"])
    assert f"the best estimator is {abs(gain):.0f}% more accurate" in " ".join(doc["text"])


def test_jobs_without_a_limit_are_said_in_the_request_replay(trust):
    _, doc = trust
    unlimited = [j for j in dump_jobs() if j["TimelimitRaw"] == "UNLIMITED" and j["End"] != "Unknown"]
    row = next(q for q in doc["queue"] if q["estimate"] == "request")
    assert row["no_request"] == len(unlimited) == 2
    assert "; 2 jobs without a time limit replayed with their own run time as the request)" in " ".join(doc["text"])


def test_report_totals_keep_their_digits(trust, tmp_path):
    """The overview's hours are the sums, not whole hours (the page rounds for reading; the CSV keeps them)."""
    wh, _ = trust
    q = run_cli("sql", "SELECT core_hours, node_hours, gpu_hours FROM report_trace_overview WHERE trace = 'trust'",
                "--csv", warehouse=wh, check=True)
    got = pl.read_csv(q.stdout.encode()).row(0)
    jobs = [j for j in dump_jobs() if j["End"] != "Unknown" and j["Start"] != "None"]
    cpu_h = sum(int(j["NCPUS"]) * int(j["ElapsedRaw"]) for j in jobs) / 3600
    node_h = sum(int(j["NNodes"]) * int(j["ElapsedRaw"]) for j in jobs) / 3600
    gpu_h = sum(gres_gpu(j["AllocTRES"]) * int(j["ElapsedRaw"]) for j in jobs) / 3600
    assert got == pytest.approx((cpu_h, node_h, gpu_h)) and 0 < gpu_h < 1
    run_cli("report", "trust", "--sections", "overview", "--out", str(tmp_path / "r.html"), "--csv",
            str(tmp_path / "csv"), warehouse=wh, check=True)
    row = pl.read_csv(tmp_path / "csv" / "report_trace_overview.csv").row(0, named=True)
    assert row["core_hours"] == pytest.approx(cpu_h, rel=1e-9) and row["gpu_hours"] == pytest.approx(gpu_h, rel=1e-9)


@pytest.mark.parametrize(("hours", "unit", "words"), [
    (0.29, "GPU-hours", "0.29 GPU-hours"), (4.28, "CPU-hours", "4.3 CPU-hours"), (0.0, "GPU-hours", "0 GPU-hours"),
    (0.004, "GPU-hours", "under 0.01 GPU-hours"), (12.6, "CPU-hours", "13 CPU-hours"),
    (25_400.0, "CPU-hours", "25 thousand CPU-hours")])
def test_small_amounts_are_not_printed_as_zero(hours, unit, words):
    from pipeline.summary.words import unit_hours

    assert unit_hours(hours, unit) == words


def test_queue_over_time_is_on_the_traces_clock(tmp_path):
    """The report's timeline bins are cut and labelled in the trace's zone (as
    every other date): the first bin is the first simulated submission's
    minute on the cluster's clock, computed here with zoneinfo, and the busy
    time per run equals the UTC daily view's (same sums, cut otherwise)."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from pipeline.report.page import Figure
    from pipeline.report.queue import queue
    from pipeline.warehouse import Warehouse

    wh = tmp_path / "wh"
    run_cli("ingest", str(TRUST / "trust-sacct.txt"), "--format", "sacct", "--name", "trust", "--tz",
            "America/Denver", "--slurm-conf", str(TRUST / "slurm.conf"), warehouse=wh, check=True)
    run_cli("summary", "trust", warehouse=wh, check=True)  # the machine's 24 CPUs from slurm.conf
    con = Warehouse(wh).reader()
    try:
        first = dict(con.execute(
            "SELECT s.run_id, min(t.unix_start_time + s.submit) FROM sim_jobs s JOIN runs r USING (run_id) "
            "JOIN traces t ON t.trace = r.trace GROUP BY 1").fetchall())
        bins = con.execute("SELECT run_id, min(t), any_value(tz), any_value(bin_s), sum(utilization * bin_s) "
                           "FROM report_run_timeline_bins WHERE trace = 'trust' GROUP BY 1").fetchall()
        daily = dict(con.execute("SELECT run_id, sum(utilization * 86400) FROM report_run_timeline "
                                 "WHERE trace = 'trust' GROUP BY 1").fetchall())
        charts = [b.chart for b in queue(con, ["trust"]).blocks if isinstance(b, Figure)]
    finally:
        con.close()
    assert len(bins) == len(first) >= 3  # the Slurm model (slurm.conf kept): requests, best, exact
    for run_id, t, tz, bin_s, busy in bins:
        local = datetime.fromtimestamp(first[run_id], ZoneInfo("America/Denver")).replace(tzinfo=None)
        assert tz == "America/Denver" and bin_s == 60
        assert t == local.replace(second=0), (t, local)
        assert busy == pytest.approx(daily[run_id])
    times = [c for c in charts if c.kind == "time"]
    assert [c.xlabel for c in times] == ["time (America/Denver)"] * 3  # utilisation, waiting jobs, size-hours
    assert min(x for c in times for xs, _ in c.series.values() for x in xs) == min(t for _, t, *_ in bins)


@pytest.mark.parametrize("name", ["trust-sacct.txt", "trust-sacct.json"])
def test_jobs_running_at_the_dump_hold_their_cpus_until_it(tmp_path, name):
    """The three jobs running at the dump are replayed, each for the dump's
    time less its logged start (the dump's time: a running job's Start +
    Elapsed, read here from the file itself), and answer 3 says so."""
    from datetime import datetime, timezone

    if name.endswith(".json"):
        doc = json.loads((TRUST / name).read_text())
        live = {str(j["job_id"]): (j["time"]["start"], j["time"]["start"] + j["time"]["elapsed"])
                for j in doc["jobs"] if j["state"]["current"] == "RUNNING"}
    else:
        utc = timezone.utc

        def epoch(text: str) -> int:
            return int(datetime.fromisoformat(text).replace(tzinfo=utc).timestamp())

        live = {j["JobID"]: (epoch(j["Start"]), epoch(j["Start"]) + int(j["ElapsedRaw"]))
                for j in dump_jobs() if j["State"] == "RUNNING"}
    assert len(live) == 3 and len({end for _, end in live.values()}) == 1  # one dump, one time
    dump = next(iter(live.values()))[1]
    wh = tmp_path / "wh"
    run_cli("ingest", str(TRUST / name), "--format", "sacct" if name.endswith(".txt") else "sacct-json", "--name", "t",
            "--tz", "UTC", warehouse=wh, check=True)
    doc = json.loads(run_cli("summary", "t", "--capacity", "24", "--json", warehouse=wh, check=True).stdout)
    row = doc["queue"][0]
    assert (row["held_running"], row["jobs_simulated"], row["jobs_in_trace"]) == (3, 32, 33)
    q = run_cli("sql", f"SELECT j.slurm_id, s.run FROM sim_jobs s JOIN jobs j ON j.trace = 't' AND j.job_id = s.job_id "
                f"WHERE s.run_id = '{row['run_id']}'", "--csv", warehouse=wh, check=True)
    ran = {str(r["slurm_id"]): r["run"] for r in pl.read_csv(q.stdout.encode()).iter_rows(named=True)}
    for slurm_id, (start, _) in live.items():
        assert ran[slurm_id] == dump - start, slurm_id
    assert ("32 of the 33 jobs replayed; 1 not (never started, or no run time or size); 3 jobs running at the dump "
            "replayed holding their CPUs until the dump") in " ".join(doc["text"])


def test_workers_hold_the_running_jobs_as_the_coordinator(tmp_path):
    """Study and report workers read no database: the dump's time travels with
    the task (SimTask.dump_end), so a worker's inputs equal the coordinator's."""
    from pipeline.simulate import input_hash, simulate
    from pipeline.simulate.config import SimConfig
    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.tasks import parquet_connection, trace_rules
    from pipeline.warehouse import Warehouse

    wh = Warehouse(tmp_path / "wh")
    run_cli("ingest", str(TRUST / "trust-sacct.txt"), "--format", "sacct", "--name", "t", "--tz", "UTC",
            warehouse=wh.root, check=True)
    simulate(wh, "t", SimConfig(estimate="request", capacity=24))  # (writes the estimates mirror)
    con = wh.reader()
    try:
        rules = trace_rules(con, "t")
        coordinator = load_inputs(con, "t", "request", 24, False, "regular")
    finally:
        con.close()
    worker = parquet_connection(wh.root, "t", **rules)
    try:
        inputs = load_inputs(worker, "t", "request", 24, False, "regular")
    finally:
        worker.close()
    assert rules == {"release": "eligible", "dump_end": 205} and coordinator.counts["held_running"] == 3
    assert input_hash("t", inputs) == input_hash("t", coordinator)


def test_cpus_are_called_cpus_and_node_hours_say_how_they_count(trust):
    """NCPUS counts hardware threads (a 1-CPU job on a 2-thread core holds 2):
    the summary says CPU-hours, never core-hours, and says that node-hours
    count each job's nodes whole (jobs share nodes here)."""
    _, doc = trust
    text = " ".join(doc["text"])
    one_cpu = next(j for j in dump_jobs() if j["JobName"] == "one_cpu")
    assert (one_cpu["ReqCPUS"], one_cpu["NCPUS"]) == ("1", "2")
    assert doc["hours_unit"] == "CPU-hours" and "core-hours" not in text and "CPU-hours requested" in text
    assert "(each job counts its nodes whole, so where jobs share a node its hours are counted once per job)" in text
