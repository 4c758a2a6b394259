"""The Slurm-shaped replay's compiled kernel alone (docs/slurm-replay.md): small cases worked out by hand,
and invariants on random workloads. The job-by-job agreement with the pure-Python twin is tested elsewhere."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.simulate.slurm._kernel import no_preemption, slurm_replay

PARAMS = dict(w_age=0.0, max_age=1000, w_fs=0.0, calc_period=300, half_life=0, fair_tree=True, sched_interval=60,
              queue_depth=100, bf_interval=30, bf_window=86400, bf_max_job_test=100, bf_resolution=1, kill_wait=30,
              bf_max_job_user=0)
ONE_USER = ([-1, 0], [1, 1], [False, True])  # root, one user (association 1)


def replay(elig, run, limit=None, *, units=(4,), tpu=None, node_mem=None, node_gpus=None, parts=None, tiers=None,
           part=None, nn=None, cpn=None, mem=None, gpn=None, excl=None, assoc=None, base=None, tree=ONE_USER,
           qos=None, full=False, shapes=None, **kw):
    """Run the kernel on lists (defaults: one node of 4 units, one partition, one user, every job 1 CPU, no
    preemption; ``qos``: (jq, q_pre, q_mode, q_rank, q_level, requeue_delay)). ``full``: also the preemptions,
    the instants CANCEL ended jobs and the last eligible instants. ``shapes``: further shapes (job, nn, cpn,
    mem, gpn); then each job's shape (-1: its own, x: further shape x) comes last."""
    n, K = len(elig), len(units)

    def arr(x, default, dtype=np.int64):
        return np.array(default if x is None else x, dtype)

    params = {**PARAMS, **kw}
    parts = np.array([[True] * K] if parts is None else parts, np.bool_)
    parent, shares, user = tree
    pre = no_preemption(n) if qos is None else (
        arr(qos[0], None), np.array(qos[1], np.bool_), arr(qos[2], None), arr(qos[3], None), arr(qos[4], None),
        np.int64(qos[5]))
    out = slurm_replay(
        arr(units, None), arr(tpu, [1] * K), arr(node_mem, [0] * K), arr(node_gpus, [0] * K), parts,
        arr(tiers, [0] * len(parts)), arr(parent, None), arr(shares, None), arr(user, None, np.bool_),
        arr(elig, None), arr(run, None), arr(limit, run), arr(part, [0] * n), arr(nn, [1] * n), arr(cpn, [1] * n),
        arr(mem, [0] * n), arr(gpn, [0] * n), arr(excl, [False] * n, np.bool_), arr(assoc, [1] * n),
        arr(base, [0.0] * n, np.float64), np.arange(n, dtype=np.int64), arr(kw.get("juser"), [0] * n),
        params["w_age"], params["max_age"], params["w_fs"],
        params["calc_period"], params["half_life"], params["fair_tree"], params["sched_interval"],
        params["queue_depth"], params["bf_interval"], params["bf_window"], params["bf_max_job_test"],
        params["bf_resolution"], params["kill_wait"], params["bf_max_job_user"], *pre,
        **({} if shapes is None else {"shapes": [np.array(c, np.int64).reshape(-1) for c in zip(*shapes)]
                                      if shapes else [np.zeros(0, np.int64)] * 5}))
    got = tuple(x.tolist() for x in out[:7 if full else 4])
    return got if shapes is None else (*got, out[7].tolist())


def test_two_jobs_fcfs_on_one_node():
    # both take the node's 4 units; job 1 starts when job 0 ends at 10 (the end triggers a main pass)
    start, bf, _, alloc = replay([0, 0], [10, 10], cpn=[4, 4])
    assert start == [0, 10]
    assert bf == [False, False]
    assert alloc == [0, 0]


def test_blocked_partition_removes_its_nodes_for_lower_jobs():
    # nodes 0, 1 (4 units each); partition 0 = {0, 1}, partition 1 = {1}; no backfill.
    # t=0: job 0 (partition 0, 4 CPUs) takes node 0. Job 1 (partition 0, 2 nodes) does not fit: partition 0 is
    # blocked and nodes 0 and 1 leave the pass, so job 2 (partition 1, 1 CPU) waits though node 1 is free.
    # t=100: job 0 ends, job 1 takes nodes 0 and 1 until 150; job 2 starts at 150 on node 1.
    start, _, _, alloc = replay([0, 0, 0], [100, 50, 10], units=(4, 4), parts=[[True, True], [False, True]],
                                part=[0, 0, 1], nn=[1, 2, 1], cpn=[4, 4, 1], bf_interval=0)
    assert start == [0, 100, 150]
    assert alloc == [0, 0, 1, 1]


