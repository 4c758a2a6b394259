"""Node-level placement: which nodes each job gets, T_node and node pinning.

Semantics: the spec's "Node-level placement" section (Klusacek & Soysal 2018
Section 4.2) and docs/simulation-kernel.md. Each pass builds a plan in queue
order (arrival order: fcfs) on top of the running jobs; a job gets the
lowest-numbered nodes free over [s, s + max(est_wait, 1)) at its earliest
start s; pinned jobs keep their node set. The twin is tests/naive_nodes.py.

Why this shape:
- Backfilling `none`: planned starts never decrease along the queue and every
  hold already placed starts at or before the current job's lower bound, so
  a node is free over [s, inf) exactly when its last hold ended by s. The plan
  keeps a bitset of the nodes free at the current start, the running holds as
  a sorted array (walked, not popped) and the planned holds in a heap; a job
  releases holds until enough nodes (pinned: all of its own) are free and takes
  the lowest set bits. Nothing per node: CEA-Curie jobs average 2,300 nodes.
- `conservative`: holes can be filled, so each node keeps its busy intervals
  (running hold + planned holds, sorted by start); candidate starts are the
  lower bound and every hold end after it.
- A plan is rebuilt only when the previous one stopped matching reality (a
  job ended off its held end, a running hold moved, a started job holds
  other than planned); after arrivals only, the new jobs are placed on the
  kept plan (fcfs puts them last; under `none` nothing ahead can move, under
  `conservative` nothing placed earlier does either). Under `none` a rebuild
  stops at the first job placed as before once no differing hold outlasts its
  start: from there both plans hold the same state, so the kept one is reused.
- No array variable is reassigned inside the event loop: Numba then increfs and
  decrefs it at every iteration of every loop around the assignment (a third of
  the loop's time on CTC-SP2). The plan and the kept plan are two halves of one
  array each (an offset flips between them); before an instant the loop checks
  the range arrays have room for it (each waiting job placed once, its set kept
  once) and otherwise returns to an outer loop that grows them; conservative's
  per-node intervals grow between placement passes, in code compiled out of the
  `none` loop (`cons` is None there).
- Node sets are kept as range lists (first node, length); a plan's set is
  compared with the previous one through a 64-bit fingerprint of its
  canonical range list for T_node (the twin compares sets exactly), and by
  its ranges for the early stop.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..jit import jit
from . import _cache


# Numba checks only this file: drop our cache when _common or the compile options change too
# (one refresher for every kernel set, in NUMBA_CACHE_DIR as well: _cache.refresh)
_cache.refresh(Path(__file__).parent, ("_nodes", "_common"), ("../jit.py",), "nodes-sources.sha256")

from ._common import expected_end  # noqa: E402

NONE, CONSERVATIVE = 0, 2
KEEP, GROW = 1, 2  # the placement loop's requests: keep the kept plan, grow arrays
PENDING, WAITING, RUNNING, DONE = 0, 1, 2, 3
BIG = 1 << 62
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)


@jit
def _mix(h, a, b):
    """Fold range (a, b) into fingerprint h (splitmix64 finaliser)."""
    x = h ^ (np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(b) + np.uint64(0x632BE59BD9B4E019))
    x = (x ^ (x >> np.uint64(30))) * M1
    x = (x ^ (x >> np.uint64(27))) * M2
    return x ^ (x >> np.uint64(31))


@jit
def _grow(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    b[:a.shape[0]] = a
    return b


# ------------------------------------------------------------------ bitsets and levels (none)

ONE = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
ZERO = np.uint64(0)


@jit
def _tz(x):
    """Index of the lowest set bit of x != 0 (one tzcnt instruction)."""
    return np.int64(trailing_zeros(x))


@jit(inline=True)
def _bits(pool, a, ln, on, base=0):
    """Set (on) or clear bits a .. a + ln - 1 of the bitset at word `base` of pool; whole words
    in one store each."""
    x = a
    e = a + ln
    while x < e:
        wi = x >> 6
        b = x & 63
        if b == 0 and e - x >= 64:
            we = e >> 6
            fill = ALL if on else ZERO
            for k in range(wi, we):
                pool[base + k] = fill
            x = we << 6
            continue
        k = min(64 - b, e - x)
        mask = ALL if k == 64 else ((ONE << np.uint64(k)) - ONE) << np.uint64(b)
        if on:
            pool[base + wi] |= mask
        else:
            pool[base + wi] &= ~mask
        x += k


@jit(inline=True)
def _take_lowest(pool, need, p_first, p_len, pn, lo, base=0):
    """Clear the `need` lowest set bits of the bitset at word `base` of pool (no set bit below its
    word lo); append them as
    maximal ranges at pn. Returns (new pn, the word it stopped in: none set below it).
    Arrays have room for `need` more ranges. A full word is taken whole (one compare)."""
    got = 0
    wi = lo
    start0 = pn
    while got < need:
        word = pool[base + wi]
        if word == ZERO:
            wi += 1
            continue
        if word == ALL and need - got >= 64:
            x = wi * 64
            if pn > start0 and p_first[pn - 1] + p_len[pn - 1] == x:
                p_len[pn - 1] += 64
            else:
                p_first[pn] = x
                p_len[pn] = 64
                pn += 1
            pool[base + wi] = ZERO
            got += 64
            if got < need:
                wi += 1
            continue
        while word != ZERO and got < need:
            b = _tz(word)
            y = ~(word >> np.uint64(b))
            run = 64 - b if y == ZERO else _tz(y)
            if run > 64 - b:
                run = 64 - b
            take = min(run, need - got)
            mask = ALL if take == 64 else ((ONE << np.uint64(take)) - ONE) << np.uint64(b)
            word &= ~mask
            x = wi * 64 + b
            if pn > start0 and p_first[pn - 1] + p_len[pn - 1] == x:
                p_len[pn - 1] += take
            else:
                p_first[pn] = x
                p_len[pn] = take
                pn += 1
            got += take
        pool[base + wi] = word
        if got < need:
            wi += 1
    return pn, wi


@jit(inline=True)
def _all_set(pool, a, ln, base=0):
    """Bits a .. a + ln - 1 are all set."""
    x = a
    e = a + ln
    while x < e:
        wi = x >> 6
        b = x & 63
        k = min(64 - b, e - x)
        mask = ALL if k == 64 else ((ONE << np.uint64(k)) - ONE) << np.uint64(b)
        if pool[base + wi] & mask != mask:
            return False
        x += k
    return True


# ------------------------------------------------------------------ sorted array (running holds)

@jit(inline=True)
def _sa_insert(v, jj, n, val, j):
    """Insert (val, j) into v[:n] sorted ascending (after equal values); returns n + 1."""
    i = n
    while i > 0 and v[i - 1] > val:
        v[i] = v[i - 1]
        jj[i] = jj[i - 1]
        i -= 1
    v[i] = val
    jj[i] = j
    return n + 1


@jit(inline=True)
def _sa_remove(v, jj, n, val, j):
    """Remove job j, held at val, from v[:n]; returns n - 1."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if v[mid] < val:
            lo = mid + 1
        else:
            hi = mid
    i = lo
    while jj[i] != j:
        i += 1
    for k in range(i, n - 1):
        v[k] = v[k + 1]
        jj[k] = jj[k + 1]
    return n - 1


