"""The Slurm-shaped replay's kernel equals its naive twin job by job (docs/slurm-replay.md).

Hypothesis draws small clusters (overlapping partitions, hyper-threads, memory, GPUs, tiers), association
trees and workloads (ties in priority, zero-length jobs, exclusive and multi-node jobs) and every scheduling
parameter; the real lab logs (tests/data/slurm-replay) are compared too.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from naive_slurm import fair_share
from naive_slurm import slurm_replay as twin
from pipeline.simulate.slurm._kernel import THRESHOLDS, _thresholds
from pipeline.simulate.slurm._kernel import slurm_replay as kernel


@st.composite
def workloads(draw, ranges=False):
    """``ranges``: some jobs also get a node range (docs: "A node range"): further shapes of the same CPUs over
    other node counts, drawn in jobs["shapes"] as (job, nn, cpn, mem, gpn)."""
    k = draw(st.integers(1, 5))
    units = [draw(st.integers(1, 4)) for _ in range(k)]
    tpu = [draw(st.sampled_from([1, 2])) for _ in range(k)]
    mem = [draw(st.sampled_from([0, 1000, 2000])) for _ in range(k)]
    gpus = [draw(st.integers(0, 2)) for _ in range(k)]
    q = draw(st.integers(1, 3))
    part_nodes = []
    for _ in range(q):
        row = [draw(st.booleans()) for _ in range(k)]
        if not any(row):
            row[draw(st.integers(0, k - 1))] = True
        part_nodes.append(row)
    tier = [draw(st.sampled_from([1, 1, 2])) for _ in range(q)]
    parent, shares, is_user = [-1], [1], [False]
    for _ in range(draw(st.integers(1, 3))):
        acct = len(parent)
        parent.append(0)
        shares.append(draw(st.sampled_from([0, 1, 10, 30])))
        is_user.append(False)
        for _ in range(draw(st.integers(1, 2))):
            parent.append(acct)
            shares.append(draw(st.sampled_from([1, 2])))
            is_user.append(True)
    users = [i for i, u in enumerate(is_user) if u]
    n = draw(st.integers(1, 30))
    origin = draw(st.sampled_from([0, 0, -50, 10**9 + 7]))  # the kernel moves its clock; the twin does not
    elig = sorted(origin + draw(st.integers(0, 120)) for _ in range(n))
    jobs = {f: [] for f in ("run", "limit", "part", "nn", "cpn", "mem", "gpn", "excl", "assoc", "base", "user",
                            "shapes")}
    for j in range(n):
        p = draw(st.integers(0, q - 1))
        cpn = draw(st.integers(1, 8))
        m = draw(st.sampled_from([0, 0, 500, 1500]))
        g = draw(st.sampled_from([0, 0, 1, 2]))
        excl = draw(st.sampled_from([False, False, False, True]))
        fits = [i for i in range(k) if part_nodes[p][i] and (excl or (
            -(-cpn // tpu[i]) <= units[i] and m <= mem[i] and g <= gpus[i]))]
        if not fits:
            cpn, m, g = 1, 0, 0
            fits = [i for i in range(k) if part_nodes[p][i]]
        run = draw(st.integers(0, 60))
        jobs["run"].append(run)
        jobs["limit"].append(max(run + draw(st.sampled_from([-20, -3, 0, 0, 5, 30, 120])), 1))  # < run: overruns
        nodes = draw(st.integers(1, len(fits)))
        also = []  # more partitions (`-p a,b`) where the job fits too
        for p2 in draw(st.lists(st.integers(0, q - 1), max_size=2, unique=True)):
            holds = [i for i in range(k) if part_nodes[p2][i] and (excl or (
                -(-cpn // tpu[i]) <= units[i] and m <= mem[i] and g <= gpus[i]))]
            if p2 != p and len(holds) >= nodes:
                also.append(p2)
        jobs["part"].append([p] + also)
        jobs["nn"].append(nodes)
        jobs["cpn"].append(cpn)
        jobs["mem"].append(m)
        jobs["gpn"].append(g)
        jobs["excl"].append(excl)
        jobs["assoc"].append(draw(st.sampled_from(users)))
        jobs["user"].append(jobs["assoc"][-1] % 3)  # users with several associations too (bf_max_job_user)
        base = draw(st.sampled_from([0.0, 0.5, 100.0, 250.25, 1000.0]))
        jobs["base"].append([base + 100.0 * x for x in jobs["part"][-1]])  # a partition factor term
        if ranges and not excl and draw(st.booleans()):  # the same CPUs (and memory) over other node counts
            cpus = nodes * cpn
            for other in draw(st.lists(st.integers(1, k), max_size=3, unique=True)):
                if other != nodes:
                    jobs["shapes"].append((j, other, -(-cpus // other), -(-m * nodes // other), g))
    params = dict(w_age=float(draw(st.sampled_from([0, 1000]))), max_age=draw(st.integers(1, 100)),
                  w_fs=float(draw(st.sampled_from([0, 100, 10000]))), calc_period=draw(st.integers(1, 30)),
                  half_life=draw(st.sampled_from([0, 50, 1000])), fair_tree=draw(st.booleans()),
                  sched_interval=draw(st.integers(1, 20)), queue_depth=draw(st.integers(1, 10)),
                  bf_interval=draw(st.integers(0, 10)), bf_window=draw(st.integers(10, 500)),
                  bf_max_job_test=draw(st.integers(1, 20)), bf_resolution=draw(st.sampled_from([1, 1, 7, 60])),
                  kill_wait=draw(st.sampled_from([0, 10, 30])), bf_max_job_user=draw(st.sampled_from([0, 0, 1, 2])))
    nq = draw(st.sampled_from([1, 1, 2, 3]))  # QOS preemption: who preempts whom, how, in what order
    # (acyclic, as sacctmgr requires: "QOS Preemption loop detected"; a higher index preempts a lower one)
    q_pre = [[a > b and draw(st.booleans()) for b in range(nq)] for a in range(nq)]
    qos = dict(jq=[draw(st.integers(0, nq - 1)) for _ in range(n)], q_pre=q_pre,
               q_mode=[draw(st.sampled_from([0, 1, 2, 2])) for _ in range(nq)],
               q_rank=[draw(st.sampled_from([0, 0, 100])) for _ in range(nq)],
               q_level=[draw(st.integers(0, 1)) for _ in range(nq)],
               requeue_delay=draw(st.sampled_from([6, 30, 121])))
    cluster = (units, tpu, mem, gpus, part_nodes, tier, parent, shares, is_user)
    return cluster, elig, jobs, {**params, **qos}


def records(jobs):
    """The per-record arrays (part, base, rjob) of jobs whose part and base are lists (one per partition)."""
    part = [x for ps in jobs["part"] for x in ps]
    base = [x for bs in jobs["base"] for x in bs]
    rjob = [j for j, ps in enumerate(jobs["part"]) for _ in ps]
    return part, base, rjob


def _both(cluster, elig, jobs, params):
    units, tpu, mem, gpus, part_nodes, tier, parent, shares, is_user = cluster
    part, base, rjob = records(jobs)
    more = {}
    if jobs.get("shapes"):  # further shapes: (xjob, xnn, xcpn, xmem, xgpn)
        more["shapes"] = [list(c) for c in zip(*jobs["shapes"])]
    i64 = lambda x: np.array(x, np.int64)  # noqa: E731
    k_out = kernel(i64(units), i64(tpu), i64(mem), i64(gpus), np.array(part_nodes, np.bool_), i64(tier),
                   i64(parent), i64(shares), np.array(is_user, np.bool_), i64(elig),
                   i64(jobs["run"]), i64(jobs["limit"]), i64(part),
                   *(i64(jobs[f]) for f in ("nn", "cpn", "mem", "gpn")),
                   np.array(jobs["excl"], np.bool_), i64(jobs["assoc"]), np.array(base, np.float64), i64(rjob),
                   i64(jobs["user"]),
                   params["w_age"], params["max_age"], params["w_fs"], params["calc_period"], params["half_life"],
                   params["fair_tree"], params["sched_interval"], params["queue_depth"], params["bf_interval"],
                   params["bf_window"], params["bf_max_job_test"], params["bf_resolution"], params["kill_wait"],
                   params["bf_max_job_user"], i64(params["jq"]), np.array(params["q_pre"], np.bool_),
                   i64(params["q_mode"]), i64(params["q_rank"]), i64(params["q_level"]),
                   np.int64(params["requeue_delay"]), **{k: [i64(c) for c in v] for k, v in more.items()})
    t_out = twin(units, tpu, mem, gpus, part_nodes, tier, parent, shares, is_user, elig, jobs["run"], jobs["limit"],
                 part, *(jobs[f] for f in ("nn", "cpn", "mem", "gpn", "excl", "assoc")), base, rjob, jobs["user"],
                 *params.values(), **more)
    return k_out, t_out


def _equal(k_out, t_out):
    """Every output equal: start, backfilled, priority at start, nodes, preemptions, CANCEL ends, release (and,
    with node ranges, the shape each job ran in)."""
    assert len(k_out) == len(t_out) in (7, 8)
    for k, t in zip(k_out, t_out):
        assert k.tolist() == list(t)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads())
def test_kernel_equals_twin(w):
    _equal(*_both(*w))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(ranges=True))
def test_kernel_equals_twin_with_node_ranges(w):
    """Jobs with a node range (further shapes, tried in order): the kernel equals the twin on every output,
    the shape each job ran in too."""
    _equal(*_both(*w))


@st.composite
def wide_workloads(draw):
    """Big nodes and many distinct job sizes (more than the index keeps per resource, so _thresholds thins
    them): 6 nodes of 16 two-thread cores, 64,000 MB and 0-4 GPUs in two overlapping partitions; 40-70 jobs
    of 1-32 CPUs (all 32), 1-64,000 MB (all distinct) and 0-4 GPUs per node on 1-3 nodes, some exclusive."""
    k = 6
    units, tpu, mem = [16] * k, [2] * k, [64_000] * k
    gpus = [draw(st.integers(0, 4)) for _ in range(k)]
    part_nodes = [[True] * k, [i >= 2 for i in range(k)]]
    n = draw(st.integers(40, 70))
    elig = sorted(draw(st.lists(st.integers(0, 4000), min_size=n, max_size=n)))
    jobs = {f: [] for f in ("run", "limit", "part", "nn", "cpn", "mem", "gpn", "excl", "assoc", "base", "user")}
    dc, dm = draw(st.integers(0, 31)), draw(st.integers(0, 63_999))
    for j in range(n):
        p = draw(st.integers(0, 1))
        nodes = [i for i in range(k) if part_nodes[p][i]]
        g = draw(st.integers(0, 4))
        fits = [i for i in nodes if gpus[i] >= g]
        if not fits:
            g, fits = 0, nodes
        run = draw(st.integers(0, 3000))
        jobs["run"].append(run)
        jobs["limit"].append(max(run + draw(st.integers(-300, 3000)), 1))
        jobs["part"].append([p])
        jobs["nn"].append(draw(st.integers(1, min(3, len(fits)))))
        jobs["cpn"].append(1 + (7 * j + dc) % 32)  # every size 1-32 in 32 jobs
        jobs["mem"].append(1 + (1543 * j + dm) % 64_000)  # all distinct (1543 * 41 < 64,000)
        jobs["gpn"].append(g)
        jobs["excl"].append(draw(st.integers(0, 9)) == 0)
        jobs["assoc"].append(draw(st.sampled_from([1, 2, 3])))
        jobs["user"].append(jobs["assoc"][-1] - 1)
        jobs["base"].append([float(draw(st.integers(0, 1000)))])
    params = dict(w_age=1000.0, max_age=3600, w_fs=10000.0, calc_period=300, half_life=3600, fair_tree=True,
                  sched_interval=60, queue_depth=draw(st.integers(1, 50)), bf_interval=30, bf_window=86_400,
                  bf_max_job_test=draw(st.integers(1, 100)), bf_resolution=draw(st.sampled_from([1, 60])),
                  kill_wait=30, bf_max_job_user=0)
    qos = dict(jq=[0] * n, q_pre=[[False]], q_mode=[0], q_rank=[0], q_level=[0], requeue_delay=121)
    cluster = (units, tpu, mem, gpus, part_nodes, [0, 1], [-1, 0, 0, 0], [1, 1, 2, 3], [False, True, True, True])
    return cluster, elig, jobs, {**params, **qos}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_workloads())
def test_kernel_equals_twin_with_many_job_sizes(w):
    """The node index only prunes: with more distinct CPU and memory sizes than it keeps columns for, the
    kernel still equals the twin on every output."""
    cpn, mem = w[2]["cpn"], w[2]["mem"]
    assert len(set(mem)) > THRESHOLDS[1] and len(set(cpn)) == 32
    _equal(*_both(*w))


def test_index_thresholds_are_the_jobs_sizes_thinned_in_log():
    """All distinct sizes (with 0) when few; else at most ``most`` + 1, ascending from 0, each a job's size,
    the largest kept, and spaced in log: no two consecutive kept sizes more than twice the grid's ratio apart
    where the jobs have sizes between them."""
    excl = np.zeros(5, np.bool_)
    assert _thresholds(np.array([4, 1, 4, 9, 0]), excl, 8, 32).tolist() == [0, 1, 4, 8]
    assert _thresholds(np.array([4, 1, 4, 9, 2]), np.array([False, False, False, True, False]), 64,
                       32).tolist() == [0, 1, 2, 4]
    need = np.arange(1, 100_001, dtype=np.int64)
    thr = _thresholds(need, np.zeros(need.shape[0], np.bool_), 10**9, 32).tolist()
    assert thr[0] == 0 and thr[1] == 1 and thr[-1] == 100_000 and len(thr) <= 33
    assert thr == sorted(set(thr)) and set(thr[1:]) <= set(need.tolist())
    ratio = 100_000 ** (1 / 31)
    assert all(b <= a * ratio * 1.01 + 1 for a, b in zip(thr[1:], thr[2:]))


def test_fair_tree_matches_sshare():
    """The twin's Fair Tree factors are sshare's on the lab cluster (runs/W1-r1/sshare-end.txt: usage u1 4650,
    u2 1377, u3 2640, u4 2136, u5 2388, u6 1754 CPU-seconds; FairShare 1/7 .. 6/7 in that order, root 7/7)."""
    parent = [-1, 0, 0, 2, 2, 0, 5, 5, 0, 8, 8]
    shares = [1, 1, 10, 2, 1, 30, 1, 1, 60, 1, 1]
    user = [False, True, False, True, True, False, True, True, False, True, True]
    usage = [0, 0, 0, 4650, 1377, 0, 2640, 2136, 0, 2388, 1754]
    fs = fair_share(parent, shares, user, usage, True)
    assert [round(fs[i] * 7) for i in (1, 3, 4, 6, 7, 9, 10)] == [7, 1, 2, 3, 4, 5, 6]
    assert all(f == 1.0 for f, u in zip(fair_share(parent, shares, user, [0] * 11, True), user) if u)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads())
def test_a_backfilled_job_never_delays_a_reservation(w):
    """Within one backfill pass, a job started by backfill holds none of the nodes reserved for a job ahead of
    it in the queue over any part of the reservation, and every reservation is in the future and on nodes of
    the job's partition. (The kernel equals the twin on these workloads, so this holds for it too.)"""
    cluster, elig, jobs, params = w
    part_nodes = cluster[4]
    events = []
    part, base, rjob = records(jobs)
    twin(*cluster, elig, jobs["run"], jobs["limit"], part, *(jobs[f] for f in ("nn", "cpn", "mem", "gpn", "excl",
                                                                               "assoc")), base, rjob,
         jobs["user"], *params.values(), events=events)
    by_pass = {}
    for e in events:
        if e[0] != "preempt":
            by_pass.setdefault(e[1], []).append(e)
    for t, decisions in by_pass.items():
        held = []  # (node, from, to) of this pass's reservations so far
        for kind, _, j, nodes, lo, hi in decisions:
            assert any(all(part_nodes[p][k] for k in nodes) for p in jobs["part"][j])
            assert len(set(nodes)) == jobs["nn"][j]
            if kind == "reserve":
                assert lo >= t and hi > lo
                held += [(k, lo, hi) for k in nodes]
            else:
                assert lo == t
                for k, a, b in held:
                    assert k not in nodes or hi <= a or b <= lo, (t, j, k, (lo, hi), (a, b))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads())
