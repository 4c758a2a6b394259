"""Partition sizes from a site's ``slurm.conf``, and ``--capacity [PARTITION=]N``.

Why: a sacct dump has no machine size, and the simulator needs one. The
config's ``NodeName`` lines give each node's CPUs (``CPUs=``, else
Sockets x CoresPerSocket x ThreadsPerCore, else 1) and ``PartitionName ...
Nodes=`` the nodes of each partition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import WalltimeError, quote
from .ranges import INT32


@dataclass
class Partition:
    name: str
    capacity: int
    nodes: dict[str, int] | None  # node -> size, when known (slurm.conf)
    source: str
    max_time: int | None | str = "unknown"  # slurm.conf MaxTime in seconds; None: UNLIMITED (or INFINITE)

    def nodes_text(self) -> str | None:
        return None if self.nodes is None else ",".join(f"{n}:{s}" for n, s in self.nodes.items())


MAX_NODES = 1_000_000  # nodes one config may name (the largest machines have a few hundred thousand)


class HostlistError(ValueError):
    """A host list that cannot be expanded; the message says why (the caller adds file, line and field)."""


def expand_hostlist(text: str, limit: int = MAX_NODES) -> list[str]:
    """``node[1-3,7],gpu01`` -> node1 node2 node3 node7 gpu01 (zero padding kept).

    Raises HostlistError for a range that is not two whole numbers in order,
    unbalanced brackets, or more than ``limit`` names (counted before any is
    made: ``node[1-10000000000]`` costs nothing)."""
    if text.count("[") != text.count("]"):
        raise HostlistError("unbalanced brackets")
    items = re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,\[]*|\[[^\]]*\][^,\[]*", text)
    plan: list[tuple[str, str, str, int, int]] = []
    total = 0
    for item in items:
        m = re.fullmatch(r"([^\[\]]*)\[([^\[\]]*)\]([^\[\]]*)", item)
        if not m:
            if "[" in item or "]" in item:
                raise HostlistError(f'"{quote(item)}" is not NAME[RANGES]')
            plan.append((item, "", "", -1, -1))
            total += 1
            continue
        pre, ranges_, post = m.groups()
        for r in ranges_.split(","):
            a, dash, b = r.partition("-")
            if not a.isdigit() or (dash and not b.isdigit()) or not a.isascii() or not b.isascii():
                raise HostlistError(f'range "{quote(r)}" is not N or N-M with whole numbers')
            lo, hi = int(a), int(b) if dash else int(a)
            if hi < lo:
                raise HostlistError(f'range "{quote(r)}" runs backwards')
            total += hi - lo + 1
            if total > limit:
                raise HostlistError(f"names more than {limit:,} nodes")
            plan.append((pre, post, a, lo, hi))
    out: list[str] = []
    for pre, post, a, lo, hi in plan:
        if lo < 0:
            out.append(pre)
        else:
            out.extend(f"{pre}{str(i).zfill(len(a))}{post}" for i in range(lo, hi + 1))
    return out


def _pairs(line: str) -> dict[str, str]:
    return {k.lower(): v for k, v in re.findall(r"(\w+)=(\S+)", line)}


def _whole(kv: dict[str, str], key: str, label: str, where: str) -> int:
    """A positive whole number of the line's ``key`` (CPUs, Sockets, ...), at most ranges.INT32."""
    v = kv[key]
    if not (v.isascii() and v.isdigit()) or not 1 <= int(v) <= INT32:
        raise WalltimeError(f'{where}: {label}={quote(v)}: expected a whole number from 1 to {INT32:,}')
    return int(v)


