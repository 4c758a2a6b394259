"""Student t quantile for the 95% confidence intervals of Smith's predictor.

No SciPy here: a table of t(0.975, df) for df 1..30 (to 4 decimals, the
standard printed values) and, above, the Cornish-Fisher expansion around the
normal quantile (error < 1e-5 for df > 30).
"""

from __future__ import annotations

import numpy as np

LEVEL = 0.95
Z975 = 1.959963984540054
_T975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
         2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
         2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)


def t975(df: int) -> float:
    """t quantile at 0.975 with ``df`` degrees of freedom (df >= 1)."""
    if df <= len(_T975):
        return _T975[df - 1]
    z, v = Z975, float(df)
    return (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3))


def t975_table(n: int) -> np.ndarray:
    """Array q with q[k] = t975(k) for k in 1..n (q[0] unused); the expansion
    in NumPy, the same operations as :func:`t975`."""
    q = np.full(n + 1, np.inf)
    m = min(n, len(_T975))
    q[1:m + 1] = _T975[:m]
    if n > len(_T975):
        z, v = Z975, np.arange(len(_T975) + 1, n + 1, dtype=np.float64)
        q[len(_T975) + 1:] = (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2)
                              + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3))
    return q
