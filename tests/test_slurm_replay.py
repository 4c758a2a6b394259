"""``simulate --scheduler slurm`` end to end on the replay lab's real dumps (tests/data/slurm-replay).

What is checked against something independent: the static priority terms against the priorities the real
slurmctld logged (sacct Priority), the stored run against the naive twin, the run's calibration against a
recomputation from its jobs, the sentence against its numbers; the validation table in docs/slurm-replay.md
against a fresh run of the lab; and the user mistakes get one line and exit 1.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli
from naive_slurm import slurm_replay as twin
from pipeline.warehouse import Warehouse

LAB = Path(__file__).parent / "data" / "slurm-replay"
DOC = Path(__file__).parent.parent / "docs" / "slurm-replay.md"
CONF = ("--slurm-conf", str(LAB / "slurm.conf"), "--gres-conf", str(LAB / "gres.conf"), "--assoc",
        str(LAB / "assoc.txt"))


@pytest.fixture(scope="module")
def lab_wh(tmp_path_factory) -> Path:
    wh = tmp_path_factory.mktemp("slurm-lab")
    for w in ("W1", "W2", "W3"):
        run_cli("ingest", str(LAB / f"runs/{w}-r1/sacct.txt"), "--name", w.lower(), "--format", "sacct", "--tz",
                "UTC", *CONF, warehouse=wh, check=True)
    return wh


def _dump(run: str) -> list[dict]:
    with open(LAB / "runs" / run / "sacct.txt") as f:
        return [r for r in csv.DictReader(f, delimiter="|") if "." not in r["JobID"]]


def test_partition_lists_are_read_and_queued_in_each(lab_wh):
    """jobs.req_partitions is the `-p` list of each job's SubmitLine (read here with shlex, a second path), and
    the replay queues such a job once in each partition of its list (the kernel's records)."""
    import shlex

    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.slurm import replay

    for w in ("w1", "w3"):
        expected = {}
        for r in _dump(f"{w.upper()}-r1"):
            argv = shlex.split(r["SubmitLine"])
            expected[r["JobName"]] = argv[argv.index("-p") + 1]
        con = Warehouse(lab_wh).reader()
        try:
            got = dict(con.execute("SELECT job_name, req_partitions FROM jobs WHERE trace = ?", [w]).fetchall())
            inp = load_inputs(con, w, "request", 24, False, "regular")
            sl = replay.load(con, w, inp.job_id)
            names = dict(con.execute("SELECT job_id, job_name FROM jobs WHERE trace = ?", [w]).fetchall())
        finally:
            con.close()
        assert got == expected
        a, parts = sl.arrays, sl.cluster.partitions
        queued = {}
        for r, j in enumerate(a["rjob"]):
            queued.setdefault(names[int(inp.job_id[j])], []).append(parts[a["rpart"][r]])
        assert queued == {name: lst.split(",") for name, lst in expected.items()}
        assert sum("," in x for x in expected.values()) >= 20  # the lab's workloads use lists


def test_jobs_without_a_node_count_get_a_node_range(lab_wh):
    """A job whose SubmitLine gives no -N, no GPUs and no --exclusive may take one node or spread: on the lab's
    two-thread nodes only the 4-CPU jobs have two shapes (4 CPUs on one node, or one core on each of two; 1-
    and 2-CPU jobs fit one core); `-N2 --ntasks-per-node=2`, `-N1 --exclusive` and GPU jobs keep the node
    count their log shows."""
    import shlex

    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.slurm import replay

    for w in ("W1", "W2", "W3"):
        expected = set()
        for r in _dump(f"{w}-r1"):
            argv = shlex.split(r["SubmitLine"])
            argv = argv[:argv.index("--wrap")]
            free = not any(a.startswith(("-N", "--nodes", "--gres", "--gpus", "--exclusive")) for a in argv)
            cores = -(-int(r["ReqCPUS"]) // 2)  # the lab's nodes: 2 threads per core
            if free and cores >= 2:
                expected.add(r["JobName"])
        con = Warehouse(lab_wh).reader()
        try:
            inp = load_inputs(con, w.lower(), "request", 24, False, "regular")
            sl = replay.load(con, w.lower(), inp.job_id)
            names = dict(con.execute("SELECT job_id, job_name FROM jobs WHERE trace = ?", [w.lower()]).fetchall())
        finally:
            con.close()
        a = sl.arrays
        name = [names[int(j)] for j in inp.job_id]
        ranged = {name[j]: [(int(a["nn"][j]), int(a["cpn"][j]))] for j in set(a["xjob"].tolist())}
        for x, j in enumerate(a["xjob"]):
            ranged[name[j]].append((int(a["xnn"][x]), int(a["xcpn"][x])))
        assert set(ranged) == expected and len(expected) >= 13, w
        assert all(shapes == [(1, 4), (2, 2)] for shapes in ranged.values())
        assert not a["xgpn"].any()


def test_static_priority_terms_are_slurms(lab_wh):
    """Jobs that started at once in a run's first minute have the priority slurmctld logged: int(base + 10000 *
    fs), base = the job size and partition terms, fs = 1.0 (zero usage) or, after the first calc tick, a Fair
    Tree rank k/7."""
    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.slurm import replay

    checked = exact = 0
    for w in ("W1", "W2", "W3"):
        con = Warehouse(lab_wh).reader()
        try:
            inp = load_inputs(con, w.lower(), "request", 24, False, "regular")
            sl = replay.load(con, w.lower(), inp.job_id)
            slurm_id = dict(con.execute("SELECT job_id, slurm_id FROM jobs WHERE trace = ?", [w.lower()]).fetchall())
        finally:
            con.close()
        logged = {r["JobID"]: r for r in _dump(f"{w}-r1")}
        first = min(inp.submit)
        for j, jid in enumerate(inp.job_id):
            r = logged[slurm_id[int(jid)]]
            if r["Start"] == r["Submit"] and inp.submit[j] - first < 60:
                # started as it came (age 0); fair-share 1.0 until the first calc tick, then one of Fair
                # Tree's ranks k/7 (7 user associations): the rest of the priority is the static terms
                assert int(r["Priority"]) in {int(sl.arrays["base"][j] + 10000 * (k / 7)) for k in range(1, 8)}, \
                    r["JobName"]
                checked += 1
                exact += int(r["Priority"]) == int(sl.arrays["base"][j] + 10000 * 1.0)
    assert checked >= 12 and exact >= 5


def _twin(inp, sl, elig) -> tuple:
    """The naive twin on a stored trace's inputs (``elig``: each job's entry; the requests as limits)."""
    c, a, (parent, shares, is_user) = sl.cluster, sl.arrays, sl.assoc
    w, s = c.priority, c.scheduler
    return twin(c.node_units.tolist(), c.node_tpu.tolist(), c.node_mem.tolist(), c.node_gpus.tolist(),
                c.part_nodes.tolist(), c.part_tier.tolist(), parent.tolist(), shares.tolist(), is_user.tolist(),
                np.asarray(elig).tolist(), inp.run.tolist(), np.maximum(inp.est_run, 1).tolist(),
                *(a[k].tolist() for k in ("rpart", "nn", "cpn", "mem", "gpn", "excl", "assoc", "rbase", "rjob", "juser")),
                float(w.w_age), w.max_age, float(w.w_fairshare), w.calc_period, w.half_life, c.fair_tree,
                s.sched_interval, s.queue_depth, s.bf_interval, s.bf_window, s.bf_max_job_test, s.bf_resolution,
                s.kill_wait, s.bf_max_job_user, a["jq"].tolist(), a["q_pre"].tolist(), a["q_mode"].tolist(),
                a["q_rank"].tolist(), a["q_level"].tolist(), int(a["requeue_delay"]),
                **({"shapes": [a[k].tolist() for k in ("xjob", "xnn", "xcpn", "xmem", "xgpn")]}
                   if len(a.get("xjob", ())) else {}))


def test_run_equals_twin_and_calibration(lab_wh):
    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.slurm import replay

    out = run_cli("simulate", "w1", "--scheduler", "slurm", "--json", warehouse=lab_wh, check=True)
    doc = json.loads(out.stdout)
    con = Warehouse(lab_wh).reader()
    try:
        inp = load_inputs(con, "w1", "request", 24, False, "regular")
        sl = replay.load(con, "w1", inp.job_id)
        stored = dict(con.execute("SELECT job_id, start FROM sim_jobs WHERE run_id = ?", [doc["run_id"]]).fetchall())
        logged = dict(con.execute("SELECT job_id, wait FROM jobs WHERE trace = 'w1'").fetchall())
        scheduler = con.execute("SELECT scheduler FROM runs WHERE run_id = ?", [doc["run_id"]]).fetchone()[0]
    finally:
        con.close()
    assert scheduler == "slurm"
    start = _twin(inp, sl, inp.submit)[0]  # (the requests as limits: a job may run past its own)
    assert [stored[int(j)] for j in inp.job_id] == start
    # the calibration: the same jobs' waits, recomputed here from the twin's starts and the log
    rep = [st - sub for st, sub in zip(start, inp.submit.tolist())]
    log = [logged[int(j)] for j in inp.job_id]
    cal = doc["calibration"]
    assert cal["jobs"] == 220
    assert cal["rep_mean_wait"] == pytest.approx(statistics.mean(rep))
    assert cal["log_mean_wait"] == pytest.approx(statistics.mean(log))
    assert cal["rep_median_wait"] == pytest.approx(statistics.median(rep))
    # the words agree with the numbers
    text = run_cli("simulate", "w1", "--scheduler", "slurm", warehouse=lab_wh, check=True).stdout
    pct = round(100 * (statistics.mean(rep) / statistics.mean(log) - 1))
    assert f"{abs(pct)}% {'above' if pct > 0 else 'below'} the log" in text
    assert "a model of the site's Slurm" in text and "leaves out reservations" in text
    assert "Slurm model: its priority, main pass and backfill" in text


def test_auto_picks_slurm_and_queue_stays(lab_wh):
    """--scheduler auto (the default) replays a trace kept with its slurm.conf in the Slurm model, unless an
    option asks for the one pool; --scheduler queue stays the papers' replay (its run id has no scheduler key)."""
    auto = json.loads(run_cli("simulate", "w1", "--json", warehouse=lab_wh, check=True).stdout)
    assert json.loads(auto["config"])["scheduler"] == "slurm"
    for args in (("--scheduler", "queue"), ("--policy", "sjf"), ("--capacity", "24")):
        out = json.loads(run_cli("simulate", "w1", *args, "--json", warehouse=lab_wh, check=True).stdout)
        assert "scheduler" not in json.loads(out["config"]), args


@pytest.mark.parametrize("args, expected", [
    (("simulate", "w1", "--scheduler", "slurm", "--policy", "sjf"), "--policy sjf: --scheduler slurm orders jobs"),
    (("simulate", "w1", "--scheduler", "slurm", "--backfill", "conservative"), "--backfill conservative"),
    (("simulate", "w1", "--scheduler", "pbs"), '--scheduler "pbs": unknown; use one of queue, slurm'),
])
def test_option_mistakes(lab_wh, args, expected):
    out = run_cli(*args, warehouse=lab_wh)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and expected in out.stderr, out.stderr


def test_no_slurm_conf_kept(tmp_path):
    """A sacct dump ingested without its slurm.conf: without a machine size the Slurm replay says how to give
    one (one line); with --capacity it replays an inferred model and says so."""
    wh = tmp_path / "wh"
    run_cli("ingest", str(LAB / "runs/W1-r1/sacct.txt"), "--name", "bare", "--format", "sacct", "--tz", "UTC",
            warehouse=wh, check=True)
    out = run_cli("simulate", "bare", "--scheduler", "slurm", warehouse=wh)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "--slurm-conf slurm.conf" in out.stderr
    run_cli("ingest", str(LAB / "runs/W1-r1/sacct.txt"), "--name", "sized", "--format", "sacct", "--tz", "UTC",
            "--capacity", "24", warehouse=wh, check=True)
    out = run_cli("simulate", "sized", "--scheduler", "slurm", warehouse=wh, check=True)
    assert 'trace "sized" was ingested without its slurm.conf: the cluster model is INFERRED' in out.stderr
    assert "an INFERRED Slurm model" in out.stdout


def test_bad_configuration_refused_at_ingest(tmp_path):
    """A malformed slurm.conf line fails the ingest with file:line and field; nothing is stored."""
    bad = tmp_path / "slurm.conf"
    text = (LAB / "slurm.conf").read_text().splitlines()
    no = next(i for i, ln in enumerate(text) if ln.startswith("NodeName=node3"))
    text[no] = text[no].replace("CoresPerSocket=4", "CoresPerSocket=four")
    bad.write_text("\n".join(text) + "\n")
    wh = tmp_path / "wh"
    out = run_cli("ingest", str(LAB / "runs/W1-r1/sacct.txt"), "--format", "sacct", "--tz", "UTC",
                  "--slurm-conf", str(bad), warehouse=wh)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert f"{bad}:{no + 1}:" in out.stderr and "CoresPerSocket=four" in out.stderr
    listed = run_cli("traces", "--json", warehouse=wh)
    assert listed.returncode != 0 or json.loads(listed.stdout) == []
    out = run_cli("ingest", str(LAB / "runs/W1-r1/sacct.txt"), "--format", "sacct", "--gres-conf",
                  str(LAB / "gres.conf"), warehouse=wh)
    assert out.returncode == 1 and "--gres-conf: only with --slurm-conf" in out.stderr


def _doc_table() -> str:
    text = DOC.read_text()
    m = re.search(r"<!-- validation table: python bench/slurm_validation.py -->\n(.*?)\n<!-- end -->", text, re.S)
    assert m, "docs/slurm-replay.md lost its validation table"
    return m.group(1).strip()


def test_validation_table_is_the_labs(tmp_path):
    """docs/slurm-replay.md's validation table is what the lab's dumps give today, and the Slurm model
    stands nearer the real runs than the one-pool replay on every workload."""
    from pipeline.simulate.slurm.validate import aims, preemption_lines, run_lab, table

    slurm, pool = run_lab(Warehouse(tmp_path / "wh"), LAB)
    assert table(slurm, pool) + "\n\n" + aims(slurm) + "\n" + preemption_lines(slurm) == _doc_table()
    assert "W4" in slurm and slurm["W4"]["preemption"]["real"] == [14, 14, 14]
    for name, f in slurm.items():
        for mine, theirs in zip(f["replays"], pool[name]["replays"]):
            assert mine["spearman"] > theirs["spearman"], name
            assert mine["inside"] > theirs["inside"], name


def test_inferred_model_is_the_file_it_writes(tmp_path):
    """A trace without a slurm.conf gets an inferred model, said to be; `export --format slurm-conf` writes that
    model, and the trace ingested again with it is replayed to the same starts (the model is the file)."""
    swf = tmp_path / "g.swf"
    run_cli("generate", "--jobs", "300", "--seed", "3", "--capacity", "64", "--load", "0.9", "--out", str(swf),
            check=True)
    wh = tmp_path / "wh"
    run_cli("ingest", str(swf), "--name", "g", warehouse=wh, check=True)
    first = run_cli("simulate", "g", "--scheduler", "slurm", "--json", warehouse=wh, check=True)
    doc = json.loads(first.stdout)
    assert any("INFERRED" in n for n in doc["notes"])
    assert "an INFERRED Slurm model" in run_cli("simulate", "g", "--scheduler", "slurm", warehouse=wh).stdout
    conf = tmp_path / "inferred.conf"
    run_cli("export", "g", "--format", "slurm-conf", "--out", str(conf), warehouse=wh, check=True)
    text = conf.read_text()
    assert "INFERRED" in text and "NodeName=pool CPUs=64" in text and "PriorityType=priority/basic" in text
    run_cli("ingest", str(swf), "--name", "g2", "--slurm-conf", str(conf), warehouse=wh, check=True)
    again = json.loads(run_cli("simulate", "g2", "--json", warehouse=wh, check=True).stdout)  # auto: slurm
    assert json.loads(again["config"])["scheduler"] == "slurm"
    con = Warehouse(wh).reader()
    try:
        a = con.execute("SELECT job_id, start FROM sim_jobs WHERE run_id = ? ORDER BY job_id", [doc["run_id"]]).fetchall()
        b = con.execute("SELECT job_id, start FROM sim_jobs WHERE run_id = ? ORDER BY job_id",
                        [again["run_id"]]).fetchall()
        peak = con.execute("SELECT peak_nodes FROM run_metrics WHERE run_id = ? AND month = 'all'",
                           [doc["run_id"]]).fetchone()[0]
    finally:
        con.close()
    assert a == b and peak <= 64


def test_trust_priorities_with_qos(tmp_path):
    """The trust lab (tests/data/slurm-trust): with the QOS dump (`sacctmgr show qos`: high 100, normal 0) the
    static terms of jobs that started at zero usage are slurmctld's: over_1 10245, one_cpu 11145 (partition
    small, factor 10 of 10), preemptor 13208 (QOS high: + 2000)."""
    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.slurm import replay

    trust = LAB.parent / "slurm-trust"
    wh = tmp_path / "wh"
    run_cli("ingest", str(trust / "trust-sacct.txt"), "--name", "trust", "--format", "sacct", "--tz", "UTC",
            "--slurm-conf", str(trust / "slurm.conf"), "--gres-conf", str(trust / "gres.conf"),
            "--assoc", str(trust / "trust-assoc.txt"), "--qos", str(LAB / "qos.txt"), warehouse=wh, check=True)
    con = Warehouse(wh).reader()
    try:
        inp = load_inputs(con, "trust", "request", 24, False, "regular")
        sl = replay.load(con, "trust", inp.job_id)
        slurm_id = dict(con.execute("SELECT job_id, slurm_id FROM jobs WHERE trace = 'trust'").fetchall())
    finally:
        con.close()
    logged = {r["JobID"]: int(r["Priority"]) for r in csv.DictReader(open(trust / "trust-sacct.txt"), delimiter="|")
              if r["JobID"] in ("1", "9", "18")}
    got = {slurm_id[int(j)]: int(sl.arrays["base"][i] + 10000 * 1.0) for i, j in enumerate(inp.job_id)
           if slurm_id[int(j)] in logged}
    assert got == logged == {"1": 10245, "9": 11145, "18": 13208}
    bad = tmp_path / "qos.txt"
    bad.write_text("Name|Priority\nnormal|0\nhigh|lots\n")
    out = run_cli("ingest", str(trust / "trust-sacct.txt"), "--name", "t2", "--format", "sacct", "--tz", "UTC",
                  "--slurm-conf", str(trust / "slurm.conf"), "--qos", str(bad), warehouse=wh)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and f"{bad}:3: Priority=lots" in out.stderr
    out = run_cli("ingest", str(trust / "trust-sacct.txt"), "--name", "t3", "--format", "sacct", "--qos",
                  str(LAB / "qos.txt"), warehouse=wh)
    assert out.returncode == 1 and "--qos: only with --slurm-conf" in out.stderr


def test_summary_replays_every_what_if_in_the_slurm_model(lab_wh):
    """A trace kept with its slurm.conf: the summary's runs (requests, best estimator, exact) are all Slurm
    replays, the estimate as the limit; the heading and the calibration sentence say so; with an option the
    model does not take (--policy sjf) the same trace is answered on the one pool, with a selective run."""
    doc = json.loads(run_cli("summary", "w2", "--json", warehouse=lab_wh, check=True).stdout)
    ids = [q["run_id"] for q in doc["queue"]]
    con = Warehouse(lab_wh).reader()
    try:
        kinds = dict(con.execute("SELECT run_id, scheduler FROM runs WHERE list_contains(?, run_id)", [ids]).fetchall())
        est = dict(con.execute("SELECT run_id, estimate FROM runs WHERE list_contains(?, run_id)", [ids]).fetchall())
    finally:
        con.close()
    assert doc["scheduler"] == "slurm" and len(ids) == 3 and set(kinds.values()) == {"slurm"}
    assert [est[i] for i in ids][0] == "request" and [q["adjust"] for q in doc["queue"]] == ["regular"] * 3
    text = " ".join(doc["text"])
    assert "the site's Slurm, modelled from its slurm.conf" in text and "Every what-if above is replayed" in text
    pool = json.loads(run_cli("summary", "w2", "--policy", "sjf", "--json", warehouse=lab_wh, check=True).stdout)
    assert pool["scheduler"] == "queue" and [q["adjust"] for q in pool["queue"]][1:3] == ["regular", "selective"]
    assert "Every what-if above is replayed" not in " ".join(pool["text"])


def test_preemption_lab_run_equals_twin_and_first_releases(tmp_path):
    """The W4 lab run (QOS preemption, `sacct --duplicates`): a job whose earlier attempts were all PREEMPTED
    enters the replay at its first attempt's Eligible (checked against the dump read with the csv module); the
    stored run equals the twin with preemption job by job, and its waits count from the twin's last releases."""
    from datetime import datetime

    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.slurm import replay

    run = LAB / "runs/W4-r1"
    wh = tmp_path / "wh"
    run_cli("ingest", str(run / "sacct.txt"), "--name", "w4", "--format", "sacct", "--tz", "UTC", "--slurm-conf",
            str(LAB / "slurm-preempt.conf"), "--gres-conf", str(LAB / "gres.conf"), "--assoc", str(LAB / "assoc.txt"),
            "--qos", str(run / "qos.txt"), warehouse=wh, check=True)
    doc = json.loads(run_cli("simulate", "w4", "--scheduler", "slurm", "--json", warehouse=wh, check=True).stdout)
    con = Warehouse(wh).reader()
    try:
        inp = load_inputs(con, "w4", "request", 24, False, "regular")
        sl = replay.load(con, "w4", inp.job_id)
        stored = {j: (st, sub) for j, st, sub in con.execute(
            "SELECT job_id, start, submit FROM sim_jobs WHERE run_id = ?", [doc["run_id"]]).fetchall()}
        per_job = dict(con.execute("SELECT job_id, preemptions FROM sim_jobs WHERE run_id = ?",
                                   [doc["run_id"]]).fetchall())
        slurm_id = dict(con.execute("SELECT job_id, slurm_id FROM jobs WHERE trace = 'w4'").fetchall())
    finally:
        con.close()
    rows = [r for r in csv.DictReader(open(run / "sacct.txt"), delimiter="|") if "." not in r["JobID"]]
    epoch = lambda x: int(datetime.fromisoformat(x + "+00:00").timestamp())  # noqa: E731
    attempts: dict[str, list[dict]] = {}
    for r in rows:
        attempts.setdefault(r["JobID"], []).append(r)
    origin = min(epoch(a[-1]["Submit"]) for a in attempts.values())  # the jobs' clock: the kept attempts'
    expected = {jid: epoch(a[0]["Eligible"]) - origin for jid, a in attempts.items()
                if len(a) > 1 and all(x["State"].startswith("PREEMPTED") for x in a[:-1])}
    a = sl.arrays
    got = {slurm_id[int(j)]: int(f) for j, f in zip(inp.job_id, a["first_release"]) if f >= 0}
    assert got == expected and len(expected) == 8
    elig = np.where(a["first_release"] >= 0, np.minimum(a["first_release"], inp.submit), inp.submit)
    out = _twin(inp, sl, elig)
    assert [stored[int(j)] for j in inp.job_id] == list(zip(out[0], out[6]))
    assert sum(out[4]) >= 10  # preemptions happened (the real run: 17)
    assert [per_job[int(j)] for j in inp.job_id] == list(out[4])  # each job's, queryable
    # the run's counts beside the log's (the dump's PREEMPTED rows, read above), in numbers and in words
    cal = doc["calibration"]
    logged = [r["JobID"] for r in rows if r["State"].startswith("PREEMPTED")]
    assert (cal["preempted_jobs"], cal["preemptions"]) == (sum(x > 0 for x in out[4]), sum(out[4]))
    assert (cal["log_preempted_jobs"], cal["log_preemptions"]) == (len(set(logged)), len(logged)) == (14, 17)
    text = run_cli("simulate", "w4", "--scheduler", "slurm", warehouse=wh, check=True).stdout
    assert (f"It preempted {cal['preempted_jobs']} jobs {cal['preemptions']} times; the log shows 14 jobs "
            "preempted 17 times.") in " ".join(text.split())
    assert a["q_mode"].tolist() == [2, 1, 1] and a["q_level"].tolist() == [0, 1, 0]  # normal, high, low


def test_a_bad_qos_preemption_dump_is_refused_at_ingest(tmp_path):
    """A PreemptMode Slurm does not have (escaped when printed) fails the ingest with file:line; nothing stored."""
    bad = tmp_path / "qos.txt"
    bad.write_text("Name|Priority|Preempt|PreemptMode\nnormal|0||cluster\nhigh|100|normal|sometimes\x1b[31m\n")
    wh = tmp_path / "wh"
    out = run_cli("ingest", str(LAB / "runs/W4-r1/sacct.txt"), "--format", "sacct", "--tz", "UTC", "--slurm-conf",
                  str(LAB / "slurm-preempt.conf"), "--qos", str(bad), warehouse=wh)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert f"{bad}:3: PreemptMode=sometimes\\x1b[31m: expected" in out.stderr and "\x1b" not in out.stderr
    listed = run_cli("traces", "--json", warehouse=wh)
    assert listed.returncode != 0 or json.loads(listed.stdout) == []
