"""The evaluate stage's replay arithmetic: AVEbsld, and the two rewrites of a
replay's arrivals it uses -- denser (the tuning's second load) and shifted
(the replay-noise draws). Below pipeline/evaluate/__init__.py, which
builds the configurations; this module only replays the inputs it is given.

Why replay noise: a backfilling replay is chaotic. On SDSC-SP2 (published
set-up, EASY++, request at the first overrun) the learned scheme with its
model window at 20,000 or 100,000 jobs -- the same first third, identical
predictions until the trace has 20,000 finished jobs -- cuts AVEbsld by 21.4%
or 13.5% over the whole trace; 150 trees instead of 50 gives 1.1%
(docs/evaluate.md). A reduction is worth quoting with the spread it shows
when nothing meaningful changes: every arrival moved later by at most
SHIFT_S seconds (Tsafrir & Feitelson's "instability" of scheduling
simulations), the same shifts for every configuration of a draw.
"""

from __future__ import annotations

import numpy as np

BSLD_THRESHOLD = 10  # seconds (Gaussier et al. 2015; sql/metrics_run.sql)
SHIFT_S = 60  # each arrival moves later by 0..SHIFT_S seconds (uniform whole seconds)
DRAWS = 5  # noise draws per configuration (seeds 1..DRAWS)


def avebsld(submit, run, start) -> float:
    """Mean bounded slowdown, max(1, (wait + run) / max(run, BSLD_THRESHOLD))."""
    resp = (start - submit + run).astype(np.float64)
    return float(np.maximum(1.0, resp / np.maximum(run, BSLD_THRESHOLD)).mean())


def denser(inp, load: float):
    """``inp`` with its arrivals ``load`` times as frequent: submit = t0 + floor((submit - t0) / load),
    t0 the first submission (interarrival times divided by ``load``), jobs kept in loop order (submit,
    then job id); everything else as it is: each estimate the estimator gave at the logged times (the
    replay-history schemes, ave2 and learned in the published set-up, follow the denser replay)."""
    from dataclasses import replace

    t0 = inp.submit.min()
    sub = (t0 + (inp.submit - t0) // load).astype(inp.submit.dtype)
    order = np.lexsort((inp.job_id, sub))
    return replace(inp, submit=sub).take(order)


def shifts(job_id: np.ndarray, draw: int, shift_s: int = SHIFT_S) -> np.ndarray:
    """Each job's delay (whole seconds in 0..shift_s) in noise draw ``draw``: a
    function of the draw and the job id alone, so every configuration of a draw
    (whatever its input order) moves each job by the same amount."""
    ids = np.unique(job_id)
    delay = np.random.default_rng(draw).integers(0, shift_s + 1, len(ids))
    return delay[np.searchsorted(ids, job_id)]


def shifted(inp, draw: int, shift_s: int = SHIFT_S):
    """``inp`` with every arrival moved later by :func:`shifts`, in loop order
    again (submit, then job id); estimates as given at the logged times (as
    :func:`denser`)."""
    from dataclasses import replace

    sub = (inp.submit + shifts(inp.job_id, draw, shift_s)).astype(inp.submit.dtype)
    order = np.lexsort((inp.job_id, sub))
    return replace(inp, submit=sub).take(order)


def noise_rows(inp, cfg, tuned_ids: np.ndarray, draws: int = DRAWS, shift_s: int = SHIFT_S) -> list[dict]:
    """One configuration's noise draws: ``inp`` (the whole trace, loop order)
    replayed under ``cfg`` with each draw's shifts; per draw and period the
    AVEbsld ('whole': all jobs; 'scored': the jobs not in ``tuned_ids``, the
    first third of the logged order)."""
    from ..simulate import run_kernel

    rows = []
    for draw in range(1, draws + 1):
        p = shifted(inp, draw, shift_s)
        start = run_kernel(p, cfg)["start"]
        later = ~np.isin(p.job_id, tuned_ids)
        for period, m in (("whole", slice(None)), ("scored", later)):
            rows.append({"draw": draw, "shift_s": shift_s, "period": period, "jobs": int(p.submit[m].size),
                         "avebsld": avebsld(p.submit[m], p.run[m], start[m])})
    return rows
