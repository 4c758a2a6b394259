"""pipeline/ingest/slurm_cluster.py on the repo's real Slurm configurations, checked against figures read off
the files by hand; malformed settings give one line naming file, line and field; valid settings the model
leaves out give notes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeline.errors import WalltimeError
from pipeline.ingest.slurm_cluster import (Preemption, Priority, Scheduler, job_size_factor, read_cluster,
                                           read_qos_preemption)

DATA = Path(__file__).resolve().parent / "data"
TRUST = DATA / "slurm-trust"
REPLAY = DATA / "slurm-replay"
LAB = Path("/work/shared/traces/slurm-lab.conf")


def test_trust_cluster_as_read_by_hand():
    c = read_cluster(TRUST / "slurm.conf", TRUST / "gres.conf", TRUST / "trust-assoc.txt")
    assert c.name == "trust" and c.node_names == ["node1", "node2", "node3", "node4"]
    # node1-2: 1 socket x 2 cores x 2 threads, 2000 MB; node3-4: 4 cores x 2 threads, 4000 MB, Gres=gpu:2
    assert c.node_units.tolist() == [2, 2, 4, 4] and c.node_tpu.tolist() == [2, 2, 2, 2]
    assert c.node_cpus.tolist() == [4, 4, 8, 8] and c.total_cpus == 24
    assert c.mem_consumable and c.cr_type == "CR_Core_Memory" and c.select_type == "select/cons_tres"
    assert c.node_mem.tolist() == [2000, 2000, 4000, 4000] == c.node_real_mem.tolist()
    assert c.node_gpus.tolist() == [0, 0, 2, 2] and c.def_mem_per_cpu == 100
    assert c.partitions == ["batch", "small", "gpu"] and c.default_partition == 0
    assert c.part_nodes.tolist() == [[True] * 4, [True, True, False, False], [False, False, True, True]]
    assert c.part_factor.tolist() == [1, 10, 1] and c.part_tier.tolist() == [1, 1, 1]
    assert c.part_max_time.tolist() == [3600, 1800, -1] and c.part_default_time.tolist() == [600, 300, -1]
    assert c.fair_tree
    assert c.priority == Priority(True, w_age=1000, w_fairshare=10000, w_job_size=1000, w_partition=1000,
                                  w_qos=2000, max_age=3600, calc_period=300, half_life=7 * 86400)
    assert c.scheduler == Scheduler(sched_interval=5, bf_interval=2, kill_wait=10)  # KillWait=10
    # root -> root user, proj_a (10) {u1, u2}, proj_b (30) {u3, u4}
    assert c.assoc_name == ["root", "root", "proj_a", "u1", "u2", "proj_b", "u3", "u4"]
    assert c.assoc_parent.tolist() == [-1, 0, 0, 2, 2, 0, 5, 5]
    assert c.assoc_shares.tolist() == [1, 1, 10, 1, 1, 30, 1, 1]
    assert c.assoc_user.tolist() == [False, True, False, True, True, False, True, True]
    assert c.assoc_index("proj_b", "u3") == 6 and c.assoc_index("proj_a") == 2 and c.assoc_index("x") == -1
    assert c.preemption == Preemption(True, "CANCEL", 121)  # PreemptType=preempt/qos, PreemptMode=CANCEL
    assert not any("Preempt" in n for n in c.notes)
    assert any(n.startswith("not modelled: AccountingStorageEnforce=") for n in c.notes)


def test_job_size_factor_matches_sprio_on_the_trust_cluster():
    c = read_cluster(TRUST / "slurm.conf")
    assert (c.total_nodes, c.total_cpus) == (4, 24)
    assert job_size_factor(1, 4, c.total_nodes, c.total_cpus) == pytest.approx(0.2083, abs=1e-4)
    assert job_size_factor(1, 1, c.total_nodes, c.total_cpus) == pytest.approx(0.1458, abs=1e-4)
    # PriorityFavorSmall=YES: what the job leaves free, ((4 - 1) / 4 + (24 - 4) / 24) / 2
    assert job_size_factor(1, 4, 4, 24, favor_small=True) == pytest.approx((0.75 + 20 / 24) / 2)
    assert job_size_factor(2, 0, 4, 24) == 0.5  # no CPU count: the node share alone
    assert job_size_factor(np.array([1, 4]), np.array([4, 99]), 4, 24).tolist() == pytest.approx([0.2083333, 1.0])


def test_lab_cluster_and_its_gres_conf_that_slurm_conf_ignores():
    c = read_cluster(DATA / "slurm" / "slurm.conf", DATA / "slurm" / "gres.conf")
    assert c.node_units.tolist() == [4] * 4 and c.node_tpu.tolist() == [1] * 4 and c.node_mem.tolist() == [2000] * 4
    assert c.node_gpus.tolist() == [0] * 4  # gres.conf names GPUs on node3-4, slurm.conf's nodes have no Gres=
    assert any("node3, node4" in n and "does not name" in n for n in c.notes)
    assert c.partitions == ["short", "long", "unlim"] and c.part_factor.tolist() == [10, 1, 1]
    assert c.part_max_time.tolist() == [120, 86400, -1] and c.part_default_time.tolist() == [-1, 4 * 3600, -1]
    assert c.part_nodes[2].tolist() == [False, False, True, True]
    assert c.scheduler.sched_interval == 10 and c.scheduler.bf_interval == 2
    assert c.assoc_parent.size == 0  # no dump given


def test_replay_cluster():
    conf = REPLAY / "slurm.conf" if (REPLAY / "slurm.conf").exists() else TRUST / "slurm.conf"
    gres = conf.parent / "gres.conf"
    assoc = REPLAY / "assoc.txt" if (REPLAY / "assoc.txt").exists() else TRUST / "trust-assoc.txt"
    c = read_cluster(conf, gres, assoc)
    assert c.node_gpus.tolist() == [0, 0, 2, 2] and c.node_units.tolist() == [2, 2, 4, 4]
    if conf.parent == REPLAY:
        assert c.priority.calc_period == 60 and c.priority.max_age == 600  # PriorityCalcPeriod=1, MaxAge=0:10:00
        assert c.scheduler.bf_resolution == 10 and c.scheduler.kill_wait == 10  # KillWait=10, no OverTimeLimit
        assert not any("bf_resolution" in n for n in c.notes)  # modelled
        assert c.assoc_name[8:] == ["proj_c", "u5", "u6"] and c.assoc_shares.tolist()[8] == 60
        assert c.assoc_shares.tolist()[3] == 2  # u1 has 2 shares here


def test_shared_lab_conf():
    if not LAB.exists():
        pytest.skip(f"{LAB} is not here")
    c = read_cluster(LAB)
    assert c.node_cpus.tolist() == [4] * 4 and c.scheduler.bf_interval == 5 and c.scheduler.sched_interval == 10
    assert "not modelled: SchedulerParameters bf_hetjob_prio=min" in c.notes


def _spoiled(tmp_path: Path, old: str, new: str, name: str = "slurm.conf", src: Path = TRUST) -> tuple[Path, int]:
    """A copy of the real file with ``old`` replaced; the path and the line number of the change."""
    text = (src / name).read_text()
    assert old in text, old
    out = tmp_path / name
    out.write_text(text.replace(old, new, 1))
    return out, text[:text.index(old)].count("\n") + 1


@pytest.mark.parametrize("old, new, field", [
    ("node1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17001 CPUs=4 Boards=1 Sockets=1 CoresPerSocket=2",
     "node1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17001 CPUs=4 Boards=1 Sockets=1 CoresPerSocket=two",
     "CoresPerSocket=two: expected a whole number"),
    ("NodeName=node4", "NodeName=node[4-x]", 'NodeName=node[4-x]: range "4-x" is not N or N-M'),
    ("Nodes=node[1-2]", "Nodes=node[2-1]", 'Nodes=node[2-1]: range "2-1" runs backwards'),
    ("Nodes=node[3-4]", "Nodes=node[3-5]", "Nodes=node[3-5]: node node5 has no NodeName line"),
    ("MaxTime=00:30:00", "MaxTime=half-hour", "MaxTime=half-hour: expected a time"),
    ("DefaultTime=00:05:00", "DefaultTime=5m", "DefaultTime=5m: expected a time"),
    ("bf_interval=2", "bf_interval=abc", "SchedulerParameters bf_interval=abc: expected a whole number from 1"),
    ("sched_interval=5", "sched_interval=-1", "SchedulerParameters sched_interval=-1: expected"),
    ("Gres=gpu:2 CPUs=8 Boards=1 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=4000 State=UNKNOWN\n"
     "NodeName=node4", "Gres=gpu:2x CPUs=8 Boards=1 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=4000 "
     "State=UNKNOWN\nNodeName=node4", "Gres=gpu:2x: expected NAME"),
    ("RealMemory=2000", "RealMemory=2G", "RealMemory=2G: expected a whole number"),
    ("SelectType=select/cons_tres", "SelectType=select/bluegene", "SelectType=select/bluegene: expected"),
    ("SelectTypeParameters=CR_Core_Memory", "SelectTypeParameters=CR_Memory", "SelectTypeParameters=CR_Memory:"),
    ("SelectTypeParameters=CR_Core_Memory", "SelectTypeParameters=CR_Core,CR_CPU", "SelectTypeParameters=CR_Core,"),
    ("PriorityWeightAge=1000", "PriorityWeightAge=-5", "PriorityWeightAge=-5: expected a whole number from 0"),
    ("PriorityMaxAge=1:00:00", "PriorityMaxAge=0", "PriorityMaxAge=0: expected a time of at least 1 minute"),
    ("PriorityType=priority/multifactor", "PriorityType=priority/fancy", "PriorityType=priority/fancy: expected"),
    ("SchedulerType=sched/backfill", "SchedulerType=sched/wiki", "SchedulerType=sched/wiki: expected"),
    ("PriorityJobFactor=10", "PriorityJobFactor=70000", "PriorityJobFactor=70000: expected a whole number from 0"),
    ("Default=NO MaxTime=00:30:00", "Default=maybe MaxTime=00:30:00", "Default=maybe: expected YES or NO"),
    ("State=UP\nPartitionName=gpu", "State=OPEN\nPartitionName=gpu", "State=OPEN: expected UP, DOWN"),
])
def test_a_malformed_field_is_one_line_naming_file_line_and_field(tmp_path, old, new, field):
    conf, line = _spoiled(tmp_path, old, new)
    with pytest.raises(WalltimeError) as err:
        read_cluster(conf, TRUST / "gres.conf", TRUST / "trust-assoc.txt")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{conf}:{line}: {field}"), msg


@pytest.mark.parametrize("old, new, field", [
    ("NodeName=node[3-4] Name=gpu File=/dev/fakegpu[0-1]", "NodeName=node[3-4] Name=gpu Count=two",
     "Count=two: expected a whole number"),
    ("File=/dev/fakegpu[0-1]", "File=/dev/fakegpu[1-0]", 'File=/dev/fakegpu[1-0]: range "1-0" runs backwards'),
])
def test_a_malformed_gres_conf_field(tmp_path, old, new, field):
    gres, line = _spoiled(tmp_path, old, new, "gres.conf")
    with pytest.raises(WalltimeError) as err:
        read_cluster(TRUST / "slurm.conf", gres)
    assert str(err.value).startswith(f"{gres}:{line}: {field}"), str(err.value)


@pytest.mark.parametrize("old, new, field", [
    ("trust|proj_b|||30|", "trust|proj_b|||thirty|", "Share=thirty: expected a whole number or parent"),
    ("trust|proj_a|||10|||||||||||||normal||\n", "", "Account=proj_a: expected the account's own line before"),
])
def test_a_malformed_assoc_dump(tmp_path, old, new, field):
    dump, line = _spoiled(tmp_path, old, new, "trust-assoc.txt")  # a removed account: its first user is there
    with pytest.raises(WalltimeError) as err:
        read_cluster(TRUST / "slurm.conf", None, dump)
    assert str(err.value).startswith(f"{dump}:{line}: {field}"), str(err.value)


def test_valid_settings_the_model_leaves_out_are_notes(tmp_path):
    text = (TRUST / "slurm.conf").read_text()
    text = text.replace("SchedulerParameters=bf_interval=2,sched_interval=5",
                        "SchedulerParameters=bf_interval=2,sched_interval=5,bf_resolution=10,bf_max_job_user=10,"
                        "bf_continue,defer,bf_window=60,default_queue_depth=50,bf_max_job_test=100")
    text = text.replace("PriorityMaxAge=1:00:00", "PriorityMaxAge=1:00:00\nPriorityFlags=NO_FAIR_TREE,ACCRUE_ALWAYS\n"
                        "PriorityWeightTRES=CPU=1000\nTopologyPlugin=topology/tree\nPreemptMode=SUSPEND,GANG\n"
                        "PriorityFavorSmall=YES\nPriorityCalcPeriod=2\nPriorityDecayHalfLife=1-0")
    text = text.replace("Port=17001", "Port=17001 Weight=5 Features=fast")
    text = text.replace("PriorityJobFactor=10 State=UP", "PriorityJobFactor=10 State=UP OverSubscribe=FORCE:2 LLN=YES")
    (tmp_path / "slurm.conf").write_text(text)
    c = read_cluster(tmp_path / "slurm.conf")
    assert not c.fair_tree and c.priority.favor_small
    assert c.priority.calc_period == 120 and c.priority.half_life == 86400
    assert c.scheduler == Scheduler(sched_interval=5, queue_depth=50, bf_interval=2, bf_window=3600,
                                    bf_resolution=10, bf_max_job_test=100, bf_max_job_user=10, bf_continue=True,
                                    kill_wait=10)
    assert not any("bf_max_job_user" in n for n in c.notes)  # modelled
    for note in ["not modelled: SchedulerParameters defer",
                 "not modelled: PriorityFlags ACCRUE_ALWAYS", "not modelled: PriorityWeightTRES=CPU=1000",
                 "not modelled: TopologyPlugin=topology/tree", "not modelled: PreemptMode=SUSPEND,GANG",
                 "not modelled: node Weight", "not modelled: node Features",
                 "not modelled: partition small OverSubscribe=FORCE:2", "not modelled: partition small LLN=YES",
                 "not modelled: PreemptMode=SUSPEND (suspended jobs"]:
        assert any(n.startswith(note) for n in c.notes), (note, c.notes)


def test_node_shapes_and_select_types(tmp_path):
    def read(body: str, gres: str | None = None):
        (tmp_path / "slurm.conf").write_text(body + "\nPartitionName=all Nodes=ALL Default=YES\n")
        if gres is not None:
            (tmp_path / "gres.conf").write_text(gres)
        return read_cluster(tmp_path / "slurm.conf", tmp_path / "gres.conf" if gres is not None else None)

    node = "NodeName=DEFAULT CoresPerSocket=4 ThreadsPerCore=2 RealMemory=8000\nNodeName=c[01-03] Sockets=2"
    c = read("SelectType=select/cons_tres\n" + node)
    assert c.node_names == ["c01", "c02", "c03"] and c.cr_type == "CR_Core_Memory"  # cons_tres's default
    assert (c.node_cpus[0], c.node_units[0], c.node_tpu[0]) == (16, 8, 2)
    c = read("SelectType=select/cons_tres\nSelectTypeParameters=CR_Socket\n" + node)
    assert (c.node_units[0], c.node_tpu[0], c.mem_consumable) == (2, 8, False)
    assert c.node_mem.tolist() == [0, 0, 0] and c.node_real_mem.tolist() == [8000] * 3
    c = read(node)  # select/linear, the 22.05 default: whole nodes
    assert c.select_type == "select/linear" and (c.node_units[0], c.node_tpu[0]) == (1, 16)
    c = read("SelectType=select/cons_res\nSelectTypeParameters=CR_Core\n" + node + " CPUs=8")  # CPUs = cores
    assert (c.node_cpus[0], c.node_units[0], c.node_tpu[0]) == (8, 8, 1)
    c = read("SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU_Memory\nNodeName=n1 CPUs=6")
    assert (c.node_units[0], c.node_tpu[0], c.node_mem[0]) == (6, 1, 1)  # RealMemory defaults to 1 MB
    c = read("SelectType=select/cons_tres\nNodeName=g1 CPUs=4 Gres=gpu:a100:2,gpu:v100:1,mps:100\n"
             "NodeName=g2 CPUs=4 Gres=gpu", "NodeName=g2 Name=gpu File=/dev/nvidia[0-3]\n")
    assert c.node_gpus.tolist() == [3, 1] and c.node_gpu_types == [{"a100": 2, "v100": 1}, {}]
    assert any("g2 has 4 GPUs, slurm.conf's Gres= says 1" in n for n in c.notes)  # slurm.conf's count wins


def test_defaults_of_a_bare_conf(tmp_path):
    (tmp_path / "slurm.conf").write_text("NodeName=n[1-2] CPUs=2\nPartitionName=p Nodes=n[1-2]\n")
    c = read_cluster(tmp_path / "slurm.conf")
    assert c.scheduler == Scheduler(60, 100, 30, 86400, 60, 500, 0, False)
    assert c.priority == Priority() and not c.priority.multifactor and c.fair_tree
    assert c.default_partition == -1 and c.part_max_time.tolist() == [-1] and c.part_tier.tolist() == [1]
    assert any(n.startswith("PriorityType=priority/basic") for n in c.notes)


def test_assoc_dump_with_parent_names_and_parent_shares(tmp_path):
    (tmp_path / "a.txt").write_text(
        "Cluster|Account|User|Partition|Share|ParentName|GrpJobs\n"
        "c|root|||1||\nc|phys|||40|root|\nc|theory|||parent|phys|\nc|theory|ann||parent||\n"
        "c|theory|bob|gpu|3||5\nc|phys|eve||1||\n")
    c = read_cluster(TRUST / "slurm.conf", None, tmp_path / "a.txt")
    assert c.assoc_name == ["root", "phys", "theory", "ann", "bob", "eve"]
    assert c.assoc_parent.tolist() == [-1, 0, 1, 2, 2, 1]
    assert c.assoc_shares.tolist() == [1, 40, 40, 40, 3, 1] and c.assoc_partition[4] == "gpu"
    assert c.assoc_index("theory", "bob", "gpu") == 4
    assert any(n.startswith("not modelled: Fairshare=parent on ann") for n in c.notes)
    assert any(n.startswith("not modelled: association limits (GrpJobs=5 on bob") for n in c.notes)


@pytest.mark.parametrize("line, kill_wait, note", [
    ("OverTimeLimit=2", 10 + 120, None),  # KillWait=10 + 2 minutes
    ("OverTimeLimit=UNLIMITED", 10, "not modelled: OverTimeLimit=UNLIMITED"),
    ("KillWait=45", 45, None),
])
def test_how_long_an_overdue_job_is_expected_to_run(tmp_path, line, kill_wait, note):
    text = (TRUST / "slurm.conf").read_text()
    text = text.replace("KillWait=10", line) if line.startswith("KillWait") else text + line + "\n"
    (tmp_path / "slurm.conf").write_text(text)
    c = read_cluster(tmp_path / "slurm.conf")
    assert c.scheduler.kill_wait == kill_wait
    assert (note is None) or any(n.startswith(note) for n in c.notes)


def test_a_malformed_kill_wait(tmp_path):
    text = (TRUST / "slurm.conf").read_text().replace("KillWait=10", "KillWait=ten")
    (tmp_path / "slurm.conf").write_text(text)
    line = text.splitlines().index("KillWait=ten") + 1
    with pytest.raises(WalltimeError) as err:
        read_cluster(tmp_path / "slurm.conf")
    assert str(err.value).startswith(f"{tmp_path / 'slurm.conf'}:{line}: KillWait=ten: expected a whole number")


@pytest.mark.parametrize("lines, expected, note", [
    ("", Preemption(), None),  # no PreemptType: nothing preempted
    ("PreemptType=preempt/qos\nPreemptMode=REQUEUE\n", Preemption(True, "REQUEUE", 121), None),
    ("PreemptType=preempt/qos\nPreemptMode=cancel\nAuthInfo=cred_expire=30\n", Preemption(True, "CANCEL", 31), None),
    ("PreemptType=preempt/qos\nPreemptMode=REQUEUE,GANG\n", Preemption(True, "REQUEUE", 121),
     "not modelled: PreemptMode=REQUEUE,GANG"),
    ("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n", Preemption(False, "REQUEUE", 121),
     "not modelled: PreemptType=preempt/partition_prio"),
    ("PreemptType=preempt/qos\nPreemptMode=REQUEUE\nPreemptExemptTime=00:05:00\n",
     Preemption(True, "REQUEUE", 121), "not modelled: PreemptExemptTime=00:05:00"),
])
def test_preemption_settings(tmp_path, lines, expected, note):
    """PreemptType, PreemptMode and AuthInfo's cred_expire as the model reads them (slurm.conf(5) of 22.05:
    a requeued job waits cred_expire + 1 s, 120 + 1 by default, as the lab's W4 dumps show)."""
    (tmp_path / "slurm.conf").write_text((REPLAY / "slurm.conf").read_text() + lines)
    c = read_cluster(tmp_path / "slurm.conf")
    assert c.preemption == expected
    assert (note is None) or any(n.startswith(note) for n in c.notes), c.notes
    assert read_cluster(REPLAY / "slurm-preempt.conf").preemption == Preemption(True, "REQUEUE", 121)


