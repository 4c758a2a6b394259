"""Conditional forecast durations of running jobs (Smith, Taylor & Foster
Section 3 with a predictor that depends on a job's age).

Why a table: the real schedule never depends on the forecasts, so which jobs
run at each forecast instant, and their ages, are known before the loop
(pipeline/simulate/conditional.py computes them and each predictor's value
for them in vectorised passes). The loop then only has to copy, at each
forecast instant t, the row of t into the forecast durations: O(running
jobs) per instant, no predictor logic in the event loop.

Table (CSR over forecast instants): ``ctime[k]`` the k-th instant
(ascending), its pairs ``coff[k]:coff[k+1]`` of (job ``cjob``, total run
time ``cval`` predicted for it given its age at ctime[k]).
"""

from __future__ import annotations

from ..jit import jit


@jit(nrt=False)
def apply_row(t, ck, ctime, coff, cjob, cval, fdur):
    """Write the row of instant t (if the table has one) into ``fdur``.
    ``ck``: the first row not yet passed (instants come in ascending order).
    Returns (new ck, whether a value changed)."""
    nt = ctime.shape[0]
    while ck < nt and ctime[ck] < t:
        ck += 1
    changed = False
    if ck < nt and ctime[ck] == t:
        for p in range(coff[ck], coff[ck + 1]):
            j = cjob[p]
            if fdur[j] != cval[p]:
                fdur[j] = cval[p]
                changed = True
        ck += 1
    return ck, changed
