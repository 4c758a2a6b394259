"""A site's Slurm configuration read into the cluster model of the Slurm-shaped replay.

Why: the replay (docs/slurm-replay.md) stands for the site's own Slurm only if its nodes, partitions, priority
weights and scheduler intervals are the site's. :func:`read_cluster` reads ``slurm.conf`` (and ``gres.conf``
and a ``sacctmgr show assoc -P`` dump) into :class:`SlurmCluster`, whose arrays are the kernel's cluster arrays
and whose :class:`Priority` and :class:`Scheduler` hold its parameters.

The semantics are Slurm 22.05's, read from its man pages and source (tag slurm-22-05-8-1): defaults, how
CPUs, sockets and threads combine (``_parse_nodename``, ``node_conf.c``), which count of GPUs wins
(``gres.c``: slurm.conf's), time strings (``time_str2mins``: seconds round up to a minute). A valid setting
the model leaves out becomes one sentence in ``notes``; a malformed one, or one the replay cannot stand for,
raises WalltimeError ``<file>:<line>: <Field>=<value>: <what was expected>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import WalltimeError, quote
from .ranges import INT32
from .slurm_conf import HostlistError, _max_time, expand_hostlist

DAY = 86400
U16, U32 = 65535, 2**32 - 1


@dataclass(frozen=True)
class Priority:
    """priority/multifactor's weights and periods (seconds). Defaults: slurm.conf(5) of 22.05."""
    multifactor: bool = False  # PriorityType; priority/basic (the default) orders jobs first come, first served
    w_age: int = 0
    w_fairshare: int = 0
    w_job_size: int = 0
    w_partition: int = 0
    w_qos: int = 0
    max_age: int = 7 * DAY  # PriorityMaxAge 7-0
    calc_period: int = 300  # PriorityCalcPeriod 5 (minutes)
    half_life: int = 7 * DAY  # PriorityDecayHalfLife 7-0; 0: no decay
    favor_small: bool = False  # PriorityFavorSmall (see job_size_factor)


@dataclass(frozen=True)
class Scheduler:
    """The main and backfill passes' parameters (seconds). Defaults: slurm.conf(5) of 22.05, checked against
    backfill.c and job_scheduler.c."""
    sched_interval: int = 60
    queue_depth: int = 100  # default_queue_depth
    bf_interval: int = 30  # 0: no backfill pass (bf_interval=-1, or SchedulerType=sched/builtin)
    bf_window: int = 1440 * 60  # bf_window is in minutes in slurm.conf
    bf_resolution: int = 60  # reservations' instants are rounded down to it
    bf_max_job_test: int = 500
    bf_max_job_user: int = 0  # 0: no limit
    bf_continue: bool = False  # the replay's pass is never interrupted, as with bf_continue
    kill_wait: int = 30  # KillWait + 60 * OverTimeLimit: how long past its limit backfill expects a job to end


@dataclass(frozen=True)
class Preemption:
    """PreemptType=preempt/qos and the cluster's PreemptMode (a QOS's own PreemptMode, in the QOS dump,
    overrides it for that QOS's jobs); a requeued job is eligible again ``requeue_delay`` s after it ended
    (AuthInfo cred_expire + 1: job_mgr.c's batch_requeue_fini; 121 by default)."""
    by_qos: bool = False
    mode: str = "OFF"  # OFF, CANCEL, REQUEUE, SUSPEND (without GANG/WITHIN)
    requeue_delay: int = 121


@dataclass(frozen=True, eq=False)
class SlurmCluster:
    """K nodes, Q partitions, A associations, in the kernel's terms (docs/slurm-replay.md "Inputs")."""
    name: str
    node_names: list[str]
    node_units: np.ndarray  # int64: allocatable units (cores; CPUs if threads are not scheduled; sockets; 1 node)
    node_tpu: np.ndarray  # int64: CPUs per unit
    node_cpus: np.ndarray  # int64: CPUs (Slurm's CPUs=, after its checks)
    node_mem: np.ndarray  # int64: MB the kernel sees: RealMemory, 0 when memory is not consumable
    node_real_mem: np.ndarray  # int64: RealMemory MB whatever the select type
    mem_consumable: bool
    node_gpus: np.ndarray  # int64: gres/gpu count
    node_gpu_types: list[dict[str, int]]  # typed GPUs (Gres=gpu:a100:2) per type
    node_features: list[tuple[str, ...]]
    partitions: list[str]
    part_nodes: np.ndarray  # bool [Q, K]
    part_tier: np.ndarray  # int64: PriorityTier
    part_factor: np.ndarray  # int64: PriorityJobFactor (raw; Slurm normalises by the largest)
    part_max_time: np.ndarray  # int64 seconds, -1: UNLIMITED
    part_default_time: np.ndarray  # int64 seconds, -1: not set (Slurm then uses MaxTime)
    part_exclusive: np.ndarray  # bool: OverSubscribe=EXCLUSIVE (every job takes whole nodes)
    default_partition: int  # index, -1: none
    assoc_parent: np.ndarray  # int64, -1 for the root; a parent's index is below its children's
    assoc_shares: np.ndarray  # int64 raw shares
    assoc_user: np.ndarray  # bool: a user association
    assoc_account: list[str]
    assoc_name: list[str]  # the user for a user association, else the account
    assoc_partition: list[str]  # '' unless the association is a partition's
    select_type: str
    cr_type: str  # CR_Core, CR_Core_Memory, CR_CPU, ... ('' for select/linear without CR_Memory)
    def_mem_per_cpu: int  # MB, 0: not set
    def_mem_per_node: int  # MB, 0: not set
    fair_tree: bool
    priority: Priority
    scheduler: Scheduler
    notes: list[str] = field(default_factory=list)
    preemption: Preemption = Preemption()

    @property
    def total_cpus(self) -> int:
        return int(self.node_cpus.sum())

    @property
    def total_nodes(self) -> int:
        return len(self.node_names)

    def part_index(self, name: str) -> int:
        return self.partitions.index(name)

    def assoc_index(self, account: str, user: str = "", partition: str = "") -> int:
        """The association of (account, user, partition); -1 if there is none."""
        for i, (a, n, p, u) in enumerate(zip(self.assoc_account, self.assoc_name, self.assoc_partition,
                                              self.assoc_user)):
            if a == account and p == partition and (n == user if user else not u):
                return i
        return -1


