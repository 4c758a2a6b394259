"""Every stage on a Slurm sacct trace: characterize, estimate, simulate (also
per partition), report, run; and the capacity errors that name the fix."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli, trace_path
from simulate_checks import check_invariants, q
from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions
from pipeline.simulate import make_config, simulate
from pipeline.warehouse import Warehouse


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("lab") / "wh")
    ingest([trace_path("slurm-lab-sacct.txt")], wh, name="lab",
           options=IngestOptions(format="sacct", tz="UTC", slurm_conf=str(trace_path("slurm-lab.conf"))))
    return wh


def test_simulate_whole_machine_and_partitions(lab):
    whole = simulate(lab, "lab", make_config())
    assert whole.config.capacity == 16 and whole.counts["jobs_simulated"] == 88  # 8 never started
    check_invariants(lab, whole.run_id)
    unlim = simulate(lab, "lab", make_config(partitions=["unlim"]))
    assert unlim.config.capacity == 8
    n_unlim = q(lab, "SELECT count(*) FROM jobs WHERE trace = 'lab' AND \"partition\" = 'unlim' AND run >= 0")[0][0]
    assert unlim.counts["jobs_simulated"] == n_unlim == unlim.counts["jobs_in_trace"]
    check_invariants(lab, unlim.run_id)
    ids = {r[0] for r in q(lab, "SELECT job_id FROM sim_jobs WHERE run_id = ?", [unlim.run_id])}
    parts = {r[0] for r in q(lab, "SELECT DISTINCT \"partition\" FROM jobs WHERE trace = 'lab' AND job_id IN "
                                  f"({','.join(map(str, ids))})")}
    assert parts == {"unlim"}
    both = simulate(lab, "lab", make_config(partitions=["unlim", "short"]))
    assert both.config.capacity == 16  # node3/node4 are in both partitions: counted once
    assert both.run_id != whole.run_id != unlim.run_id


def test_no_capacity_errors_name_the_fix(tmp_path):
    wh = tmp_path / "wh"
    run_cli("ingest", "--format", "sacct", "--tz", "UTC", "--name", "lab", str(trace_path("slurm-lab-sacct-X.txt")),
            warehouse=wh, check=True)
    p = run_cli("simulate", "lab", warehouse=wh)
    assert p.returncode == 1 and "has no capacity" in p.stderr
    for fix in ("--capacity N", "--capacity [PARTITION=]N", "--slurm-conf slurm.conf"):
        assert fix in p.stderr
    p = run_cli("simulate", "lab", "--partition", "short", warehouse=wh)
    assert p.returncode == 1 and "partition short" in p.stderr and "--slurm-conf" in p.stderr
    p = run_cli("simulate", "lab", "--partition", "gpu", "--capacity", "4", warehouse=wh)
    assert p.returncode == 1 and "--partition gpu: trace \"lab\" has no job in it (partitions: long, short, unlim)" in p.stderr
    p = run_cli("simulate", "lab", "--capacity", "16", "--json", warehouse=wh, check=True)
    assert json.loads(p.stdout)["metrics"]["jobs"] == 88


def test_characterize_estimate_report(lab, tmp_path):
    root = lab.root
    p = run_cli("characterize", "lab", "--json", warehouse=root, check=True)
    doc = json.loads(p.stdout)
    assert doc["jobs"] == 96 and doc["jobs_r"] > 0
    parts = {p["partition"]: p for p in doc["partitions"]}
    assert set(parts) == {"short", "long", "unlim"} and parts["unlim"]["capacity"] == 8
    assert sum(p["jobs"] for p in parts.values()) == 96
    p = run_cli("estimate", "lab", "--scheme", "tang:key=project,window=all,stat=max,min=1", "--scheme", "ave2",
                warehouse=root, check=True)
    assert "tang" in p.stdout
    # Tang's project is the account: every estimate comes from jobs of the same account
    (n,), = q(lab, "SELECT count(*) FROM estimates WHERE trace = 'lab' AND scheme LIKE 'tang%' AND est IS NOT NULL")
    assert n > 0
    out = tmp_path / "lab.html"
    run_cli("report", "lab", "--out", str(out), warehouse=root, check=True)
    html = out.read_text()
    for name in ("u1", "proj_a", "short", "unlim"):
        assert name in html, name


@pytest.mark.slow
def test_run_study_on_sacct(tmp_path):
    cfg = tmp_path / "slurm.toml"
    cfg.write_text(f'''
[study]
name = "slurm"
[[traces]]
path = "{trace_path('slurm-lab-sacct.txt')}"
name = "lab"
format = "sacct"
tz = "UTC"
slurm_conf = "{trace_path('slurm-lab.conf')}"
[estimates]
schemes = ["request", "ave2"]
[[simulations]]
traces = ["lab"]
policy = "fcfs"
backfill = ["easy", "conservative"]
estimate = ["request", "ave2"]
''')
    wh = tmp_path / "wh"
    p = run_cli("run", str(cfg), warehouse=wh)
    assert p.returncode == 0, p.stderr
    (n,), = q(Warehouse(wh), "SELECT count(*) FROM runs WHERE trace = 'lab'")
    assert n == 4


@pytest.mark.parametrize("key", ["user", "project", "user_project", "user_project_req"])
def test_tang_keys_are_the_names(lab, key):
    """The fast estimator against the naive twin keyed by the strings: user
    name, and account as Tang's project."""
    from naive_estimates import tang
    from pipeline.estimates import ensure_estimates

    scheme = f"tang:floor=0.5,key={key},min=1,stat=max,window=all"
    ensure_estimates(lab, "lab", [scheme])
    rows = q(lab, 'SELECT job_id, submit, run, CASE WHEN req > 0 THEN req END, "end", "user", account, job_name, '
                  "nodes FROM jobs WHERE trace = 'lab' ORDER BY job_id")
    jobs = [dict(zip(("job_id", "submit", "run", "req", "end", "user_id", "group_id", "exe_id", "nodes"), r))
            for r in rows]
    want = tang(jobs, key, None, "max", floor=0.5, min_jobs=1)
    got = dict(q(lab, "SELECT job_id, est FROM estimates WHERE trace = 'lab' AND scheme = ?", [scheme]))
    assert set(got) == set(want)
    for j, (est, _) in want.items():
        assert (got[j] is None and est is None) or abs(got[j] - est) < 1e-6, (key, j, got[j], est)


