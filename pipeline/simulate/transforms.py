"""Workload transforms of simulation.md: --load-factor and --split month.

Both are whole-array NumPy steps; neither touches the estimates, which were
computed on the original trace (a month's jobs see history from earlier months).
"""

from __future__ import annotations

import numpy as np

from .inputs import Inputs


def scale_load(inp: Inputs, factor: float, first: int | None = None) -> Inputs:
    """Interarrival times times ``factor`` (Mu'alem & Feitelson Section 3.1):
    submit' = first + floor((submit - first) * factor), ``first`` the earliest
    submission. Flooring can make distinct submits equal, so the jobs are
    re-sorted by (submit', job_id), the loop's order."""
    if factor == 1.0 or inp.n == 0:
        return inp
    first = int(inp.submit.min()) if first is None else int(first)
    rel = (inp.submit - first).astype(np.float64) * factor
    submit = first + np.floor(rel).astype(np.int64)
    order = np.lexsort((inp.job_id, submit))
    out = inp.take(order)
    out.submit = submit[order]
    return out


def month_segments(inp: Inputs) -> list[tuple[int, np.ndarray]]:
    """(month index, row indices) of each month of submission, calendar order.
    Rows keep the loop order; a month need not be contiguous after load scaling."""
    if inp.n == 0:
        return []
    order = np.argsort(inp.month_idx, kind="stable")
    ms = inp.month_idx[order]
    cuts = np.flatnonzero(np.diff(ms)) + 1
    bounds = [0, *cuts.tolist(), len(ms)]
    # a stable sort keeps each month's rows in increasing (loop) order
    return [(int(ms[a]), order[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