@jit(inline=True)
def _hpush(hv, hj, hn, v, j, base=0):
    """Push (v, j) on the min-heap hv/hj[base:base + hn]; returns hn + 1."""
    i = hn
    hv[base + i] = v
    hj[base + i] = j
    while i > 0:
        q = (i - 1) >> 1
        if hv[base + q] <= hv[base + i]:
            break
        hv[base + q], hv[base + i] = hv[base + i], hv[base + q]
        hj[base + q], hj[base + i] = hj[base + i], hj[base + q]
        i = q
    return hn + 1


@jit(inline=True)
def _hpop(hv, hj, hn, base=0):
    """Drop the top of the min-heap hv/hj[base:base + hn]; returns hn - 1."""
    hn -= 1
    hv[base] = hv[base + hn]
    hj[base] = hj[base + hn]
    i = 0
    while True:
        l = 2 * i + 1
        if l >= hn:
            break
        c = l
        if l + 1 < hn and hv[base + l + 1] < hv[base + l]:
            c = l + 1
        if hv[base + i] <= hv[base + c]:
            break
        hv[base + c], hv[base + i] = hv[base + i], hv[base + c]
        hj[base + c], hj[base + i] = hj[base + i], hj[base + c]
        i = c
    return hn


# ------------------------------------------------------------------ intervals (conservative)

