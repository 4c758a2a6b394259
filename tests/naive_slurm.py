"""The Slurm-shaped replay in plain Python: the twin of pipeline/simulate/slurm/_kernel.py.

Written from docs/slurm-replay.md alone, for clarity over speed: every tick is visited, the queue is re-sorted
at every pass and the backfill profile is a flat list of intervals scanned in full. Same arguments and results
as the kernel's ``slurm_replay``.
"""

from __future__ import annotations

import math


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


class _Cluster:
    def __init__(self, units, tpu, mem, gpus):
        self.units, self.tpu, self.mem, self.gpus = list(units), list(tpu), list(mem), list(gpus)
        self.free = [[u, m, g] for u, m, g in zip(self.units, self.mem, self.gpus)]

    def need(self, k: int, cpn: int, mem: int, gpn: int, excl: bool) -> tuple[int, int, int]:
        if excl:
            return self.units[k], self.mem[k], self.gpus[k]
        return _ceil_div(cpn, self.tpu[k]), mem, gpn

    def cpus(self, k: int, cpn: int, excl: bool) -> int:
        return self.units[k] * self.tpu[k] if excl else _ceil_div(cpn, self.tpu[k]) * self.tpu[k]


def fair_share(parent, shares, is_user, usage_user, fair_tree):
    """Each association's fair-share factor (users'; others 0.0), from the users' usage."""
    a = len(parent)
    usage = [0.0] * a
    for i in range(a - 1, -1, -1):  # children after parents: sum bottom-up
        if is_user[i]:
            usage[i] += usage_user[i]
        if parent[i] >= 0:
            usage[parent[i]] += usage[i]
    children = [[] for _ in range(a)]
    roots = []
    for i in range(a):
        (children[parent[i]] if parent[i] >= 0 else roots).append(i)
    fs = [0.0] * a
    if not fair_tree:
        total = sum(usage[r] for r in roots)
        norm = [0.0] * a
        for i in range(a):
            sibs = children[parent[i]] if parent[i] >= 0 else roots
            s = sum(shares[j] for j in sibs)
            mine = shares[i] / s if s > 0 else 0.0
            norm[i] = mine * (norm[parent[i]] if parent[i] >= 0 else 1.0)
        for i in range(a):
            if is_user[i]:
                u_eff = usage[i] / total if total > 0 else 0.0
                fs[i] = 2.0 ** (-(u_eff / norm[i])) if norm[i] > 0 else 0.0
        return fs
    lf = [0.0] * a
    for sibs in [roots] + children:
        s_sum = sum(shares[j] for j in sibs)
        u_sum = sum(usage[j] for j in sibs)
        for j in sibs:
            s = shares[j] / s_sum if s_sum > 0 else 0.0
            u = usage[j] / u_sum if u_sum > 0 else 0.0
            lf[j] = 0.0 if s == 0 else (math.inf if u == 0 else s / u)
    n_users = sum(1 for i in range(a) if is_user[i])
    state = {"rank": n_users, "rnt": n_users}

    def walk(sibs, entered_tied):
        order = sorted(sibs, key=lambda j: (-lf[j], not is_user[j], j))
        prev = None
        i = 0
        while i < len(order):
            j = order[i]
            tied = entered_tied if i == 0 else (prev is not None and lf[j] == prev)
            if i == 0 and not entered_tied:
                tied = False
            if is_user[j]:
                if not tied:
                    state["rank"] = state["rnt"]
                fs[j] = state["rank"] / n_users
                state["rnt"] -= 1
                i += 1
            else:
                merged = [j]
                while i + len(merged) < len(order) and not is_user[order[i + len(merged)]] \
                        and lf[order[i + len(merged)]] == lf[j]:
                    merged.append(order[i + len(merged)])
                walk([c for m in merged for c in children[m]], tied)
                i += len(merged)
            prev = lf[j]

    walk(roots, False)
    return fs