def test_backfill_starts_a_short_job_in_front_of_the_reservation():
    # one node of 4 units. t=0: job 0 (2 units, limit 100) starts; job 1 (4 units) does not fit and blocks the
    # partition, so the main pass skips job 2. The bf pass at 0: job 1's first candidate that fits is job 0's
    # profile end 100: reserved over [100, 150). Job 2 (2 units, limit 50) fits over [0, 50): backfilled at 0.
    # t=100: job 0 ends, job 1 starts.
    start, bf, _, _ = replay([0, 0, 0], [100, 50, 50], [100, 50, 50], cpn=[2, 4, 2])
    assert start == [0, 100, 0]
    assert bf == [False, False, True]


def test_a_job_that_would_delay_the_reservation_is_not_backfilled():
    # as above but job 2's limit is 150: over [0, 150) it meets job 1's reservation at 100 (no unit free), at
    # 100 too; its first fit is the reservation's end 150 (reserved, not started). Every later bf tick (30, 60,
    # 90) finds the same. t=100: job 1 starts (ends 150); t=150: job 2 starts.
    start, bf, _, _ = replay([0, 0, 0], [100, 50, 50], [100, 50, 150], cpn=[2, 4, 2])
    assert start == [0, 100, 150]
    assert bf == [False, False, False]


def test_a_reservation_holds_its_nodes_whole():
    # one node of 4 units. t=0: job 0 (3 units, limit 100) starts; job 1 (2 units) does not fit (1 unit free) and
    # blocks the partition. bf at 0: job 1 is reserved from 100 -- the whole node, as Slurm 22.05's backfill
    # map reserves nodes, not cores -- so job 2 (1 unit, limit 200), which 4 units would hold beside job 1, is not
    # backfilled at 0: it meets the reservation. t=100: job 0 ends, the main pass starts jobs 1 and 2.
    start, bf, _, _ = replay([0, 0, 0], [100, 50, 50], [100, 50, 200], cpn=[3, 2, 1])
    assert start == [0, 100, 100]
    assert bf == [False, False, False]


@pytest.mark.parametrize("kill_wait, started, backfilled", [(30, 110, False), (60, 60, True)])
def test_an_overdue_job_is_expected_to_end_kill_wait_after_its_limit(kill_wait, started, backfilled):
    # two nodes of 4 units. Job 0 (node 0, limit 50) runs 100 s: past its limit. Job 1 (2 whole nodes) waits for
    # it; job 2 (limit 40) is backfilled on node 1 at 0. t=55: job 3 (4 units, limit 30) arrives behind job 1.
    # bf at 60: job 0's limit (50) has passed, so backfill expects it to end at 50 + KillWait (Slurm's
    # _guess_job_end): KillWait 30 -> job 1 reserved from 80, job 3 over [60, 90) meets it and waits for job 1
    # (100-110); KillWait 60 -> reserved from 110, job 3 backfilled at 60.
    start, bf, _, _ = replay([0, 0, 0, 55], [100, 10, 40, 30], [50, 10, 40, 30], units=(4, 4),
                             parts=[[True, True]], nn=[1, 2, 1, 1], cpn=[4, 4, 4, 4], kill_wait=kill_wait)
    assert start == [0, 100, 0, started]
    assert bf == [False, False, True, backfilled]


@pytest.mark.parametrize("resolution, started", [(1, 0), (60, 150)])
def test_reservations_are_rounded_down_to_bf_resolution(resolution, started):
    # two nodes of 4 units. Job 0 (node 0) runs until 100; job 1 (both nodes, limit 50) is reserved at 100.
    # Job 2 (4 units, limit 70) on node 1 over [0, 70): to the second the reservation is [100, 150) and job 2 is
    # backfilled at 0; with bf_resolution 60 it is [60, 120) and job 2 waits until job 1 ends at 150.
    start, _, _, _ = replay([0, 0, 0], [100, 50, 70], units=(4, 4), parts=[[True, True]], nn=[1, 2, 1],
                            cpn=[4, 4, 4], bf_resolution=resolution)
    assert start == [0, 100, started]