def job_size_factor(min_nodes, cpus, total_nodes, total_cpus, favor_small=False):
    """Slurm 22.05's job-size factor (priority_multifactor.c, no SMALL_RELATIVE_TO_TIME): the mean of the
    job's share of the nodes and of the CPUs, or with PriorityFavorSmall=YES of what it leaves free;
    the node share alone when the CPU count is 0; clipped to [0, 1]. Works on numbers or arrays."""
    n = np.asarray(min_nodes, dtype=np.float64) / total_nodes
    c = np.asarray(cpus, dtype=np.float64) / total_cpus
    if favor_small:
        n, c = 1.0 - n, 1.0 - c
    out = np.clip(np.where(np.asarray(cpus) > 0, (n + c) / 2, n), 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


# ---------------------------------------------------------------- reading the files

Pairs = dict[str, tuple[str, int]]  # key (lower case) -> (value, line number)


class KeptFile:
    """A configuration file kept in the warehouse (trace_slurm_files): its name and text, read like a path
    (errors name it as it was given at ingest)."""

    def __init__(self, name: str, text: str):
        self.name, self.text = name, text

    def read_bytes(self) -> bytes:
        return self.text.encode("utf-8")

    def __str__(self) -> str:
        return self.name


def _as_path(p):
    return p if isinstance(p, KeptFile) else Path(p)


def read_cluster_texts(conf: tuple[str, str], gres: tuple[str, str] | None = None,
                       assoc: tuple[str, str] | None = None) -> SlurmCluster:
    """:func:`read_cluster` of files kept as (name, text) pairs."""
    return read_cluster(KeptFile(*conf), KeptFile(*gres) if gres else None, KeptFile(*assoc) if assoc else None)


def _read_lines(path: Path, what: str) -> list[str]:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise WalltimeError(f"{what} {path}: cannot read: {e.strerror}") from None
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise WalltimeError(f"{path}:{line}: not UTF-8 text; is it a {what}?") from None


def _conf_lines(path: Path, what: str) -> list[tuple[int, Pairs]]:
    """Each non-empty line's key=value pairs (keys are case-insensitive; a value may be quoted; a line ending
    in a backslash goes on), with the line number of its start."""
    out, start, text = [], 0, ""
    for no, raw in enumerate(_read_lines(path, what), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not text:
            start = no
        if line.endswith("\\"):
            text += line[:-1] + " "
            continue
        text, line = "", text + line
        pairs = {k.lower(): (v.strip('"'), start) for k, v in re.findall(r'(\w+)=("[^"]*"|\S*)', line)}
        if pairs:
            out.append((start, pairs))
        elif line.lower().split()[:1] == ["include"]:
            out.append((start, {"include": (line.split(None, 1)[-1], start)}))
    return out


def _bad(path, no: int, field: str, value: str, expected: str) -> WalltimeError:
    return WalltimeError(f"{path}:{no}: {field}={quote(value)}: {expected}")


def _int(path, kv: Pairs, key: str, field: str, lo: int, hi: int, default: int | None = None) -> int:
    if key not in kv:
        return default
    v, no = kv[key]
    if not (v.isascii() and v.isdigit()) or not lo <= int(v) <= hi:
        raise _bad(path, no, field, v, f"expected a whole number from {lo:,} to {hi:,}")
    return int(v)


def _minutes(path, kv: Pairs, key: str, field: str, default: int | None = None) -> int | None:
    """Seconds of a Slurm time string, rounded up to a whole minute as time_str2mins does; None for UNLIMITED,
    INFINITE or -1."""
    if key not in kv:
        return default
    v, no = kv[key]
    if v == "-1":
        return None
    try:
        if not v.isascii():
            raise WalltimeError(v)
        s = _max_time(v, path, no)
    except WalltimeError:
        raise _bad(path, no, field, v, "expected a time: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM:SS or UNLIMITED") \
            from None
    return None if s is None else -(-s // 60) * 60


def _yes(path, kv: Pairs, key: str, field: str, default: bool = False) -> bool:
    if key not in kv:
        return default
    v, no = kv[key]
    if v.lower() not in ("yes", "no", "true", "false", "1", "0"):
        raise _bad(path, no, field, v, "expected YES or NO")
    return v.lower() in ("yes", "true", "1")


def _hosts(path, text: str, no: int, field: str) -> list[str]:
    try:
        return expand_hostlist(text) if text else []
    except HostlistError as e:
        raise _bad(path, no, field, text, str(e)) from None


def _count(text: str) -> int | None:
    """A GRES count with Slurm's K/M/G/T/P suffix (powers of 1024); None if it is not one."""
    m = re.fullmatch(r"(\d+)([KMGTP]?)", text, re.I) if text.isascii() else None
    if not m:
        return None
    suffix = m.group(2).upper()
    return int(m.group(1)) * (1024 ** ("KMGTP".index(suffix) + 1) if suffix else 1)


def _gres_gpus(path, text: str, no: int) -> tuple[int, dict[str, int], bool]:
    """slurm.conf Gres=: the GPUs, per type, and whether any is no_consume. As gres.c's _get_gres_cnt: a bare
    ``gpu`` or ``gpu:type`` without a count is one GPU; other GRES are skipped."""
    total, types, free = 0, {}, False
    for item in text.split(","):
        parts = re.sub(r"\(.*\)$", "", item).split(":")
        if parts[0] != "gpu":
            continue
        n = _count(parts[-1]) if len(parts) > 1 and parts[-1][:1].isdigit() else 1
        if n is None:
            raise _bad(path, no, "Gres", text, "expected NAME[:TYPE][:no_consume]:COUNT[K|M|G]")
        kinds = [p for p in parts[1:] if p and not p[:1].isdigit() and p != "no_consume"]
        free |= "no_consume" in parts
        total += n
        for t in kinds:
            types[t] = types.get(t, 0) + n
    return total, types, free


# ---------------------------------------------------------------- slurm.conf

SELECT = {"select/cons_tres", "select/cons_res", "select/linear", "select/cray_aries"}
CR_UNITS = {"cr_cpu": "CR_CPU", "cr_cpu_memory": "CR_CPU_Memory", "cr_core": "CR_Core",
            "cr_core_memory": "CR_Core_Memory", "cr_socket": "CR_Socket", "cr_socket_memory": "CR_Socket_Memory",
            "cr_memory": "CR_Memory"}
CR_FLAGS = {"other_cons_res", "other_cons_tres", "cr_allocate_full_socket", "cr_one_task_per_core",
            "cr_core_default_dist_block", "cr_lln", "cr_pack_nodes"}
PART_UNMODELLED = {  # partition keys that change who runs where or when, which the model leaves out
    "lln": ("LLN", "nodes are taken first fit by index, not least loaded first"),
    "maxcpuspernode": ("MaxCPUsPerNode", "no cap on a partition's CPUs per node"),
    "qos": ("QOS", "the partition QOS's limits are not applied"),
    "selecttypeparameters": ("SelectTypeParameters", "the cluster's CR_ type is used"),
    "tresbillingweights": ("TRESBillingWeights", "fair-share usage is charged in CPUs"),
    "exclusiveuser": ("ExclusiveUser", "nodes are shared between users"),
}
MODELLED_SCHED = {"sched_interval", "default_queue_depth", "bf_interval", "bf_window", "bf_resolution",
                  "bf_max_job_test", "bf_max_job_user", "bf_continue"}


def _select(path, g: Pairs, notes: list[str]) -> tuple[str, str, str]:
    """(select type, its CR_ unit type, 'linear' | 'cons'). cons_tres and cons_res default to CR_Core_Memory
    (slurm.conf(5); cons_common.c); select/linear (the 22.05 default) gives whole nodes: one unit per node."""
    st, no = g.get("selecttype", ("select/linear", 0))
    if st.lower() not in SELECT:
        raise _bad(path, no, "SelectType", st, "expected select/cons_tres, select/cons_res or select/linear")
    raw, pno = g.get("selecttypeparameters", ("", 0))
    tokens = [t for t in raw.lower().split(",") if t]
    bad = [t for t in tokens if t not in CR_UNITS and t not in CR_FLAGS]
    units = [CR_UNITS[t] for t in tokens if t in CR_UNITS]
    if bad or len(units) > 1:
        raise _bad(path, pno, "SelectTypeParameters", raw, "expected one of " + ", ".join(CR_UNITS.values()) +
                   " with flags such as CR_LLN or CR_ONE_TASK_PER_CORE")
    if "cr_lln" in tokens:
        notes.append("not modelled: SelectTypeParameters CR_LLN (nodes are taken first fit by index, not least "
                     "loaded first)")
    kind = "linear" if st.lower() == "select/linear" or (
        st.lower() == "select/cray_aries" and not {"other_cons_res", "other_cons_tres"} & set(tokens)) else "cons"
    if kind == "linear":
        return st, "CR_Memory" if units == ["CR_Memory"] else "", kind
    if units == ["CR_Memory"]:
        raise _bad(path, pno, "SelectTypeParameters", raw, f"{st} needs CR_CPU, CR_Core or CR_Socket "
                   "(with or without _Memory)")
    return st, units[0] if units else "CR_Core_Memory", kind


def _node(path, kv: Pairs, cr: str, kind: str, notes: list[str]) -> dict:
    """One NodeName line's figures, as read_config.c's _parse_nodename and node_conf.c: Sockets from
    SocketsPerBoard x Boards, else Sockets, else CPUs / (cores x threads); CPUs, when not set, the product;
    threads are scheduled (tpc > 1) only when CPUs exceeds the cores."""
    name_no = kv["nodename"][1]
    num = lambda key, field: _int(path, kv, key, field, 1, U16)  # noqa: E731
    boards = num("boards", "Boards") or 1
    cores = num("corespersocket", "CoresPerSocket") or 1
    threads = num("threadspercore", "ThreadsPerCore") or 1
    cpus = num("cpus", "CPUs") or num("procs", "Procs")
    spb = num("socketsperboard", "SocketsPerBoard")
    sockets = boards * spb if spb else num("sockets", "Sockets") or (
        cpus // (cores * threads) if cpus and cpus % (cores * threads) == 0 else boards)
    if cpus is None:
        cpus = sockets * cores * threads
    if cpus not in (sockets, sockets * cores, sockets * cores * threads):
        notes.append(f"{path}:{name_no}: CPUs={cpus} matches no Sockets, Sockets x CoresPerSocket or their product "
                     f"with ThreadsPerCore; Slurm resets it to {sockets * cores * threads}, and so does the model")
        cpus = sockets * cores * threads
    tpc = 1 if sockets * cores >= cpus else threads
    if kind == "linear":
        units, tpu = 1, cpus
    elif cr.startswith("CR_Socket"):
        units, tpu = sockets, cpus // sockets
    else:  # CR_Core, and CR_CPU too: with ThreadsPerCore set, Slurm gives jobs whole cores (slurm.conf(5))
        units, tpu = cpus // tpc, tpc
    mem = _int(path, kv, "realmemory", "RealMemory", 1, 2**63 - 1, 1)
    gpus, types, free = _gres_gpus(path, *kv["gres"]) if "gres" in kv else (0, {}, False)
    feats = kv.get("features", kv.get("feature", ("", 0)))[0]
    return dict(units=units, tpu=tpu, cpus=cpus, mem=mem, gpus=gpus, types=types, gres="gres" in kv,
                free=free, features=tuple(f for f in feats.split(",") if f),
                weight=_int(path, kv, "weight", "Weight", 0, U32, 1), state=kv.get("state", ("UNKNOWN", 0))[0],
                spec=[k for k in ("corespeccount", "cpuspeclist", "memspeclimit") if k in kv])


def _gres_conf(path: Path, nodes: list[str]) -> dict[str, tuple[int, dict[str, int]]]:
    """gres.conf: GPUs per node (Count=, else the number of File= devices, else 1; gres.conf(5)). Lines without
    NodeName apply to every node."""
    out: dict[str, tuple[int, dict[str, int]]] = {}
    for no, kv in _conf_lines(path, "gres.conf"):
        if kv.get("name", ("", 0))[0] != "gpu":
            continue
        where = _hosts(path, kv["nodename"][0], no, "NodeName") if "nodename" in kv else nodes
        if "count" in kv:
            n = _count(kv["count"][0])
            if n is None:
                raise _bad(path, no, "Count", kv["count"][0], "expected a whole number (K, M, G suffixes allowed)")
        else:
            files = kv.get("file", kv.get("multiplefiles"))
            n = len(_hosts(path, files[0], no, "File")) if files else 1
        for node in where:
            total, types = out.get(node, (0, {}))
            if "type" in kv:
                types = {**types, kv["type"][0]: types.get(kv["type"][0], 0) + n}
            out[node] = (total + n, types)
    return out


def read_cluster(conf_path, gres_path=None, assoc_path=None) -> SlurmCluster:
    """The cluster model of ``slurm.conf`` (with ``gres.conf`` and a ``sacctmgr show assoc -P`` dump, when
    given). Raises WalltimeError naming the file, line and field of a malformed value, a partition naming an
    unknown node, or a setting the replay cannot stand for; other valid settings it leaves out are ``notes``."""
    path = _as_path(conf_path)
    notes: list[str] = []
    g: Pairs = {}
    node_lines, part_lines, nodesets = [], [], {}
    for no, kv in _conf_lines(path, "slurm.conf"):
        first = next(iter(kv))
        if first == "nodename":
            node_lines.append(kv)
        elif first == "partitionname":
            part_lines.append(kv)
        elif first == "nodeset":
            nodesets[kv["nodeset"][0]] = kv
        elif first == "include":
            notes.append(f"not read: {path}:{no}: Include {kv['include'][0]} (give its lines in the file itself)")
        elif first == "downnodes":
            notes.append(f"not modelled: DownNodes={kv['downnodes'][0]} (the model uses every node from the start)")
        elif first != "frontendname":
            g.update(kv)
    select_type, cr, kind = _select(path, g, notes)

    # nodes, in the order of the file: the kernel's first fit scans them by this index
    nodes: dict[str, dict] = {}
    dflt: Pairs = {}
    for kv in node_lines:
        name, no = kv["nodename"]
        if name.upper() == "DEFAULT":
            dflt.update({k: v for k, v in kv.items() if k != "nodename"})
            continue
        spec = _node(path, {**dflt, **kv}, cr, kind, notes)
        for host in _hosts(path, name, no, "NodeName"):
            if host in nodes:
                notes.append(f"{path}:{no}: node {host} is named again; Slurm ignores the repeat, as does the model")
            else:
                nodes[host] = spec
    if not nodes:
        raise WalltimeError(f"{path}: no NodeName lines")
    names = list(nodes)
    _gpu_notes(path, gres_path, nodes, names, notes)
    _node_notes(nodes, notes)

    parts, tier, factor, max_t, def_t, excl, masks, default = _partitions(path, part_lines, nodesets, nodes, notes)
    prio, fair_tree = _priority(path, g, notes)
    sched = _scheduler(path, g, notes)
    preemption = _preemption(path, g, notes)
    _global_notes(g, notes)
    assoc = _assoc(_as_path(assoc_path), g.get("clustername", ("", 0))[0], notes) if assoc_path else \
        ([], [], [], [], [], [])
    mem_consumable = cr.endswith("Memory")
    real_mem = np.array([nodes[n]["mem"] for n in names], dtype=np.int64)
    defmem_node = _int(path, g, "defmempernode", "DefMemPerNode", 0, 2**63 - 1, 0)
    return SlurmCluster(
        name=g.get("clustername", ("", 0))[0], node_names=names,
        node_units=np.array([nodes[n]["units"] for n in names], dtype=np.int64),
        node_tpu=np.array([nodes[n]["tpu"] for n in names], dtype=np.int64),
        node_cpus=np.array([nodes[n]["cpus"] for n in names], dtype=np.int64),
        node_mem=real_mem if mem_consumable else np.zeros_like(real_mem), node_real_mem=real_mem,
        mem_consumable=mem_consumable,
        node_gpus=np.array([nodes[n]["gpus"] for n in names], dtype=np.int64),
        node_gpu_types=[nodes[n]["types"] for n in names], node_features=[nodes[n]["features"] for n in names],
        partitions=parts, part_nodes=np.array(masks, dtype=bool).reshape(len(parts), len(names)),
        part_tier=np.array(tier, dtype=np.int64), part_factor=np.array(factor, dtype=np.int64),
        part_max_time=np.array(max_t, dtype=np.int64), part_default_time=np.array(def_t, dtype=np.int64),
        part_exclusive=np.array(excl, dtype=bool), default_partition=default,
        assoc_parent=np.array(assoc[0], dtype=np.int64), assoc_shares=np.array(assoc[1], dtype=np.int64),
        assoc_user=np.array(assoc[2], dtype=bool), assoc_account=assoc[3], assoc_name=assoc[4],
        assoc_partition=assoc[5], select_type=select_type, cr_type=cr,
        def_mem_per_cpu=0 if defmem_node else _int(path, g, "defmempercpu", "DefMemPerCPU", 0, 2**63 - 1, 0),
        def_mem_per_node=defmem_node, fair_tree=fair_tree, priority=prio, scheduler=sched, notes=notes,
        preemption=preemption)


def _gpu_notes(path, gres_path, nodes: dict[str, dict], names: list[str], notes: list[str]) -> None:
    """gres.conf against slurm.conf's Gres=. slurm.conf's count is the count: slurmctld ignores an excess that
    slurmd reports (gres.c _node_config_validate), and drains a node that reports fewer (unless
    SlurmdParameters=config_overrides)."""
    if any(s["free"] for s in nodes.values()):
        notes.append("not modelled: Gres=gpu:no_consume (the model counts those GPUs as consumed)")
    if gres_path is None:
        return
    found = _gres_conf(_as_path(gres_path), names)
    unlisted = [n for n in names if n in found and not nodes[n]["gres"]]
    if unlisted:
        notes.append(f"{gres_path}: GPUs on {', '.join(unlisted[:3])}{' ...' if len(unlisted) > 3 else ''} that "
                     "slurm.conf's Gres= does not name; Slurm ignores them, and so does the model")
    for n in names:
        if nodes[n]["gres"] and n in found and found[n][0] != nodes[n]["gpus"]:
            notes.append(f"{gres_path}: {n} has {found[n][0]} GPUs, slurm.conf's Gres= says {nodes[n]['gpus']}; "
                         "Slurm (and the model) take slurm.conf's count")
            break


def _node_notes(nodes: dict[str, dict], notes: list[str]) -> None:
    specs = list(nodes.values())
    if any(s["weight"] != 1 for s in specs):
        notes.append("not modelled: node Weight (nodes are taken first fit by index, not lightest first)")
    if any(s["features"] for s in specs):
        notes.append("not modelled: node Features (jobs' --constraint is not replayed)")
    odd = sorted({s["state"].upper() for s in specs} - {"UNKNOWN", "IDLE"})
    if odd:
        notes.append(f"not modelled: node State={','.join(odd)} (the model uses every node from the start)")
    spec = sorted({k for s in specs for k in s["spec"]})
    if spec:
        notes.append(f"not modelled: {', '.join(spec)} (the model gives jobs every core and all RealMemory)")


def _partitions(path, lines: list[Pairs], nodesets: dict[str, Pairs], nodes: dict[str, dict], notes: list[str]):
    names_ = list(nodes)
    index = {n: i for i, n in enumerate(names_)}
    parts, tier, factor, max_t, def_t, excl, masks, default = [], [], [], [], [], [], [], -1
    dflt: Pairs = {}
    for kv in lines:
        name, no = kv["partitionname"]
        if name.upper() == "DEFAULT":
            dflt.update({k: v for k, v in kv.items() if k != "partitionname"})
            continue
        if name in parts:
            notes.append(f"{path}:{no}: partition {name} is named again; Slurm ignores the repeat, as does the model")
            continue
        kv = {**dflt, **kv}
        spec, sno = kv.get("nodes", ("", no))
        members: list[str] = []
        for item in _hosts(path, spec, sno, "Nodes"):
            if item.upper() == "ALL":
                members += names_
            elif item in nodesets:
                ns = nodesets[item]
                members += _hosts(path, ns["nodes"][0], ns["nodes"][1], "Nodes") if "nodes" in ns else \
                    [n for n in names_ if "feature" in ns and ns["feature"][0] in nodes[n]["features"]]
            else:
                members.append(item)
        unknown = [n for n in members if n not in index]
        if unknown:
            raise _bad(path, sno, "Nodes", spec, f"node {unknown[0]} has no NodeName line")
        row = np.zeros(len(names_), dtype=bool)
        row[[index[n] for n in members]] = True
        both = _int(path, kv, "priority", "Priority", 0, 65533)
        tier.append(_int(path, kv, "prioritytier", "PriorityTier", 0, 65533, both if both is not None else 1))
        factor.append(_int(path, kv, "priorityjobfactor", "PriorityJobFactor", 0, 65533,
                           both if both is not None else 1))
        mt = _minutes(path, kv, "maxtime", "MaxTime")
        dt = _minutes(path, kv, "defaulttime", "DefaultTime", -1)
        max_t.append(-1 if mt is None else mt)
        def_t.append(-1 if dt is None else dt)
        over, ono = kv.get("oversubscribe", kv.get("shared", ("NO", no)))
        if not re.fullmatch(r"(?i)NO|EXCLUSIVE|(YES|FORCE)(:\d+)?", over):
            raise _bad(path, ono, "OverSubscribe", over, "expected NO, EXCLUSIVE, YES[:N] or FORCE[:N]")
        if over.upper() not in ("NO", "EXCLUSIVE"):
            notes.append(f"not modelled: partition {name} OverSubscribe={over} (jobs never share CPUs)")
        excl.append(over.upper() == "EXCLUSIVE")
        state, tno = kv.get("state", ("UP", no))
        if state.upper() not in ("UP", "DOWN", "DRAIN", "INACTIVE"):
            raise _bad(path, tno, "State", state, "expected UP, DOWN, DRAIN or INACTIVE")
        if state.upper() in ("DOWN", "INACTIVE"):
            notes.append(f"not modelled: partition {name} State={state} (the model starts its jobs)")
        for key, (label, what) in PART_UNMODELLED.items():
            if key in kv and kv[key][0].upper() not in ("NO", "0"):
                notes.append(f"not modelled: partition {name} {label}={kv[key][0]} ({what})")
        if _yes(path, kv, "default", "Default"):
            default = len(parts)  # the last Default=YES wins, as in slurmctld
        parts.append(name)
        masks.append(row)
    if not parts:
        raise WalltimeError(f"{path}: no PartitionName lines")
    return parts, tier, factor, max_t, def_t, excl, masks, default


# ---------------------------------------------------------------- priority and scheduler

WEIGHTS = {"age": "Age", "fairshare": "Fairshare", "jobsize": "JobSize", "partition": "Partition", "qos": "QOS"}
FLAGS_UNMODELLED = {  # PriorityFlags read_config.c knows (by substring), with what the model does instead
    "ACCRUE_ALWAYS": "age counts from the eligible time", "SMALL_RELATIVE_TO_TIME": "job size ignores time limits",
    "DEPTH_OBLIVIOUS": "classic fair-share is used", "INCR_ONLY": "priorities may fall",
    "MAX_TRES": "usage is charged in CPUs", "NO_NORMAL_ALL": "factors are normalised",
    "NO_NORMAL_ASSOC": "factors are normalised", "NO_NORMAL_PART": "the partition factor is normalised",
    "NO_NORMAL_QOS": "the QOS factor is normalised", "NO_NORMAL_TRES": "factors are normalised"}


def _priority(path, g: Pairs, notes: list[str]) -> tuple[Priority, bool]:
    """Fair Tree unless PriorityFlags names NO_FAIR_TREE or DEPTH_OBLIVIOUS (the default since 19.05:
    read_config.c sets PRIORITY_FLAGS_FAIR_TREE before reading the flags)."""
    ptype, no = g.get("prioritytype", ("priority/basic", 0))
    if ptype.lower() not in ("priority/basic", "priority/multifactor"):
        raise _bad(path, no, "PriorityType", ptype, "expected priority/basic or priority/multifactor")
    flags = g.get("priorityflags", ("", 0))[0].upper()
    fair_tree = "NO_FAIR_TREE" not in flags and "DEPTH_OBLIVIOUS" not in flags
    w = {k: _int(path, g, f"priorityweight{k}", f"PriorityWeight{label}", 0, U32, 0) for k, label in WEIGHTS.items()}
    max_age = _minutes(path, g, "prioritymaxage", "PriorityMaxAge", 7 * DAY)
    calc = _minutes(path, g, "prioritycalcperiod", "PriorityCalcPeriod", 300)
    half = _minutes(path, g, "prioritydecayhalflife", "PriorityDecayHalfLife", 7 * DAY)
    for key, label, value, least in (("prioritymaxage", "PriorityMaxAge", max_age, 60),
                                     ("prioritycalcperiod", "PriorityCalcPeriod", calc, 60),
                                     ("prioritydecayhalflife", "PriorityDecayHalfLife", half, 0)):
        if value is None or value < least:
            raise _bad(path, g[key][1], label, g[key][0], "expected a time of at least 1 minute, not 0 or UNLIMITED"
                       if least else "expected a time (0: no decay), not UNLIMITED")
    reset = g.get("priorityusageresetperiod", ("NONE", 0))[0]
    if half == 0 and reset.upper() == "NONE":
        raise _bad(path, g["prioritydecayhalflife"][1], "PriorityDecayHalfLife", "0",
                   "Slurm refuses no decay without PriorityUsageResetPeriod")
    favor = _yes(path, g, "priorityfavorsmall", "PriorityFavorSmall")
    if ptype.lower() == "priority/basic":
        notes.append("PriorityType=priority/basic: jobs are taken by eligible time (Slurm: by submission); "
                     "priority weights are not used")
        return Priority(), fair_tree
    if g.get("accountingstoragetype", ("", 0))[0] != "accounting_storage/slurmdbd" and (w["age"] or w["fairshare"]):
        notes.append("PriorityWeightAge and PriorityWeightFairshare are 0: Slurm ignores them without "
                     "AccountingStorageType=accounting_storage/slurmdbd")
        w["age"] = w["fairshare"] = 0
    for flag, instead in FLAGS_UNMODELLED.items():
        if flag in flags:
            notes.append(f"not modelled: PriorityFlags {flag} ({instead})")
    if reset.upper() != "NONE":
        notes.append(f"not modelled: PriorityUsageResetPeriod={reset} (usage only decays)")
    for key, label in (("priorityweighttres", "PriorityWeightTRES"), ("priorityweightassoc", "PriorityWeightAssoc"),
                       ("fairsharedampeningfactor", "FairShareDampeningFactor"),
                       ("prioritysitefactorplugin", "PrioritySiteFactorPlugin")):
        if key in g and g[key][0] not in ("0", "1", "site_factor/none"):
            notes.append(f"not modelled: {label}={g[key][0]}")
    return Priority(True, w["age"], w["fairshare"], w["jobsize"], w["partition"], w["qos"], max_age, calc, half,
                    favor), fair_tree


def _scheduler(path, g: Pairs, notes: list[str]) -> Scheduler:
    """SchedulerType and SchedulerParameters; sched/builtin has no backfill pass. Slurm replaces an out-of-range
    value by its default (with a logged error); here it is an error, the intent being unknown."""
    stype, no = g.get("schedulertype", ("sched/backfill", 0))
    if stype.lower() not in ("sched/backfill", "sched/builtin"):
        raise _bad(path, no, "SchedulerType", stype, "expected sched/backfill or sched/builtin")
    backfill = stype.lower() == "sched/backfill"
    raw, pno = g.get("schedulerparameters", ("", 0))
    given: dict[str, str] = {}
    for tok in (t for t in raw.split(",") if t):
        key, _, val = tok.partition("=")
        if key.lower() in MODELLED_SCHED:
            given[key.lower()] = val
        elif backfill or not key.lower().startswith("bf_"):
            notes.append(f"not modelled: SchedulerParameters {tok}")

    def num(key: str, lo: int, hi: int, default: int, why: str = "") -> int:
        if key not in given:
            return default
        v = given[key]
        if v == "-1" and key == "bf_interval":
            return 0
        if not (v.isascii() and v.isdigit()) or not lo <= int(v) <= hi:
            raise WalltimeError(f"{path}:{pno}: SchedulerParameters {key}={quote(v)}: expected a whole number "
                                f"from {lo:,} to {hi:,}{why}")
        return int(v)

    s = Scheduler(
        sched_interval=num("sched_interval", 1, 2**31 - 1, 60, " (-1, no periodic main pass, is not modelled)"),
        queue_depth=num("default_queue_depth", 1, 2**31 - 1, 100, " (0 is not modelled)"),
        bf_interval=num("bf_interval", 1, 10800, 30, ", or -1: no backfill") if backfill else 0,
        bf_window=num("bf_window", 1, 43200, 1440, " minutes") * 60,
        bf_resolution=num("bf_resolution", 1, 3600, 60),
        bf_max_job_test=num("bf_max_job_test", 1, 1_000_000, 500),
        bf_max_job_user=num("bf_max_job_user", 0, 1_000_000, 0),
        bf_continue="bf_continue" in given,
        kill_wait=_int(path, g, "killwait", "KillWait", 0, 65533, 30) + 60 * _over_time(path, g, notes))
    return s


def _over_time(path, g: Pairs, notes: list[str]) -> int:
    """OverTimeLimit in minutes (0 by default); UNLIMITED is not modelled (backfill then guesses a whole new
    time limit for an overdue job)."""
    v, no = g.get("overtimelimit", ("0", 0))
    if v.upper() in ("UNLIMITED", "INFINITE"):
        notes.append(f"not modelled: OverTimeLimit={v} (an overdue job is expected to end KillWait after its "
                     "limit)")
        return 0
    return _int(path, g, "overtimelimit", "OverTimeLimit", 0, 65533, 0)


PREEMPT_MODES = ("OFF", "CANCEL", "REQUEUE", "SUSPEND")


def _preemption(path, g: Pairs, notes: list[str]) -> Preemption:
    """PreemptType, PreemptMode and AuthInfo's cred_expire. preempt/qos with CANCEL or REQUEUE is modelled;
    preempt/partition_prio, SUSPEND and GANG are notes (the replay then preempts nothing of that kind)."""
    ptype, _ = g.get("preempttype", ("preempt/none", 0))
    raw, no = g.get("preemptmode", ("OFF", 0))
    words = [w.strip().upper() for w in raw.split(",") if w.strip()]
    base = [w for w in words if w not in ("GANG", "WITHIN")]
    if len(base) > 1 or (base and base[0] not in PREEMPT_MODES):
        raise _bad(path, no, "PreemptMode", raw, "expected OFF, CANCEL, REQUEUE or SUSPEND (with GANG or WITHIN)")
    mode = base[0] if base else "OFF"
    if "GANG" in words:
        notes.append(f"not modelled: PreemptMode={raw} (no gang scheduling: jobs are never time-sliced)")
    if "WITHIN" in words:
        notes.append(f"not modelled: PreemptMode={raw} (no preemption within a QOS)")
    if ptype.lower() == "preempt/partition_prio":
        notes.append(f"not modelled: PreemptType={ptype} (jobs are never preempted by partition)")
    elif ptype.lower() not in ("preempt/none", "preempt/qos"):
        notes.append(f"not modelled: PreemptType={ptype} (jobs are never preempted)")
    by_qos = ptype.lower() == "preempt/qos"
    if by_qos and mode == "SUSPEND":
        notes.append("not modelled: PreemptMode=SUSPEND (suspended jobs: the replay preempts only CANCEL and "
                     "REQUEUE QOS)")
    auth, ano = g.get("authinfo", ("", 0))
    delay = 121
    for tok in auth.split(","):
        key, _, val = tok.strip().partition("=")
        if key.lower() == "cred_expire":
            if not (val.isascii() and val.isdigit()) or int(val) < 5:
                raise _bad(path, ano, "AuthInfo", auth, "expected cred_expire=N with N a whole number of seconds "
                           "from 5")
            delay = int(val) + 1
    if by_qos:
        for key in ("preemptexempttime",):
            if key in g:
                notes.append(f"not modelled: PreemptExemptTime={g[key][0]} (jobs may be preempted at once)")
    return Preemption(by_qos=by_qos, mode=mode, requeue_delay=delay)


def _global_notes(g: Pairs, notes: list[str]) -> None:
    topo = g.get("topologyplugin", ("topology/none", 0))[0]
    if topo.lower() != "topology/none":
        notes.append(f"not modelled: TopologyPlugin={topo} (nodes are taken first fit by index)")
    enforce = g.get("accountingstorageenforce", ("", 0))[0]
    if {"limits", "qos", "safe"} & set(enforce.lower().split(",")):
        notes.append(f"not modelled: AccountingStorageEnforce={enforce} (association and QOS limits are not "
                     "applied; the log's jobs obeyed them)")


# ---------------------------------------------------------------- associations

LIMITS = re.compile(r"(?i)(Grp|Max)\w*")


def _assoc(path: Path, cluster: str, notes: list[str]):
    """``sacctmgr show assoc -P`` (parents before children, as sacctmgr prints the hierarchy): the tree, root
    first. Without a ParentName column every account hangs under root. Share ``parent`` (Fairshare=parent)
    takes the parent's shares here, which is not Slurm's rule (see the note); an empty Share is 1."""
    lines = [(no, ln) for no, ln in enumerate(_read_lines(path, "sacctmgr dump"), 1) if ln.strip()]
    if not lines:
        raise WalltimeError(f"{path}: empty; expected `sacctmgr show assoc -P` output")
    hno, header = lines[0]
    cols = header.rstrip("|").split("|")
    at = {c.lower(): i for i, c in enumerate(cols)}
    for need in ("Account", "User", "Share"):
        if need.lower() not in at:
            raise WalltimeError(f"{path}:{hno}: header has no {need} column; expected `sacctmgr show assoc -P` output")
    rows = []
    for no, ln in lines[1:]:
        f = ln.split("|")
        if len(f) == len(cols) + 1 and f[-1] == "":
            f = f[:-1]
        if len(f) != len(cols):
            raise WalltimeError(f"{path}:{no}: {len(f)} fields, expected {len(cols)} as in the header")
        rows.append((no, {c: f[i] for c, i in at.items()}))
    clusters = {r.get("cluster", "") for _, r in rows}
    if cluster and "cluster" in at and len(clusters) > 1:
        if cluster not in clusters:
            raise WalltimeError(f"{path}:{hno}: Cluster: no association of cluster {cluster} "
                                f"(found {', '.join(sorted(clusters))})")
        rows = [(no, r) for no, r in rows if r["cluster"] == cluster]
    parent, shares, user, account, name, part = [], [], [], [], [], []
    accounts: dict[str, int] = {}
    limited = []
    for no, r in rows:
        acct, usr, prt = r["account"], r["user"], r.get("partition", "")
        if not parent and (usr or acct != "root"):
            raise _bad(path, no, "Account", acct, "expected the root account's line first")
        if usr:
            up = accounts.get(acct)
            if up is None:
                raise _bad(path, no, "Account", acct, "expected the account's own line before its users")
        elif acct == "root" and not parent:
            up = -1
        else:
            pname = r.get("parentname") or "root"
            if pname not in accounts:
                raise _bad(path, no, "ParentName", pname, "expected the parent account's line before its children")
            if acct in accounts:
                raise _bad(path, no, "Account", acct, "expected each account once")
            up = accounts[pname]
        raw = r["share"]
        if raw.lower() == "parent" and up >= 0:
            s = shares[up]
            notes.append(f"not modelled: Fairshare=parent on {usr or acct} (Slurm "
                         + ("ranks such a user first in its account" if usr else "reparents its children") +
                         "; the model gives it its parent's shares)")
        elif raw == "":
            s = 1
        elif raw.isascii() and raw.isdigit() and int(raw) <= U32:
            s = int(raw)
        else:
            raise _bad(path, no, "Share", raw, "expected a whole number or parent")
        if not usr:
            accounts[acct] = len(parent)
        limited += [f"{c}={v} on {usr or acct}" for c, v in zip(cols, (r[c.lower()] for c in cols))
                    if LIMITS.fullmatch(c) and v]
        parent.append(up)
        shares.append(s)
        user.append(bool(usr))
        account.append(acct)
        name.append(usr or acct)
        part.append(prt)
    if "parentname" not in at and len(accounts) > 1:
        notes.append(f"{path}: no ParentName column: every account is taken as a child of root")
    if limited:
        notes.append(f"not modelled: association limits ({', '.join(limited[:3])}{' ...' if len(limited) > 3 else ''})")
    return parent, shares, user, account, name, part


def read_qos(path) -> dict[str, int]:
    """``sacctmgr show qos -P format=Name,Priority`` (more columns may follow): QOS name -> its Priority, for
    the multifactor QOS term (priority / the largest). One line naming file:line for a bad value."""
    path = _as_path(path)
    lines = [(no, ln) for no, ln in enumerate(_read_lines(path, "sacctmgr dump"), 1) if ln.strip()]
    if not lines:
        raise WalltimeError(f"{path}: empty; expected `sacctmgr show qos -P format=Name,Priority` output")
    hno, header = lines[0]
    at = {c.lower(): i for i, c in enumerate(header.rstrip("|").split("|"))}
    if "name" not in at or "priority" not in at:
        raise WalltimeError(f"{path}:{hno}: header has no Name and Priority columns; expected "
                            "`sacctmgr show qos -P format=Name,Priority` output")
    out: dict[str, int] = {}
    for no, ln in lines[1:]:
        cells = ln.rstrip("\n").split("|")
        if len(cells) <= max(at["name"], at["priority"]):
            raise WalltimeError(f"{path}:{no}: {len(cells)} fields, expected the header's {len(at)}")
        value = cells[at["priority"]].strip() or "0"
        if not (value.isascii() and value.isdigit()) or int(value) > INT32:
            raise WalltimeError(f"{path}:{no}: Priority={value}: expected a whole number from 0 to {INT32:,}")
        out[cells[at["name"]].strip()] = int(value)
    return out


def read_qos_preemption(path) -> dict[str, tuple[tuple[str, ...], str]]:
    """The Preempt and PreemptMode columns of a ``sacctmgr show qos -P`` dump, when it has them: QOS name ->
    (the QOS it preempts, its PreemptMode: CANCEL, REQUEUE, SUSPEND, OFF, or CLUSTER for the cluster's).
    Empty without those columns. One line naming file:line for a mode Slurm does not have."""
    path = _as_path(path)
    lines = [(no, ln) for no, ln in enumerate(_read_lines(path, "sacctmgr dump"), 1) if ln.strip()]
    if not lines:
        return {}
    at = {c.lower(): i for i, c in enumerate(lines[0][1].rstrip("|").split("|"))}
    if "name" not in at or "preempt" not in at:
        return {}
    out: dict[str, tuple[tuple[str, ...], str]] = {}
    for no, ln in lines[1:]:
        cells = ln.rstrip("\n").split("|")
        get = lambda c: cells[at[c]].strip() if c in at and at[c] < len(cells) else ""  # noqa: E731
        mode = get("preemptmode").upper() or "CLUSTER"
        if mode not in (*PREEMPT_MODES, "CLUSTER"):
            raise WalltimeError(f"{path}:{no}: PreemptMode={quote(get('preemptmode'))}: expected cluster, off, "
                                "cancel, requeue or suspend")
        out[get("name")] = (tuple(q for q in get("preempt").split(",") if q), mode)
    for start in out:  # a loop would preempt forever (sacctmgr refuses one: "QOS Preemption loop detected")
        todo, seen = list(out[start][0]), set()
        while todo:
            q = todo.pop()
            if q == start:
                raise WalltimeError(f"{path}: Preempt: QOS {quote(start)} preempts itself through a loop of QOS "
                                    "(sacctmgr refuses one: \"QOS Preemption loop detected\")")
            if q not in seen and q in out:
                seen.add(q)
                todo += out[q][0]
    return out
