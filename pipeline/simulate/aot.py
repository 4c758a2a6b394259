"""The event loop compiled ahead of time: a plain extension module, no Numba at run time.

Why: a `walltime simulate` process that uses Numba's JIT pays for importing
Numba and loading its on-disk cache (0.4-0.5 s of CPU) on every run, and a
fresh install compiles for 20-30 s on its first simulation. The same loop
(``kernel.simulate``, unchanged) compiled by ``numba.pycc`` into an extension
module loads in milliseconds, needs only NumPy, and can be built before the
user asks for it: `walltime ingest` starts the build in the background (and
says so), `walltime warm-up` builds it in the foreground.

The builder is pipeline/aot_build.py (shared with the ingest tokenizers):
the module's name carries a hash of the kernel's sources, of this file and of
the Python, NumPy and Numba versions, so an edit of the loop never runs stale
code. While no module is built (or no C compiler is available) `run_kernel`
uses Numba's JIT as before. WALLTIME_AOT=0 turns this off.
tests/test_aot.py compares the two job by job.

Where: ``$NUMBA_CACHE_DIR/walltime-aot`` when that is set, else
``pipeline/simulate/__pycache__/aot`` (next to Numba's own cache), else
``~/.cache/walltime/aot`` when the install is read-only.
"""

from __future__ import annotations

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
             "(int64[:], int64[:], int64[:], int64[:], int64[:], int64[:], int64[:], int64, int64, int64, int64, boolean)")
BUILD_S = 25  # CPU seconds of a build on this project's 2-core machine (docs/speed.md)


def _exports():
    from . import kernel

    return [("simulate", kernel.simulate.py_func, SIGNATURE)]


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


def load():
    """The compiled ``simulate`` function, or None when it is not built (or off)."""
    mod = _target().load()
    return None if mod is None else mod.simulate


def _check_compiler() -> None:
    aot_build.check_c_compiler()


def ensure(note=None):
    """The compiled function: loaded, or built now (waiting for a background
    builder if one is at work). None when it cannot be built: the caller uses the JIT."""
    mod = _target().ensure(note, check_compiler=_check_compiler)
    return None if mod is None else mod.simulate


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