@pytest.mark.parametrize("per_user, start, backfilled", [(0, [0, 100, 0, 150], [False, False, True, False]),
                                                         (1, [0, 100, 150, 0], [False, False, False, True])])
def test_bf_max_job_user_passes_over_a_users_later_jobs(per_user, start, backfilled):
    # two nodes of 4 units; users 0, 1, 1, 2. Job 0 takes node 0 until 100; job 1 (both nodes) is reserved from
    # 100; job 2 (user 1, limit 50) fits on node 1 before it and is backfilled at 0 -- unless bf_max_job_user 1
    # has user 1 tested once already (job 1): then job 2 is passed over and job 3 (user 2) is backfilled instead.
    # The one left waits for job 1's end at 150.
    got, bf, _, _ = replay([0] * 4, [100, 50, 40, 40], [100, 50, 50, 50], units=(4, 4), parts=[[True, True]],
                           nn=[1, 2, 1, 1], cpn=[4, 4, 4, 4], juser=[0, 1, 1, 2], bf_max_job_user=per_user)
    assert got == start
    assert bf == backfilled


def test_gpus_are_counted_per_node():
    # two nodes, 8 units and 4 GPUs each. t=0: job 0 (3 GPUs) -> node 0 (1 GPU left); job 1 (2 GPUs) -> node 1;
    # job 2 (2 GPUs) -> node 1 (none left); job 3 (1 GPU) -> node 0 (none left); job 4 (1 GPU) waits until job 1
    # ends at 50 and takes node 1.
    start, _, _, alloc = replay([0] * 5, [100, 50, 60, 70, 10], units=(8, 8), node_gpus=(4, 4), parts=[[True, True]],
                                gpn=[3, 2, 2, 1, 1])
    assert start == [0, 0, 0, 0, 50]
    assert alloc == [0, 1, 1, 0, 1]


def test_memory_is_counted_per_node():
    # two nodes of 4 units and 1000 MB. Job 0 (600 MB) -> node 0; job 1 (600 MB) -> node 1; job 2 (500 MB) fits
    # on neither (400 MB left each) and waits for job 1's end at 20 (node 1); job 3 (400 MB) is behind it in the
    # blocked partition at 0 but is backfilled at 0 on node 0 (limit 5 ends before job 2's reservation at 20).
    start, bf, _, alloc = replay([0] * 4, [30, 20, 10, 5], units=(4, 4), node_mem=(1000, 1000),
                                 parts=[[True, True]], mem=[600, 600, 500, 400])
    assert start == [0, 0, 20, 0]
    assert bf == [False, False, False, True]
    assert alloc == [0, 1, 1, 0]


def test_exclusive_jobs_take_whole_nodes():
    # two nodes of 4 units. t=0: job 0 (1 CPU) -> node 0; job 1 (exclusive) needs an empty node -> node 1; job 2
    # (1 CPU) -> node 0 (node 1 is wholly job 1's); job 3 (exclusive) finds no empty node: its reservation is
    # node 1 at 50 (job 1's end; node 0 frees at 100); t=50 job 1 ends and job 3 starts on node 1.
    start, _, _, alloc = replay([0] * 4, [100, 50, 10, 10], units=(4, 4), parts=[[True, True]],
                                excl=[False, True, False, True])
    assert start == [0, 0, 0, 50]
    assert alloc == [0, 1, 0, 1]


def test_a_one_cpu_job_takes_a_whole_two_thread_core():
    # one node of 2 cores with 2 threads each (4 CPUs): 1-CPU jobs 0 and 1 take a core each, job 2 waits for
    # job 0's end at 10 (counting CPUs, all three would fit at 0).
    start, _, _, _ = replay([0, 0, 0], [10, 20, 10], units=(2,), tpu=(2,))
    assert start == [0, 0, 10]


