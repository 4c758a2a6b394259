"""The event loops compiled ahead of time: a plain extension module, no Numba at run time.

Why: a `walltime simulate` process that uses Numba's JIT pays for importing
Numba and loading its on-disk cache (0.4-0.5 s of CPU) on every run, and a
fresh install compiles for 20-40 s on its first simulation. The same loops
(``kernel.simulate``, and ``kernel.simulate_learn`` for ave2 learned in the
replay, ``--history simulated``; both unchanged) compiled by ``numba.pycc``
into one extension module load in milliseconds, need only NumPy, and can be
built before the user asks for them: `walltime ingest` starts the build in
the background (and says so), `walltime warm-up` builds it in the foreground.

The builder is pipeline/aot_build.py (shared with the ingest tokenizers):
the module's name carries a hash of the kernel's sources, of this file and of
the Python, NumPy and Numba versions, so an edit of the loop never runs stale
code. While no module is built (or no C compiler is available) `run_kernel`
uses Numba's JIT as before. WALLTIME_AOT=0 turns this off.
tests/test_aot.py compares the two job by job.

The signatures take C-contiguous arrays (``int64[::1]``): both exports then
call the loop's helpers with the same array types, so the helpers are typed
and compiled once for both rather than once per layout (docs/speed.md, "Compiles": the
build with both exports took less CPU than the one with ``simulate`` alone
in ``int64[:]``). numba.pycc's wrappers check an array's item size only, not
its layout (numba.core.boxing.unbox_array), so :func:`load` hands out the
functions behind a guard that makes every array argument contiguous.

Where: ``$NUMBA_CACHE_DIR/walltime-aot`` when that is set, else
``pipeline/simulate/__pycache__/aot`` (next to Numba's own cache), else
``~/.cache/walltime/aot`` when the install is read-only.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .. import aot_build
from ..aot_build import enabled  # noqa: F401  (the callers' switch)
from ._cache import MODULES

HERE = Path(__file__).resolve().parent
# The loop's codes, as in kernel.py (kept here so that using the compiled module
# does not import Numba; tests/test_aot.py checks they agree).
POLICIES = {"fcfs": 0, "sjf": 1, "lwf": 2, "wfp": 3}
BACKFILLS = {"none": 0, "easy": 1, "conservative": 2}
OVERRUNS = {"request": 0, "double": 1, "tsafrir": 2}
EASY_SJBF = 3  # backfill code of easy with --backfill-order sjbf (EASY++); BACKFILLS name the others
SIGNATURE = ("Tuple((int64[:], boolean[:], int64[:], float64[:], int64[:]))"
             "(int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], "
             "int64, int64, int64, int64, boolean)")
# kernel.simulate_learn (ave2 learned in the replay, --history simulated): submit, job_id, run, nodes, req,
# user; capacity, policy, backfill, overrun; predict -> simulate's five arrays and the estimates used
SIGNATURE_LEARN = ("Tuple((int64[:], boolean[:], int64[:], float64[:], int64[:], int64[:]))"
                   "(int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64, int64, int64, int64, "
                   "boolean)")
EXPORTS = ("simulate", "simulate_learn")  # the module's functions, each kernel.<name> with its signature
BUILD_S = 70  # CPU seconds of a build on this project's 2-core machine (docs/speed.md, "Compiles")


def _exports():
    from . import kernel

    return [("simulate", kernel.simulate.py_func, SIGNATURE),
            ("simulate_learn", kernel.simulate_learn.py_func, SIGNATURE_LEARN)]


def _target() -> aot_build.Target:
    """Made at each call: tests point ``directory`` and ``HERE`` elsewhere."""
    return aot_build.Target(prefix="_walltime_loop_", sources=[HERE / f"{m}.py" for m in (*MODULES, "aot")],
                            directory=directory, exports=_exports, builder_module="pipeline.simulate.aot",
                            what="the simulator", build_s=BUILD_S)


def directory() -> Path:
    """Where the compiled module lives (created on demand)."""
    return aot_build.default_directory(HERE)


def module_name() -> str:
    return _target().module_name()


def module_path(name: str | None = None) -> Path:
    return _target().module_path(name)


def _failed() -> Path:
    return _target().failed_marker()


def load(name: str = "simulate"):
    """The compiled function ``name`` (one of EXPORTS), or None when the module
    is not built (or off)."""
    return _function(_target().load(), name)


@functools.cache  # one guard per function: `loop is aot.load()` holds across calls
def _guarded(fn):
    import numpy as np

    @functools.wraps(fn)
    def call(*args):
        return fn(*[np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args])

    return call


def _function(mod, name: str):
    """Module ``mod``'s function ``name`` behind the contiguity guard (see above); None without a module."""
    return None if mod is None else _guarded(getattr(mod, name))


def _check_compiler() -> None:
    aot_build.check_c_compiler()


def ensure(note=None, name: str = "simulate"):
    """The compiled function ``name``: loaded, or built now (waiting for a background
    builder if one is at work). None when it cannot be built: the caller uses the JIT."""
    return _function(_target().ensure(note, check_compiler=_check_compiler), name)


def building() -> bool:
    """True while another process builds the module."""
    return _target().building()


def start_background() -> int | None:
    """Start building in a detached process unless built or being built; returns its pid."""
    return _target().start_background()


def main() -> None:
    """``python -m pipeline.simulate.aot``: build (the background job)."""
    _target().main()


if __name__ == "__main__":
    main()
