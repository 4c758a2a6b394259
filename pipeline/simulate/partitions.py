"""`simulate --partition P`: replay only some partitions' jobs.

Why a CTE over `jobs`: the input queries (simulate_inputs.sql and friends)
stay as they are; for a partition run they read a `jobs` narrowed to the
chosen partitions, so months, counts and the oversized check all see only
those jobs. The machine is the partitions' size: from `trace_partitions`
(ingest --capacity PARTITION=N or --slurm-conf), nodes shared by two
partitions counted once.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import WalltimeError

NARROW = ('WITH jobs AS (SELECT * FROM jobs WHERE "partition" IN (SELECT unnest(${n}::VARCHAR[])))\n')


def narrowed(sql: str, partitions: tuple[str, ...], params: list) -> tuple[str, list]:
    """``sql`` reading only the partitions' jobs (unchanged when none)."""
    if not partitions:
        return sql, params
    return NARROW.format(n=len(params) + 1) + sql, [*params, list(partitions)]


NO_CAPACITY = ("give simulate --capacity N, or load the trace again with "
               "`walltime ingest --replace ... --capacity [PARTITION=]N` or `--slurm-conf slurm.conf`")


def partition_info(con, info, partitions: tuple[str, ...]):
    """TraceInfo for the chosen partitions: their capacity and widest job."""
    # imported here: pipeline.ingest pulls in Polars, which a plain simulate does not need
    from ..ingest.slurm_conf import Partition, nodes_from_text, union_capacity

    present = {p for (p,) in con.execute(
        'SELECT DISTINCT "partition" FROM jobs WHERE trace = ? AND "partition" IS NOT NULL', [info.trace]).fetchall()}
    for p in partitions:
        if p not in present:
            raise WalltimeError(f'--partition {p}: trace "{info.trace}" has no job in it '
                                f'(partitions: {", ".join(sorted(present)) or "none"})')
    rows = con.execute('SELECT "partition", capacity, nodes, source FROM trace_partitions WHERE trace = ?',
                       [info.trace]).fetchall()
    known = {r[0]: Partition(r[0], r[1], nodes_from_text(r[2]), r[3]) for r in rows}
    sized = [known[p] for p in partitions if p in known]
    capacity = union_capacity(sized) if len(sized) == len(partitions) else None
    widest = con.execute(
        'SELECT max(nodes), arg_max(job_id, nodes), count(*) FILTER (req > 0), count(*) FILTER (nodes > 0) FROM jobs '
        'WHERE trace = ? AND run >= 0 AND "partition" IN (SELECT unnest(?::VARCHAR[]))',
        [info.trace, list(partitions)]).fetchone()
    return replace(info, capacity=capacity, max_nodes=widest[0], widest_job=widest[1], with_request=widest[2],
                   runnable=widest[3])


def missing_capacity_message(trace: str, partitions: tuple[str, ...]) -> str:
    if partitions:
        return f'partition {", ".join(partitions)} of trace "{trace}" has no size; {NO_CAPACITY}'
    return f'trace "{trace}" has no capacity (no MaxProcs or MaxNodes in its header); {NO_CAPACITY}'
