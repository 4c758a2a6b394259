"""A slurm.conf inferred from a trace that came without one (SWF, tables, a sacct dump ingested without
``--slurm-conf``), as a file the user can read, edit and give back to ``ingest --slurm-conf``.

Why text and not arrays: the inferred model goes through the same reader as a site's own file
(ingest.slurm_cluster), so what the replay assumed is exactly what the file says. What it knows: the nodes
and partitions ``ingest`` recorded (trace_partitions: ``--slurm-conf`` sizes, else ``--capacity``), else one
node of the trace's capacity; nothing of priorities (FIFO, priority/basic) nor of the backfill's parameters
(Slurm's defaults).
"""

from __future__ import annotations

import re

HEADER = """# slurm.conf INFERRED by walltime from trace {trace!r}: the log came without its configuration.
# {what}
# Edit it to match the site (nodes' cores, threads, memory, GPUs; partitions; PriorityType=priority/multifactor
# and its weights; SchedulerParameters) and ingest the log again with --slurm-conf FILE (and --replace).
ClusterName=inferred
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
PriorityType=priority/basic
SchedulerType=sched/backfill
"""


def _node_name(text: str) -> str:
    """A node name Slurm's host lists read (letters, digits, '-', '_'), from a recorded one."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", text) or "node"


def infer_conf(con, trace: str) -> str:
    """The inferred slurm.conf of ``trace`` (see the module's docstring)."""
    parts = con.execute('SELECT "partition", capacity, nodes FROM trace_partitions WHERE trace = ? ORDER BY 1',
                        [trace]).fetchall()
    (capacity,) = con.execute("SELECT capacity FROM traces WHERE trace = ?", [trace]).fetchone() or (None,)
    nodes: dict[str, int] = {}
    lines = []
    if parts:
        for name, cap, listed in parts:
            members = []
            if listed:
                for pair in listed.split(","):
                    node, _, size = pair.rpartition(":")
                    nodes[_node_name(node)] = int(size)
                    members.append(_node_name(node))
            else:  # --capacity PARTITION=N: one node of N CPUs of its own
                node = _node_name(f"{name}_pool")
                nodes[node] = int(cap)
                members.append(node)
            lines.append(f"PartitionName={_node_name(name)} Nodes={','.join(members)} MaxTime=UNLIMITED State=UP")
        lines[0] += " Default=YES"
        what = (f"Nodes and partitions: as ingest recorded them ({len(parts)} partitions, {len(nodes)} nodes); "
                "each node's CPUs only (no threads, memory or GPUs).")
    else:
        if not capacity:
            from ...errors import WalltimeError

            raise WalltimeError(f'--scheduler slurm: trace "{trace}" has no machine size to infer a cluster '
                                "from; ingest it with --slurm-conf FILE (or --capacity N)")
        nodes["pool"] = int(capacity)
        lines.append("PartitionName=all Nodes=pool Default=YES MaxTime=UNLIMITED State=UP")
        what = (f"One node of the trace's {int(capacity):,} processors in one partition: the log has no node "
                "layout, so the replay's only difference from the one-pool EASY replay is Slurm's passes.")
    (longest,) = con.execute("SELECT max(req) FROM jobs WHERE trace = ?", [trace]).fetchone()
    window = max(1440, -(-int(longest or 0) // 60))  # minutes: Slurm's advice, at least the longest limit
    node_lines = [f"NodeName={n} CPUs={c} State=UNKNOWN" for n, c in nodes.items()]
    sched = f"SchedulerParameters=bf_window={window}  # the longest time limit of the log (default 1440)\n"
    return HEADER.format(trace=trace, what=what) + sched + "\n".join(node_lines + lines) + "\n"
