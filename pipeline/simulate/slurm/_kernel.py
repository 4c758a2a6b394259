"""The compiled event loop of the Slurm-shaped replay: docs/slurm-replay.md is its contract.

The pure-Python twin (tests/naive_slurm.py) implements the same page; the two agree job by job. Entry point:
:func:`slurm_replay`. Notes on the shape (why it is fast without changing what the page says):

- Running jobs ends sit in a binary heap keyed by (start + run, job). Each node keeps its running jobs sorted by
  their kept profile end (start + limit; start + limit + KillWait once the limit has passed, moved by _overdue at
  the next backfill pass; read through _eff, which is t + 1 for an end already past) in a fixed per-node slot range (a job holds >= 1 unit, so a node holds at
  most ``node_units`` jobs): the backfill profile of running jobs *is* these lists, nothing is rebuilt per pass.
  Reservations of one backfill pass live in a pool of per-node linked lists, dropped when the pass ends.
- Pending jobs are one array kept in queue order: an arrival is inserted by binary search, a calc tick (the only
  moment priorities change) re-sorts it, a pass compacts out the jobs it started.
- Fair-share usage is accrued with integers: each association keeps the CPUs of its running jobs (``R``) and an
  integer correction (``acc``) so that a calc tick adds ``acc + R * calc_period`` -- exactly the sum, over the
  jobs that ended since the previous tick and the running ones, of ``cpus * (t - max(start, previous tick))``,
  added to the float usage as one number per association.
- Backfill: on one node, running jobs only end, so the node's usage from them never rises after ``t``; only this
  pass's reservations add usage later. Hence (a) a node without reservations that can hold the job at ``T`` can
  hold it at every later instant, and (b) a node becomes able to hold a job only at ``t`` or at one of its own
  profile ends. The first candidate instant of the page at which ``nn`` nodes fit is therefore found from
  per-node earliest instants (see :func:`_bf_find`), which gives the same instant and nodes as trying every
  distinct profile end of the cluster in turn.
- The helpers are compiled without Numba's reference counting (``_nrt=False``): they only read and write
  arrays ``slurm_replay`` allocated and keeps alive, and with it every call and loop paid atomic increments and
  decrements of the arrays' reference counts (half of the run's time in a profile). Only ``slurm_replay``,
  ``_fair_tree`` (which allocate) and their callers on the calc tick keep it.
- A job with a node range has several shapes (``Shapes``); the per-job arrays every helper reads (nn, cpn, mem,
  gpn, the index's columns) hold its current one, set shape by shape by the three searches (main pass,
  preemption's fit, backfill) and kept while it runs, so the helpers that read running jobs do not know shapes.
- Not skipped: a backfill pass when nothing changed since the previous one. It is not provably idle: the
  window ``(t, t + bf_window]`` has moved, a job passed over before can now be reserved, its reservation can move
  another job's, and that can leave room for a third job to start now. Sched and bf ticks are skipped while
  nothing is pending (a pass over an empty queue does nothing); calc ticks are never skipped.
"""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path

import numpy as np

from ...jit import jit
from .. import _cache

# Numba checks only this file: drop its cache when the compile options (pipeline/jit.py) change
_cache.refresh(Path(__file__).parent, ("_kernel",), ("../../jit.py",), "slurm-kernel-sources.sha256")

BIG = np.int64(1) << np.int64(62)
# st[]: the loop's scalar state, shared with the helpers
HSIZE, NPEND, ZERO, RESN, NTOUCH, PCALC, OSIZE, RQSIZE = 0, 1, 2, 3, 4, 5, 6, 7
TSPAN = np.int64(1) << np.int64(32)  # a QOS preemption level outranks any PriorityTier (at most 65533)


@jit(nrt=False)
def _need_units(cpn, tpu):
    """Units of a node with ``tpu`` CPUs per unit that ``cpn`` CPUs take."""
    return (cpn + tpu - 1) // tpu


# --------------------------------------------------------------------------- the end heap

@jit(nrt=False)
def _eff(e, t):
    """A running job's profile end as the backfill pass at t sees it: its kept end (start + limit, or, once that
    has passed, start + limit + KillWait) or, when that too has passed, t + 1 (Slurm's _guess_job_end)."""
    return e if e > t else t + 1


@jit(nrt=False)
def _heap_push(hk, hj, st, key, job):
    """Push (key, job) on the min-heap of running jobs' ends (its size in st[HSIZE])."""
    st[HSIZE] = _mh_push(hk, hj, st[HSIZE], key, job)


@jit(nrt=False)
def _heap_pop(hk, hj, st):
    """Remove the heap's top (the caller read it at hk[0], hj[0])."""
    st[HSIZE] = _mh_pop(hk, hj, st[HSIZE])


# --------------------------------------------------------------------------- queue order

@jit(nrt=False)
def _before(a, b, tier, prio):
    """Whether record a comes before record b in queue order (tier desc, priority desc, then record index asc:
    records are by job, so by eligible instant, then in the order of the job's partition list)."""
    if tier[a] != tier[b]:
        return tier[a] > tier[b]
    if prio[a] != prio[b]:
        return prio[a] > prio[b]
    return a < b


@jit(nrt=False)
def _queue_insert(pq, st, j, tier, prio):
    """Insert the arrived record j into the pending array at its queue position."""
    n = st[NPEND]
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) >> 1
        if _before(pq[mid], j, tier, prio):
            lo = mid + 1
        else:
            hi = mid
    for i in range(n, lo, -1):
        pq[i] = pq[i - 1]
    pq[lo] = j
    st[NPEND] = n + 1


@jit(nrt=False)
def _queue_sort(pq, n, tier, prio, tmp):
    """Sort pq[:n] into queue order (bottom-up merge sort through ``tmp``)."""
    width = 1
    src, dst = pq, tmp
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _before(src[j], src[i], tier, prio):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        width *= 2
    if src is not pq:
        for i in range(n):
            pq[i] = src[i]


@jit(nrt=False)
def _queue_compact(pq, st, start, rjob):
    """Drop from the pending array the records of the jobs a pass started (order kept)."""
    w = 0
    for i in range(st[NPEND]):
        j = pq[i]
        if start[rjob[j]] < 0:
            pq[w] = j
            w += 1
    st[NPEND] = w


# --------------------------------------------------------------------------- fair share

@jit
def _fair_share(parent, shares, is_user, usage, ch_off, ch_list, fair_tree, tot, lf, snorm, srt, prev, stk, fs):
    """Recompute every user association's fair-share factor ``fs`` from ``usage`` (Fair Tree or classic)."""
    A = parent.shape[0]
    for a in range(A - 1, -1, -1):  # a parent's index is below its children's
        if is_user[a]:
            tot[a] = usage[a]
        else:
            s = 0.0
            for i in range(ch_off[a], ch_off[a + 1]):
                s += tot[ch_list[i]]
            tot[a] = s
    for p in range(A):  # level shares S (in snorm until the classic product), LF
        sh = 0
        us = 0.0
        for i in range(ch_off[p], ch_off[p + 1]):
            sh += shares[ch_list[i]]
            us += tot[ch_list[i]]
        for i in range(ch_off[p], ch_off[p + 1]):
            c = ch_list[i]
            s = shares[c] / sh if sh > 0 else 0.0
            u = tot[c] / us if us > 0.0 else 0.0
            snorm[c] = s
            if s == 0.0:
                lf[c] = 0.0
            elif u == 0.0:
                lf[c] = np.inf
            else:
                lf[c] = s / u
    nusers = 0
    for a in range(A):
        fs[a] = 0.0
        if is_user[a]:
            nusers += 1
    if fair_tree:
        _fair_tree(parent, is_user, ch_off, ch_list, lf, srt, prev, stk, fs, nusers)
        return
    root = np.int64(0)
    for a in range(A):  # classic: S_norm down the path, U_eff over the root's usage
        p = parent[a]
        if p < 0:
            snorm[a] = 1.0
            stk[a] = a
            continue
        snorm[a] = snorm[p] * snorm[a]
        stk[a] = stk[p]
        if is_user[a]:
            root = stk[a]
            ue = usage[a] / tot[root] if tot[root] > 0.0 else 0.0
            fs[a] = 2.0 ** (-(ue / snorm[a])) if snorm[a] > 0.0 else 0.0


@jit(nrt=False)
def _ft_before(a, b, lf, is_user):
    """Fair Tree's sibling order: LF descending, users before accounts, then index."""
    if lf[a] != lf[b]:
        return lf[a] > lf[b]
    if is_user[a] != is_user[b]:
        return is_user[a]
    return a < b


@jit(nrt=False)
def _ft_sort(wb, lo, hi, lf, is_user):
    """Insertion sort of wb[lo:hi] in Fair Tree's sibling order (a handful of siblings each)."""
    for i in range(lo + 1, hi):
        c = wb[i]
        k = i
        while k > lo and _ft_before(c, wb[k - 1], lf, is_user):
            wb[k] = wb[k - 1]
            k -= 1
        wb[k] = c


@jit
def _fair_tree(parent, is_user, ch_off, ch_list, lf, srt, prev, stk, fs, nusers):
    """Fair Tree's walk as Slurm's fair_tree.c (docs/slurm-replay.md): ranks shared by ties, tied sibling
    accounts merged. Recursion is a stack of frames over one work buffer ``wb`` (a frame's list sits above its
    parent's, so the buffer never holds more than every association once)."""
    A = parent.shape[0]
    wb = np.empty(A + 1, np.int64)
    f_lo = np.empty(A + 1, np.int64)  # frame: its list is wb[f_lo:f_hi], the next entry f_pos
    f_hi = np.empty(A + 1, np.int64)
    f_pos = np.empty(A + 1, np.int64)
    f_tied = np.zeros(A + 1, np.bool_)  # entered tied (its parent account was)
    f_prev = np.empty(A + 1, np.float64)  # LF of the previous entry (f_has: there is one)
    f_has = np.zeros(A + 1, np.bool_)
    top = 0
    for a in range(A):
        if parent[a] < 0:
            wb[top] = a
            top += 1
    _ft_sort(wb, 0, top, lf, is_user)
    d = 0
    f_lo[0], f_hi[0], f_pos[0], f_tied[0], f_has[0] = 0, top, 0, False, False
    rank = nusers
    rnt = nusers
    while d >= 0:
        i = f_pos[d]
        if i == f_hi[d]:
            top = f_lo[d]
            d -= 1
            continue
        j = wb[i]
        if i == f_lo[d]:
            tied = f_tied[d]
        else:
            tied = f_has[d] and lf[j] == f_prev[d]
        f_prev[d] = lf[j]
        f_has[d] = True
        if is_user[j]:
            if not tied:
                rank = rnt
            fs[j] = rank / nusers
            rnt -= 1
            f_pos[d] = i + 1
            continue
        m = i + 1  # the accounts right after it with the same LF are merged with it
        while m < f_hi[d] and not is_user[wb[m]] and lf[wb[m]] == lf[j]:
            m += 1
        f_pos[d] = m
        lo = top
        for x in range(i, m):
            a = wb[x]
            for y in range(ch_off[a], ch_off[a + 1]):
                wb[top] = ch_list[y]
                top += 1
        _ft_sort(wb, lo, top, lf, is_user)
        d += 1
        f_lo[d], f_hi[d], f_pos[d], f_tied[d], f_has[d] = lo, top, lo, tied, False


