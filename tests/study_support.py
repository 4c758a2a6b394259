"""What the study tests compare: between two warehouses, every stored run's
config, its metrics and the sum of its jobs' starts (one row per run and
split), so a run simulated elsewhere must equal one simulated here; and the
pieces a sweep is cut into, made from the whole list of tasks at once
(:func:`chunks`, :func:`split_tail`: the reference for
pipeline.simulate.executors.Dealer, which makes them as input sets arrive)."""

from __future__ import annotations

from pipeline.simulate.tasks import SimTask
from pipeline.warehouse import Warehouse


def stored_runs(wh: Warehouse) -> list[tuple]:
    con = wh.reader()
    try:
        return con.execute(
            "SELECT r.config, m.* EXCLUDE (run_id), (SELECT sum(start) FROM sim_jobs s WHERE s.run_id = r.run_id) "
            "FROM runs r JOIN run_metrics m USING (run_id) ORDER BY ALL").fetchall()
    finally:
        con.close()


def chunks(tasks: list[SimTask], n: int) -> list[list[SimTask]]:
    """Tasks grouped so that the runs sharing inputs (same trace and input hash,
    adjacent in ``tasks``) go to one worker, which loads them once: sent one by
    one, every worker loaded nearly every input set (issue 11: 2 workers gained
    1.3-1.5x instead of 1.8x). Groups are cut to at most len(tasks) / (4 n)
    tasks, so there are still enough pieces to keep n workers busy."""
    most = max(1, len(tasks) // (4 * n))
    out: list[list[SimTask]] = []
    for t in tasks:
        last = out[-1] if out else None
        if last and len(last) < most and (last[0].trace, last[0].in_sha) == (t.trace, t.in_sha):
            last.append(t)
        else:
            out.append([t])
    return out


def split_tail(pieces: list[list[SimTask]], n: int) -> list[list[SimTask]]:
    """The last ``n`` pieces cut into pairs of runs: the workers take pieces in
    order, so the sweep's end is where one worker can be left alone with a
    whole piece (8 runs of CTC-SP2, ~1.5 s) while the other has finished.
    Pairs cost one more pickling of their inputs each (milliseconds)."""
    if n <= 1 or len(pieces) <= n:
        return pieces
    head, tail = pieces[:-n], pieces[-n:]
    return head + [p[i:i + 2] for p in tail for i in range(0, len(p), 2)]