def test_preemption_kills_only_what_the_qos_allows_and_the_job_needs(w):
    """Every preemption kills at least one job; each victim's QOS is one the preemptor's QOS preempts, with a
    mode that kills (CANCEL or REQUEUE); each victim runs on a node the preemptor would take; a CANCEL victim
    ends at the preemption, a REQUEUE one is eligible again requeue_delay later and starts no earlier. (The
    kernel equals the twin on these workloads, so this holds for it too.)"""
    cluster, elig, jobs, params = w
    events = []
    part, base, rjob = records(jobs)
    out = twin(*cluster, elig, jobs["run"], jobs["limit"], part, *(jobs[f] for f in ("nn", "cpn", "mem", "gpn",
                                                                                     "excl", "assoc")), base, rjob,
               jobs["user"], *params.values(), events=events)
    start, npre, cut, release = out[0], out[4], out[5], out[6]
    jq, q_pre, q_mode = params["jq"], params["q_pre"], params["q_mode"]
    killed = {}
    for kind, t, j, victims, held, nodes in (e for e in events if e[0] == "preempt"):
        assert victims and len(nodes) == jobs["nn"][j]
        for v, on in zip(victims, held):
            assert q_pre[jq[j]][jq[v]] and q_mode[jq[v]] in (1, 2)
            assert set(on) & set(nodes)
            killed.setdefault(v, []).append(t)
    assert {v: len(ts) for v, ts in killed.items()} == {j: c for j, c in enumerate(npre) if c}
    for v, ts in killed.items():
        if q_mode[jq[v]] == 1:
            assert cut[v] == ts[-1] and len(ts) == 1
        else:
            assert cut[v] == -1 and release[v] == ts[-1] + params["requeue_delay"] and start[v] >= release[v]