@pytest.mark.parametrize("line, field", [
    ("PreemptMode=REQUEUE_ALL", "PreemptMode=REQUEUE_ALL: expected OFF, CANCEL, REQUEUE or SUSPEND"),
    ("PreemptMode=CANCEL,REQUEUE", "PreemptMode=CANCEL,REQUEUE: expected OFF"),
    ("AuthInfo=cred_expire=2", "AuthInfo=cred_expire=2: expected cred_expire=N"),
])
def test_a_malformed_preemption_setting(tmp_path, line, field):
    text = (REPLAY / "slurm-preempt.conf").read_text().replace("PreemptMode=REQUEUE", line)
    (tmp_path / "slurm.conf").write_text(text)
    no = text.splitlines().index(line) + 1
    with pytest.raises(WalltimeError) as err:
        read_cluster(tmp_path / "slurm.conf")
    assert str(err.value).startswith(f"{tmp_path / 'slurm.conf'}:{no}: {field}"), str(err.value)


def test_qos_preemption_rules_of_the_lab(tmp_path):
    """The W4 runs' real `sacctmgr show qos` dump, read by hand: high preempts low and normal; normal follows the
    cluster's mode; low and high cancel. A dump without the Preempt column gives no rules; a bad mode is one line."""
    rules = read_qos_preemption(REPLAY / "runs/W4-r1/qos.txt")
    assert rules == {"normal": ((), "CLUSTER"), "high": (("low", "normal"), "CANCEL"), "low": ((), "CANCEL")}
    assert read_qos_preemption(REPLAY / "qos.txt") == {"normal": ((), "CLUSTER"), "high": (("normal",), "CANCEL")}
    (tmp_path / "plain.txt").write_text("Name|Priority\nnormal|0\n")
    assert read_qos_preemption(tmp_path / "plain.txt") == {}
    (tmp_path / "bad.txt").write_text("Name|Priority|Preempt|PreemptMode\nnormal|0||sometimes\n")
    with pytest.raises(WalltimeError) as err:
        read_qos_preemption(tmp_path / "bad.txt")
    assert str(err.value).startswith(f"{tmp_path / 'bad.txt'}:2: PreemptMode=sometimes: expected")
    (tmp_path / "loop.txt").write_text("Name|Priority|Preempt|PreemptMode\na|0|b|cancel\nb|0|c|cancel\nc|0|a|cancel\n")
    with pytest.raises(WalltimeError, match="loop"):
        read_qos_preemption(tmp_path / "loop.txt")