def slurm_replay(node_units, node_tpu, node_mem, node_gpus, part_nodes, part_tier, assoc_parent, assoc_shares,
                 assoc_user, elig, run, limit, part, nn, cpn, mem, gpn, excl, assoc, base, rjob, juser, w_age, max_age,
                 w_fs,
                 calc_period, half_life, fair_tree, sched_interval, queue_depth, bf_interval, bf_window,
                 bf_max_job_test, bf_resolution, kill_wait, bf_max_job_user, jq=None, q_pre=None, q_mode=None,
                 q_rank=None, q_level=None, requeue_delay=121, events=None, shapes=None):
    """The replay. ``part``, ``base`` and ``rjob`` are per queue record: a job that asks for several partitions
    has one record in each (its records by job, in its list's order). ``jq`` .. ``requeue_delay``: QOS
    preemption (None: none). ``events`` (a list), when given, receives the backfill passes' decisions for
    invariant tests: ("reserve", t, job, nodes, from, to) and ("backfill", t, job, nodes, t, t + limit), and the
    preemptions: ("preempt", t, job, victims, their nodes, the preemptor's would-be nodes).
    ``shapes`` (xjob, xnn, xcpn, xmem, xgpn): further shapes of jobs with a node range (docs: "A node range"),
    each job's after its own (nn, cpn, mem, gpn), in the order they are tried; xjob ascending.
    Returns (start, backfilled, prio, alloc, preemptions, cut, release) per job, alloc by the shape each job
    ran in; with ``shapes``, also each job's shape (-1: its own, x: further shape x)."""
    n = len(elig)
    elig = list(elig)  # a requeued job's eligible instant moves
    shp = [[(nn[j], cpn[j], mem[j], gpn[j], -1)] for j in range(n)]  # (nn, cpn, mem, gpn, output code)
    if shapes is not None:
        for x, (j, a, b, c, d) in enumerate(zip(*shapes)):
            shp[j].append((a, b, c, d, x))
    cur = [shp[j][0] for j in range(n)]  # the shape a job runs (ran) in
    if jq is None:
        jq, q_pre, q_mode, q_rank, q_level = [0] * n, [[False]], [0], [0], [0]
    preempts = [any(q_pre[a][b] and q_mode[b] > 0 for b in range(len(q_mode))) for a in range(len(q_mode))]
    npre = [0] * n
    cut = [-1] * n
    killing = set()  # jobs being killed at this instant
    requeued = []  # (eligible again at, job)
    k_nodes = len(node_units)
    cl = _Cluster(node_units, node_tpu, node_mem, node_gpus)
    pnodes = [[k for k in range(k_nodes) if part_nodes[q][k]] for q in range(len(part_tier))]
    parent, shares, is_user = list(assoc_parent), list(assoc_shares), list(assoc_user)
    start = [-1] * n
    backfilled = [False] * n
    prio_at = [0] * n
    nodes_of: list[list[int]] = [[] for _ in range(n)]
    prio = [0] * len(part)  # per record
    records = [[r for r in range(len(part)) if rjob[r] == j] for j in range(n)]
    usage = [0.0] * len(parent)
    kept = [0] * len(parent)  # CPU-seconds of jobs ended since the last calc tick (integers)
    fs = fair_share(parent, shares, is_user, usage, fair_tree)
    pending: list[int] = []
    running: list[int] = []
    arrived = 0
    done = 0

    def is_tick(t, interval):
        return interval > 0 and (t - t0) % interval == 0

    def next_tick(t, interval):
        return t0 + ((t - t0) // interval + 1) * interval

    def job_cpus(j):
        return sum(cl.cpus(k, cur[j][1], excl[j]) for k in nodes_of[j])

    def need(j, k, s=None):  # what job j needs on node k in shape s (its current one when None)
        s = cur[j] if s is None else s
        return cl.need(k, s[1], s[2], s[3], excl[j])

    def start_job(j, r, t, nodes, bf, s):
        cur[j] = s
        for k in nodes:
            u, m, g = need(j, k)
            cl.free[k][0] -= u
            cl.free[k][1] -= m
            cl.free[k][2] -= g
            assert min(cl.free[k]) >= 0
        start[j], backfilled[j], prio_at[j], nodes_of[j] = t, bf, prio[r], list(nodes)
        for x in records[j]:
            pending.remove(x)
        running.append(j)

    def fit_now(j, q, avail):
        """First fit now, j's shapes in order: (shape, nodes) of the first that fits, else None."""
        for s in shp[j]:
            got = []
            for k in pnodes[q]:
                if not avail[k]:
                    continue
                if all(cl.free[k][x] >= need(j, k, s)[x] for x in range(3)):
                    got.append(k)
                    if len(got) == s[0]:
                        return s, got
        return None

    def queue_order():  # a QOS that preempts others first (its level), then tier, priority, record
        return sorted(pending, key=lambda r: (-q_level[jq[rjob[r]]], -part_tier[part[r]], -prio[r], r))

    def preempt(j, q, t, avail):
        """Kill, at t, running jobs that j's QOS preempts so that j fits (docs: "Preemption"); whether any."""
        cands = [c for c in running if c not in killing and q_pre[jq[j]][jq[c]] and q_mode[jq[c]] > 0
                 and any(k in pnodes[q] for k in nodes_of[c])]
        cands.sort(key=lambda c: (q_rank[jq[c]], len(nodes_of[c]), first[c]))
        saved = [list(f) for f in cl.free]
        for x, c in enumerate(cands):
            for k in nodes_of[c]:
                for y, v in enumerate(need(c, k)):
                    cl.free[k][y] += v
            fit = fit_now(j, q, avail)
            if fit is None:
                continue
            got = fit[1]
            cl.free[:] = saved
            victims = [v for v in cands[:x + 1] if set(nodes_of[v]) & set(got)]
            killing.update(victims)
            if events is not None:
                events.append(("preempt", t, j, victims, [list(nodes_of[v]) for v in victims], got))
            return True
        cl.free[:] = saved
        return False

    def main_pass(t, depth):
        avail = [True] * k_nodes
        blocked = set()
        for count, r in enumerate(queue_order()):
            if depth > 0 and count >= depth:
                break
            j = rjob[r]
            if j in running or part[r] in blocked:  # started through another of its partitions
                continue
            fit = fit_now(j, part[r], avail)
            if fit is not None:
                start_job(j, r, t, fit[1], False, fit[0])
            else:
                if preempts[jq[j]]:
                    preempt(j, part[r], t, avail)
                blocked.add(part[r])
                for k in pnodes[part[r]]:
                    avail[k] = False

    def backfill_pass(t):
        profile = []  # (start, end, node, units, mem, gpus)
        for j in running:
            end = start[j] + limit[j]  # Slurm's guess once the limit has passed: + KillWait, else just after now
            if end <= t:
                end = end + kill_wait if end + kill_wait > t else t + 1
            for k in nodes_of[j]:
                profile.append((start[j], end, k, *need(j, k)))

        def fits(j, s, k, a, b):
            nd = need(j, k, s)
            points = [a] + [p[0] for p in profile if p[2] == k and a < p[0] < b]
            for tau in points:
                used = [0, 0, 0]
                for p in profile:
                    if p[2] == k and p[0] <= tau < p[1]:
                        for x in range(3):
                            used[x] += p[3 + x]
                cap = (cl.units[k], cl.mem[k], cl.gpus[k])
                if any(cap[x] - used[x] < nd[x] for x in range(3)):
                    return False
            return True

        tested = 0
        per_user = {}
        for r in queue_order():
            if tested >= bf_max_job_test:
                break
            j = rjob[r]
            if j in running:  # started in this pass through another partition: not tested
                continue
            if bf_max_job_user > 0:  # this user's quota of tested jobs in this pass
                if per_user.get(juser[j], 0) >= bf_max_job_user:
                    continue
                per_user[juser[j]] = per_user.get(juser[j], 0) + 1
            tested += 1
            cands = sorted({t} | {p[1] for p in profile if t < p[1] <= t + bf_window})
            for big_t in cands:  # the first candidate at which a shape fits; at it, j's shapes in order
                fit = None
                for s in shp[j]:
                    got = [k for k in pnodes[part[r]] if fits(j, s, k, big_t, big_t + limit[j])][:s[0]]
                    if len(got) == s[0]:
                        fit = s, got
                        break
                if fit is None:
                    continue
                s, got = fit
                if big_t == t:
                    for k in got:
                        profile.append((t, t + limit[j], k, *need(j, k, s)))
                    start_job(j, r, t, got, True, s)
                    if events is not None:
                        events.append(("backfill", t, j, list(got), t, t + limit[j]))
                else:  # a reservation: whole nodes, from and to instants rounded down to bf_resolution
                    res = max(bf_resolution, 1)
                    lo = big_t // res * res
                    hi = max((big_t + limit[j]) // res * res, lo + res)
                    for k in got:
                        profile.append((max(lo, t), hi, k, cl.units[k], cl.mem[k], cl.gpus[k]))
                    if events is not None:
                        events.append(("reserve", t, j, list(got), max(lo, t), hi))
                break

    def calc(t):
        nonlocal last_calc, kept
        if half_life > 0:
            f = 0.5 ** (calc_period / half_life)
            for a in range(len(usage)):
                usage[a] *= f
        prev = t - calc_period
        for j in running:
            kept[assoc[j]] += job_cpus(j) * (t - max(start[j], prev))
        for a in range(len(usage)):
            usage[a] += float(kept[a])  # one integer sum of CPU-seconds per association
        kept = [0] * len(usage)
        fs[:] = fair_share(parent, shares, is_user, usage, fair_tree)
        for r in pending:
            j = rjob[r]
            prio[r] = int(base[r] + w_age * min((t - elig[j]) / max_age, 1.0) + w_fs * fs[assoc[j]])
        last_calc = t

    def end_of(j):
        return t if j in killing else start[j] + run[j]

    order = sorted(range(n), key=lambda j: (elig[j], j))  # arrivals (a preempted job: at its first submission)
    first = {j: i for i, j in enumerate(order)}  # submission order: the tie-break among preemption candidates
    t0 = elig[order[0]] if n else 0
    last_calc = t0 - calc_period
    t = t0
    last_tick_t = None
    while done < n:
        changed = False
        for j in sorted((j for j in running if end_of(j) <= t), key=lambda j: (end_of(j), j)):
            for k in nodes_of[j]:
                u, m, g = need(j, k)
                cl.free[k][0] += u
                cl.free[k][1] += m
                cl.free[k][2] += g
            end = end_of(j)
            kept[assoc[j]] += job_cpus(j) * (end - max(start[j], last_calc))
            running.remove(j)
            changed = True
            if j in killing:
                killing.discard(j)
                npre[j] += 1
                if q_mode[jq[j]] == 2:  # REQUEUE: eligible again later, from scratch
                    start[j] = -1
                    requeued.append((t + requeue_delay, j))
                    continue
                cut[j] = t  # CANCEL: over
            done += 1
        while arrived < n and elig[order[arrived]] <= t:
            j = order[arrived]
            for r in records[j]:
                prio[r] = int(base[r] + 0.0 + w_fs * fs[assoc[j]])
                pending.append(r)
            arrived += 1
            changed = True
        for back, j in sorted(x for x in requeued if x[0] <= t):
            requeued.remove((back, j))
            elig[j] = back
            for r in records[j]:
                prio[r] = int(base[r] + 0.0 + w_fs * fs[assoc[j]])
                pending.append(r)
            changed = True
        first_visit = last_tick_t != t
        if first_visit and is_tick(t, calc_period):
            calc(t)
        sched = first_visit and is_tick(t, sched_interval)
        if sched:
            main_pass(t, 0)
        elif changed:
            main_pass(t, queue_depth)
        if first_visit and is_tick(t, bf_interval):
            backfill_pass(t)
        last_tick_t = t
        if any(end_of(j) <= t for j in running):
            continue  # a zero-length job started now, or jobs preempted: back to this instant
        if done == n:
            break
        nxt = [back for back, _ in requeued]
        if running:
            nxt.append(min(start[j] + run[j] for j in running))
        if arrived < n:
            nxt.append(elig[order[arrived]])
        nxt.append(next_tick(t, calc_period))
        if pending:
            nxt.append(next_tick(t, sched_interval))
            if bf_interval > 0:
                nxt.append(next_tick(t, bf_interval))
        t = min(nxt)
    alloc = [k for j in range(n) for k in nodes_of[j]]
    if shapes is not None:
        return start, backfilled, prio_at, alloc, npre, cut, elig, [cur[j][4] for j in range(n)]
    return start, backfilled, prio_at, alloc, npre, cut, elig