def read_slurm_conf(path: str | Path, size: str = "cpus") -> dict[str, Partition]:
    """Partition name -> its size in CPUs (or nodes, ``size='nodes'``).

    Raises WalltimeError naming the file, line and field for text that is not
    UTF-8, a CPU count that is not a whole number from 1 to 2**31 - 1, a host
    list that cannot be expanded (or names over MAX_NODES nodes), a partition
    larger than 2**31 - 1 CPUs, or a partition naming an unknown node."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise WalltimeError(f"--slurm-conf {path}: cannot read: {e.strerror}") from None
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise WalltimeError(f"{path}:{line}: not UTF-8 text; is it a slurm.conf?") from None
    node_size: dict[str, int] = {}
    default_node: dict[str, str] = {}
    parts: dict[str, Partition] = {}

    def hosts(text: str, field: str, where: str) -> list[str]:
        try:
            return expand_hostlist(text)
        except HostlistError as e:
            raise WalltimeError(f"{where}: {field}={quote(text)}: {e}") from None

    for no, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        kv = _pairs(line)
        if "nodename" in kv:
            if kv["nodename"] == "DEFAULT":
                default_node.update(kv)
                continue
            kv = {**default_node, **kv}
            where = f"{path}:{no}"
            names = {"cpus": "CPUs", "sockets": "Sockets", "corespersocket": "CoresPerSocket",
                     "threadspercore": "ThreadsPerCore"}
            got = {k: _whole(kv, k, label, where) for k, label in names.items() if k in kv}
            cpus = got["cpus"] if "cpus" in got else (
                got.get("sockets", 1) * got.get("corespersocket", 1) * got.get("threadspercore", 1)
                if "corespersocket" in got or "sockets" in got else 1)
            if cpus > INT32:
                raise WalltimeError(f"{where}: Sockets x CoresPerSocket x ThreadsPerCore is {cpus:,}, "
                                    f"expected at most {INT32:,}")
            for node in hosts(kv["nodename"], "NodeName", where):
                node_size[node] = cpus if size == "cpus" else 1
            if len(node_size) > MAX_NODES:
                raise WalltimeError(f"{where}: NodeName lines up to here name more than {MAX_NODES:,} nodes")
    for no, raw in enumerate(lines, 1):
        kv = _pairs(raw.split("#", 1)[0].strip())
        if "partitionname" not in kv or kv["partitionname"] == "DEFAULT":
            continue
        spec = kv.get("nodes", "")
        names = list(node_size) if spec.upper() == "ALL" else hosts(spec, "Nodes", f"{path}:{no}")
        unknown = [n for n in names if n not in node_size]
        if unknown or not names:
            raise WalltimeError(
                f"{path}:{no}: partition {kv['partitionname']} names node {unknown[0] if unknown else '(none)'} "
                "with no NodeName line")
        nodes = {n: node_size[n] for n in names}
        capacity = sum(nodes.values())
        if capacity > INT32:
            raise WalltimeError(f"{path}:{no}: partition {kv['partitionname']} has {capacity:,} CPUs, "
                                f"expected at most {INT32:,}")
        parts[kv["partitionname"]] = Partition(kv["partitionname"], capacity, nodes, f"slurm.conf {p.name}",
                                               _max_time(kv.get("maxtime"), path, no))
    if not parts:
        raise WalltimeError(f"--slurm-conf {path}: no PartitionName lines")
    return parts


MAX_CAPACITY = 2**31 - 1  # as simulate --capacity: the simulator's machine sizes are 32-bit


def _max_time(text: str | None, path, no: int) -> int | None:
    """MaxTime in seconds (Slurm's forms: MM, MM:SS, HH:MM:SS, D-HH[:MM[:SS]]); None for
    UNLIMITED or INFINITE, and when not set (Slurm's default MaxTime is UNLIMITED)."""
    if text is None or text.upper() in ("UNLIMITED", "INFINITE"):
        return None
    m = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", text)
    if not m:
        raise WalltimeError(f"{path}:{no}: MaxTime={text} is not a time limit (MM, HH:MM:SS, D-HH:MM:SS or UNLIMITED)")
    d, a, b, c = (int(x) if x else None for x in m.groups())
    if d is not None:  # D-HH, D-HH:MM, D-HH:MM:SS
        return ((d * 24 + a) * 60 + (b or 0)) * 60 + (c or 0)
    if c is not None:
        return (a * 60 + b) * 60 + c
    return a * 60 + (b or 0)  # MM or MM:SS


def parse_capacity(values: list[str]) -> tuple[int | None, dict[str, Partition]]:
    """``--capacity N`` and ``--capacity PARTITION=N`` (repeatable)."""
    whole, parts = None, {}
    for v in values:
        name, eq, n = v.rpartition("=")
        if not n.strip().isdigit() or not 1 <= int(n) <= MAX_CAPACITY or (eq and not name):
            raise WalltimeError(f"--capacity {v}: expected N or PARTITION=N with N a whole number from 1 to "
                                f"{MAX_CAPACITY:,}")
        if eq:
            parts[name] = Partition(name, int(n), None, "--capacity")
        else:
            whole = int(n)
    return whole, parts


def union_capacity(parts: list[Partition]) -> int:
    """Size of several partitions together: their nodes counted once when
    the nodes are known, else the sum."""
    if all(p.nodes is not None for p in parts):
        merged: dict[str, int] = {}
        for p in parts:
            merged.update(p.nodes)
        return sum(merged.values())
    return sum(p.capacity for p in parts)


def nodes_from_text(text: str | None) -> dict[str, int] | None:
    if text is None:
        return None
    return {n: int(s) for n, _, s in (x.rpartition(":") for x in text.split(",") if x)}
