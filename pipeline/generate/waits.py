"""Wait times for the generated log: the site's own schedule, FCFS + EASY backfilling.

Why: a real log records when each job started, and analyses of the original
schedule (wait distributions, backfill shares) need it. The generated site
runs the scheduler most SP2-era logs come from -- EASY with the requested
times as estimates -- so this is exactly ``walltime simulate --policy fcfs
--backfill easy --estimate request``: the project's own event loop, called
on the generated arrays (jobs never overrun since run <= req).
"""

from __future__ import annotations

import numpy as np

from ..simulate import kernel


def easy_waits(submit: np.ndarray, run: np.ndarray, req: np.ndarray, nodes: np.ndarray, capacity: int) -> np.ndarray:
    """Wait times (s) of jobs sorted by submit (job ids 1..n in that order)."""
    submit, run, req, nodes = (np.ascontiguousarray(a, dtype=np.int64) for a in (submit, run, req, nodes))
    req = np.maximum(req, 1)
    job_id = np.arange(1, len(submit) + 1, dtype=np.int64)
    start = kernel.simulate(submit, job_id, run, nodes, req, req, req, int(capacity),
                            kernel.POLICIES["fcfs"], kernel.BACKFILLS["easy"], kernel.OVERRUNS["request"], False)[0]
    return start - submit