@jit
def _iv_free(iv_s, iv_e, iv_n, x, s, e):
    """Node x has no interval overlapping [s, e)."""
    for k in range(iv_n[x]):
        if iv_s[x, k] < e and iv_e[x, k] > s:
            return False
    return True


@jit
def _iv_add(iv_s, iv_e, iv_n, x, s, e):
    """Add [s, e) to node x's intervals, kept sorted by start."""
    k = iv_n[x]
    while k > 0 and iv_s[x, k - 1] > s:
        iv_s[x, k] = iv_s[x, k - 1]
        iv_e[x, k] = iv_e[x, k - 1]
        k -= 1
    iv_s[x, k] = s
    iv_e[x, k] = e
    iv_n[x] += 1


@jit
def _gap_events(iv_s, iv_e, iv_n, x, lb, d, evs, ne):
    """Append node x's windows of valid starts from lb on (it is free over [s, s + d))
    as sweep events: key 2 * time + 1 opens a window, 2 * time closes one.
    Returns the new count (evs has room for 2 * iv_n[x] + 1 more)."""
    cur = lb
    for k in range(iv_n[x]):
        a = iv_s[x, k]
        b = iv_e[x, k]
        if a > cur and a - cur >= d:
            evs[ne] = 2 * cur + 1
            evs[ne + 1] = 2 * (a - d + 1)
            ne += 2
        if b > cur:
            cur = b
    evs[ne] = 2 * cur + 1
    return ne + 1


@jit
def _first_window(iv_s, iv_e, iv_n, x, lb, d):
    """Earliest s >= lb at which node x is free over [s, s + d)."""
    cur = lb
    for k in range(iv_n[x]):
        a = iv_s[x, k]
        if a > cur and a - cur >= d:
            return cur
        if iv_e[x, k] > cur:
            cur = iv_e[x, k]
    return cur


@jit
def _sweep(evs, ne, need):
    """Earliest time at which `need` windows are open (windows open only at lb or an
    interval end: the candidate starts). BIG if never."""
    keys = np.sort(evs[:ne])
    c = 0
    i = 0
    while i < ne:
        tm = keys[i] >> 1
        while i < ne and (keys[i] >> 1) == tm:
            c += 1 if keys[i] & 1 else -1
            i += 1
        if c >= need:
            return tm
    return BIG


@jit
def _cons_start(iv_s, iv_e, iv_n, fw, m, need, lb, d, pin_j, o_first, o_len, so, sc):
    """conservative: the earliest candidate start (lb or an interval end after it) at which
    `need` nodes (pin_j: all of its own, o_*[so:so + sc]) are free over [s, s + d).

    Fast path: no start is before L, the need-th smallest of the nodes' first valid starts;
    if enough nodes are free at L, s = L. Otherwise one sweep over every node's windows of
    valid starts (instead of testing each candidate on each node). A function of its own:
    its growing event buffer stays out of the main loop (see nodes_sim)."""
    if pin_j:
        L = lb
        for k in range(so, so + sc):
            for x in range(o_first[k], o_first[k] + o_len[k]):
                L = max(L, _first_window(iv_s, iv_e, iv_n, x, lb, d))
        ok = True
        for k in range(so, so + sc):
            for x in range(o_first[k], o_first[k] + o_len[k]):
                if not _iv_free(iv_s, iv_e, iv_n, x, L, L + d):
                    ok = False
                    break
            if not ok:
                break
    else:
        for x in range(m):
            fw[x] = _first_window(iv_s, iv_e, iv_n, x, lb, d)
        L = np.partition(fw, need - 1)[need - 1]
        got = 0
        for x in range(m):
            if fw[x] <= L and _iv_free(iv_s, iv_e, iv_n, x, L, L + d):
                got += 1
                if got >= need:
                    break
        ok = got >= need
    if ok:
        s = L
    else:
        evs = np.empty(64, np.int64)
        ne = 0
        if pin_j:
            for k in range(so, so + sc):
                for x in range(o_first[k], o_first[k] + o_len[k]):
                    if ne + 2 * iv_n[x] + 1 > evs.shape[0]:
                        evs = _grow(evs, ne + 2 * iv_n[x] + 1)
                    ne = _gap_events(iv_s, iv_e, iv_n, x, lb, d, evs, ne)
        else:
            for x in range(m):
                if ne + 2 * iv_n[x] + 1 > evs.shape[0]:
                    evs = _grow(evs, ne + 2 * iv_n[x] + 1)
                ne = _gap_events(iv_s, iv_e, iv_n, x, lb, d, evs, ne)
        s = _sweep(evs, ne, need)
    return s