@jit(nrt=False)
def _arrival_prio(base, w_fs, fsj):
    """A job's priority on arrival: age 0, the current fair-share factor."""
    return np.int64(base + 0.0 + w_fs * fsj)



@jit
def _calc_tick(t, pq, st, tier_j, prio, elig, base, rjob, assoc, w_age, max_age, w_fs, calc_period, decay, fair_tree,
               parent, shares, is_user, ch_off, ch_list, usage, acc, rcpu, tot, lf, snorm, srt, prev, stk, fs, tmp):
    """A calc tick: decay, accrue, recompute the factors, re-prioritise and re-sort the pending records."""
    for a in range(usage.shape[0]):
        if is_user[a]:
            if decay >= 0.0:
                usage[a] *= decay
            usage[a] += np.float64(acc[a] + rcpu[a] * calc_period)
        acc[a] = 0
    st[PCALC] = t
    _fair_share(parent, shares, is_user, usage, ch_off, ch_list, fair_tree, tot, lf, snorm, srt, prev, stk, fs)
    n = st[NPEND]
    for i in range(n):
        r = pq[i]
        j = rjob[r]
        age = min((t - elig[j]) / max_age, 1.0)
        prio[r] = np.int64(base[r] + w_age * age + w_fs * fs[assoc[j]])
    _queue_sort(pq, n, tier_j, prio, tmp)


# --------------------------------------------------------------------------- starting and ending jobs

@jit(nrt=False)
def _use(j, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus):
    """(units, MB, GPUs) that job j holds on node k."""
    if excl[j]:
        return node_units[k], node_mem[k], node_gpus[k]
    return _need_units(cpn[j], node_tpu[k]), mem[j], gpn[j]


@jit(nrt=False)
def _slot(k, j, roff, rl_job):
    """Where job j sits in node k's running list."""
    p = roff[k]
    while rl_job[p] != j:
        p += 1
    return p


@jit(nrt=False)
def _copy_slot(d, s, rl_job, rl_end, rl_u, rl_m, rl_g):
    """Running-list slot s copied to slot d."""
    rl_job[d] = rl_job[s]
    rl_end[d] = rl_end[s]
    rl_u[d] = rl_u[s]
    rl_m[d] = rl_m[s]
    rl_g[d] = rl_g[s]


@jit(nrt=False)
def _start_job(j, r, t, sel, nsel, backfill, st, start, backfilled, prio, prio_out, alloc, off, run, limit, excl, cpn,
               mem, gpn, assoc, node_units, node_tpu, node_mem, node_gpus, fu, fm, fg, roff, rcnt, rl_job, rl_end,
               rl_u, rl_m, rl_g, jcpu, rcpu, acc, hk, hj, ix, ok, oj):
    """Start job j (through its queue record r) at t on nodes sel[:nsel]: take the resources, enter the nodes'
    running lists and the end heap."""
    pend = t + limit[j]
    cpus = np.int64(0)
    for i in range(nsel):
        k = sel[i]
        u, m, g = _use(j, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus)
        fu[k] -= u
        fm[k] -= m
        fg[k] -= g
        cpus += u * node_tpu[k]
        alloc[off[j] + i] = k
        lo = roff[k]
        p = lo + rcnt[k]  # insert by profile end (sorted ascending)
        while p > lo and rl_end[p - 1] > pend:
            _copy_slot(p, p - 1, rl_job, rl_end, rl_u, rl_m, rl_g)
            p -= 1
        rl_job[p] = j
        rl_end[p] = pend
        rl_u[p] = u
        rl_m[p] = m
        rl_g[p] = g
        rcnt[k] += 1
        _index_node(k, ix, node_tpu, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g)
    start[j] = t
    backfilled[j] = backfill
    prio_out[j] = prio[r]
    jcpu[j] = cpus
    a = assoc[j]
    rcpu[a] += cpus
    acc[a] -= cpus * (t - st[PCALC])
    _heap_push(hk, hj, st, t + run[j], j)
    if run[j] > limit[j]:  # it will still run when its limit passes: _overdue moves its profile end then
        st[OSIZE] = _mh_push(ok, oj, st[OSIZE], pend, j)
    if run[j] == 0:
        st[ZERO] = 1


@jit(nrt=False)
def _end_job(j, t, st, alloc, off, nn, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu, acc,
             assoc, node_tpu, ix):
    """End job j at t: free its resources, leave the nodes' running lists, keep its usage for the next calc tick."""
    for i in range(nn[j]):
        k = alloc[off[j] + i]
        p = _slot(k, j, roff, rl_job)
        fu[k] += rl_u[p]
        fm[k] += rl_m[p]
        fg[k] += rl_g[p]
        for q in range(p, roff[k] + rcnt[k] - 1):
            _copy_slot(q, q + 1, rl_job, rl_end, rl_u, rl_m, rl_g)
        rcnt[k] -= 1
        _index_node(k, ix, node_tpu, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g)
    a = assoc[j]
    rcpu[a] -= jcpu[j]
    acc[a] += jcpu[j] * (t - st[PCALC])


@jit(nrt=False)
def _overdue(t, kill_wait, st, ok, oj, start, run, limit, cut, alloc, off, nn, roff, rcnt, rl_job, rl_end, rl_u, rl_m,
             rl_g, fu, fm, fg, node_tpu, ix):
    """Before a backfill pass at t: every running job whose limit has passed (start + limit <= t; only jobs with
    run > limit are on the heap ok/oj) gets start + limit + KillWait as its kept profile end, moved to its place
    in its nodes' sorted lists. A job that ended meanwhile is dropped from the heap."""
    while st[OSIZE] > 0 and ok[0] <= t:
        e = ok[0]
        j = oj[0]
        st[OSIZE] = _mh_pop(ok, oj, st[OSIZE])
        if start[j] < 0 or start[j] + limit[j] != e or start[j] + run[j] <= t or cut[j] >= 0:
            continue  # ended already, or an earlier run of a job preemption requeued
        ne = e + kill_wait
        for i in range(nn[j]):
            k = alloc[off[j] + i]
            top = roff[k] + rcnt[k]
            p = _slot(k, j, roff, rl_job)
            u = rl_u[p]
            m = rl_m[p]
            g = rl_g[p]
            while p + 1 < top and rl_end[p + 1] <= ne:  # move later ends down, keeping the list sorted
                _copy_slot(p, p + 1, rl_job, rl_end, rl_u, rl_m, rl_g)
                p += 1
            rl_job[p] = j
            rl_end[p] = ne
            rl_u[p] = u
            rl_m[p] = m
            rl_g[p] = g
            _index_node(k, ix, node_tpu, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g)


# --------------------------------------------------------------------------- the node index (pruning only)
# ix.tau[:, c] for each column c is a min segment tree over nodes (leaf P + k): for a threshold column, the first
# profile end at which node k has at least ix.thr[c] of the column's resource free counting running jobs only (0:
# now; BIG: never); the last column (ix.klo[3]) the instant the node goes idle (0: idle now). Columns
# ix.klo[r]..ix.klo[r + 1] - 1 hold resource r's thresholds ascending from 0 (0: CPUs, 1: MB, 2: GPUs). Running
# jobs only end, so a node's free CPUs, memory and GPUs only rise; reservations only delay a node. So for a job
# of at least c CPUs, m MB and g GPUs per node, the largest of the three subtree minima at the columns of the
# largest thresholds at or below c, m and g (ix.jcol[j]: every column the idle one for an exclusive job) is a lower
# bound of every node's earliest instant under that subtree. The thresholds are the workload's own sizes
# (_thresholds), so the bound is most often the job's own. pm_or/pm_and [Wd, 2P] are the OR/AND of the nodes'
# partition bits under each tree node. Every answer is checked exactly on the nodes themselves; the trees only
# skip nodes that cannot be the answer.

THRESHOLDS = (32, 32, 8)  # most index columns per resource (CPUs, MB, GPUs): each costs a row of min updates
Index = namedtuple("Index", "tau thr klo jcol")
# A job's shapes (docs/slurm-replay.md "A node range"): job j may run in shapes lo[j]..lo[j + 1] - 1 of the table
# (nn, cpn, mem, gpn per node; col its index columns), tried in that order; the first is its own. A job's current
# shape is copied into the per-job arrays (nn, cpn, mem, gpn, ix.jcol) that every helper reads: a pending job's
# searches set it shape by shape (_set_shape), a running job keeps the one it started in (cur[j]).
Shapes = namedtuple("Shapes", "lo nn cpn mem gpn col cur")


@jit(nrt=False)
def _set_shape(j, s, sh, nn, cpn, mem, gpn, jcol):
    """Make shape s job j's current shape."""
    nn[j] = sh.nn[s]
    cpn[j] = sh.cpn[s]
    mem[j] = sh.mem[s]
    gpn[j] = sh.gpn[s]
    jcol[j, 0] = sh.col[s, 0]
    jcol[j, 1] = sh.col[s, 1]
    jcol[j, 2] = sh.col[s, 2]
    sh.cur[j] = s


@jit(nrt=False)
def _resource(r, p, tp, rl_u, rl_m, rl_g):
    """What running-list slot p holds of resource r (0: CPUs, 1: MB, 2: GPUs)."""
    if r == 0:
        return rl_u[p] * tp
    if r == 1:
        return rl_m[p]
    return rl_g[p]