def test_summary_names_users_accounts_partitions(lab):
    """The summary's and the report's waste-by-owner rows carry the log's names
    (job_owners, sql/080), not integer codes."""
    p = run_cli("summary", "lab", "--json", warehouse=lab.root, check=True)
    owners = json.loads(p.stdout)["owners"]
    users = {r["owner"] for r in owners["user"]}
    accounts = {r["owner"] for r in owners["account"]}
    parts = {r["owner"] for r in owners["partition"]}
    assert users and users <= {r[0] for r in q(lab, "SELECT DISTINCT \"user\" FROM jobs WHERE trace = 'lab'")}
    assert all(u.startswith("u") for u in users), users
    assert accounts and all(a.startswith("proj") for a in accounts), accounts
    assert parts and parts <= {"short", "long", "unlim"}, parts


def test_a_worker_that_sees_no_database_reads_a_partitions_inputs(lab):
    """What a Dask worker does with a task of `--partition` (tasks._inputs: the trace's Parquet files, no
    database): the same inputs as the coordinator planned, so the input hash checks and the run equals the
    local one (before, the worker read every partition's jobs: another partition's job too wide for this
    one's capacity failed the task, else the input hash did)."""
    from pipeline.simulate.config import SimItem
    from pipeline.simulate.many import plan_runs
    from pipeline.estimates import estimate
    from pipeline.simulate.tasks import _inputs, input_hash

    items = [SimItem("lab", make_config(partitions=["unlim"])),
             SimItem("lab", make_config(partitions=["unlim"], forecast_with="actual"))]
    estimate(lab, "lab", ["actual"])
    con = lab.reader()
    try:
        plan = plan_runs(con, lab.root, items, force=True)
    finally:
        con.close()
    assert len(plan.tasks) == 2
    for task in plan.tasks:
        inp = _inputs(task)
        assert input_hash("lab", inp) == task.in_sha
        planned = plan.prepared[task.run_id][2]  # (trace, cfg, inputs, input hash)
        assert inp.counts == planned.counts and inp.counts["jobs_simulated"] < 88
        assert inp.job_id.tolist() == planned.job_id.tolist()