def test_fair_tree_starts_the_low_usage_users_job_first():
    # root with users 1 and 2 (1 share each); one node of 1 unit; w_fs 1000, no decay.
    # t=0: job 0 (user 1, run 600) starts; every factor is 1.0 (no usage: LF inf, tied), priority 1000.
    # Jobs 1 (user 1, at 100) and 2 (user 2, at 200) arrive with priority 1000 (factors still 1.0).
    # t=300 (calc): user 1's usage 300, LF 0.5/1; user 2 LF inf visited first: fs 1.0, user 1 fs 0.5 ->
    # job 1's priority 500, job 2's 1000. t=600: job 0 ends, the calc tick keeps the order, job 2 (user 2)
    # starts first; job 1 at 610.
    tree = ([-1, 0, 0], [1, 1, 1], [False, True, True])
    start, _, prio, _ = replay([0, 100, 200], [600, 10, 10], units=(1,), assoc=[1, 1, 2], tree=tree, w_fs=1000.0)
    assert start == [0, 610, 600]
    assert prio == [1000, 500, 1000]


def test_classic_fair_share_factor():
    # the same with classic: at 300 user 1's U_eff = 1 (all the root's usage), S_norm 0.5: fs = 2 ** -2 = 0.25,
    # user 2's 1.0; priorities 250 and 1000.
    tree = ([-1, 0, 0], [1, 1, 1], [False, True, True])
    start, _, prio, _ = replay([0, 100, 200], [600, 10, 10], units=(1,), assoc=[1, 1, 2], tree=tree, w_fs=1000.0,
                               fair_tree=False)
    assert start == [0, 610, 600]
    assert prio == [1000, 250, 1000]


def test_a_zero_run_job_frees_its_node_at_the_same_instant():
    # one node of 1 unit. t=0: job 0 (run 0) starts, job 1 waits (reserved at 1, job 0's limit); job 0 ends at
    # 0 and the loop comes back to 0: the event-triggered pass starts job 1 at 0.
    start, bf, _, _ = replay([0, 0], [0, 5], [1, 5], units=(1,))
    assert start == [0, 0]
    assert bf == [False, False]


def test_age_priority_and_tiers():
    # one node of 1 unit; job 0 runs [0, 1000). Job 1 (tier 0 partition, base 0) and job 2 (base 0, higher
    # tier partition over the same node) wait; the higher tier goes first though it arrived later.
    start, _, _, _ = replay([0, 10, 20], [1000, 10, 10], units=(1,), parts=[[True], [True]], tiers=[0, 5],
                            part=[0, 0, 1], w_age=100.0)
    assert start == [0, 1010, 1000]


# --------------------------------------------------------------------------- invariants on random workloads

