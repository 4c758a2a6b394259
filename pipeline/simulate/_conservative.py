"""Conservative backfilling (placeholder until the profile lands)."""

import numpy as np
from numba import njit


@njit(cache=True)
def conservative_sim(submit, run, nodes, est_wait, est_run, req, capacity, policy, overrun):
    n = submit.shape[0]
    if n >= 0:
        raise NotImplementedError("conservative backfilling is not implemented yet")
    return (np.full(n, -1, np.int64), np.zeros(n, np.bool_), np.full(n, -1, np.int64),
            np.zeros(n, np.float64), np.full(n, -1, np.int64))
