"""One decorator for every Numba kernel's compile options.

Why: the options were spelled eight ways (``@njit(cache=True, _nrt=False)``,
``@nb.njit(cache=True)``, ``inline="always"`` before or after ``_nrt``, ...),
so a reader could not see at a glance which kernels differ and how. Every
kernel is cached on disk (``cache=True``: a process loads it instead of
compiling); the flags name what differs:

- ``inline``: inlined into its callers at the Numba IR level (small helpers of
  a loop; ``inline="always"``);
- ``nrt=False``: compiled without Numba's reference counting, for kernels that
  allocate nothing (the simulators' helpers: measured faster, docs/speed.md, "The queue loop");
- ``nogil``: releases the GIL (ingest's scans, run in threads);
- ``numpy_errors``: NumPy's error model (a division by zero gives inf or nan,
  not an exception: the estimators' statistics).
"""

from __future__ import annotations

from numba import njit


def jit(fn=None, *, inline: bool = False, nrt: bool = True, nogil: bool = False, numpy_errors: bool = False):
    """``@jit`` or ``@jit(flag=...)``: ``numba.njit`` with ``cache=True`` and the named flags."""
    opts: dict = {"cache": True}
    if inline:
        opts["inline"] = "always"
    if not nrt:
        opts["_nrt"] = False
    if nogil:
        opts["nogil"] = True
    if numpy_errors:
        opts["error_model"] = "numpy"
    deco = njit(**opts)
    return deco if fn is None else deco(fn)