@jit
def _loop(submit, run, nodes, est_wait, est_run, req, m, backfill, overrun, pin, cons):
    """Node-aware replay, fcfs queue order. Arrays int64 sorted by (submit, job id),
    1 <= nodes <= m; pin = pinning interval in s (-1: none).

    Returns (start, set_off, set_cnt, range_first, range_len, t_node, t_node_strict,
    changes, first_plan, pinned_at (-1: never pinned), placed): job j ran on nodes range_first[k] .. range_first[k] +
    range_len[k] - 1 for k in set_off[j] .. set_off[j] + set_cnt[j] - 1; placed[j] = how many
    times a plan placed it (the loop's work: the processor-count loop places a job once).
    """
    n = submit.shape[0]
    start = np.full(n, -1, np.int64)
    t_node = np.zeros(n, np.int64)
    t_strict = np.zeros(n, np.int64)
    changes = np.zeros(n, np.int64)
    first_plan = np.full(n, -1, np.int64)
    placed = np.zeros(n, np.int64)
    state = np.zeros(n, np.int64)
    hold = np.zeros(n, np.int64)        # end held by a running job
    ps = np.full(n, -1, np.int64)       # planned start of a waiting job
    fp = np.zeros(n, np.uint64)         # fingerprint of its planned set
    last_set = np.zeros(n, np.int64)
    last_pair = np.zeros(n, np.int64)
    pinned = np.zeros(n, np.bool_)
    pinned_at = np.full(n, -1, np.int64)
    # final (and pinned) node sets: append-only range pool
    set_off = np.full(n, -1, np.int64)
    set_cnt = np.zeros(n, np.int64)
    o_first = np.empty(1024, np.int64)
    o_len = np.empty(1024, np.int64)
    on = 0
    # the current plan's node sets: pool rebuilt at every full plan
    p_off = np.zeros(n, np.int64)
    p_cnt = np.zeros(n, np.int64)
    p_first = np.empty(1024, np.int64)
    p_len = np.empty(1024, np.int64)
    pn = 0
    # running jobs: min-heap of actual ends (event times) and indexed min-heap of holds
    cap_r = min(n, m) + 1
    ev = np.empty(cap_r, np.int64)
    ej = np.empty(cap_r, np.int64)
    en = 0
    rh = np.empty(cap_r, np.int64)     # holds of the running jobs, sorted
    rhj = np.empty(cap_r, np.int64)
    rn = 0
    busy_n = 0
    # none: nodes free in the plan up to the current start (bitset, no set bit below
    # word lo), the running holds not yet reached (sorted copy pr_v/pr_j from pri on)
    # and the planned holds not yet reached (heap of (end, job))
    nw = (m + 63) >> 6
    half = (m + 1) // 2  # most ranges a node set can have
    freebits = np.zeros(nw, np.uint64)  # nodes no running job holds
    _bits(freebits, 0, m, True)
    # Two of each: the plan's at pw (words), hb, rb and the kept plan's in the other half while a
    # new one is built (flipped back when the new one converges). Halves, not two arrays swapped:
    # an array variable reassigned in the loop costs reference counting at every iteration.
    hcap = m + n + 2
    pool = np.zeros(2 * nw, np.uint64)
    pool_n = 0
    lo = 0
    hv = np.empty(2 * hcap, np.int64)
    hj = np.empty(2 * hcap, np.int64)
    hn = 0
    pr_v = np.empty(2 * cap_r, np.int64)
    pr_j = np.empty(2 * cap_r, np.int64)
    prn = 0
    pri = 0
    pw = hb = rb = 0
    k_pool_n = k_lo = k_hn = k_prn = k_pri = k_last = 0
    live_last = 0
    rebuilding = False
    converged = False
    thr = BIG        # holds that differ from the kept plan's end by then (BIG: no kept plan)
    thr_now = BIG
    # conservative: per-node intervals (capacity grown on demand)
    icap = 4 if backfill == CONSERVATIVE else 1
    iv_top = 0      # most intervals on one node
    iv_s = np.empty((m if backfill == CONSERVATIVE else 1, icap), np.int64)
    iv_e = np.empty_like(iv_s)
    iv_n = np.zeros(m if backfill == CONSERVATIVE else 1, np.int64)
    fw = np.empty(m if backfill == CONSERVATIVE else 1, np.int64)
    # queue (arrival order, holes compacted lazily; none below head is waiting)
    w = np.empty(n, np.int64)
    wn = 0
    wlive = 0
    head = 0
    nxt = 0
    dirty = True
    plan_last = -1  # planned start of the last job in the kept plan (none)
    t = -1
    room = 0
    wait_r = 0      # most ranges the waiting jobs' sets can have
    while True:
        # No array is reassigned inside the event loop (see the module docstring): it
        # returns here when the range arrays need room, and goes on where it stopped.
        while nxt < n or rn > 0 or wlive > 0:
            # ---- next instant; first, room for the ranges it can add (each waiting job placed
            # once, its set kept once), else out to grow the range arrays
            t_new = submit[nxt] if nxt < n else BIG
            if en > 0 and ev[0] < t_new:
                t_new = ev[0]
            room = wait_r
            k = nxt
            while k < n and submit[k] == t_new:
                room += min(nodes[k], half)
                k += 1
            if pn + room > p_first.shape[0] or on + room > o_first.shape[0]:
                break
            t = t_new
            # a kept plan never has a planned start in the past (every planned start is an
            # end or an arrival, or the hold that set it moved); checked, not assumed
            while head < wn and state[w[head]] != WAITING:
                head += 1
            for i in range(head, wn):
                j = w[i]
                if state[j] == WAITING:
                    if ps[j] < t:
                        dirty = True
                        thr = BIG
                    if backfill == NONE:
                        break
            # ---- ends
            while en > 0 and ev[0] <= t:
                j = ej[0]
                en = _hpop(ev, ej, en)
                for k in range(set_off[j], set_off[j] + set_cnt[j]):
                    _bits(freebits, o_first[k], o_len[k], True)
                busy_n -= nodes[j]
                if hold[j] != t:
                    dirty = True
                    thr = max(thr, hold[j], t)
                state[j] = DONE
                rn = _sa_remove(rh, rhj, rn, hold[j], j)
            # ---- arrivals
            first_new = wn
            while nxt < n and submit[nxt] == t:
                state[nxt] = WAITING
                w[wn] = nxt
                wn += 1
                wlive += 1
                wait_r += min(nodes[nxt], half)
                nxt += 1
            # ---- running holds reached at t move (overrun extension); later ones cannot
            while rn > 0 and rh[0] <= t:
                j = rhj[0]
                rn = _sa_remove(rh, rhj, rn, rh[0], j)
                hold[j] = max(expected_end(start[j], est_run[j], req[j], t, overrun), t + 1)
                rn = _sa_insert(rh, rhj, rn, hold[j], j)
                dirty = True
                thr = max(thr, hold[j])
            # ---- the plan
            if dirty:
                # compact the queue, reset the plan to the running holds
                c = 0
                for i in range(head, wn):
                    if state[w[i]] == WAITING:
                        w[c] = w[i]
                        c += 1
                wn = c
                head = 0
                first_new = 0
                if backfill == NONE:
                    # the range pool is append-only (kept plans still point into it): compact it
                    # now and then, keeping the ranges of waiting jobs and of the kept heap's jobs
                    if pn > 2 * live_last + 64:
                        q_first = np.empty(max(1024, pn), np.int64)
                        q_len = np.empty(max(1024, pn), np.int64)
                        qn = 0
                        for i in range(wn + hn):
                            j = w[i] if i < wn else hj[hb + i - wn]
                            if i >= wn and state[j] == WAITING:
                                continue
                            o = p_off[j]
                            p_off[j] = qn
                            for k in range(o, o + p_cnt[j]):
                                q_first[qn] = p_first[k]
                                q_len[qn] = p_len[k]
                                qn += 1
                        for k in range(qn):
                            p_first[k] = q_first[k]
                            p_len[k] = q_len[k]
                        pn = qn
                        live_last = qn
                    # keep the current plan aside, build the new one in the spare buffers
                    k_pool_n, k_lo, k_hn, k_prn, k_pri, k_last = pool_n, lo, hn, prn, pri, plan_last
                    pw, hb, rb = nw - pw, hcap - hb, cap_r - rb
                    for k in range(nw):
                        pool[pw + k] = freebits[k]
                    pool_n = m - busy_n
                    lo = 0
                    for k in range(rn):
                        pr_v[rb + k] = rh[k]
                        pr_j[rb + k] = rhj[k]
                    prn = rn
                    pri = 0
                    hn = 0
                    rebuilding = True
                    converged = False
                    thr_now = thr
                    thr = -1
                else:
                    pn = 0
                    iv_n[:] = 0
                    for i in range(rn):
                        j = rhj[i]
                        for k in range(set_off[j], set_off[j] + set_cnt[j]):
                            for x in range(o_first[k], o_first[k] + o_len[k]):
                                _iv_add(iv_s, iv_e, iv_n, x, start[j], hold[j])
                    iv_top = 1 if rn > 0 else 0  # a node holds one running job at most
                plan_last = t
                dirty = False
            # else: the kept plan holds; only the jobs that arrived now are placed
            # ---- placements. Arrays are swapped or grown only out here, between passes of the
            # loop below (which breaks out to ask for it): an array reassigned inside a loop costs
            # two reference-count calls per iteration, which were a third of the loop's time
            i0 = first_new
            while i0 < wn:
                act = 0
                for i in range(i0, wn):
                    j = w[i]
                    if state[j] != WAITING or (converged and ps[j] >= 0):
                        continue
                    need = nodes[j]
                    if cons is not None and iv_top == iv_s.shape[1]:
                        act = GROW
                        i0 = i
                        break
                    placed[j] += 1
                    d = max(est_wait[j], 1)
                    lb = t
                    if backfill == NONE and plan_last > lb:
                        lb = plan_last
                    # ---- earliest start s and node set
                    if backfill == NONE:
                        # holds ending by s free their nodes; s moves to the next hold end until
                        # enough nodes (pinned: all of its own nodes) are free
                        s = lb
                        while True:
                            while pri < prn and pr_v[rb + pri] <= s:
                                jj = pr_j[rb + pri]
                                pri += 1
                                for k in range(set_off[jj], set_off[jj] + set_cnt[jj]):
                                    _bits(pool, o_first[k], o_len[k], True, pw)
                                    lo = min(lo, o_first[k] >> 6)
                                pool_n += nodes[jj]
                            while hn > 0 and hv[hb] <= s:
                                jj = hj[hb]
                                hn = _hpop(hv, hj, hn, hb)
                                for k in range(p_off[jj], p_off[jj] + p_cnt[jj]):
                                    _bits(pool, p_first[k], p_len[k], True, pw)
                                    lo = min(lo, p_first[k] >> 6)
                                pool_n += nodes[jj]
                            if pinned[j]:
                                ok = True
                                for k in range(set_off[j], set_off[j] + set_cnt[j]):
                                    if not _all_set(pool, o_first[k], o_len[k], pw):
                                        ok = False
                                        break
                            else:
                                ok = pool_n >= need
                            if ok:
                                break
                            s = BIG
                            if pri < prn:
                                s = pr_v[rb + pri]
                            if hn > 0 and hv[hb] < s:
                                s = hv[hb]
                    else:
                        s = _cons_start(iv_s, iv_e, iv_n, fw, m, need, lb, d, pinned[j], o_first, o_len, set_off[j],
                                        set_cnt[j])
                    # ---- the node set: ranges into the plan pool and its fingerprint
                    off_old = p_off[j]
                    cnt_old = p_cnt[j]
                    p_off[j] = pn
                    h = np.uint64(0)
                    if pinned[j]:
                        for k in range(set_off[j], set_off[j] + set_cnt[j]):
                            p_first[pn] = o_first[k]
                            p_len[pn] = o_len[k]
                            pn += 1
                            h = _mix(h, o_first[k], o_len[k])
                        if backfill == NONE:
                            for k in range(p_off[j], pn):
                                _bits(pool, p_first[k], p_len[k], False, pw)
                    elif backfill == NONE:
                        pn, lo = _take_lowest(pool, need, p_first, p_len, pn, lo, pw)
                        for k in range(p_off[j], pn):
                            h = _mix(h, p_first[k], p_len[k])
                    else:
                        got = 0
                        x = 0
                        run_first = -1
                        while got < need:
                            ok = _iv_free(iv_s, iv_e, iv_n, x, s, s + d)
                            if ok:
                                if run_first < 0:
                                    run_first = x
                                got += 1
                            if run_first >= 0 and (not ok or got == need):
                                last = x if ok else x - 1
                                p_first[pn] = run_first
                                p_len[pn] = last - run_first + 1
                                pn += 1
                                h = _mix(h, run_first, last - run_first + 1)
                                run_first = -1
                            x += 1
                    p_cnt[j] = pn - p_off[j]
                    # ---- against the kept plan: an unchanged placement reuses its ranges; once one is
                    # unchanged and no differing hold lasts past its start, the rest of the kept plan
                    # is what the new one would be (same start, same pending holds): keep it
                    same = False
                    if rebuilding and ps[j] >= 0:
                        same = ps[j] == s and p_cnt[j] == cnt_old
                        if same:
                            for k in range(cnt_old):
                                if (p_first[off_old + k] != p_first[p_off[j] + k]
                                        or p_len[off_old + k] != p_len[p_off[j] + k]):
                                    same = False
                                    break
                        if same:
                            pn = p_off[j]
                            p_off[j] = off_old
                        else:
                            thr_now = max(thr_now, ps[j] + d, s + d)
                    # ---- its hold [s, s + d) on those nodes
                    if backfill == NONE:
                        pool_n -= need
                        hn = _hpush(hv, hj, hn, s + d, j, hb)
                    else:
                        for k in range(p_off[j], p_off[j] + p_cnt[j]):
                            for x in range(p_first[k], p_first[k] + p_len[k]):
                                _iv_add(iv_s, iv_e, iv_n, x, s, s + d)
                                iv_top = max(iv_top, iv_n[x])
                    # ---- prediction history
                    if ps[j] < 0:
                        first_plan[j] = s
                        last_set[j] = t
                        last_pair[j] = t
                    else:
                        if fp[j] != h:
                            changes[j] += 1
                            last_set[j] = t
                            last_pair[j] = t
                        elif ps[j] != s:
                            last_pair[j] = t
                    if rebuilding and ps[j] >= 0 and same and s >= thr_now:
                        converged = True
                        rebuilding = False
                        act = KEEP
                        i0 = i + 1
                        break
                    ps[j] = s
                    fp[j] = h
                    if backfill == NONE:
                        plan_last = s
                if act == KEEP:
                    pw, hb, rb = nw - pw, hcap - hb, cap_r - rb
                    pool_n, lo, hn, prn, pri, plan_last = k_pool_n, k_lo, k_hn, k_prn, k_pri, k_last
                elif act == GROW:
                    # conservative only (`cons`: compiled out of the `none` loop, whose placements
                    # then reassign no array)
                    if cons is not None:
                        iv_s = _grow2(iv_s)
                        iv_e = _grow2(iv_e)
                else:
                    break
            # ---- starts (planned at t) and pinning
            for i in range(head, wn):
                j = w[i]
                if state[j] != WAITING:
                    continue
                if ps[j] == t:
                    state[j] = RUNNING
                    start[j] = t
                    wlive -= 1
                    wait_r -= min(nodes[j], half)
                    t_node[j] = t - last_set[j]
                    t_strict[j] = t - last_pair[j]
                    if not pinned[j]:
                        on = _keep_planned_set(j, p_off, p_cnt, p_first, p_len, o_first, o_len, on, set_off,
                                               set_cnt)
                    # as the twin sees it at t (est_run 0: already reached, so extended at once)
                    h = max(expected_end(t, est_run[j], req[j], t, overrun), t + 1)
                    hold[j] = h
                    if h != t + max(est_wait[j], 1):
                        dirty = True
                        thr = max(thr, h, t + max(est_wait[j], 1))
                    for k in range(set_off[j], set_off[j] + set_cnt[j]):
                        _bits(freebits, o_first[k], o_len[k], False)
                    busy_n += nodes[j]
                    rn = _sa_insert(rh, rhj, rn, h, j)
                    en = _hpush(ev, ej, en, t + run[j], j)
                elif pin >= 0 and not pinned[j] and ps[j] <= t + pin:
                    pinned[j] = True
                    pinned_at[j] = t
                    on = _keep_planned_set(j, p_off, p_cnt, p_first, p_len, o_first, o_len, on, set_off,
                                           set_cnt)
                elif backfill == NONE and (pin < 0 or ps[j] > t + pin):
                    break  # fcfs: later jobs start and pin no earlier
        if not (nxt < n or rn > 0 or wlive > 0):
            break
        if pn + room > p_first.shape[0]:
            p_first = _grow(p_first, pn + room)
            p_len = _grow(p_len, pn + room)
        if on + room > o_first.shape[0]:
            o_first = _grow(o_first, on + room)
            o_len = _grow(o_len, on + room)
    return start, set_off, set_cnt, o_first[:on].copy(), o_len[:on].copy(), t_node, t_strict, changes, first_plan, pinned_at, placed