@st.composite
def workloads(draw):
    K = draw(st.integers(2, 6))
    units = [draw(st.integers(1, 8)) for _ in range(K)]
    tpu = [draw(st.integers(1, 2)) for _ in range(K)]
    with_mem = draw(st.booleans())
    node_mem = [draw(st.integers(1000, 4000)) if with_mem else 0 for _ in range(K)]
    node_gpus = [draw(st.integers(0, 4)) for _ in range(K)]
    Q = draw(st.integers(1, 3))
    parts = []
    for _ in range(Q):
        row = [draw(st.booleans()) for _ in range(K)]
        if not any(row):
            row[draw(st.integers(0, K - 1))] = True
        parts.append(row)
    tiers = [draw(st.integers(0, 1)) for _ in range(Q)]
    n = draw(st.integers(1, 40))
    elig = sorted(draw(st.integers(0, 3000)) for _ in range(n))
    jobs = dict(elig=elig, run=[], limit=[], part=[], nn=[], cpn=[], mem=[], gpn=[], excl=[], assoc=[], base=[])
    for _ in range(n):
        q = draw(st.integers(0, Q - 1))
        nodes = [k for k in range(K) if parts[q][k]]
        cpn = draw(st.integers(1, 16))
        m = draw(st.integers(0, 3000)) if with_mem else 0
        g = draw(st.integers(0, 2))
        ex = draw(st.booleans()) and draw(st.booleans())
        able = [k for k in nodes if ex or (-(-cpn // tpu[k]) <= units[k] and m <= node_mem[k] and g <= node_gpus[k])]
        if not able:
            cpn, m, g, able = 1, 0, 0, nodes
        run = draw(st.integers(0, 600))
        jobs["run"].append(run)
        jobs["limit"].append(max(run, 1) + draw(st.integers(0, 600)))
        jobs["part"].append(q)
        jobs["nn"].append(draw(st.integers(1, len(able))))
        jobs["cpn"].append(cpn)
        jobs["mem"].append(m)
        jobs["gpn"].append(g)
        jobs["excl"].append(ex)
        jobs["assoc"].append(draw(st.sampled_from([2, 3, 5])))
        jobs["base"].append(draw(st.floats(0, 2000)))
    tree = ([-1, 0, 1, 1, 0, 4], [1, 2, 1, 3, 1, 1], [False, False, True, True, False, True])
    params = dict(w_age=draw(st.sampled_from([0.0, 500.0])), max_age=draw(st.integers(1, 2000)),
                  w_fs=draw(st.sampled_from([0.0, 1000.0])), calc_period=draw(st.integers(1, 400)),
                  half_life=draw(st.sampled_from([0, 600])), fair_tree=draw(st.booleans()),
                  sched_interval=draw(st.integers(1, 120)), queue_depth=draw(st.integers(1, 5)),
                  bf_interval=draw(st.sampled_from([0, 7, 30])), bf_window=draw(st.integers(0, 1500)),
                  bf_max_job_test=draw(st.integers(1, 10)))
    if draw(st.booleans()):  # QOS preemption: high (1) preempts normal (0) by CANCEL or REQUEUE
        params["qos"] = _qos([draw(st.integers(0, 1)) for _ in range(n)], draw(st.sampled_from([1, 2])),
                             draw(st.sampled_from([6, 121])))
    return dict(units=units, tpu=tpu, node_mem=node_mem, node_gpus=node_gpus, parts=parts, tiers=tiers, tree=tree,
                **jobs, **params)


@settings(max_examples=30, deadline=None)
@given(workloads())
def test_invariants_on_random_workloads(w):
    """Every job starts, on distinct nodes of its partition, no earlier than it is eligible (a requeued job: than
    its return); no node over its units, memory or GPUs, an exclusive job alone, over the final runs (a CANCEL
    victim's cut at its end)."""
    start, _, _, alloc, npre, cut, release = replay(**w, full=True)
    n = len(w["elig"])
    off = np.concatenate([[0], np.cumsum(w["nn"])])
    assert len(alloc) == off[-1]
    for j in range(n):
        assert start[j] >= release[j] >= w["elig"][j] and (cut[j] < 0 or start[j] <= cut[j])
        assert npre[j] == 0 or w.get("qos") and w["qos"][0][j] == 0
        nodes = alloc[off[j]:off[j + 1]]
        assert len(set(nodes)) == w["nn"][j] and all(0 <= k < len(w["units"]) for k in nodes)
        assert all(w["parts"][w["part"][j]][k] for k in nodes)
    end = [cut[j] if cut[j] >= 0 else start[j] + w["run"][j] for j in range(n)]

    def use(j, k):
        if w["excl"][j]:
            return w["units"][k], w["node_mem"][k], w["node_gpus"][k]
        return -(-w["cpn"][j] // w["tpu"][k]), w["mem"][j], w["gpn"][j]

    _never_over(w, start, end, alloc, off, use)
    for e in range(n):
        if not w["excl"][e]:
            continue
        mine = set(alloc[off[e]:off[e + 1]])
        for o in range(n):
            if o != e and max(start[e], start[o]) < min(end[e], end[o]):
                assert not mine & set(alloc[off[o]:off[o + 1]])


def test_a_job_with_a_node_range_spreads_when_no_node_has_its_cpus():
    # two nodes of 4 units. t=0: jobs 0 and 1 (3 units each) take nodes 0 and 1. Job 2 asks 2 CPUs: one node
    # first (no node has 2 free), else 1 + 1 on two nodes: it starts at 0 over both. Without the range it waits
    # until job 0 ends at 100.
    kw = dict(units=(4, 4), parts=[[True, True]], cpn=[3, 3, 2], bf_interval=0)
    start, _, _, alloc, shape = replay([0, 0, 0], [100, 100, 10], shapes=[(2, 2, 1, 0, 0)], **kw)
    assert start == [0, 0, 0] and alloc == [0, 1, 0, 1] and shape == [-1, -1, 0]
    assert replay([0, 0, 0], [100, 100, 10], **kw)[0] == [0, 0, 100]


def test_a_job_with_a_node_range_takes_one_node_when_one_has_its_cpus():
    # as above but job 1 takes 2 units: node 1 has 2 free, so job 2 takes it whole (its first shape)
    start, _, _, alloc, shape = replay([0, 0, 0], [100, 100, 10], units=(4, 4), parts=[[True, True]],
                                       cpn=[3, 2, 2], shapes=[(2, 2, 1, 0, 0)], bf_interval=0)
    assert start == [0, 0, 0] and alloc == [0, 1, 1] and shape == [-1, -1, -1]


def test_backfill_reserves_a_node_range_at_its_earliest_shape():
    # two nodes of 4 units. Job 0 holds 3 units of node 0 until 100, job 1 all of node 1 until 50. Job 2 asks 4
    # CPUs, one node or 2 + 2: one node is free at 50 (node 1), two nodes with 2 free at 100. The main pass
    # blocks it; backfill at 0 reserves node 1 from 50 (the one-node shape, earliest), so job 3 (1 unit, limit
    # 60) is not backfilled on node 1 but on node 0 (1 unit free). Job 2 starts at 50 on node 1.
    start, bf, _, alloc, shape = replay([0, 0, 0, 0], [100, 50, 50, 60], units=(4, 4), parts=[[True, True]],
                                        nn=[1, 1, 1, 1], cpn=[3, 4, 4, 1], shapes=[(2, 2, 2, 0, 0)])
    assert start == [0, 0, 50, 0] and bf == [False, False, False, True]
    assert alloc == [0, 1, 1, 0] and shape == [-1, -1, -1, -1]


@st.composite
def ranged_workloads(draw):
    """workloads() with a node range for some non-exclusive jobs: the same CPUs and memory over other node
    counts (further shapes, tried after the job's own)."""
    w = draw(workloads())
    shapes = []
    for j in range(len(w["elig"])):
        if w["excl"][j] or not draw(st.booleans()):
            continue
        cpus = w["nn"][j] * w["cpn"][j]
        for other in draw(st.lists(st.integers(1, len(w["units"])), max_size=3, unique=True)):
            if other != w["nn"][j]:
                shapes.append((j, other, -(-cpus // other), -(-w["mem"][j] * w["nn"][j] // other), w["gpn"][j]))
    return {**w, "shapes": shapes}


@settings(max_examples=30, deadline=None)
@given(ranged_workloads())
def test_invariants_with_node_ranges(w):
    """With node ranges: every job starts no earlier than it is eligible, in one of its shapes, on as many
    distinct nodes of its partition as that shape has, each able to hold that shape's CPUs; no node over its
    units, memory or GPUs at any instant."""
    start, _, _, alloc, npre, cut, release, shape = replay(**w, full=True)
    n = len(w["elig"])
    sh = [(w["nn"][j], w["cpn"][j], w["mem"][j], w["gpn"][j]) if shape[j] < 0 else w["shapes"][shape[j]][1:]
          for j in range(n)]
    assert all(shape[j] < 0 or w["shapes"][shape[j]][0] == j for j in range(n))
    off = np.concatenate([[0], np.cumsum([s[0] for s in sh])])
    assert len(alloc) == off[-1]
    end = [cut[j] if cut[j] >= 0 else start[j] + w["run"][j] for j in range(n)]

    def use(j, k):
        if w["excl"][j]:
            return w["units"][k], w["node_mem"][k], w["node_gpus"][k]
        return -(-sh[j][1] // w["tpu"][k]), sh[j][2], sh[j][3]

    for j in range(n):
        assert start[j] >= release[j] >= w["elig"][j]
        nodes = alloc[off[j]:off[j + 1]]
        assert len(set(nodes)) == sh[j][0] and all(w["parts"][w["part"][j]][k] for k in nodes)
        assert all(use(j, k)[0] * w["tpu"][k] >= sh[j][1] for k in nodes) or w["excl"][j]
    _never_over(w, start, end, alloc, off, use)


# QOS preemption (docs/slurm-replay.md "Preemption"): QOS 0 normal, QOS 1 high preempts normal; (jq, q_pre, q_mode,
# q_rank, q_level, requeue_delay)
def _qos(jq, normal_mode, delay=6, level=1):
    return (jq, [[False, False], [True, False]], [normal_mode, 0], [0, 100], [0, level], delay)


def test_a_cancel_preemption_ends_the_victim_at_once():
    # one node of 4 units. t=0: job 0 (normal, 4 CPUs, run 100) starts. t=10: job 1 (high, 4 CPUs) does not fit;
    # job 0 is the only candidate and freeing it makes job 1 fit: killed at 10 (CANCEL: over, cut at 10); the
    # loop comes back to 10 and job 1 starts then.
    out = replay([0, 10], [100, 20], cpn=[4, 4], qos=_qos([0, 1], 1), full=True, bf_interval=0)
    start, _, _, alloc, npre, cut, release = out
    assert start == [0, 10] and npre == [1, 0] and cut == [10, -1] and release == [0, 10] and alloc == [0, 0]


def test_a_requeue_preemption_brings_the_victim_back_later():
    # as above with REQUEUE and requeue_delay 6: job 0 is eligible again at 16, waits for job 1 (ends at 30) and
    # runs its whole 100 s again from 30; its last release is 16.
    start, _, _, _, npre, cut, release = replay([0, 10], [100, 20], cpn=[4, 4], qos=_qos([0, 1], 2), full=True,
                                                bf_interval=0)
    assert start == [30, 10] and npre == [1, 0] and cut == [-1, -1] and release == [16, 10]


def test_only_victims_on_the_nodes_the_preemptor_takes_are_killed():
    # two nodes of 4 units. t=0: job 0 (2 CPUs) and job 2 (2 CPUs) share node 0, job 1 (4 CPUs) takes node 1, all
    # normal, long. t=5: job 3 (high, 4 CPUs) does not fit. Candidates in order (same QOS rank and node count:
    # submission order) 0, 1, 2: without job 0, node 0 has 2 free (no fit); without job 1 too, node 1 is free
    # (fit, first fit: node 1). Of the two taken away only job 1 holds node 1: job 0 keeps running.
    start, _, _, alloc, npre, cut, _ = replay([0, 0, 0, 5], [100, 100, 100, 10], units=(4, 4), cpn=[2, 4, 2, 4],
                                              qos=_qos([0, 0, 0, 1], 1), full=True, bf_interval=0)
    assert start == [0, 0, 0, 5] and npre == [0, 1, 0, 0] and cut == [-1, 5, -1, -1]
    assert alloc == [0, 1, 0, 1]


def test_a_qos_that_preempts_goes_first_in_the_queue():
    # one node of 4 units; normal jobs are never preempted (mode 0), but high's place ahead of the queue stands:
    # at t=100 job 2 (high, priority 0) starts before job 1 (normal, priority 1000), then job 1 at 110.
    start, _, _, _ = replay([0, 1, 1], [100, 10, 10], cpn=[4, 4, 4], base=[0.0, 1000.0, 0.0],
                            qos=_qos([0, 0, 1], 0), bf_interval=0)
    assert start == [0, 110, 100]
    start, _, _, _ = replay([0, 1, 1], [100, 10, 10], cpn=[4, 4, 4], base=[0.0, 1000.0, 0.0],
                            qos=_qos([0, 0, 1], 0, level=0), bf_interval=0)
    assert start == [0, 100, 110]  # level 0: priority order


def test_repeated_preemptions_leave_and_drop_stale_ends():
    # one node of 4 units: jobs 0 and 1 (normal, 2 CPUs each, run 1000 past a limit of 500) start at 0; jobs 2 and
    # 3 (high, 4 CPUs, run 5) at 10 and 30 each kill both (REQUEUE, back 6 s later). Each kill leaves the victims'
    # own ends (and overdue entries) in the heaps: more entries than jobs, so the loop compacts them (the replay
    # must not read a stale end). Jobs 0 and 1 run from 16 and from 36 again; the last run ends at 1036.
    start, _, _, _, npre, cut, release = replay(
        [0, 0, 10, 30], [1000, 1000, 5, 5], [500, 500, 5, 5], cpn=[2, 2, 4, 4], qos=_qos([0, 0, 1, 1], 2),
        full=True, bf_interval=7, kill_wait=0)
    assert start == [36, 36, 10, 30] and npre == [2, 2, 0, 0] and cut == [-1] * 4 and release == [36, 36, 10, 30]


def _never_over(w, start, end, alloc, off, use) -> None:
    """No node holds more units, memory or GPUs than it has (``use(j, k)``: what job j holds on node k)."""
    for x in sorted(set(start)):  # usage only rises at starts: checking each start instant is a full sweep
        on = [j for j in range(len(start)) if start[j] <= x < end[j]]
        for k in range(len(w["units"])):
            held = [use(j, k) for j in on if k in alloc[off[j]:off[j + 1]]]
            assert sum(h[0] for h in held) <= w["units"][k]
            assert sum(h[1] for h in held) <= w["node_mem"][k]
            assert sum(h[2] for h in held) <= w["node_gpus"][k]
