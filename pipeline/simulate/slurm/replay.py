"""A trace's jobs as the Slurm-shaped kernel's arrays, and the replay itself (docs/slurm-replay.md).

Why a module apart from the kernel: what a job asked for is read from the log's columns (ReqCPUS, NNodes,
ReqMem, ReqTRES gres/gpu, held CPUs beyond the request meaning ``--exclusive``) and the site's configuration
(partitions, associations, priority weights); the rules that turn one into the other, and the notes on what
had to be assumed, live here, and the kernel sees only clean arrays.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass, field

import numpy as np

from ... import sqlfiles
from ...errors import WalltimeError, quote
from ...ingest.slurm_cluster import job_size_factor


SITE_MODEL = ("a model of the site's Slurm (its slurm.conf: nodes, partitions, GPUs, multifactor priority with "
              "fair-share, main and backfill passes)")


@dataclass
class SlurmInputs:
    """The cluster model and each job's request, aligned with the loop's Inputs (same order)."""

    cluster: object  # ingest.slurm_cluster.SlurmCluster
    arrays: dict[str, np.ndarray]  # the kernel's job arrays except elig, run and limit (from Inputs); part and
    # base are each job's where it ran, rpart/rbase/rjob the kernel's queue records (one per partition it may use)
    assoc: tuple[np.ndarray, np.ndarray, np.ndarray]  # parent, shares, user: the cluster's plus inferred leaves
    notes: list[str] = field(default_factory=list)
    digest: str = ""  # the configuration texts' hash: a changed slurm.conf is a new run
    model: str = SITE_MODEL  # the replay in words (the calibration's sentence)


def _ceil_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return -(-a // b)


def _partition_index(names: list, cluster, notes: list[str]) -> np.ndarray:
    """Each job's partition: the one it ran in; of a list (``batch,small``, pending jobs) the first the
    configuration knows; unknown ones go to the default partition (counted in a note)."""
    known = {p: i for i, p in enumerate(cluster.partitions)}
    out = np.empty(len(names), np.int64)
    unknown: dict[str, int] = {}
    for i, name in enumerate(names):
        idx = next((known[p] for p in str(name or "").split(",") if p in known), -1)
        if idx < 0:
            label = "(none)" if name is None else quote(name)  # a log's text: escaped for the terminal
            unknown[label] = unknown.get(label, 0) + 1
            if cluster.default_partition < 0:
                raise WalltimeError(f"the trace's partition \"{quote(name)}\" is not in slurm.conf, which has no Default=YES "
                                    f"partition (partitions: {', '.join(cluster.partitions)})")
            idx = cluster.default_partition
        out[i] = idx
    if unknown:
        listed = ", ".join(f"{k} ({v:,} jobs)" for k, v in sorted(unknown.items()))
        notes.append(f"jobs in partitions slurm.conf does not name were replayed in the default partition "
                     f"{cluster.partitions[cluster.default_partition]}: {listed}")
    return out


def _associations(users: list, accounts: list, cluster, notes: list[str]):
    """Each job's user association; a user the association dump lacks (or every user, without a dump)
    gets an inferred leaf of 1 share under its account (an inferred account of 1 share under the root)."""
    parent = list(cluster.assoc_parent)
    shares = list(cluster.assoc_shares)
    is_user = list(cluster.assoc_user)
    names = list(cluster.assoc_name)
    acct = list(cluster.assoc_account)
    leaf = {(names[a], acct[a]): a for a in range(len(parent)) if is_user[a]}
    account_of = {acct[a]: a for a in range(len(parent)) if not is_user[a]}
    if not parent:  # no dump: a root
        parent, shares, is_user, names, acct = [-1], [1], [False], ["root"], ["root"]
        account_of = {"root": 0}
    added = 0
    out = np.empty(len(users), np.int64)
    for i, (u, a) in enumerate(zip(users, accounts)):
        key = (str(u), str(a))
        if key not in leaf:
            if str(a) not in account_of:
                parent.append(0)
                shares.append(1)
                is_user.append(False)
                names.append(str(a))
                acct.append(str(a))
                account_of[str(a)] = len(parent) - 1
            parent.append(account_of[str(a)])
            shares.append(1)
            is_user.append(True)
            names.append(str(u))
            acct.append(str(a))
            leaf[key] = len(parent) - 1
            added += 1
        out[i] = leaf[key]
    if added and cluster.priority.multifactor and cluster.priority.w_fairshare > 0:
        notes.append(f"{added} user association(s) inferred with 1 share each (not in the association dump"
                     + ("" if len(cluster.assoc_parent) else "; give ingest --assoc") + ")")
    return out, (np.array(parent, np.int64), np.array(shares, np.int64), np.array(is_user, np.bool_))


def _qos_factor(names: list, qos: dict[str, int] | None, notes: list[str]) -> np.ndarray:
    """Each job's QOS factor: its QOS's Priority over the largest (``sacctmgr show qos``); 0 without the dump."""
    if not qos or max(qos.values()) == 0:
        if any(n not in (None, "normal") for n in names) and not qos:
            notes.append("not modelled: QOS priority (give ingest --qos with `sacctmgr show qos -P "
                         "format=Name,Priority` output)")
        return np.zeros(len(names))
    top = max(qos.values())
    missing = sorted({quote(n) for n in names if n not in qos})
    if missing:
        notes.append(f"QOS not in the QOS dump, taken as priority 0: {', '.join(missing)}")
    return np.array([qos.get(n, 0) / top for n in names], np.float64)


def _preemption(names: list, qos: dict[str, int] | None, rules: dict, cluster, notes: list[str]) -> dict:
    """The kernel's QOS preemption arrays (docs/slurm-replay.md "Preemption"): each job's QOS (jq); of QOS a and
    b whether a preempts b (q_pre), b's mode (q_mode: 0 never, 1 CANCEL, 2 REQUEUE; CLUSTER is slurm.conf's
    PreemptMode), b's order among victims (q_rank: its Priority, as preempt/qos's _gen_job_prio), a's place
    ahead of the queue (q_level: the longest chain of QOS it preempts)."""
    pre = cluster.preemption
    if not pre.by_qos or not rules:
        if pre.by_qos:
            notes.append("not modelled: QOS preemption (PreemptType=preempt/qos; give ingest --qos with `sacctmgr "
                         "show qos -P format=Name,Priority,Preempt,PreemptMode` output)")
        return {"jq": np.zeros(len(names), np.int64), "q_pre": np.zeros((1, 1), np.bool_),
                "q_mode": np.zeros(1, np.int64), "q_rank": np.zeros(1, np.int64), "q_level": np.zeros(1, np.int64),
                "requeue_delay": pre.requeue_delay}
    known = list(rules) + sorted({str(n) for n in names if str(n) not in rules})
    at = {q: i for i, q in enumerate(known)}
    nq = len(known)
    q_pre = np.zeros((nq, nq), np.bool_)
    for a, (victims, _) in rules.items():
        for b in victims:
            if b in at:
                q_pre[at[a], at[b]] = True
    codes = {"CANCEL": 1, "REQUEUE": 2}
    modes = [rules.get(q, ((), "CLUSTER"))[1] for q in known]
    modes = [pre.mode if m == "CLUSTER" else m for m in modes]
    q_mode = np.array([codes.get(m, 0) for m in modes], np.int64)
    if any(q_pre[:, i].any() and m == "SUSPEND" for i, m in enumerate(modes)):
        notes.append("not modelled: PreemptMode SUSPEND of a QOS (its jobs are never preempted in the replay)")
    level: dict[int, int] = {}

    def depth(a: int) -> int:  # (read_qos_preemption refuses loops)
        if a not in level:
            level[a] = 1 + max((depth(b) for b in np.flatnonzero(q_pre[a])), default=-1)
        return level[a]
    q_level = np.array([depth(a) for a in range(nq)], np.int64)
    q_rank = np.array([min((qos or {}).get(q, 0), 0xFFFF) for q in known], np.int64)
    return {"jq": np.array([at[str(n)] for n in names], np.int64), "q_pre": q_pre, "q_mode": q_mode,
            "q_rank": q_rank, "q_level": q_level, "requeue_delay": pre.requeue_delay}


def slurm_inputs(con, trace: str, job_id: np.ndarray, cluster, texts: str,
                 qos: dict[str, int] | None = None, qos_rules: dict | None = None) -> SlurmInputs:
    """Read each job's request (sql/slurm_replay_jobs.sql) in the order of ``job_id`` and map it onto
    ``cluster``. Jobs asking more than any node set of their partition holds are shrunk to the largest
    that fits, and counted in a note."""
    with warnings.catch_warnings():  # (one copy of a few columns: as inputs.load_inputs)
        warnings.simplefilter("ignore", UserWarning)
        tab = con.execute(sqlfiles.load("slurm_replay_jobs"), [trace]).to_arrow_table()
    ids = tab.column("job_id").to_numpy()
    order = np.argsort(ids, kind="stable")
    pos = order[np.searchsorted(ids[order], job_id)]
    col = {name: tab.column(name).to_numpy(zero_copy_only=False)[pos] for name in tab.column_names}
    notes: list[str] = []
    part = _partition_index(list(col["partition"]), cluster, notes)
    pn = cluster.part_nodes  # [Q, K]
    n = len(job_id)
    nn = np.maximum(col["nodes"].astype(np.int64), 1)
    cpus = np.maximum(col["cpus"].astype(np.int64), 1)
    cpn = _ceil_div(cpus, nn)
    tpu_part = np.array([cluster.node_tpu[pn[q]].max() for q in range(len(cluster.partitions))], np.int64)
    tpu = tpu_part[part]
    held_pn = _ceil_div(np.maximum(col["held_cpus"].astype(np.int64), 1), nn)
    excl = (held_pn > _ceil_div(cpn, tpu) * tpu) | (col["gpus"].astype(np.int64) > col["req_gpus"].astype(np.int64))
    mem = (np.ceil(col["mem_mb"].astype(np.float64) / nn).astype(np.int64) if cluster.mem_consumable
           else np.zeros(n, np.int64))
    gpn = _ceil_div(col["req_gpus"].astype(np.int64), nn)
    nn, cpn, mem, gpn = _fit(cluster, part, nn, cpn, mem, gpn, excl, notes)
    nn, cpn, mem, gpn, more = _node_ranges(cluster, part, col, cpus, excl, nn, cpn, mem, gpn, notes,
                                           _submit_lines(con, trace))
    assoc, tree = _associations(list(col["user"]), list(col["account"]), cluster, notes)
    w = cluster.priority
    size = job_size_factor(nn, np.minimum(cpus, cpn * nn), cluster.total_nodes, cluster.total_cpus, w.favor_small)
    pfac = cluster.part_factor.astype(np.float64)
    part_term = pfac[part] / pfac.max() if pfac.max() > 0 else np.zeros(n)
    static = w.w_job_size * size + w.w_qos * _qos_factor(list(col["qos"]), qos, notes)
    base = static + w.w_partition * part_term
    rjob, rpart = _records(cluster, part, list(col.get("req_partitions", [None] * n)), nn, cpn, mem, gpn, excl,
                           notes)
    rterm = pfac[rpart] / pfac.max() if pfac.max() > 0 else np.zeros(len(rpart))
    arrays = {"part": part, "nn": nn, "cpn": cpn, "mem": mem, "gpn": gpn, "excl": excl, "assoc": assoc,
              "base": base.astype(np.float64), "rjob": rjob, "rpart": rpart,
              "juser": np.unique(np.array([str(u) for u in col["user"]]), return_inverse=True)[1].astype(np.int64),
              "rbase": (static[rjob] + w.w_partition * rterm).astype(np.float64), **more,
              **_preemption(list(col["qos"]), qos, qos_rules or {}, cluster, notes)}
    if cluster.preemption.by_qos and qos_rules:  # a preempted job is submitted when it first was
        first = col["first_release"]
        arrays["first_release"] = np.array([-1 if f is None or f != f else int(f) for f in first], np.int64)
    digest = hashlib.sha256(texts.encode()).hexdigest()
    return SlurmInputs(cluster, arrays, tree, notes + list(cluster.notes), digest)


def _nulls(values) -> np.ndarray:
    """A nullable integer column as int64, -1 where NULL."""
    out = np.full(len(values), -1, np.int64)
    for i, v in enumerate(values):
        if v is not None and v == v:
            out[i] = int(v)
    return out


def _submit_lines(con, trace: str) -> bool | None:
    """traces.submit_lines (migration 334): whether the trace's log had submit lines; None when unknown (a
    trace loaded before 334, not a sacct log, or a warehouse opened read-only before 334 was applied)."""
    if not con.execute("SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = "
                       "'traces' AND column_name = 'submit_lines'").fetchone()[0]:
        return None
    row = con.execute("SELECT submit_lines FROM traces WHERE trace = ?", [trace]).fetchone()
    return None if row is None else row[0]


def _node_ranges(cluster, part, col, cpus, excl, nn, cpn, mem, gpn, notes, submit_lines=None):
    """The shapes of jobs that asked for CPUs without a node count (docs/slurm-replay.md, "A node range").

    Such a job -- a sacct job with a known minimum node count (ReqNodes, ``min_nodes``), no ``-N`` on its
    submit line (``max_nodes`` NULL), no GPUs, not exclusive -- may run on k nodes of ceil(CPUs / k) CPUs each,
    for k = its minimum and every larger k whose shape holds no more cores in all than the minimum's (the
    partition's threads per core; at most the partition's nodes), fewest nodes first: cons_tres's
    ``_eval_nodes`` takes one node when one has the CPUs (``rem_nodes <= 1``), else gathers them over several.
    Shapes no node set of the partition can hold are left out; a job left with one shape keeps it. Only a
    log with submit lines says that a job without ``-N`` gave no node count: ``submit_lines``
    (traces.submit_lines) True, the dump had the SubmitLine column; False, it had none, and every job keeps
    the node count its log shows; None, unknown (loaded before migration 334): the trace is taken to have
    them when some job shows a ``-N`` or a ``-p`` list. Returns the jobs' first shapes (nn, cpn, mem, gpn)
    and the kernel's further shapes (xjob, xnn, xcpn, xmem, xgpn)."""
    n = len(nn)
    empty = np.zeros(0, np.int64)
    more = {"xjob": empty, "xnn": empty, "xcpn": empty, "xmem": empty, "xgpn": empty}
    if "min_nodes" not in col or n == 0:
        return nn, cpn, mem, gpn, more
    lo = _nulls(col["min_nodes"])
    hi = _nulls(col["max_nodes"])
    lists = col.get("req_partitions", [None] * n)
    if submit_lines is None:  # unknown: guessed from the jobs
        submit_lines = bool((hi >= 0).any() or any(x is not None and x == x for x in lists))
    if not submit_lines:
        return nn, cpn, mem, gpn, more  # no submit line in this log: NULL max_nodes says nothing
    gpus = np.maximum(col["req_gpus"].astype(np.int64), col["gpus"].astype(np.int64))
    flex = (lo >= 1) & (hi < 0) & (gpus == 0) & ~excl
    total_mem = mem * nn  # memory per node x nodes: the job's whole request
    nn, cpn, mem, gpn = nn.copy(), cpn.copy(), mem.copy(), gpn.copy()
    x = {k: [] for k in more}
    ranged = 0
    holds: dict[tuple, bool] = {}  # (partition, nodes, CPUs, MB per node): a node set of it can hold that
    for j in np.flatnonzero(flex):
        q = int(part[j])
        tpu = int(cluster.node_tpu[cluster.part_nodes[q]].max())
        count = int(cluster.part_nodes[q].sum())
        c = int(cpus[j])
        first = int(lo[j])
        cores = None
        shapes = []
        for k in range(first, min(count, max(first, -(-c // tpu))) + 1):
            per = -(-c // k)
            total = k * -(-per // tpu)
            if cores is None:
                cores = total
            elif total > cores:
                continue
            m = -(-int(total_mem[j]) // k) if total_mem[j] else 0
            key = (q, k, per, m if cluster.mem_consumable else 0)
            if key not in holds:
                holds[key] = _holds(cluster, q, k, per, key[3], 0, False)
            if holds[key]:
                shapes.append((k, per, m))
        if len(shapes) < 2:
            continue
        ranged += 1
        nn[j], cpn[j], mem[j] = shapes[0]
        for k, per, m in shapes[1:]:
            for key, v in zip(("xjob", "xnn", "xcpn", "xmem", "xgpn"), (j, k, per, m, 0)):
                x[key].append(v)
    if ranged:
        notes.append(f"{ranged:,} job(s) without a node count (no -N) may run on one node or spread over several "
                     "(cons_tres's _eval_nodes): each tries its shapes, fewest nodes first")
    return nn, cpn, mem, gpn, {k: np.array(v, np.int64) for k, v in x.items()}


def _holds(cluster, q: int, nn: int, cpn: int, mem: int, gpn: int, excl: bool) -> bool:
    """Whether partition q has nn nodes that can each hold the request."""
    nodes = cluster.part_nodes[q]
    ok = excl | ((_ceil_div(cpn, cluster.node_tpu) <= cluster.node_units) & (cluster.node_mem >= mem)
                 & (cluster.node_gpus >= gpn))
    return int((ok & nodes).sum()) >= nn


def _records(cluster, part, asked: list, nn, cpn, mem, gpn, excl, notes) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's queue records (rjob, rpart): one per partition a job may run in. A job submitted to a list
    (``-p batch,small``: jobs.req_partitions) has one in each partition of the list that slurm.conf names and
    that can hold it, in the list's order (the one it ran in always among them); else one, where it ran."""
    if not any(names and "," in str(names) for names in asked):  # (most logs: one record per job, no loop)
        return np.arange(len(part), dtype=np.int64), part.astype(np.int64)
    index = {name: q for q, name in enumerate(cluster.partitions)}
    mem_of = mem if cluster.mem_consumable else np.zeros_like(mem)
    rjob, rpart = [], []
    dropped = 0
    for j, names in enumerate(asked):
        qs = [int(part[j])]
        if names and "," in str(names):
            listed = [index.get(x.strip()) for x in str(names).split(",")]
            if int(part[j]) in listed:
                qs = []
                for q in listed:
                    if q is None or q in qs:
                        continue
                    if q == part[j] or _holds(cluster, q, nn[j], cpn[j], mem_of[j], gpn[j], excl[j]):
                        qs.append(q)
                    else:
                        dropped += 1
        rjob += [j] * len(qs)
        rpart += qs
    if dropped:
        notes.append(f"{dropped} partition(s) of jobs' partition lists left out: unknown to slurm.conf or unable "
                     "to hold the job")
    return np.array(rjob, np.int64), np.array(rpart, np.int64)


def _fit(cluster, part, nn, cpn, mem, gpn, excl, notes):
    """Shrink requests no node set of the partition can ever hold (the kernel assumes every job fits)."""
    nn, cpn, mem, gpn = nn.copy(), cpn.copy(), mem.copy(), gpn.copy()
    shrunk = 0
    for q in range(len(cluster.partitions)):
        sel = np.flatnonzero(part == q)
        if not len(sel):
            continue
        nodes = np.flatnonzero(cluster.part_nodes[q])
        units, tpu = cluster.node_units[nodes], cluster.node_tpu[nodes]
        nmem, ngpu = cluster.node_mem[nodes], cluster.node_gpus[nodes]
        for j in sel:
            while True:
                ok = (excl[j] | ((_ceil_div(cpn[j], tpu) <= units) & (nmem >= mem[j]) & (ngpu >= gpn[j])))
                if ok.sum() >= nn[j]:
                    break
                shrunk += 1
                if nn[j] > ok.sum() and ok.sum() > 0:
                    nn[j] = ok.sum()
                else:
                    cpn[j] = min(cpn[j], int((units * tpu).max()))
                    mem[j] = min(mem[j], int(nmem.max()))
                    gpn[j] = min(gpn[j], int(ngpu.max()))
                    nn[j] = min(nn[j], len(nodes))
    if shrunk:
        notes.append(f"{shrunk} request(s) larger than any node set of their partition were shrunk to the "
                     "largest that fits")
    return nn, cpn, mem, gpn


def load(con, trace: str, job_id: np.ndarray) -> SlurmInputs:
    """The trace's kept configuration (trace_slurm_files) as a cluster model, and its jobs' requests."""
    from ...ingest.slurm_cluster import KeptFile, read_cluster_texts, read_qos, read_qos_preemption

    rows = con.execute("SELECT kind, name, text FROM trace_slurm_files WHERE trace = ? ORDER BY kind",
                       [trace]).fetchall()
    files = {kind: (name, text) for kind, name, text in rows}
    inferred = "slurm.conf" not in files
    if inferred:  # no configuration kept: the model is inferred, and said to be
        from .infer import infer_conf

        files = {"slurm.conf": (f"inferred slurm.conf of {trace}", infer_conf(con, trace))}
    cluster = read_cluster_texts(files["slurm.conf"], files.get("gres.conf"), files.get("assoc"))
    qos = read_qos(KeptFile(*files["qos"])) if "qos" in files else None
    rules = read_qos_preemption(KeptFile(*files["qos"])) if "qos" in files else None
    texts = "\0".join(f"{k}\0{n}\0{t}" for k, (n, t) in sorted(files.items()))
    sl = slurm_inputs(con, trace, job_id, cluster, texts, qos, rules)
    if inferred:
        sl.model = (f"an INFERRED Slurm model ({cluster.total_nodes:,} node{'s' * (cluster.total_nodes != 1)} of the "
                    "trace's processors, FIFO order, main and backfill passes), the log having no slurm.conf")
        sl.notes.insert(0, f'trace "{trace}" was ingested without its slurm.conf: the cluster model is INFERRED '
                           f"({cluster.total_nodes:,} node{'s' * (cluster.total_nodes != 1)}, "
                           f"{len(cluster.partitions)} partition{'s' * (len(cluster.partitions) != 1)}, FIFO order, "
                           "Slurm's default backfill); `walltime export TRACE --format slurm-conf --out FILE` writes "
                           "it to read and edit, then ingest again with --slurm-conf FILE --replace")
    return sl


def run(inp, sl: SlurmInputs, backfill: bool = True) -> dict[str, np.ndarray]:
    """The replay: the loop's outputs in the layout ``store.finish_run`` expects."""
    from ._kernel import slurm_replay

    c, a = sl.cluster, sl.arrays
    w, sch = c.priority, c.scheduler
    limit = np.maximum(inp.est_run, 1).astype(np.int64)  # a job may run past it (docs: "Overdue jobs")
    parent, shares, is_user = sl.assoc
    elig = inp.submit.astype(np.int64)
    if "first_release" in a:  # a job the log shows preempted enters when it was first submitted
        elig = np.where(a["first_release"] >= 0, np.minimum(a["first_release"], elig), elig)
    start, backfilled, prio, _alloc, npre, cut, release, *shape = slurm_replay(
        c.node_units, c.node_tpu, c.node_mem if c.mem_consumable else np.zeros_like(c.node_mem), c.node_gpus,
        c.part_nodes, c.part_tier, parent, shares, is_user,
        elig, inp.run.astype(np.int64), limit, a["rpart"], a["nn"], a["cpn"], a["mem"],
        a["gpn"], a["excl"], a["assoc"], a["rbase"], a["rjob"], a["juser"],
        float(w.w_age), int(max(w.max_age, 1)), float(w.w_fairshare), int(max(w.calc_period, 1)),
        int(w.half_life), bool(c.fair_tree), int(max(sch.sched_interval, 1)), int(max(sch.queue_depth, 1)),
        int(sch.bf_interval) if backfill else 0, int(sch.bf_window), int(max(sch.bf_max_job_test, 1)),
        int(max(sch.bf_resolution, 1)), int(sch.kill_wait), int(sch.bf_max_job_user), a["jq"], a["q_pre"],
        a["q_mode"], a["q_rank"], a["q_level"], np.int64(a["requeue_delay"]), *_shapes_arg(a))
    n = inp.n
    out = {"start": start, "backfilled": backfilled, "predicted_start": np.full(n, -1, np.int64),
           "score": prio.astype(np.float64), "first_bound": np.full(n, -1, np.int64),
           "nodes": held_cpus(c, ran_shapes(a, shape), _alloc)}
    if "first_release" in a:  # waits count from the replay's last release (its own requeue, else the first)
        out["release"] = release
        out["preemptions"] = npre
        out["ran"] = np.where(cut >= 0, cut - start, inp.run)  # a CANCEL preemption ends the job
    return out


def _shapes_arg(a: dict) -> tuple:
    """The kernel's ``shapes`` argument: none when no job has a node range."""
    if not len(a.get("xjob", ())):
        return ()
    return ([a[k] for k in ("xjob", "xnn", "xcpn", "xmem", "xgpn")],)


def ran_shapes(a: dict, shape: list) -> dict:
    """The arrays with each job's nn, cpn, mem, gpn as the shape it ran in (``shape``: the kernel's eighth
    output, -1 its own, x further shape x; empty: every job its own)."""
    if not shape:
        return a
    s = shape[0]
    x = np.maximum(s, 0)
    return {**a, **{k: np.where(s >= 0, a["x" + k][x] if len(a["x" + k]) else 0, a[k])
                    for k in ("nn", "cpn", "mem", "gpn")}}


def held_cpus(c, a: dict[str, np.ndarray], alloc: np.ndarray) -> np.ndarray:
    """The CPUs each job held where the replay placed it: whole cores (units x threads) on each of its nodes,
    a whole node's CPUs when exclusive. The run's utilisation and peak count these, not the log's."""
    job = np.repeat(np.arange(len(a["nn"])), a["nn"])
    k = alloc
    per = np.where(a["excl"][job], c.node_units[k] * c.node_tpu[k], _ceil_div(a["cpn"][job], c.node_tpu[k]) * c.node_tpu[k])
    return np.bincount(job, weights=per, minlength=len(a["nn"])).astype(np.int64)