@jit(nrt=False)
def _index_node(k, ix, node_tpu, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g):
    """Refresh node k's leaves in the index trees and their ancestors."""
    tau = ix.tau
    thr = ix.thr
    klo = ix.klo
    P = tau.shape[0] >> 1
    tp = node_tpu[k]
    lo = roff[k]
    top = lo + rcnt[k]
    leaf = P + k
    for r in range(3):
        free = fu[k] * tp if r == 0 else (fm[k] if r == 1 else fg[k])
        p = lo
        val = np.int64(0)
        for b in range(klo[r], klo[r + 1]):
            c = thr[b]
            while free < c and p < top:
                e = rl_end[p]
                while p < top and rl_end[p] == e:
                    free += _resource(r, p, tp, rl_u, rl_m, rl_g)
                    p += 1
                val = e
            tau[leaf, b] = val if free >= c else BIG
    tau[leaf, klo[3]] = rl_end[top - 1] if top > lo else np.int64(0)
    _index_up(leaf, tau)


@jit(nrt=False)
def _index_up(leaf, tau):
    """Refresh the ancestors of a leaf of the index trees."""
    C = tau.shape[1]
    i = leaf >> 1
    while i >= 1:
        same = True
        for b in range(C):
            x = tau[2 * i, b]
            y = tau[2 * i + 1, b]
            z = x if x < y else y
            if tau[i, b] != z:
                tau[i, b] = z
                same = False
        if same:  # its ancestors are minima of what did not change
            break
        i >>= 1


@jit(nrt=False)
def _index_node_res(k, t, ix, node_tpu, node_units, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead,
                    res_s, res_e, res_u, res_m, res_g, res_next, seg):
    """Node k's leaves during a backfill pass, counting this pass's reservations on it too: the first segment
    start of its step function (_node_profile) with at least each threshold of each resource free (0: t), and the
    first with every unit free. A job that fits on k over [T, T + L) has that much free at T, so T is at or after
    this instant: still a lower bound of k's earliest instant, and a far tighter one than the running jobs' alone
    on a node reserved at the instant it frees. The pass re-indexes its nodes from the running jobs alone when it
    ends."""
    tau = ix.tau
    thr = ix.thr
    klo = ix.klo
    P = tau.shape[0] >> 1
    ns = _node_profile(k, t, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m,
                       res_g, res_next, seg)
    tp = node_tpu[k]
    leaf = P + k
    for r in range(3):
        i = 0
        for b in range(klo[r], klo[r + 1]):  # the first segment with more free is not before the first with less
            c = thr[b]
            while i < ns and (seg[1, i] * tp if r == 0 else seg[1 + r, i]) < c:
                i += 1
            tau[leaf, b] = BIG if i == ns else (np.int64(0) if i == 0 else seg[0, i])
    i = 0
    while i < ns and seg[1, i] < node_units[k]:
        i += 1
    tau[leaf, klo[3]] = BIG if i == ns else (np.int64(0) if i == 0 else seg[0, i])
    _index_up(leaf, tau)


@jit(nrt=False)
def _bound(tau, i, jc):
    """The index's lower bound, for a job whose columns are jc, of the earliest instant of every node under
    tree node i."""
    x = tau[i, jc[0]]
    y = tau[i, jc[1]]
    z = tau[i, jc[2]]
    if y > x:
        x = y
    return z if z > x else x


@jit
def _thresholds(need, excl, cap, most):
    """One resource's index thresholds, ascending from 0: the distinct needs per node of the non-exclusive jobs
    (up to cap) when there are at most ``most`` of them, else, for ``most`` points spaced evenly in log between
    the smallest and the largest, the largest need at or below each. Any ascending set from 0 gives exact answers
    (the trees only prune); sizes the jobs have give tight bounds."""
    n = need.shape[0]
    v = np.empty(n + 1, np.int64)
    v[0] = 0
    w = 1
    for j in range(n):
        if not excl[j] and need[j] > 0:
            v[w] = min(need[j], cap)
            w += 1
    u = np.unique(v[:w])
    if u.shape[0] <= most + 1:
        return u
    out = np.empty(most + 1, np.int64)
    out[0] = 0
    c = 1
    i = 1
    lo = np.log(u[1])
    span = np.log(u[u.shape[0] - 1]) - lo
    for x in range(most):
        g = np.exp(lo + span * x / (most - 1))
        while i + 1 < u.shape[0] and u[i + 1] <= g * (1 + 1e-9):
            i += 1
        if out[c - 1] < u[i]:
            out[c] = u[i]
            c += 1
    return out[:c].copy()


@jit
def _index(K, node_units, node_tpu, node_mem, node_gpus, cpn, mem, gpn, excl):
    """The index (see its comment) for K nodes, every leaf BIG until indexed, and each shape's columns (the
    rows of cpn, mem, gpn, excl: the shape table, see :func:`slurm_replay`)."""
    P = 1
    while P < K:
        P *= 2
    maxcpu = np.int64(1)
    for k in range(K):
        maxcpu = max(maxcpu, node_units[k] * node_tpu[k])
    parts = (_thresholds(cpn, excl, maxcpu, THRESHOLDS[0]),
             _thresholds(mem, excl, max(node_mem.max(), 1), THRESHOLDS[1]),
             _thresholds(gpn, excl, max(node_gpus.max(), 1), THRESHOLDS[2]))
    klo = np.zeros(4, np.int64)
    klo[1] = parts[0].shape[0]
    klo[2] = klo[1] + parts[1].shape[0]
    klo[3] = klo[2] + parts[2].shape[0]
    thr = np.empty(klo[3], np.int64)
    thr[:klo[1]] = parts[0]
    thr[klo[1]:klo[2]] = parts[1]
    thr[klo[2]:klo[3]] = parts[2]
    n = cpn.shape[0]
    jcol = np.empty((n, 3), np.int64)
    for j in range(n):
        if excl[j]:
            jcol[j, :] = klo[3]
            continue
        for r in range(3):
            x = cpn[j] if r == 0 else (mem[j] if r == 1 else gpn[j])
            b = klo[r]  # thr[klo[r]] == 0 <= x
            while b + 1 < klo[r + 1] and thr[b + 1] <= x:
                b += 1
            jcol[j, r] = b
    return Index(np.full((2 * P, klo[3] + 1), BIG, np.int64), thr, klo, jcol)


@jit(nrt=False)
def _in_part(pm, q, i):
    """Whether tree node i has a node of partition q under it (pm: pm_or) or only such nodes (pm: pm_and)."""
    return (pm[q >> 6, i] >> np.uint64(q & 63)) & np.uint64(1)


@jit(nrt=False)
def _all_blocked(pm_and, blocked, i):
    """Whether every node under tree node i is in a blocked partition (one they all share)."""
    for w in range(blocked.shape[0]):
        if pm_and[w, i] & blocked[w]:
            return True
    return False


@jit(nrt=False)
def _mh_push(hk, hv, n, key, val):
    """Push (key, val) on a min-heap of n entries; returns n + 1."""
    i = n
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] < key or (hk[p] == key and hv[p] < val):
            break
        hk[i] = hk[p]
        hv[i] = hv[p]
        i = p
    hk[i] = key
    hv[i] = val
    return n + 1


