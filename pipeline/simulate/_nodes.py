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
- Reference counting only where arrays are allocated: `_loop` allocates every array
  (its body is the glossary) and grows them; the event loop, `_replay`, and its phases
  are compiled without Numba's reference counting (`nrt=False`), so no array read from
  a record or bound to an inlined phase costs an atomic increment (split with the counts
  the loop was 7-9% slower than as one function; without them it takes 0.61-0.92 of that
  function's time: docs/speed.md, "Node-aware loops"). `_replay` returns to `_loop`
  when an array needs room: before an instant when the range pools lack room for it
  (each waiting job placed once, its set kept once), and in a conservative placement
  pass when the per-node interval table or the sweep's event buffer may lack room for
  the next job (resumed at that job); its scalars wait in `st`. The plan and the kept
  plan are two halves of one array each (an offset flips between them). Nothing under
  `_replay` allocates: conservative's sweep sorts its events with a radix sort into
  scratch `_loop` keeps.
- Node sets are kept as range lists (first node, length); a plan's set is
  compared with the previous one through a 64-bit fingerprint of its
  canonical range list for T_node (the twin compares sets exactly), and by
  its ranges for the early stop.
"""

from __future__ import annotations

from collections import namedtuple
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


@jit(nrt=False)
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


@jit(nrt=False)
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

@jit(nrt=False)
def _iv_free(iv_s, iv_e, iv_n, x, s, e):
    """Node x has no interval overlapping [s, e)."""
    for k in range(iv_n[x]):
        if iv_s[x, k] < e and iv_e[x, k] > s:
            return False
    return True


@jit(nrt=False)
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


@jit(nrt=False)
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


@jit(nrt=False)
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


@jit(nrt=False)
def _sort_keys(a, b, cnt, n):
    """Sort a[:n] ascending in place: insertion sort when short, else a least-significant-digit radix
    sort by 11-bit digits of a - min(a) through b[:n] (cnt: int64[2048]). Allocates nothing, so it runs
    without reference counting (np.sort copies)."""
    if n <= 32:
        for i in range(1, n):
            v = a[i]
            k = i
            while k > 0 and a[k - 1] > v:
                a[k] = a[k - 1]
                k -= 1
            a[k] = v
        return
    lo = a[0]
    hi = a[0]
    for i in range(1, n):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    span = hi - lo
    shift = 0
    flips = 0
    src = a
    dst = b
    while shift < 63 and (span >> shift) > 0:
        cnt[:] = 0
        for i in range(n):
            cnt[((src[i] - lo) >> shift) & 2047] += 1
        c = 0
        for d in range(2048):
            x = cnt[d]
            cnt[d] = c
            c += x
        for i in range(n):
            d = ((src[i] - lo) >> shift) & 2047
            dst[cnt[d]] = src[i]
            cnt[d] += 1
        src, dst = dst, src
        flips += 1
        shift += 11
    if flips & 1:
        for i in range(n):
            a[i] = b[i]


@jit(nrt=False)
def _kth(a, n, k):
    """The k-th smallest (from 0) of a[:n], which it reorders (np.partition's value, without its copy)."""
    lo = 0
    hi = n - 1
    while hi > lo:
        mid = (lo + hi) >> 1
        p = max(min(a[lo], a[mid]), min(max(a[lo], a[mid]), a[hi]))  # median of three
        i = lo
        j = hi
        while i <= j:
            while a[i] < p:
                i += 1
            while a[j] > p:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]
    return a[k]


@jit(nrt=False)
def _sweep(evs, evt, cnt, ne, need):
    """Earliest time at which `need` windows are open (windows open only at lb or an
    interval end: the candidate starts). BIG if never. Sorts evs[:ne] in place (evt, cnt: scratch)."""
    _sort_keys(evs, evt, cnt, ne)
    c = 0
    i = 0
    while i < ne:
        tm = evs[i] >> 1
        while i < ne and (evs[i] >> 1) == tm:
            c += 1 if evs[i] & 1 else -1
            i += 1
        if c >= need:
            return tm
    return BIG


@jit(nrt=False)
def _cons_start(iv_s, iv_e, iv_n, fw, fsel, evs, evt, cnt, m, need, lb, d, pin_j, o_first, o_len, so, sc):
    """conservative: the earliest candidate start (lb or an interval end after it) at which
    `need` nodes (pin_j: all of its own, o_*[so:so + sc]) are free over [s, s + d).

    Fast path: no start is before L, the need-th smallest of the nodes' first valid starts;
    if enough nodes are free at L, s = L. Otherwise one sweep over every node's windows of
    valid starts (instead of testing each candidate on each node). Allocates nothing (it runs
    without reference counting): fsel (m), evs and evt (2 intervals' worth + 1 per node, `_loop` grows
    them with the intervals) and cnt (2048) are scratch."""
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
            fsel[x] = fw[x]
        L = _kth(fsel, m, need - 1)
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
        ne = 0
        if pin_j:
            for k in range(so, so + sc):
                for x in range(o_first[k], o_first[k] + o_len[k]):
                    ne = _gap_events(iv_s, iv_e, iv_n, x, lb, d, evs, ne)
        else:
            for x in range(m):
                ne = _gap_events(iv_s, iv_e, iv_n, x, lb, d, evs, ne)
        s = _sweep(evs, evt, cnt, ne, need)
    return s


# ------------------------------------------------------------------ the replay
#
# _loop allocates every array (below: the glossary), then calls _replay, the event loop, compiled
# without reference counting; _replay returns when an array needs room (the range pools before an
# instant, conservative's interval table or event buffer during a placement pass), _loop grows it and
# calls again, and _replay goes on where it stopped: its scalars live in st between the calls.
# _replay's phases are inlined helpers (no call, no count: in a function compiled with reference
# counting, each array they bind would be counted); they take the arrays as records, since a call of
# more than 30 arguments is compiled as f(*args), which Numba cannot inline.

# The records (fields: the glossary in _loop): the inputs; per-job state, outputs and the queue; the kept node
# sets; the plan (none's bitset, heap and running-hold copy, both halves) and the range pools; the running
# jobs' ends and holds; conservative's per-node intervals and its sweep's scratch
Jobs = namedtuple("Jobs", "submit run nodes est_wait est_run req")
Track = namedtuple("Track", "w state hold ps fp last_set last_pair pinned start t_node t_strict changes first_plan "
                            "pinned_at placed")
Sets = namedtuple("Sets", "set_off set_cnt o_first o_len")
Plan = namedtuple("Plan", "p_off p_cnt p_first p_len q_first q_len freebits pool hv hj pr_v pr_j")
Running = namedtuple("Running", "ev ej rh rhj")
Cons = namedtuple("Cons", "iv_s iv_e iv_n fw fsel evs evt cnt")

# st[]: _replay's scalars between its calls (set by _loop, saved by _replay when it returns), each slot the
# variable of that name in lower case: T the instant; K_* the kept plan's while a new one is built (none);
# IV_TOP, IV_SUM the most intervals on one node and all of them (conservative); I0 the queue position a
# placement pass resumes at when RESUME is 1
(T, NXT, EN, RN, BUSY_N, ON, PN, WN, WLIVE, HEAD, DIRTY, PLAN_LAST, ROOM, WAIT_R, POOL_N, LO, HN, PRN, PRI, PW, HB,
 RB, K_POOL_N, K_LO, K_HN, K_PRN, K_PRI, K_LAST, LIVE_LAST, REBUILDING, CONVERGED, THR, THR_NOW, IV_TOP, IV_SUM,
 I0, RESUME, NSTATE) = range(38)
FINISHED, MORE_RANGES, MORE_INTERVALS = 0, 1, 2  # what _replay returns: done, or grow and call again


@jit
def _loop(submit, run, nodes, est_wait, est_run, req, m, backfill, overrun, pin):
    """Node-aware replay, fcfs queue order. Arrays int64 sorted by (submit, job id),
    1 <= nodes <= m; pin = pinning interval in s (-1: none).

    Returns (start, set_off, set_cnt, range_first, range_len, t_node, t_node_strict,
    changes, first_plan, pinned_at (-1: never pinned), placed): job j ran on nodes range_first[k] .. range_first[k] +
    range_len[k] - 1 for k in set_off[j] .. set_off[j] + set_cnt[j] - 1; placed[j] = how many
    times a plan placed it (the loop's work: the processor-count loop places a job once).

    The one function with reference counting: it allocates (the glossary of every array is here),
    runs _replay and grows what _replay asks for.
    """
    n = submit.shape[0]
    J = Jobs(submit, run, nodes, est_wait, est_run, req)
    T_ = Track(
        np.empty(n, np.int64),        # w: int64[n], the queue: jobs in arrival order, holes compacted lazily (none
                                      #   below st[HEAD] waits); first st[WN] live (_arrivals, _compact_queue)
        np.zeros(n, np.int64),        # state: int64[n], PENDING/WAITING/RUNNING/DONE (_arrivals, _starts, _ends)
        np.zeros(n, np.int64),        # hold: int64[n], the end a running job holds (_starts, _extend_holds)
        np.full(n, -1, np.int64),     # ps: int64[n], planned start of a waiting job, -1 before its first (_place_pass)
        np.zeros(n, np.uint64),       # fp: uint64[n], fingerprint of its planned set (_place_pass)
        np.zeros(n, np.int64),        # last_set: int64[n], when its planned set last changed (_place_pass)
        np.zeros(n, np.int64),        # last_pair: int64[n], when its (start, set) last changed (_place_pass)
        np.zeros(n, np.bool_),        # pinned: bool[n], its set is fixed (_starts)
        np.full(n, -1, np.int64),     # start: int64[n], output, -1 never started (_starts)
        np.zeros(n, np.int64),        # t_node: int64[n], output, start - last_set (_starts)
        np.zeros(n, np.int64),        # t_strict: int64[n], output, start - last_pair (_starts)
        np.zeros(n, np.int64),        # changes: int64[n], output, planned-set changes (_place_pass)
        np.full(n, -1, np.int64),     # first_plan: int64[n], output, first planned start (_place_pass)
        np.full(n, -1, np.int64),     # pinned_at: int64[n], output, when pinned, -1 never (_starts)
        np.zeros(n, np.int64))        # placed: int64[n], output, times a plan placed it (_place_pass)
    set_off = np.full(n, -1, np.int64)  # set_off, set_cnt: int64[n], a started (or pinned) job's ranges in
    set_cnt = np.zeros(n, np.int64)     #   o_first/o_len (_keep_planned_set, from _starts)
    o_first = np.empty(1024, np.int64)  # o_first, o_len: int64[grown], the kept sets' append-only range pool,
    o_len = np.empty(1024, np.int64)    #   first st[ON] used (_keep_planned_set); grown here
    p_off = np.zeros(n, np.int64)       # p_off, p_cnt: int64[n], a waiting job's planned ranges in p_first/p_len
    p_cnt = np.zeros(n, np.int64)       #   (_place_pass; p_off moved by _reset_none's compaction)
    p_first = np.empty(1024, np.int64)  # p_first, p_len: int64[grown], the plans' range pool, first st[PN] used
    p_len = np.empty(1024, np.int64)    #   (_place_pass; compacted by _reset_none); grown here
    q_first = np.empty(1024, np.int64)  # q_first, q_len: int64[len(p_first)], scratch of _reset_none's compaction;
    q_len = np.empty(1024, np.int64)    #   grown here with p_first
    nw = (m + 63) >> 6
    hcap = m + n + 2
    cap_r = min(n, m) + 1
    freebits = np.zeros(nw, np.uint64)  # freebits: uint64[ceil(m / 64)], nodes no running job holds (_ends, _starts)
    _bits(freebits, 0, m, True)
    # Two of each of the next three: the plan's at st[PW] (words), st[HB], st[RB] and the kept plan's in the
    # other half while a new one is built (flipped back when the new one converges; _reset_none, _place_pass)
    pool = np.zeros(2 * nw, np.uint64)  # pool: uint64[2 nw], none: nodes free in the plan at the current start
    hv = np.empty(2 * hcap, np.int64)   # hv, hj: int64[2 (m + n + 2)], none: min-heap of the planned holds
    hj = np.empty(2 * hcap, np.int64)   #   not yet reached, (end, job)
    pr_v = np.empty(2 * cap_r, np.int64)  # pr_v, pr_j: int64[2 (min(n, m) + 1)], none: the running holds, sorted,
    pr_j = np.empty(2 * cap_r, np.int64)  #   not yet reached from st[PRI] on (a copy of rh/rhj)
    ev = np.empty(cap_r, np.int64)      # ev, ej: int64[min(n, m) + 1], min-heap of the running jobs' actual ends
    ej = np.empty(cap_r, np.int64)      #   (event times), st[EN] used (_starts, _ends)
    rh = np.empty(cap_r, np.int64)      # rh, rhj: int64[min(n, m) + 1], the running jobs' holds, sorted, st[RN]
    rhj = np.empty(cap_r, np.int64)     #   used (_starts, _ends, _extend_holds)
    # conservative: per-node intervals (capacity grown on demand); `none` gets the smallest arrays
    cm = m if backfill == CONSERVATIVE else 1
    icap = 4 if backfill == CONSERVATIVE else 1
    iv_s = np.empty((cm, icap), np.int64)  # iv_s, iv_e: int64[m, grown], each node's busy intervals (running hold,
    iv_e = np.empty_like(iv_s)             #   planned holds) sorted by start (_reset_cons, _place_pass); grown here
    iv_n = np.zeros(cm, np.int64)          # iv_n: int64[m], intervals per node (same writers)
    fw = np.empty(cm, np.int64)            # fw, fsel: int64[m], scratch of _cons_start: each node's first window,
    fsel = np.empty(cm, np.int64)          #   and its copy for the selection
    evs = np.empty(4 * cm, np.int64)  # evs, evt: int64[>= 2 st[IV_SUM] + m], _cons_start's sweep events (at most two
    evt = np.empty_like(evs)          #   per interval and one per node) and the radix sort's other buffer; grown here
    cnt = np.empty(2048 if backfill == CONSERVATIVE else 1, np.int64)  # cnt: int64[2048], the radix sort's counts
    st = np.zeros(NSTATE, np.int64)        # st: int64[NSTATE], _replay's scalars between calls (_replay)
    st[T] = -1
    st[DIRTY] = 1
    st[PLAN_LAST] = -1  # planned start of the last job in the kept plan (none)
    st[THR] = BIG       # holds that differ from the kept plan's end by then (BIG: no kept plan)
    st[THR_NOW] = BIG
    while True:
        S = Sets(set_off, set_cnt, o_first, o_len)
        P = Plan(p_off, p_cnt, p_first, p_len, q_first, q_len, freebits, pool, hv, hj, pr_v, pr_j)
        R = Running(ev, ej, rh, rhj)
        C = Cons(iv_s, iv_e, iv_n, fw, fsel, evs, evt, cnt)
        code = _replay(J, T_, S, P, R, C, st, m, backfill, overrun, pin)
        if code == FINISHED:
            break
        if code == MORE_RANGES:
            if st[PN] + st[ROOM] > p_first.shape[0]:
                p_first = _grow(p_first, st[PN] + st[ROOM])
                p_len = _grow(p_len, st[PN] + st[ROOM])
                q_first = np.empty(p_first.shape[0], np.int64)
                q_len = np.empty(p_first.shape[0], np.int64)
            if st[ON] + st[ROOM] > o_first.shape[0]:
                o_first = _grow(o_first, st[ON] + st[ROOM])
                o_len = _grow(o_len, st[ON] + st[ROOM])
        else:
            if st[IV_TOP] == iv_s.shape[1]:
                iv_s = _grow2(iv_s)
                iv_e = _grow2(iv_e)
            if 2 * st[IV_SUM] + cm > evs.shape[0]:
                evs = np.empty(max(2 * evs.shape[0], 2 * st[IV_SUM] + cm), np.int64)
                evt = np.empty_like(evs)
    on = st[ON]
    return (T_.start, set_off, set_cnt, o_first[:on].copy(), o_len[:on].copy(), T_.t_node, T_.t_strict, T_.changes,
            T_.first_plan, T_.pinned_at, T_.placed)


@jit(nrt=False)
def _replay(J, T_, S, P, R, C, st, m, backfill, overrun, pin):
    """The event loop, from st's state: instants (ends, arrivals, held ends moved, the plan rebuilt when
    it stopped matching reality, placements, starts and pinning) until every job ended (FINISHED), or
    until an array needs room: before an instant the range pools (room for each waiting job placed once
    and its set kept once: MORE_RANGES), during conservative placements the interval table or the
    sweep's event buffer (MORE_INTERVALS; resumed at the job it stopped at). Its scalars are saved in st
    either way."""
    n = J.submit.shape[0]
    half = (m + 1) // 2  # most ranges a node set can have
    t, nxt, en, rn, busy_n, on, pn = st[T], st[NXT], st[EN], st[RN], st[BUSY_N], st[ON], st[PN]
    wn, wlive, head, plan_last, room, wait_r = st[WN], st[WLIVE], st[HEAD], st[PLAN_LAST], st[ROOM], st[WAIT_R]
    pool_n, lo, hn, prn, pri, pw, hb, rb = st[POOL_N], st[LO], st[HN], st[PRN], st[PRI], st[PW], st[HB], st[RB]
    thr, thr_now, iv_top, iv_sum, i0 = st[THR], st[THR_NOW], st[IV_TOP], st[IV_SUM], st[I0]
    dirty, rebuilding, converged = st[DIRTY] != 0, st[REBUILDING] != 0, st[CONVERGED] != 0
    resume = st[RESUME] != 0
    code = FINISHED
    while nxt < n or rn > 0 or wlive > 0:
        if resume:
            resume = False  # back in the placement pass that asked for room
        else:
            # ---- next instant; first, room for the ranges it can add (each waiting job placed
            # once, its set kept once), else out to grow the range arrays
            t_new = J.submit[nxt] if nxt < n else BIG
            if en > 0 and R.ev[0] < t_new:
                t_new = R.ev[0]
            room = wait_r
            k = nxt
            while k < n and J.submit[k] == t_new:
                room += min(J.nodes[k], half)
                k += 1
            if pn + room > P.p_first.shape[0] or on + room > S.o_first.shape[0]:
                code = MORE_RANGES
                break
            t = t_new
            head, dirty, thr = _check_kept(T_, t, backfill, head, wn, dirty, thr)
            en, rn, busy_n, dirty, thr = _ends(J, T_, S, R, P.freebits, t, en, rn, busy_n, dirty, thr)
            first_new = wn
            nxt, wn, wlive, wait_r = _arrivals(J, T_, t, half, nxt, wn, wlive, wait_r)
            rn, dirty, thr = _extend_holds(J, T_, R, t, overrun, rn, dirty, thr)
            if dirty:
                wn = _compact_queue(T_, head, wn)
                head = 0
                first_new = 0
                if backfill == NONE:
                    pn, pw, hb, rb, pool_n, lo, hn, prn, pri, thr_now, thr = _reset_none(
                        T_, P, R, st, m, wn, pn, pw, hb, rb, pool_n, lo, hn, prn, pri, plan_last, busy_n, rn, thr)
                    rebuilding = True
                    converged = False
                else:
                    pn, iv_top, iv_sum = _reset_cons(T_, S, R, C, rn)
                plan_last = t
                dirty = False
            # else: the kept plan holds; only the jobs that arrived now are placed
            i0 = first_new
        (act, i0, pn, lo, hn, prn, pri, pw, hb, rb, pool_n, plan_last, thr_now, iv_top, iv_sum, rebuilding,
         converged) = _place_pass(J, T_, S, P, C, st, t, m, backfill, i0, wn, pn, lo, hn, prn, pri, pw, hb, rb,
                                  pool_n, plan_last, thr_now, iv_top, iv_sum, rebuilding, converged)
        if act == GROW:
            code = MORE_INTERVALS
            break
        on, wlive, wait_r, busy_n, rn, en, dirty, thr = _starts(J, T_, S, P, R, t, overrun, backfill, pin, half,
                                                                head, wn, on, wlive, wait_r, busy_n, rn, en,
                                                                dirty, thr)
    st[T], st[NXT], st[EN], st[RN], st[BUSY_N], st[ON], st[PN] = t, nxt, en, rn, busy_n, on, pn
    st[WN], st[WLIVE], st[HEAD], st[PLAN_LAST], st[ROOM], st[WAIT_R] = wn, wlive, head, plan_last, room, wait_r
    st[POOL_N], st[LO], st[HN], st[PRN], st[PRI], st[PW], st[HB], st[RB] = pool_n, lo, hn, prn, pri, pw, hb, rb
    st[THR], st[THR_NOW], st[IV_TOP], st[IV_SUM], st[I0] = thr, thr_now, iv_top, iv_sum, i0
    st[DIRTY], st[REBUILDING], st[CONVERGED] = dirty, rebuilding, converged
    st[RESUME] = code == MORE_INTERVALS
    return code


@jit(inline=True, nrt=False)
def _check_kept(T_, t, backfill, head, wn, dirty, thr):
    """A kept plan never has a planned start in the past (every planned start is an end or an
    arrival, or the hold that set it moved): checked, not assumed. Moves head past jobs no longer
    waiting. Returns (head, dirty, thr)."""
    w, state, ps = T_.w, T_.state, T_.ps
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
    return head, dirty, thr


@jit(inline=True, nrt=False)
def _ends(J, T_, S, R, freebits, t, en, rn, busy_n, dirty, thr):
    """Jobs ending at t free their nodes; an end off its held end makes the plan dirty.
    Returns (en, rn, busy_n, dirty, thr)."""
    ev, ej, rh, rhj = R.ev, R.ej, R.rh, R.rhj
    set_off, set_cnt, o_first, o_len = S.set_off, S.set_cnt, S.o_first, S.o_len
    hold, state = T_.hold, T_.state
    while en > 0 and ev[0] <= t:
        j = ej[0]
        en = _hpop(ev, ej, en)
        for k in range(set_off[j], set_off[j] + set_cnt[j]):
            _bits(freebits, o_first[k], o_len[k], True)
        busy_n -= J.nodes[j]
        if hold[j] != t:
            dirty = True
            thr = max(thr, hold[j], t)
        state[j] = DONE
        rn = _sa_remove(rh, rhj, rn, hold[j], j)
    return en, rn, busy_n, dirty, thr


@jit(inline=True, nrt=False)
def _arrivals(J, T_, t, half, nxt, wn, wlive, wait_r):
    """Jobs submitted at t join the queue. Returns (nxt, wn, wlive, wait_r)."""
    submit, nodes, state, w = J.submit, J.nodes, T_.state, T_.w
    n = submit.shape[0]
    while nxt < n and submit[nxt] == t:
        state[nxt] = WAITING
        w[wn] = nxt
        wn += 1
        wlive += 1
        wait_r += min(nodes[nxt], half)
        nxt += 1
    return nxt, wn, wlive, wait_r


@jit(inline=True, nrt=False)
def _extend_holds(J, T_, R, t, overrun, rn, dirty, thr):
    """Running holds reached at t move (overrun extension); later ones cannot. Returns (rn, dirty, thr)."""
    rh, rhj, hold, start = R.rh, R.rhj, T_.hold, T_.start
    while rn > 0 and rh[0] <= t:
        j = rhj[0]
        rn = _sa_remove(rh, rhj, rn, rh[0], j)
        hold[j] = max(expected_end(start[j], J.est_run[j], J.req[j], t, overrun), t + 1)
        rn = _sa_insert(rh, rhj, rn, hold[j], j)
        dirty = True
        thr = max(thr, hold[j])
    return rn, dirty, thr


@jit(inline=True, nrt=False)
def _compact_queue(T_, head, wn):
    """Drop the jobs no longer waiting from the queue (order kept); returns its new length."""
    w, state = T_.w, T_.state
    c = 0
    for i in range(head, wn):
        if state[w[i]] == WAITING:
            w[c] = w[i]
            c += 1
    return c


@jit(inline=True, nrt=False)
def _reset_none(T_, P, R, st, m, wn, pn, pw, hb, rb, pool_n, lo, hn, prn, pri, plan_last, busy_n, rn, thr):
    """none, a plan to rebuild: keep the current plan aside (its scalars in st[K_*], its arrays in
    their halves) and start the new one in the other halves from the running holds. The range pool
    is append-only (kept plans still point into it): compact it now and then, keeping the ranges of
    waiting jobs and of the kept heap's jobs. Returns (pn, pw, hb, rb, pool_n, lo, hn, prn, pri,
    thr_now, thr)."""
    w, state = T_.w, T_.state
    p_off, p_cnt, p_first, p_len, q_first, q_len = P.p_off, P.p_cnt, P.p_first, P.p_len, P.q_first, P.q_len
    hj, pool, freebits, pr_v, pr_j = P.hj, P.pool, P.freebits, P.pr_v, P.pr_j
    nw = freebits.shape[0]
    hcap = P.hv.shape[0] >> 1
    cap_r = R.rh.shape[0]
    live_last = st[LIVE_LAST]
    if pn > 2 * live_last + 64:
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
        st[LIVE_LAST] = qn
    # keep the current plan aside, build the new one in the spare buffers
    st[K_POOL_N], st[K_LO], st[K_HN], st[K_PRN], st[K_PRI], st[K_LAST] = pool_n, lo, hn, prn, pri, plan_last
    pw, hb, rb = nw - pw, hcap - hb, cap_r - rb
    for k in range(nw):
        pool[pw + k] = freebits[k]
    pool_n = m - busy_n
    lo = 0
    for k in range(rn):
        pr_v[rb + k] = R.rh[k]
        pr_j[rb + k] = R.rhj[k]
    prn = rn
    pri = 0
    hn = 0
    return pn, pw, hb, rb, pool_n, lo, hn, prn, pri, thr, -1


@jit(inline=True, nrt=False)
def _reset_cons(T_, S, R, C, rn):
    """conservative, a plan to rebuild: the intervals are the running holds alone (a node holds
    one running job at most). Returns (pn, iv_top, iv_sum): the range pool restarts empty."""
    iv_s, iv_e, iv_n = C.iv_s, C.iv_e, C.iv_n
    set_off, set_cnt, o_first, o_len = S.set_off, S.set_cnt, S.o_first, S.o_len
    iv_n[:] = 0
    iv_sum = 0
    for i in range(rn):
        j = R.rhj[i]
        for k in range(set_off[j], set_off[j] + set_cnt[j]):
            for x in range(o_first[k], o_first[k] + o_len[k]):
                _iv_add(iv_s, iv_e, iv_n, x, T_.start[j], T_.hold[j])
                iv_sum += 1
    return 0, (1 if rn > 0 else 0), iv_sum


@jit(inline=True, nrt=False)
def _place_pass(J, T_, S, P, C, st, t, m, backfill, i0, wn, pn, lo, hn, prn, pri, pw, hb, rb, pool_n, plan_last,
                thr_now, iv_top, iv_sum, rebuilding, converged):
    """Place the waiting jobs from queue position i0 on (the new ones only when the kept plan
    holds): each job's earliest start and node set, against the kept plan, its hold, its
    prediction history. When a rebuilt plan meets the kept one (KEEP) the kept plan comes back and
    the pass goes on with the new jobs; when conservative's interval table (or its sweep's event
    buffer) may lack room for the next job it stops at that job (act GROW; i0 is where to resume).
    Returns (act, i0, pn, lo, hn, prn, pri, pw, hb, rb, pool_n, plan_last, thr_now, iv_top, iv_sum,
    rebuilding, converged)."""
    nodes, est_wait = J.nodes, J.est_wait
    w, state, ps, fp, pinned, placed = T_.w, T_.state, T_.ps, T_.fp, T_.pinned, T_.placed
    first_plan, last_set, last_pair, changes = T_.first_plan, T_.last_set, T_.last_pair, T_.changes
    set_off, set_cnt, o_first, o_len = S.set_off, S.set_cnt, S.o_first, S.o_len
    p_off, p_cnt, p_first, p_len = P.p_off, P.p_cnt, P.p_first, P.p_len
    pool, hv, hj, pr_v, pr_j = P.pool, P.hv, P.hj, P.pr_v, P.pr_j
    iv_s, iv_e, iv_n = C.iv_s, C.iv_e, C.iv_n
    nw = P.freebits.shape[0]
    hcap = hv.shape[0] >> 1
    cap_r = pr_v.shape[0] >> 1
    act = 0
    while i0 < wn:
        act = 0
        for i in range(i0, wn):
            j = w[i]
            if state[j] != WAITING or (converged and ps[j] >= 0):
                continue
            need = nodes[j]
            if backfill != NONE and (iv_top == iv_s.shape[1] or 2 * iv_sum + m > C.evs.shape[0]):
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
                s = _cons_start(iv_s, iv_e, iv_n, C.fw, C.fsel, C.evs, C.evt, C.cnt, m, need, lb, d, pinned[j],
                                o_first, o_len, set_off[j], set_cnt[j])
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
                        iv_sum += 1
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
            pool_n, lo, hn, prn, pri, plan_last = st[K_POOL_N], st[K_LO], st[K_HN], st[K_PRN], st[K_PRI], st[K_LAST]
        else:
            break  # the pass is done, or out to grow the intervals
    return act, i0, pn, lo, hn, prn, pri, pw, hb, rb, pool_n, plan_last, thr_now, iv_top, iv_sum, rebuilding, converged


@jit(inline=True, nrt=False)
def _starts(J, T_, S, P, R, t, overrun, backfill, pin, half, head, wn, on, wlive, wait_r, busy_n, rn, en, dirty, thr):
    """Jobs planned at t start (their sets kept, their holds and ends recorded); the others
    planned within the pinning interval are pinned. Returns (on, wlive, wait_r, busy_n, rn, en,
    dirty, thr)."""
    nodes, run, est_wait, est_run, req = J.nodes, J.run, J.est_wait, J.est_run, J.req
    w, state, ps, pinned, pinned_at, hold = T_.w, T_.state, T_.ps, T_.pinned, T_.pinned_at, T_.hold
    start, t_node, t_strict, last_set, last_pair = T_.start, T_.t_node, T_.t_strict, T_.last_set, T_.last_pair
    set_off, set_cnt, o_first, o_len = S.set_off, S.set_cnt, S.o_first, S.o_len
    p_off, p_cnt, p_first, p_len, freebits = P.p_off, P.p_cnt, P.p_first, P.p_len, P.freebits
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
                on = _keep_planned_set(j, p_off, p_cnt, p_first, p_len, o_first, o_len, on, set_off, set_cnt)
            # as the twin sees it at t (est_run 0: already reached, so extended at once)
            h = max(expected_end(t, est_run[j], req[j], t, overrun), t + 1)
            hold[j] = h
            if h != t + max(est_wait[j], 1):
                dirty = True
                thr = max(thr, h, t + max(est_wait[j], 1))
            for k in range(set_off[j], set_off[j] + set_cnt[j]):
                _bits(freebits, o_first[k], o_len[k], False)
            busy_n += nodes[j]
            rn = _sa_insert(R.rh, R.rhj, rn, h, j)
            en = _hpush(R.ev, R.ej, en, t + run[j], j)
        elif pin >= 0 and not pinned[j] and ps[j] <= t + pin:
            pinned[j] = True
            pinned_at[j] = t
            on = _keep_planned_set(j, p_off, p_cnt, p_first, p_len, o_first, o_len, on, set_off, set_cnt)
        elif backfill == NONE and (pin < 0 or ps[j] > t + pin):
            break  # fcfs: later jobs start and pin no earlier
    return on, wlive, wait_r, busy_n, rn, en, dirty, thr


@jit(inline=True, nrt=False)
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
    """Node-aware replay, fcfs queue order (outputs: OUTPUTS, documented in _loop)."""
    return _loop(submit, run, nodes, est_wait, est_run, req, m, backfill, overrun, pin)


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