@jit(inline=True)
def _keep_planned_set(j, p_off, p_cnt, p_first, p_len, o_first, o_len, on, set_off, set_cnt):
    """Copy job j's planned node ranges into the kept sets (at its start or when
    it is pinned; the arrays have room); returns their new length."""
    set_off[j] = on
    for k in range(p_off[j], p_off[j] + p_cnt[j]):
        o_first[on] = p_first[k]
        o_len[on] = p_len[k]
        on += 1
    set_cnt[j] = p_cnt[j]
    return on


@jit
def _grow2(a):
    b = np.empty((a.shape[0], 2 * a.shape[1]), a.dtype)
    b[:, :a.shape[1]] = a
    return b


OUTPUTS = ("start", "set_off", "set_cnt", "range_first", "range_len", "t_node", "t_node_strict",
           "changes", "first_plan", "pinned_at", "placed")


def nodes_sim(submit, run, nodes, est_wait, est_run, req, m, backfill, overrun, pin):
    """Node-aware replay, fcfs queue order (outputs: OUTPUTS, documented in _loop). The
    `none` loop is compiled without the conservative intervals' growth (cons None)."""
    cons = np.zeros(1, np.int64) if backfill == CONSERVATIVE else None
    return _loop(submit, run, nodes, est_wait, est_run, req, m, backfill, overrun, pin, cons)


def run_nodes(submit, run, nodes, est_wait, est_run, req, m, backfill, overrun, pin):
    """nodes_sim with named outputs (dict of arrays)."""
    return dict(zip(OUTPUTS, nodes_sim(submit, run, nodes, est_wait, est_run, req, int(m), int(backfill),
                                       int(overrun), int(pin))))


def node_lists(out) -> list[list[int]]:
    """Each job's node set as a sorted list of node ids (tests, small runs)."""
    first, length = out["range_first"], out["range_len"]
    return [[x for k in range(o, o + c) for x in range(first[k], first[k] + length[k])]
            for o, c in zip(out["set_off"].tolist(), out["set_cnt"].tolist())]


def ranges_text(out) -> list[str]:
    """Each job's node set as compact text, e.g. "0-15,32,40-47"."""
    first, length = out["range_first"].tolist(), out["range_len"].tolist()
    texts = []
    for o, c in zip(out["set_off"].tolist(), out["set_cnt"].tolist()):
        texts.append(",".join(str(first[k]) if length[k] == 1 else f"{first[k]}-{first[k] + length[k] - 1}"
                              for k in range(o, o + c)))
    return texts