@jit(nrt=False)
def _mh_pop(hk, hv, n):
    """Remove the top of a min-heap of n entries; returns n - 1."""
    n -= 1
    key = hk[n]
    val = hv[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and (hk[c + 1] < hk[c] or (hk[c + 1] == hk[c] and hv[c + 1] < hv[c])):
            c += 1
        if key < hk[c] or (key == hk[c] and val < hv[c]):
            break
        hk[i] = hk[c]
        hv[i] = hv[c]
        i = c
    if n > 0:
        hk[i] = key
        hv[i] = val
    return n


@jit(nrt=False)
def _walk_push(hk, hv, n, key, lf, d):
    """Push a tree node on a best-first walk's heap: the one at depth d whose first leaf is node lf, keyed by its
    bound, then by (first leaf, deeper first), so ties are opened in depth-first order (down to a leaf, left to
    right) rather than level by level. The value packs lf and d (lf * 64 + 63 - d); returns n + 1."""
    return _mh_push(hk, hv, n, key, lf * 64 + 63 - d)


# --------------------------------------------------------------------------- the main pass

@jit(nrt=False)
def _fits_now(k, ex, c, m, g, node_units, node_tpu, node_mem, node_gpus, fu, fm, fg, nodemask, blocked):
    """Node k holds a job of c CPUs, m MB and g GPUs (ex: the whole node) now, and no blocked partition has it."""
    if ex:
        if fu[k] != node_units[k] or fm[k] != node_mem[k] or fg[k] != node_gpus[k]:
            return False
    elif fm[k] < m or fg[k] < g or fu[k] * node_tpu[k] < c:  # free units >= ceil(c / tpu)
        return False
    for w in range(blocked.shape[0]):
        if nodemask[k, w] & blocked[w]:
            return False
    return True


@jit(nrt=False)
def _fit_now(j, q, blocked, nodemask, p_off, p_list, excl, cpn, mem, gpn, node_units, node_tpu, node_mem,
             node_gpus, fu, fm, fg, nn, sel):
    """First fit now: the first nn[j] available nodes of partition q (ascending) that hold job j; count found."""
    need = nn[j]
    c = cpn[j]
    m = mem[j]
    g = gpn[j]
    ex = excl[j]
    got = 0
    for i in range(p_off[q], p_off[q + 1]):
        k = p_list[i]
        if not _fits_now(k, ex, c, m, g, node_units, node_tpu, node_mem, node_gpus, fu, fm, fg, nodemask, blocked):
            continue
        sel[got] = k
        got += 1
        if got == need:
            break
    return got


@jit(nrt=False)
def _fit_now_ix(j, q, blocked, ix, pm_or, pm_and, stack, excl, cpn, mem, gpn, node_units, node_tpu, node_mem,
                node_gpus, fu, fm, fg, nodemask, nn, sel):
    """_fit_now through the index: the same nodes, visiting only subtrees with a node that may fit now."""
    tau = ix.tau
    jc = ix.jcol[j]
    P = tau.shape[0] >> 1
    need = nn[j]
    c = cpn[j]
    m = mem[j]
    g = gpn[j]
    ex = excl[j]
    got = 0
    sp = 1
    stack[0] = 1
    while sp > 0:
        sp -= 1
        i = stack[sp]
        if _bound(tau, i, jc) > 0 or not _in_part(pm_or, q, i) or _all_blocked(pm_and, blocked, i):
            continue
        if i < P:
            stack[sp] = 2 * i + 1
            stack[sp + 1] = 2 * i
            sp += 2
            continue
        k = i - P
        if not _fits_now(k, ex, c, m, g, node_units, node_tpu, node_mem, node_gpus, fu, fm, fg, nodemask, blocked):
            continue
        sel[got] = k
        got += 1
        if got == need:
            break
    return got


@jit(nrt=False)
def _main_pass(t, depth, st, pq, blocked, sel, pm_or, pm_and, stack, part, rjob, tier_j, nodemask, p_off, p_list, start, backfilled, prio,
               prio_out, alloc, off, run, limit, nn, excl, cpn, mem, gpn, assoc, node_units, node_tpu, node_mem,
               node_gpus, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu, acc, hk, hj, ix, ok, oj,
               jq, q_can, q_pre, q_mode, q_rank, killing, cand, incand, sfu, sfm, sfg, jrank, sh):
    """The main pass over the first ``depth`` pending records (all when depth < 0), blocking partitions that
    fail; a record whose job started earlier in the pass (through another partition) is passed over. A job with
    several shapes tries them in order and blocks its partition only when none fits. A record that fails and
    whose QOS preempts others may have jobs killed for it (:func:`_preempt`); it starts at a later pass, when
    they are gone."""
    n = st[NPEND]
    if depth >= 0 and depth < n:
        n = depth
    blocked[:] = 0
    started = False
    for i in range(n):
        r = pq[i]
        j = rjob[r]
        q = part[r]
        if start[j] >= 0 or blocked[q >> 6] & (np.uint64(1) << np.uint64(q & 63)):
            continue
        s_hi = sh.lo[j + 1]
        multi = s_hi - sh.lo[j] > 1
        for s in range(sh.lo[j], s_hi):
            if multi:
                _set_shape(j, s, sh, nn, cpn, mem, gpn, ix.jcol)
            got = _fit_now_ix(j, q, blocked, ix, pm_or, pm_and, stack, excl, cpn, mem, gpn, node_units, node_tpu,
                              node_mem, node_gpus, fu, fm, fg, nodemask, nn, sel)
            if got == nn[j]:
                break
        if got == nn[j]:
            _start_job(j, r, t, sel, got, False, st, start, backfilled, prio, prio_out, alloc, off, run, limit, excl,
                       cpn, mem, gpn, assoc, node_units, node_tpu, node_mem, node_gpus, fu, fm, fg, roff, rcnt,
                       rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu, acc, hk, hj, ix, ok, oj)
            started = True
        else:
            if q_can[jq[j]] and _preempt(j, q, t, st, blocked, sel, nodemask, p_off, p_list, alloc, off, nn, excl, cpn,
                                         mem, gpn, node_units, node_tpu, node_mem, node_gpus, fu, fm, fg, roff,
                                         rcnt, rl_job, jq, q_pre, q_mode, q_rank, killing, cand, incand, sfu, sfm,
                                         sfg, hk, hj, jrank, sh, ix.jcol):
                st[ZERO] = 1  # its victims end at this t: the loop comes back for the event-triggered pass
            blocked[q >> 6] |= np.uint64(1) << np.uint64(q & 63)
    if started:
        _queue_compact(pq, st, start, rjob)


@jit(nrt=False)
def _cand_before(a, b, jq, q_rank, nn, jrank):
    """Preemption order of candidates (preempt.c's _sort_by_prio): QOS priority, then nodes, ascending, then
    submission order (Slurm's job list is in job id order; ``jrank``: by first eligible instant, then index)."""
    if q_rank[jq[a]] != q_rank[jq[b]]:
        return q_rank[jq[a]] < q_rank[jq[b]]
    if nn[a] != nn[b]:
        return nn[a] < nn[b]
    return jrank[a] < jrank[b]


@jit(nrt=False)
def _preempt(j, q, t, st, blocked, sel, nodemask, p_off, p_list, alloc, off, nn, excl, cpn, mem, gpn, node_units,
             node_tpu, node_mem, node_gpus, fu, fm, fg, roff, rcnt, rl_job, jq, q_pre, q_mode, q_rank, killing, cand,
             incand, sfu, sfm, sfg, hk, hj, jrank, sh, jcol):
    """Record j could not start in partition q at t: the running jobs on q's nodes that its QOS preempts (not
    already being killed), in preemption order, are taken away one by one from a copy of the nodes until j fits
    first fit on the available nodes (in one of its shapes, in order); those of them on the nodes it would take
    are killed at t (an end entry at t, marked in ``killing``). Whether any was."""
    nc = 0
    for i in range(p_off[q], p_off[q + 1]):
        k = p_list[i]
        for s in range(roff[k], roff[k] + rcnt[k]):
            c = rl_job[s]
            if killing[c] or not q_pre[jq[j], jq[c]] or q_mode[jq[c]] == 0:
                continue
            if incand[c]:  # (a job on several of q's nodes)
                continue
            incand[c] = True
            x = nc  # insertion in preemption order
            while x > 0 and _cand_before(c, cand[x - 1], jq, q_rank, nn, jrank):
                cand[x] = cand[x - 1]
                x -= 1
            cand[x] = c
            nc += 1
    for x in range(nc):
        incand[cand[x]] = False
    if nc == 0:
        return False
    for k in range(fu.shape[0]):  # (element by element: a slice copy would need Numba's runtime)
        sfu[k] = fu[k]
        sfm[k] = fm[k]
        sfg[k] = fg[k]
    for x in range(nc):
        c = cand[x]
        for i in range(nn[c]):
            k = alloc[off[c] + i]
            u, m, g = _use(c, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus)
            sfu[k] += u
            sfm[k] += m
            sfg[k] += g
        s_hi = sh.lo[j + 1]
        for s in range(sh.lo[j], s_hi):
            if s_hi - sh.lo[j] > 1:
                _set_shape(j, s, sh, nn, cpn, mem, gpn, jcol)
            got = _fit_now(j, q, blocked, nodemask, p_off, p_list, excl, cpn, mem, gpn, node_units, node_tpu,
                           node_mem, node_gpus, sfu, sfm, sfg, nn, sel)
            if got == nn[j]:
                break
        if got < nn[j]:
            continue
        for y in range(x + 1):
            c = cand[y]
            hit = False
            for i in range(nn[c]):
                k = alloc[off[c] + i]
                for z in range(got):
                    if sel[z] == k:
                        hit = True
            if hit:
                killing[c] = True
                _heap_push(hk, hj, st, t, c)
        return True
    return False


@jit(nrt=False)
def _ends(t, st, hk, hj, start, run, killing, cut, npre, jq, q_mode, rqk, rqj, requeue_delay, alloc, off, nn, fu,
          fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu, acc, assoc, node_tpu, ix):
    """Every running job whose end is due at t ends, and every job being killed (preempted) at t: a CANCEL one is
    over (``cut`` its end), a REQUEUE one becomes eligible again ``requeue_delay`` later. Stale heap entries (a
    preempted job's own end) are dropped. Returns (jobs that left their nodes, jobs over)."""
    ended = 0
    over = 0
    while st[HSIZE] > 0 and hk[0] <= t:
        key = hk[0]
        j = hj[0]
        _heap_pop(hk, hj, st)
        if not killing[j] and (start[j] < 0 or cut[j] >= 0 or key != start[j] + run[j]):
            continue  # the end of a run a preemption cut short
        _end_job(j, t, st, alloc, off, nn, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu,
                 acc, assoc, node_tpu, ix)
        ended += 1
        if killing[j]:
            killing[j] = False
            npre[j] += 1
            if q_mode[jq[j]] == 2:
                start[j] = -1
                st[RQSIZE] = _mh_push(rqk, rqj, st[RQSIZE], t + requeue_delay, j)
                continue
            cut[j] = t
        over += 1
    return ended, over


# --------------------------------------------------------------------------- the backfill profile

@jit(nrt=False)
def _node_profile(k, t, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m, res_g,
                  res_next, seg):
    """Node k's free (units, MB, GPUs) in the profile as a step function from t: segment i starts at seg[0, i]
    (seg[0, 0] = t, then every distinct instant at which a running job's profile end, a reservation's start or
    its end changes it, ascending) and holds seg[1:4, i] until the next one; the count. Scratch: seg[4] / seg[5]
    the node's reservations sorted by start / by end.

    Every running job started at or before t, its end is after t (_eff) and every reservation starts at or after
    t, so the first segment's free is the node's free now (fu, fm, fg); then ends add their use back and
    reservation starts take theirs (a reservation holds its node whole: free can fall below zero)."""
    nr = 0
    r = rhead[k]
    while r >= 0:  # insertion sorts (a node holds few reservations)
        x = res_s[r]
        p = nr
        while p > 0 and res_s[seg[4, p - 1]] > x:
            seg[4, p] = seg[4, p - 1]
            p -= 1
        seg[4, p] = r
        x = res_e[r]
        p = nr
        while p > 0 and res_e[seg[5, p - 1]] > x:
            seg[5, p] = seg[5, p - 1]
            p -= 1
        seg[5, p] = r
        nr += 1
        r = res_next[r]
    p = roff[k]
    top = p + rcnt[k]
    a = 0
    b = 0
    cu = fu[k]
    cm = fm[k]
    cg = fg[k]
    seg[0, 0] = t
    seg[1, 0] = cu
    seg[2, 0] = cm
    seg[3, 0] = cg
    ns = 1
    while True:
        x = BIG
        if p < top:
            x = _eff(rl_end[p], t)
        if a < nr and res_s[seg[4, a]] < x:
            x = res_s[seg[4, a]]
        if b < nr and res_e[seg[5, b]] < x:
            x = res_e[seg[5, b]]
        if x == BIG:
            break
        while p < top and _eff(rl_end[p], t) == x:
            cu += rl_u[p]
            cm += rl_m[p]
            cg += rl_g[p]
            p += 1
        while a < nr and res_s[seg[4, a]] == x:
            r = seg[4, a]
            cu -= res_u[r]
            cm -= res_m[r]
            cg -= res_g[r]
            a += 1
        while b < nr and res_e[seg[5, b]] == x:
            r = seg[5, b]
            cu += res_u[r]
            cm += res_m[r]
            cg += res_g[r]
            b += 1
        seg[0, ns] = x
        seg[1, ns] = cu
        seg[2, ns] = cm
        seg[3, ns] = cg
        ns += 1
    return ns


@jit(nrt=False)
def _window_ok(k, t, T, L, u, m, g, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u,
               res_m, res_g, res_next, seg):
    """Whether node k holds (u, m, g) at every instant of [T, T + L) (T >= t): the page checks T and each profile
    start in (T, T + L); the step function's segments meeting [T, T + L) are those instants plus ends, at which
    free only rises, so checking the segments is the same test."""
    if rhead[k] < 0:  # running jobs only: free at T is the lowest over [T, T + L)
        a = fu[k]
        b = fm[k]
        d = fg[k]
        for p in range(roff[k], roff[k] + rcnt[k]):
            if _eff(rl_end[p], t) > T:
                break
            a += rl_u[p]
            b += rl_m[p]
            d += rl_g[p]
        return a >= u and b >= m and d >= g
    ns = _node_profile(k, t, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m,
                       res_g, res_next, seg)
    i = 0
    while i + 1 < ns and seg[0, i + 1] <= T:
        i += 1
    end = T + L
    while i < ns and seg[0, i] < end:  # L >= 1: the segment holding T is one
        if seg[1, i] < u or seg[2, i] < m or seg[3, i] < g:
            return False
        i += 1
    return True


@jit(nrt=False)
def _node_earliest(k, t, hi, L, u, m, g, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e,
                   res_u, res_m, res_g, res_next, seg):
    """Earliest T in [t, hi) among t and node k's profile ends at which node k holds (u, m, g) over
    [T, T + L); -1 if none.

    With reservations, one sweep over the node's step function (_node_profile): the earliest segment start whose
    segments over [T, T + L) all hold the job. A segment that fails rules out every start from the first
    candidate up to it (their windows all reach it), so the sweep resumes after it. The earliest segment start
    that fits is t or a profile end: a segment starting at a reservation start alone holds no more than the one
    before it, whose window is a subset of its window plus itself, so that one would fit first. Hence it is the
    page's earliest candidate."""
    lo = roff[k]
    top = lo + rcnt[k]
    if rhead[k] < 0:  # running jobs only: free never falls after t, the first instant that fits is the answer
        a = fu[k]
        b = fm[k]
        d = fg[k]
        if a >= u and b >= m and d >= g:
            return t
        for p in range(lo, top):
            e = _eff(rl_end[p], t)
            if e >= hi:
                return -1
            a += rl_u[p]
            b += rl_m[p]
            d += rl_g[p]
            if p + 1 < top and _eff(rl_end[p + 1], t) == e:
                continue
            if a >= u and b >= m and d >= g:
                return e
        return -1
    ns = _node_profile(k, t, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m,
                       res_g, res_next, seg)
    i = 0
    while i < ns:
        T = seg[0, i]
        if T >= hi:
            return -1
        if seg[1, i] < u or seg[2, i] < m or seg[3, i] < g:
            i += 1
            continue
        end = T + L
        j = i + 1
        while j < ns and seg[0, j] < end:
            if seg[1, j] < u or seg[2, j] < m or seg[3, j] < g:
                break
            j += 1
        if j == ns or seg[0, j] >= end:
            return T
        i = j + 1
    return -1


# --------------------------------------------------------------------------- the backfill pass

@jit(nrt=False)
def _bf_find_scan(j, q, t, W, p_off, p_list, limit, nn, excl, cpn, mem, gpn, node_units, node_tpu, node_mem,
             node_gpus, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m, res_g,
             res_next, sel, fk, cbuf, fbuf, seg):
    """The first candidate instant at which nn[j] nodes of j's partition (first fit) hold j over its limit;
    the nodes in sel. -1 when no candidate in [t, t + W] fits.

    A node's earliest instant f_k (node_earliest) is t or one of its own ends; a node without reservations holds
    the job at every instant after f_k; a node with reservations can only start to hold it at one of its own
    ends. So the first instant at which nn nodes hold the job is one of the f_k or an end after f_k on a node
    with reservations, and trying those ascending gives the page's instant and first-fit nodes."""
    L = limit[j]
    hi0 = t + W + 1
    need = nn[j]
    if need == 1:
        best = hi0
        bk = np.int64(-1)
        for i in range(p_off[q], p_off[q + 1]):
            k = p_list[i]
            u, m, g = _use(j, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus)
            T = _node_earliest(k, t, best, L, u, m, g, fu, fm, fg, roff, rcnt,
                               rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m, res_g, res_next, seg)
            if T >= 0:
                best = T
                bk = k
                if T == t:
                    break
        if bk < 0:
            return np.int64(-1)
        sel[0] = bk
        return best
    nc = 0
    nf = 0
    for i in range(p_off[q], p_off[q + 1]):
        k = p_list[i]
        u, m, g = _use(j, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus)
        f = _node_earliest(k, t, hi0, L, u, m, g, fu, fm, fg, roff, rcnt, rl_end,
                           rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m, res_g, res_next, seg)
        fk[k] = f
        if f < 0:
            continue
        fbuf[nf] = f
        nf += 1
        cbuf[nc] = f
        nc += 1
        if rhead[k] >= 0:
            for p in range(roff[k], roff[k] + rcnt[k]):
                e = _eff(rl_end[p], t)
                if e > f and e < hi0:
                    cbuf[nc] = e
                    nc += 1
            r = rhead[k]
            while r >= 0:
                if res_e[r] > f and res_e[r] < hi0:
                    cbuf[nc] = res_e[r]
                    nc += 1
                r = res_next[r]
    if nf < need:
        return np.int64(-1)
    fbuf[:nf].sort()
    low = fbuf[need - 1]  # fewer than nn nodes hold the job before this instant
    cbuf[:nc].sort()
    last = np.int64(-1)
    for ci in range(nc):
        c = cbuf[ci]
        if c < low or c == last:
            continue
        last = c
        got = 0
        for i in range(p_off[q], p_off[q + 1]):
            k = p_list[i]
            f = fk[k]
            if f < 0 or f > c:
                continue
            if rhead[k] >= 0:
                u, m, g = _use(j, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus)
                if not _window_ok(k, t, c, L, u, m, g, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g,
                                  rhead, res_s, res_e, res_u, res_m, res_g, res_next, seg):
                    continue
            sel[got] = k
            got += 1
            if got == need:
                return c
    return np.int64(-1)


@jit(nrt=False)
def _bf_find(j, q, t, W, p_off, p_list, limit, nn, excl, cpn, mem, gpn, node_units, node_tpu, node_mem,
             node_gpus, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m, res_g,
             res_next, sel, fk, cbuf, fbuf, seg, ix, pm_or, stack, bh_k, bh_v, skip_a):
    """_bf_find_scan's answer through the index (skip_a: the caller knows (A) finds fewer than nn nodes). One node: the first-fit minimum of the nodes' earliest instants,
    visiting only subtrees whose bound is below the best so far. Several: (A) first fit at t; (B) nodes in order
    of their bound until the nn-th smallest earliest instant T0 is settled (no node can start to hold the job
    before its bound, so fewer than nn hold it before T0); (C) first fit at T0. When reservations leave fewer
    than nn nodes holding it at T0, the scan decides."""
    L = limit[j]
    hi0 = t + W + 1
    need = nn[j]
    tau = ix.tau
    jc = ix.jcol[j]
    P = tau.shape[0] >> 1
    h = 0  # the leaves' depth
    while (np.int64(1) << np.int64(h)) < P:
        h += 1
    if need == 1:  # depth first, first fit: subtrees whose bound is below the best so far
        best = hi0
        bk = np.int64(-1)
        sp = 1
        stack[0] = 1
        while sp > 0:
            sp -= 1
            i = stack[sp]
            if max(t, _bound(tau, i, jc)) >= best or not _in_part(pm_or, q, i):
                continue
            if i < P:
                stack[sp] = 2 * i + 1
                stack[sp + 1] = 2 * i
                sp += 2
                continue
            k = i - P
            u, m, g = _use(j, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus)
            T = _node_earliest(k, t, best, L, u, m, g, fu, fm, fg, roff, rcnt,
                               rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m, res_g, res_next, seg)
            if T >= 0:
                best = T
                bk = k
                if T == t:
                    break
        if bk < 0:
            return np.int64(-1)
        sel[0] = bk
        return best
    T0 = t
    for phase in range(2):  # (A) at t, then (C) at T0 once (B) settled it
        got = 0
        sp = 0 if (phase == 0 and skip_a) else 1
        stack[0] = 1
        while sp > 0:
            sp -= 1
            i = stack[sp]
            if max(t, _bound(tau, i, jc)) > T0 or not _in_part(pm_or, q, i):
                continue
            if i < P:
                stack[sp] = 2 * i + 1
                stack[sp + 1] = 2 * i
                sp += 2
                continue
            k = i - P
            u, m, g = _use(j, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus)
            if _window_ok(k, t, T0, L, u, m, g, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead,
                          res_s, res_e, res_u, res_m, res_g, res_next, seg):
                sel[got] = k
                got += 1
                if got == need:
                    return T0
        if phase == 1:
            break
        # (B): the nn smallest earliest instants, in a max-heap (negated keys in fbuf/fk)
        nh = _walk_push(bh_k, bh_v, 0, max(t, _bound(tau, 1, jc)), np.int64(0), np.int64(0))
        nf = 0
        while nh > 0:
            key = bh_k[0]
            v = bh_v[0]
            nh = _mh_pop(bh_k, bh_v, nh)
            if key >= hi0 or (nf == need and key >= -fbuf[0]):
                break
            lf = v >> 6
            d = 63 - (v & 63)
            i = (P + lf) >> (h - d)
            if not _in_part(pm_or, q, i):
                continue
            if d < h:
                nh = _walk_push(bh_k, bh_v, nh, max(t, _bound(tau, 2 * i, jc)), lf, d + 1)
                nh = _walk_push(bh_k, bh_v, nh, max(t, _bound(tau, 2 * i + 1, jc)),
                                lf + (np.int64(1) << np.int64(h - d - 1)), d + 1)
                continue
            k = lf
            u, m, g = _use(j, k, excl, cpn, mem, gpn, node_units, node_tpu, node_mem, node_gpus)
            f = _node_earliest(k, t, hi0, L, u, m, g, fu, fm, fg, roff, rcnt,
                               rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e, res_u, res_m, res_g, res_next, seg)
            if f < 0:
                continue
            if nf < need:
                nf = _mh_push(fbuf, fk, nf, -f, k)
            elif f < -fbuf[0]:
                nf = _mh_pop(fbuf, fk, nf)
                nf = _mh_push(fbuf, fk, nf, -f, k)
        if nf < need:
            return np.int64(-1)
        T0 = -fbuf[0]
    return _bf_find_scan(j, q, t, W, p_off, p_list, limit, nn, excl, cpn, mem, gpn, node_units, node_tpu,
                         node_mem, node_gpus, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e,
                         res_u, res_m, res_g, res_next, sel, fk, cbuf, fbuf, seg)


@jit(nrt=False)
def _reserve(j, t, T, R, sel, st, nn, limit, node_units, node_mem, node_gpus, rhead, res_s, res_e, res_u, res_m,
             res_g, res_next, touched):
    """Reserve job j's nodes sel[:nn], whole, in this pass's profile from T and T + limit rounded down to the
    resolution R (the end at least one R after the start; the start no earlier than t, which changes nothing from
    t on)."""
    s0 = (T // R) * R
    e = ((T + limit[j]) // R) * R
    if e < s0 + R:
        e = s0 + R
    s = s0 if s0 > t else t
    for i in range(nn[j]):
        k = sel[i]
        r = st[RESN]
        st[RESN] = r + 1
        res_s[r] = s
        res_e[r] = e
        res_u[r] = node_units[k]
        res_m[r] = node_mem[k]
        res_g[r] = node_gpus[k]
        if rhead[k] < 0:
            touched[st[NTOUCH]] = k
            st[NTOUCH] += 1
        res_next[r] = rhead[k]
        rhead[k] = r


@jit(nrt=False)
def _bf_pass(t, W, R, max_test, max_user, juser, ucount, st, pq, sel, fk, cbuf, fbuf, seg, ix, pm_or, stack, bh_k, bh_v, fail, nfail, part, rjob,
             p_off, p_list, start, backfilled, prio,
             prio_out, alloc, off, run, limit, nn, excl, cpn, mem, gpn, assoc, node_units, node_tpu, node_mem,
             node_gpus, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu, acc, hk, hj, rhead,
             res_s, res_e, res_u, res_m, res_g, res_next, touched, ok, oj, sh, sel2):
    """The backfill pass: pending records in queue order start now, reserve, or are passed over, until
    ``max_test`` were tested. Not tested (and not counted): a record whose job started earlier in the pass
    (through another partition), and, with ``max_user`` > 0 (bf_max_job_user), a record of a user who already
    had that many tested in this pass (ucount, by juser). A job with several shapes takes the earliest instant
    any of them fits at, and at that instant the first of them in order (a later shape is searched only before
    the best instant so far; sel2 keeps the best shape's nodes).

    fail[q, :nfail[q]] keeps shapes (excl, cpn, mem, gpn, nn, limit) of this pass's jobs of partition q that
    could not start at t. A later job j of q with the same exclusivity and, if not exclusive, cpn, mem and gpn
    each at least a kept shape's, nn and limit at least its too, cannot start at t either: within a pass the
    profile only gains usage (backfilled starts, reservations), so a node that holds j over [t, t + limit_j)
    now held that shape over [t, t + limit_s) when it was tried (no more units -- ceil(cpn / tpu) grows with
    cpn --, memory, GPUs; a shorter window), and fewer than nn_s <= nn_j nodes did. So _bf_find skips its
    search at t (A), which would find fewer than nn_j nodes and change nothing."""
    started = False
    nfail[:] = 0
    if max_user > 0:
        ucount[:] = 0
    CAP = fail.shape[1]
    tested = 0
    for i in range(st[NPEND]):
        if tested >= max_test:
            break
        r = pq[i]
        j = rjob[r]
        q = part[r]
        if start[j] >= 0:
            continue
        if max_user > 0:
            if ucount[juser[j]] >= max_user:
                continue
            ucount[juser[j]] += 1
        tested += 1
        s_lo = sh.lo[j]
        s_hi = sh.lo[j + 1]
        multi = s_hi - s_lo > 1
        best = np.int64(-1)  # the earliest instant a shape fits (the first shape at it), and that shape
        bs = s_lo
        for s in range(s_lo, s_hi):
            if multi:
                _set_shape(j, s, sh, nn, cpn, mem, gpn, ix.jcol)
            Ws = W if best < 0 else best - t - 1  # a later shape only if strictly earlier
            skip_a = False
            if nn[j] > 1:
                for x in range(nfail[q]):
                    if (fail[q, x, 0] == excl[j] and fail[q, x, 4] <= nn[j] and fail[q, x, 5] <= limit[j]
                            and (excl[j] or (fail[q, x, 1] <= cpn[j] and fail[q, x, 2] <= mem[j]
                                             and fail[q, x, 3] <= gpn[j]))):
                        skip_a = True
                        break
            T = _bf_find(j, q, t, Ws, p_off, p_list, limit, nn, excl, cpn, mem, gpn, node_units, node_tpu,
                         node_mem, node_gpus, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g, rhead, res_s, res_e,
                         res_u, res_m, res_g, res_next, sel, fk, cbuf, fbuf, seg, ix, pm_or, stack, bh_k, bh_v, skip_a)
            if T != t and not skip_a:  # keep its shape (in place of one it covers, else in a free or the oldest slot)
                w = -1
                for x in range(nfail[q]):
                    if (fail[q, x, 0] == excl[j] and nn[j] <= fail[q, x, 4] and limit[j] <= fail[q, x, 5]
                            and (excl[j] or (cpn[j] <= fail[q, x, 1] and mem[j] <= fail[q, x, 2]
                                             and gpn[j] <= fail[q, x, 3]))):
                        w = x
                        break
                if w < 0:
                    if nfail[q] < CAP:
                        w = nfail[q]
                        nfail[q] += 1
                    else:
                        w = i % CAP
                fail[q, w, 0] = excl[j]
                fail[q, w, 1] = cpn[j]
                fail[q, w, 2] = mem[j]
                fail[q, w, 3] = gpn[j]
                fail[q, w, 4] = nn[j]
                fail[q, w, 5] = limit[j]
            if T >= 0:
                best = T
                bs = s
                if multi:
                    for x in range(nn[j]):
                        sel2[x] = sel[x]
                if T == t:
                    break
        if multi and best >= 0:
            _set_shape(j, bs, sh, nn, cpn, mem, gpn, ix.jcol)
            for x in range(nn[j]):
                sel[x] = sel2[x]
        T = best
        if T == t:
            _start_job(j, r, t, sel, nn[j], True, st, start, backfilled, prio, prio_out, alloc, off, run, limit, excl,
                       cpn, mem, gpn, assoc, node_units, node_tpu, node_mem, node_gpus, fu, fm, fg, roff, rcnt,
                       rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu, acc, hk, hj, ix, ok, oj)
            started = True
        elif T > t:
            _reserve(j, t, T, R, sel, st, nn, limit, node_units, node_mem, node_gpus, rhead, res_s, res_e, res_u,
                     res_m, res_g, res_next, touched)
        else:
            continue
        for x in range(nn[j]):  # its nodes' leaves with this pass's reservations
            k = sel[x]
            if rhead[k] >= 0:
                _index_node_res(k, t, ix, node_tpu, node_units, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g,
                                rhead, res_s, res_e, res_u, res_m, res_g, res_next, seg)
    for i in range(st[NTOUCH]):
        rhead[touched[i]] = -1
        _index_node(touched[i], ix, node_tpu, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g)
    st[NTOUCH] = 0
    st[RESN] = 0
    if started:
        _queue_compact(pq, st, start, rjob)


# --------------------------------------------------------------------------- the event loop

@jit(nrt=False)
def _compact_heap(keys, vals, size, start, span, killing, cut, kills):
    """A (key, job) heap of ends without the stale entries preempted runs left: an entry is live while its job
    runs with that key (start + ``span``: its run for the end heap, its limit for the overdue heap) or, with
    ``kills``, is being killed. Rebuilt as a heap (entries re-pushed in order); returns its size."""
    w = 0
    for i in range(size):
        j = vals[i]
        if (kills and killing[j]) or (start[j] >= 0 and cut[j] < 0 and keys[i] == start[j] + span[j]):
            keys[w] = keys[i]
            vals[w] = vals[i]
            w += 1
    m = 0
    for i in range(w):
        m = _mh_push(keys, vals, m, keys[i], vals[i])
    return m


def no_preemption(n: int) -> tuple:
    """The kernel's last six arguments for a replay without preemption (one QOS that preempts nothing)."""
    return (np.zeros(n, np.int64), np.zeros((1, 1), np.bool_), np.zeros(1, np.int64), np.zeros(1, np.int64),
            np.zeros(1, np.int64), np.int64(121))


@jit(nrt=False)
def _next_tick(t, t0, interval):
    """The first tick instant t0 + k * interval after t."""
    return t0 + ((t - t0) // interval + 1) * interval


def slurm_replay(node_units, node_tpu, node_mem, node_gpus, part_nodes, part_tier, assoc_parent, assoc_shares,
                 assoc_user, elig, run, limit, part, nn, cpn, mem, gpn, excl, assoc, base, rjob, juser, w_age, max_age,
                 w_fs,
                 calc_period, half_life, fair_tree, sched_interval, queue_depth, bf_interval, bf_window,
                 bf_max_job_test, bf_resolution, kill_wait, bf_max_job_user, jq, q_pre, q_mode, q_rank, q_level,
                 requeue_delay, shapes=None):
    """Replay the jobs through the Slurm model of docs/slurm-replay.md; (start, backfilled, prio, alloc, npre,
    cut, release), and with ``shapes`` each job's shape as an eighth output (-1: its own, x: further shape x).

    ``shapes`` (xjob, xnn, xcpn, xmem, xgpn): further shapes of jobs with a node range ("A node range"), each
    job's tried after its own (nn, cpn, mem, gpn), in their order; xjob ascending. ``alloc`` holds each job's
    nodes in the shape it (last) ran in: job i's at offsets[i]:offsets[i] + its node count.
    """
    n = elig.shape[0]
    lo = np.zeros(n + 1, np.int64)
    if shapes is None:
        lo[1:] = np.arange(1, n + 1)
        tab = (nn, cpn, mem, gpn)
        own = np.arange(n, dtype=np.int64)
    else:
        xjob = np.asarray(shapes[0], np.int64)
        if xjob.shape[0] and (np.any(np.diff(xjob) < 0) or xjob[0] < 0 or xjob[-1] >= n):
            raise ValueError("shapes: xjob must be ascending job indices")
        cnt = 1 + np.bincount(xjob, minlength=n)
        lo[1:] = np.cumsum(cnt)
        own = lo[:n]
        tab = []
        for a, x in zip((nn, cpn, mem, gpn), shapes[1:]):
            col = np.empty(lo[n], np.int64)
            col[own] = a
            extra = np.ones(lo[n], np.bool_)
            extra[own] = False
            col[extra] = np.asarray(x, np.int64)
            tab.append(col)
    out = _replay(node_units, node_tpu, node_mem, node_gpus, part_nodes, part_tier, assoc_parent, assoc_shares,
                  assoc_user, elig, run, limit, part, excl, assoc, base, rjob, juser, w_age, max_age, w_fs,
                  calc_period, half_life, fair_tree, sched_interval, queue_depth, bf_interval, bf_window,
                  bf_max_job_test, bf_resolution, kill_wait, bf_max_job_user, jq, q_pre, q_mode, q_rank, q_level,
                  requeue_delay, lo, *(np.ascontiguousarray(c, np.int64) for c in tab))
    if shapes is None:
        return out[:7]
    cur = out[7]
    # table row -> further shape index: rows that are not a job's own, in order
    code = np.full(lo[n], -1, np.int64)
    extra = np.ones(lo[n], np.bool_)
    extra[own] = False
    code[extra] = np.arange(int(extra.sum()), dtype=np.int64)
    return (*out[:7], code[cur])


@jit
def _replay(node_units, node_tpu, node_mem, node_gpus, part_nodes, part_tier, assoc_parent, assoc_shares,
            assoc_user, elig, run, limit, part, excl, assoc, base, rjob, juser, w_age, max_age, w_fs,
            calc_period, half_life, fair_tree, sched_interval, queue_depth, bf_interval, bf_window,
            bf_max_job_test, bf_resolution, kill_wait, bf_max_job_user, jq, q_pre, q_mode, q_rank, q_level,
            requeue_delay, s_lo, tnn, tcpn, tmem, tgpn):
    """slurm_replay's loop; the jobs' shapes as a table (job j's rows s_lo[j]..s_lo[j + 1] - 1 of tnn, tcpn,
    tmem, tgpn, its own first); an eighth output, each job's row (the shape it last started in).

    ``part``, ``base`` and ``rjob`` are per queue record (a job asking for several partitions has one record
    each, by job, in the order of its list): its partition, its static priority terms, its job. ``juser`` is
    each job's user (0..U-1; bf_max_job_user counts per user, across accounts). ``jq`` each job's QOS; of QOS
    a and b, ``q_pre[a, b]`` a preempts b, ``q_mode[b]`` how (0 never, 1 CANCEL, 2 REQUEUE), ``q_rank[b]`` its
    preemption order, ``q_level[a]`` its place ahead of the queue. Outputs beyond the first four: each job's
    preemptions, the instant a CANCEL one ended it (-1: none), and its last eligible instant."""
    n = elig.shape[0]
    m = part.shape[0]
    # each job's current shape (see Shapes): its first until a search tries another
    S = tnn.shape[0]
    nn = np.empty(n, np.int64)
    cpn = np.empty(n, np.int64)
    mem = np.empty(n, np.int64)
    gpn = np.empty(n, np.int64)
    mxn = np.zeros(n, np.int64)  # most nodes of its shapes
    texcl = np.empty(S, np.bool_)
    for j in range(n):
        s = s_lo[j]
        nn[j] = tnn[s]
        cpn[j] = tcpn[s]
        mem[j] = tmem[s]
        gpn[j] = tgpn[s]
        for x in range(s_lo[j], s_lo[j + 1]):
            mxn[j] = max(mxn[j], tnn[x])
            texcl[x] = excl[j]
    r_lo = np.zeros(n + 1, np.int64)  # job j's records: r_lo[j]..r_lo[j + 1]
    for r in range(m):
        r_lo[rjob[r] + 1] += 1
    for j in range(n):
        r_lo[j + 1] += r_lo[j]
    K = node_units.shape[0]
    Q = part_nodes.shape[0]
    A = assoc_parent.shape[0]
    off = np.zeros(n + 1, np.int64)
    for j in range(n):
        off[j + 1] = off[j] + mxn[j]
    # outputs: start instant (-1 until started), backfilled flag, priority at start, node indices (job i's at
    # off[i]:off[i] + nn[i] while running; compacted to the shapes they ran in at the end)
    start = np.full(n, -1, np.int64)
    backfilled = np.zeros(n, np.bool_)
    prio_out = np.zeros(n, np.int64)
    alloc = np.full(off[n], -1, np.int64)
    npre = np.zeros(n, np.int64)
    cut = np.full(n, -1, np.int64)
    cur = s_lo[:n].copy()
    if n == 0:
        return start, backfilled, prio_out, alloc, npre, cut, elig.copy(), cur
    # arrivals in eligible order (elig ascending but where a preempted job enters at its first submission)
    arr = np.argsort(elig, kind="mergesort")
    jrank = np.empty(n, np.int64)  # each job's place in that order (preemption's tie-break)
    for i in range(n):
        jrank[arr[i]] = i
    # times inside run from the first eligible instant moved into [0, bf_resolution) (the index's bounds take 0
    # for "now", so no instant may be negative); by whole resolutions, so reservations round as before
    R = bf_resolution if bf_resolution > 0 else np.int64(1)
    shift = (elig[arr[0]] // R) * R
    elig = elig - shift
    # cluster: p_off[Q+1]/p_list[sum] each partition's nodes ascending; nodemask[K, Wd] uint64 bit q set when the
    # node is in partition q; blocked[Wd] the main pass's blocked partitions; tier_j[n] each job's PriorityTier
    Wd = (Q + 63) // 64
    p_off = np.zeros(Q + 1, np.int64)
    for q in range(Q):
        p_off[q + 1] = p_off[q] + part_nodes[q].sum()
    p_list = np.empty(p_off[Q], np.int64)
    nodemask = np.zeros((K, Wd), np.uint64)
    for q in range(Q):
        w = p_off[q]
        for k in range(K):
            if part_nodes[q, k]:
                p_list[w] = k
                w += 1
                nodemask[k, q >> 6] |= np.uint64(1) << np.uint64(q & 63)
    blocked = np.zeros(Wd, np.uint64)
    tier_j = np.empty(m, np.int64)  # each record's PriorityTier
    for r in range(m):  # (a record whose QOS preempts others' comes first: job_scheduler.c's sort_job_queue2)
        tier_j[r] = part_tier[part[r]] + q_level[jq[rjob[r]]] * TSPAN
    # nodes: fu/fm/fg[K] free units, MB, GPUs now; running jobs on node k sit in slots roff[k]..roff[k]+rcnt[k]
    # sorted by profile end: rl_job (job), rl_end (start + limit), rl_u/rl_m/rl_g (what it holds there)
    fu = node_units.copy()
    fm = node_mem.copy()
    fg = node_gpus.copy()
    roff = np.zeros(K, np.int64)
    tot_slots = np.int64(0)
    for k in range(K):
        roff[k] = tot_slots
        tot_slots += max(node_units[k], 1)
    rcnt = np.zeros(K, np.int64)
    rl_job = np.empty(tot_slots, np.int64)
    rl_end = np.empty(tot_slots, np.int64)
    rl_u = np.empty(tot_slots, np.int64)
    rl_m = np.empty(tot_slots, np.int64)
    rl_g = np.empty(tot_slots, np.int64)
    # jobs: prio[n] current priority, jcpu[n] CPUs charged; hk/hj[n] end heap (start + run, job); pq[n] pending jobs
    # in queue order (st[NPEND] of them), qtmp[n] the sort's scratch; sel[K] nodes chosen by a fit
    prio = np.zeros(m, np.int64)
    jcpu = np.zeros(n, np.int64)
    hk = np.empty(3 * n, np.int64)  # (a preempted run leaves its end behind until it is due or compacted)
    hj = np.empty(3 * n, np.int64)
    # preemption: killing[n] jobs being killed at this t; rqk/rqj[n] requeued jobs by re-eligible instant
    # (st[RQSIZE]); cand[n] a preemption's candidates (incand[n] marks them); sfu/sfm/sfg[K] the nodes with candidates taken away;
    # q_can[QOS] whether the QOS preempts any
    killing = np.zeros(n, np.bool_)
    rqk = np.empty(n, np.int64)
    rqj = np.empty(n, np.int64)
    cand = np.empty(n, np.int64)
    incand = np.zeros(n, np.bool_)  # whether a job is among the candidates being gathered
    sfu = np.empty(K, np.int64)
    sfm = np.empty(K, np.int64)
    sfg = np.empty(K, np.int64)
    q_can = np.zeros(q_pre.shape[0], np.bool_)
    for a in range(q_pre.shape[0]):
        for b in range(q_pre.shape[1]):
            if q_pre[a, b] and q_mode[b] > 0:
                q_can[a] = True
    ucount = np.zeros(max(juser.max() + 1, 1), np.int64)  # records tested per user in a backfill pass
    ok = np.empty(3 * n, np.int64)  # (start + limit, job) of running jobs with run > limit, a min-heap (st[OSIZE])
    oj = np.empty(3 * n, np.int64)
    pq = np.empty(m, np.int64)
    qtmp = np.empty(m, np.int64)
    sel = np.empty(K, np.int64)
    sel2 = np.empty(K, np.int64)
    # backfill: reservations in a pool of per-node linked lists (rhead[K] first entry or -1, res_next[] the
    # next); res_s/res_e/res_u/res_m/res_g the interval and what it holds; touched[K] nodes with reservations;
    # fk[K] per-node earliest instant; cbuf/fbuf candidate instants of a job; seg[6, .] a node's step function
    rec_nn = np.empty(m, np.int64)
    for r in range(m):
        rec_nn[r] = mxn[rjob[r]]
    srt_nn = np.sort(rec_nn)
    pool = np.int64(0)
    for i in range(min(m, max(bf_max_job_test, 1))):
        pool += srt_nn[m - 1 - i]
    rhead = np.full(K, -1, np.int64)
    res_s = np.empty(pool, np.int64)
    res_e = np.empty(pool, np.int64)
    res_u = np.empty(pool, np.int64)
    res_m = np.empty(pool, np.int64)
    res_g = np.empty(pool, np.int64)
    res_next = np.empty(pool, np.int64)
    touched = np.empty(K, np.int64)
    fk = np.empty(K, np.int64)
    fbuf = np.empty(K, np.int64)
    cbuf = np.empty(K + tot_slots + pool + 1, np.int64)
    seg = np.empty((6, node_units.max() + 2 * pool + 2), np.int64)
    # the node index (see its comment): ix (tau[2P, columns], thr, klo, jcol[n, 3]), pm_or/pm_and[Wd, 2P] uint64;
    # stack[128] a DFS's tree nodes; bh_k/bh_v[2P] a best-first walk's heap (bound, tree node)
    ix0 = _index(K, node_units, node_tpu, node_mem, node_gpus, tcpn, tmem, tgpn, texcl)
    jcol = np.empty((n, 3), np.int64)
    for j in range(n):
        for c in range(3):
            jcol[j, c] = ix0.jcol[s_lo[j], c]
    ix = Index(ix0.tau, ix0.thr, ix0.klo, jcol)
    sh = Shapes(s_lo, tnn, tcpn, tmem, tgpn, ix0.jcol, cur)
    P = ix.tau.shape[0] >> 1
    pm_or = np.zeros((Wd, 2 * P), np.uint64)
    pm_and = np.zeros((Wd, 2 * P), np.uint64)
    for w in range(Wd):
        pm_and[w, P:] = ~np.uint64(0)
        for k in range(K):
            pm_or[w, P + k] = nodemask[k, w]
            pm_and[w, P + k] = nodemask[k, w]
        for i in range(P - 1, 0, -1):
            pm_or[w, i] = pm_or[w, 2 * i] | pm_or[w, 2 * i + 1]
            pm_and[w, i] = pm_and[w, 2 * i] & pm_and[w, 2 * i + 1]
    for k in range(K):
        _index_node(k, ix, node_tpu, fu, fm, fg, roff, rcnt, rl_end, rl_u, rl_m, rl_g)
    stack = np.empty(128, np.int64)
    fail = np.empty((Q, 8, 6), np.int64)  # the backfill pass's shapes that could not start at t, per partition
    nfail = np.zeros(Q, np.int64)
    bh_k = np.empty(2 * P, np.int64)
    bh_v = np.empty(2 * P, np.int64)
    # fair share: usage[A] float (user associations), acc[A] integer usage to add at the next calc tick (besides
    # rcpu * calc_period), rcpu[A] CPUs of running jobs; fs[A] factors; ch_off/ch_list children ascending;
    # tot/lf/snorm/srt/prev/stk the recomputation's scratch
    usage = np.zeros(A, np.float64)
    acc = np.zeros(A, np.int64)
    rcpu = np.zeros(A, np.int64)
    fs = np.zeros(A, np.float64)
    ch_off = np.zeros(A + 1, np.int64)
    for a in range(A):
        if assoc_parent[a] >= 0:
            ch_off[assoc_parent[a] + 1] += 1
    for a in range(A):
        ch_off[a + 1] += ch_off[a]
    ch_list = np.empty(max(ch_off[A], 1), np.int64)
    fill = ch_off[:A].copy()
    for a in range(A):
        p = assoc_parent[a]
        if p >= 0:
            ch_list[fill[p]] = a
            fill[p] += 1
    tot = np.zeros(A, np.float64)
    lf = np.zeros(A, np.float64)
    snorm = np.zeros(A, np.float64)
    srt = np.zeros(max(ch_off[A], 1), np.int64)
    prev = np.zeros(A, np.int64)
    stk = np.zeros(A + 1, np.int64)
    _fair_share(assoc_parent, assoc_shares, assoc_user, usage, ch_off, ch_list, fair_tree, tot, lf, snorm, srt,
                prev, stk, fs)
    decay = 0.5 ** (calc_period / half_life) if half_life > 0 else -1.0
    W = bf_window if bf_window > 0 else np.int64(0)

    t0 = elig[arr[0]]
    st = np.zeros(8, np.int64)
    st[PCALC] = t0 - calc_period
    t = t0
    nxt = 0  # next job to arrive (in arr's order)
    done = 0  # jobs over
    while True:
        if st[HSIZE] > n:  # stale ends of preempted runs: keep the live entries only
            st[HSIZE] = _compact_heap(hk, hj, st[HSIZE], start, run, killing, cut, True)
        if st[OSIZE] > n:
            st[OSIZE] = _compact_heap(ok, oj, st[OSIZE], start, limit, killing, cut, False)
        ended, over = _ends(t, st, hk, hj, start, run, killing, cut, npre, jq, q_mode, rqk, rqj, requeue_delay,
                            alloc, off, nn, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu,
                            acc, assoc, node_tpu, ix)
        done += over
        arrived = 0
        while nxt < n and elig[arr[nxt]] <= t:
            j = arr[nxt]
            for r in range(r_lo[j], r_lo[j + 1]):
                prio[r] = _arrival_prio(base[r], w_fs, fs[assoc[j]])
                _queue_insert(pq, st, r, tier_j, prio)
            nxt += 1
            arrived += 1
        while st[RQSIZE] > 0 and rqk[0] <= t:  # a requeued job is eligible again
            j = rqj[0]
            elig[j] = rqk[0]
            st[RQSIZE] = _mh_pop(rqk, rqj, st[RQSIZE])
            for r in range(r_lo[j], r_lo[j + 1]):
                prio[r] = _arrival_prio(base[r], w_fs, fs[assoc[j]])
                _queue_insert(pq, st, r, tier_j, prio)
            arrived += 1
        if (t - t0) % calc_period == 0:
            _calc_tick(t, pq, st, tier_j, prio, elig, base, rjob, assoc, w_age, max_age, w_fs, calc_period, decay,
                       fair_tree, assoc_parent, assoc_shares, assoc_user, ch_off, ch_list, usage, acc, rcpu, tot, lf,
                       snorm, srt, prev, stk, fs, qtmp)
        st[ZERO] = 0
        depth = np.int64(-1) if (t - t0) % sched_interval == 0 else queue_depth
        if depth < 0 or ended + arrived > 0:
            _main_pass(t, depth, st, pq, blocked, sel, pm_or, pm_and, stack, part, rjob, tier_j, nodemask, p_off, p_list, start, backfilled,
                       prio, prio_out, alloc, off, run, limit, nn, excl, cpn, mem, gpn, assoc, node_units, node_tpu,
                       node_mem, node_gpus, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu,
                       acc, hk, hj, ix, ok, oj, jq, q_can, q_pre, q_mode, q_rank, killing, cand, incand, sfu, sfm,
                       sfg, jrank, sh)
        if bf_interval > 0 and (t - t0) % bf_interval == 0 and st[NPEND] > 0:
            _overdue(t, kill_wait, st, ok, oj, start, run, limit, cut, alloc, off, nn, roff, rcnt, rl_job, rl_end,
                     rl_u, rl_m, rl_g, fu, fm, fg, node_tpu, ix)
            _bf_pass(t, W, R, bf_max_job_test, bf_max_job_user, juser, ucount, st, pq, sel, fk, cbuf, fbuf, seg, ix, pm_or, stack, bh_k, bh_v, fail,
                     nfail, part, rjob, p_off, p_list, start,
                     backfilled, prio, prio_out, alloc, off, run, limit, nn, excl, cpn, mem, gpn, assoc, node_units,
                     node_tpu, node_mem, node_gpus, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu,
                     rcpu, acc, hk, hj, rhead, res_s, res_e, res_u, res_m, res_g, res_next, touched, ok, oj, sh,
                     sel2)
        while st[ZERO] > 0:  # a job started with run == 0, or one preempted, ends at this t: steps 1, 2 and the
            st[ZERO] = 0    # event-triggered pass
            ended, over = _ends(t, st, hk, hj, start, run, killing, cut, npre, jq, q_mode, rqk, rqj, requeue_delay,
                                alloc, off, nn, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u, rl_m, rl_g, jcpu, rcpu,
                                acc, assoc, node_tpu, ix)
            done += over
            if ended > 0:
                _main_pass(t, queue_depth, st, pq, blocked, sel, pm_or, pm_and, stack, part, rjob, tier_j, nodemask, p_off, p_list, start,
                           backfilled, prio, prio_out, alloc, off, run, limit, nn, excl, cpn, mem, gpn, assoc,
                           node_units, node_tpu, node_mem, node_gpus, fu, fm, fg, roff, rcnt, rl_job, rl_end, rl_u,
                           rl_m, rl_g, jcpu, rcpu, acc, hk, hj, ix, ok, oj, jq, q_can, q_pre, q_mode, q_rank, killing,
                           cand, incand, sfu, sfm, sfg, jrank, sh)
        if done == n:
            break
        nt = _next_tick(t, t0, calc_period)
        if st[HSIZE] > 0 and hk[0] < nt:
            nt = hk[0]
        if nxt < n and elig[arr[nxt]] < nt:
            nt = elig[arr[nxt]]
        if st[RQSIZE] > 0 and rqk[0] < nt:
            nt = rqk[0]
        if st[NPEND] > 0:
            nt = min(nt, _next_tick(t, t0, sched_interval))
            if bf_interval > 0:
                nt = min(nt, _next_tick(t, t0, bf_interval))
        t = nt
    for j in range(n):
        start[j] += shift
        elig[j] += shift
        if cut[j] >= 0:
            cut[j] += shift
    if off[n] != nn.sum():  # jobs with a node range: each job's nodes in the shape it ran in, back to back
        w = 0
        for j in range(n):
            for i in range(nn[j]):
                alloc[w] = alloc[off[j] + i]
                w += 1
        alloc = alloc[:w].copy()
    return start, backfilled, prio_out, alloc, npre, cut, elig, cur
