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

from ..errors import WalltimeError


@dataclass
class Partition:
    name: str
    capacity: int
    nodes: dict[str, int] | None  # node -> size, when known (slurm.conf)
    source: str
    max_time: int | None | str = "unknown"  # slurm.conf MaxTime in seconds; None: UNLIMITED (or INFINITE)

    def nodes_text(self) -> str | None:
        return None if self.nodes is None else ",".join(f"{n}:{s}" for n, s in self.nodes.items())


def expand_hostlist(text: str) -> list[str]:
    """``node[1-3,7],gpu01`` -> node1 node2 node3 node7 gpu01 (zero padding kept)."""
    out: list[str] = []
    for item in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,\[]*", text):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", item)
        if not m:
            out.append(item)
            continue
        pre, ranges, post = m.groups()
        for r in ranges.split(","):
            a, _, b = r.partition("-")
            if not b:
                out.append(f"{pre}{a}{post}")
                continue
            for i in range(int(a), int(b) + 1):
                out.append(f"{pre}{str(i).zfill(len(a))}{post}")
    return out


def _pairs(line: str) -> dict[str, str]:
    return {k.lower(): v for k, v in re.findall(r"(\w+)=(\S+)", line)}


def read_slurm_conf(path: str | Path, size: str = "cpus") -> dict[str, Partition]:
    """Partition name -> its size in CPUs (or nodes, ``size='nodes'``)."""
    p = Path(path)
    try:
        lines = p.read_text().splitlines()
    except OSError as e:
        raise WalltimeError(f"--slurm-conf {path}: cannot read: {e.strerror}") from None
    node_size: dict[str, int] = {}
    default_node: dict[str, str] = {}
    parts: dict[str, Partition] = {}
    for no, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        kv = _pairs(line)
        if "nodename" in kv:
            if kv["nodename"] == "DEFAULT":
                default_node.update(kv)
                continue
            kv = {**default_node, **kv}
            try:
                cpus = int(kv["cpus"]) if "cpus" in kv else (
                    int(kv.get("sockets", 1)) * int(kv.get("corespersocket", 1)) * int(kv.get("threadspercore", 1))
                    if "corespersocket" in kv or "sockets" in kv else 1)
            except ValueError:
                raise WalltimeError(f"{path}:{no}: NodeName line has a CPU count that is not a number") from None
            for node in expand_hostlist(kv["nodename"]):
                node_size[node] = cpus if size == "cpus" else 1
    for no, raw in enumerate(lines, 1):
        kv = _pairs(raw.split("#", 1)[0].strip())
        if "partitionname" not in kv or kv["partitionname"] == "DEFAULT":
            continue
        spec = kv.get("nodes", "")
        names = list(node_size) if spec.upper() == "ALL" else expand_hostlist(spec)
        unknown = [n for n in names if n not in node_size]
        if unknown or not names:
            raise WalltimeError(
                f"{path}:{no}: partition {kv['partitionname']} names node {unknown[0] if unknown else '(none)'} "
                "with no NodeName line")
        nodes = {n: node_size[n] for n in names}
        parts[kv["partitionname"]] = Partition(kv["partitionname"], sum(nodes.values()), nodes, f"slurm.conf {p.name}",
                                               _max_time(kv.get("maxtime"), path, no))
    if not parts:
        raise WalltimeError(f"--slurm-conf {path}: no PartitionName lines")
    return parts


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
        if not n.strip().isdigit() or int(n) < 1 or (eq and not name):
            raise WalltimeError(f"--capacity {v}: expected N or PARTITION=N with N a positive integer")
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
