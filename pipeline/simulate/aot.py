"""The event loop compiled ahead of time: a plain extension module, no Numba at run time.

Why: a `walltime simulate` process that uses Numba's JIT pays for importing
Numba and loading its on-disk cache (0.4-0.5 s of CPU) on every run, and a
fresh install compiles for 20-30 s on its first simulation. The same loop
(``kernel.simulate``, unchanged) compiled by ``numba.pycc`` into an extension
module loads in milliseconds, needs only NumPy, and can be built before the
user asks for it: `walltime ingest` starts the build in the background (and
says so), `walltime warm-up` builds it in the foreground.

The module's name carries a hash of the kernel's sources, of this file and of
the Python, NumPy and Numba versions, so an edit of the loop never runs stale
code: a changed hash is a module not built yet. While no module is built (or
no C compiler is available) `run_kernel` uses Numba's JIT as before.
WALLTIME_AOT=0 turns this off. tests/test_aot.py compares the two job by job.

Where: ``$NUMBA_CACHE_DIR/walltime-aot`` when that is set, else
``pipeline/simulate/__pycache__/aot`` (next to Numba's own cache), else
``~/.cache/walltime/aot`` when the install is read-only. One builder at a
time (an flock on ``<name>.lock``); the module is written under a temporary
name and renamed, so a reader sees no module or a whole one.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._cache import MODULES

HERE = Path(__file__).resolve().parent
# The loop's codes, as in kernel.py (kept here so that using the compiled module
# does not import Numba; tests/test_aot.py checks they agree).
POLICIES = {"fcfs": 0, "sjf": 1, "lwf": 2, "wfp": 3}
BACKFILLS = {"none": 0, "easy": 1, "conservative": 2}
OVERRUNS = {"request": 0, "double": 1}
SIGNATURE = ("Tuple((int64[:], boolean[:], int64[:], float64[:], int64[:]))"
             "(int64[:], int64[:], int64[:], int64[:], int64[:], int64[:], int64[:], int64, int64, int64, int64, boolean)")
BUILD_S = 25  # CPU seconds of a build on this project's 2-core machine (docs/speed.md)
_loaded: dict[str, object] = {}


def enabled() -> bool:
    return os.environ.get("WALLTIME_AOT", "1") != "0"


@functools.cache  # a process's versions do not change (looking them up costs ~10 ms)
def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = [sys.version, sys.platform, _cpu()]
    for dist in ("numpy", "numba", "llvmlite"):
        try:
            out.append(f"{dist}={version(dist)}")
        except PackageNotFoundError:
            out.append(f"{dist}=?")
    return "\n".join(out)


def _cpu() -> str:
    """The CPU model and its instruction-set flags: the module is compiled for
    this CPU (``target_cpu = "host"``: AVX2 vector copies where the generic
    x86-64 target has none), so a directory shared by different machines
    holds one module per CPU kind."""
    try:
        with open("/proc/cpuinfo") as fh:
            lines = [ln for ln in fh.read(200_000).splitlines() if ln.startswith(("model name", "flags"))]
        return "\n".join(lines[:2])
    except OSError:
        import platform

        return platform.machine() + " " + platform.processor()


def module_name() -> str:
    h = hashlib.sha256()
    for name in (*MODULES, "aot"):
        h.update(name.encode())
        h.update((HERE / f"{name}.py").read_bytes())
    h.update(_versions().encode())
    return f"_walltime_loop_{h.hexdigest()[:16]}"


def directory() -> Path:
    """Where the compiled module lives (created on demand)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / "walltime-aot"
    local = HERE / "__pycache__" / "aot"
    try:
        local.mkdir(parents=True, exist_ok=True)
        if os.access(local, os.W_OK):
            return local
    except OSError:
        pass
    return Path.home() / ".cache" / "walltime" / "aot"


def module_path(name: str | None = None) -> Path:
    name = name or module_name()
    return directory() / (name + importlib.machinery.EXTENSION_SUFFIXES[0])


def load():
    """The compiled ``simulate`` function, or None when it is not built (or off)."""
    if not enabled():
        return None
    name = module_name()
    if name in _loaded:
        return _loaded[name]
    path = module_path(name)
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    try:
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except ImportError:
        return None
    _loaded[name] = mod.simulate
    return mod.simulate


@contextlib.contextmanager
def _builder_lock(blocking: bool = True):
    """The one-builder lock; yields False at once when ``blocking`` is off and it is taken."""
    d = directory()
    d.mkdir(parents=True, exist_ok=True)
    fd = os.open(d / f"{module_name()}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # releases the lock


def _check_compiler() -> None:
    """Fail in a second (compiling a one-line C file) rather than after the 25 s
    of compiling the loop, when there is no C compiler (or CC names none)."""
    from numba.pycc.platform import external_compiler_works

    if not external_compiler_works():
        raise RuntimeError(f"no working C compiler (CC={os.environ.get('CC', 'the default cc')})")


def _compile() -> None:
    """Compile the loop with numba.pycc into the module file (we hold the lock)."""
    import warnings

    name = module_name()
    final = module_path(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc's pending-deprecation notice
        from numba.pycc import CC

        from . import kernel

        with tempfile.TemporaryDirectory(dir=final.parent, prefix=".tmp-aot-") as tmp:
            cc = CC(name)
            cc.output_dir = tmp
            cc.verbose = False
            cc.target_cpu = "host"  # built where it runs; the name carries the CPU (_cpu)
            cc.export("simulate", SIGNATURE)(kernel.simulate.py_func)
            cc.compile()
            built = Path(tmp) / final.name
            os.chmod(built, 0o755)
            os.replace(built, final)
    week = time.time() - 7 * 86400
    for old in final.parent.glob("_walltime_loop_*"):  # modules of older sources, unused for a week
        with contextlib.suppress(OSError):
            if not old.name.startswith(name) and old.stat().st_atime < week:
                old.unlink()


def _failed() -> Path:
    """Marker of a build that failed for these sources (its reason inside)."""
    return directory() / f"{module_name()}.failed"


def ensure(note=None):
    """The compiled function: loaded, or built now (waiting for a background
    builder if one is at work). ``note(text)`` is told before a wait or a
    build. None when it cannot be built (no C compiler, say): the caller uses
    the JIT."""
    if not enabled():
        return None
    fn = load()
    if fn is not None:
        return fn
    failed = _failed()
    if failed.exists():  # tried before for these sources and failed: do not pay for it again
        return None
    try:
        with _builder_lock(blocking=False) as free:
            if not free and note:
                note("waiting for the simulator's compilation started in the background")
        with _builder_lock():
            fn = load()
            if fn is not None:
                return fn
            _check_compiler()
            if note:
                note(f"compiling the simulator once: about {BUILD_S} s of CPU on an idle machine, longer "
                     "under load; later runs load it at once (`walltime warm-up` does this ahead)")
            _compile()
    except Exception as e:  # no compiler, read-only everywhere, ...: the JIT still works
        why = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
        with contextlib.suppress(OSError):
            failed.write_text(why + "\n")
        if note:
            note(f"could not compile the simulator ahead of time ({why}); using Numba's JIT instead "
                 f"(delete {failed} to try again)")
        return None
    return load()


def building() -> bool:
    """True while another process builds the module."""
    try:
        with _builder_lock(blocking=False) as free:
            return not free
    except OSError:
        return False


def start_background() -> int | None:
    """Start building in a detached process unless built or being built;
    returns its pid (None when there is nothing to do)."""
    if not enabled() or module_path().exists() or _failed().exists():
        return None
    try:
        with _builder_lock(blocking=False) as free:
            if not free:
                return None
        d = directory()
        log = open(d / f"{module_name()}.log", "ab")
    except OSError:
        return None
    with log:
        p = subprocess.Popen([sys.executable, "-m", "pipeline.simulate.aot"], stdin=subprocess.DEVNULL,
                             stdout=log, stderr=log, start_new_session=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                 [str(HERE.parent.parent), *filter(None, [os.environ.get("PYTHONPATH")])])})
    return p.pid


def main() -> None:
    """``python -m pipeline.simulate.aot``: build (the background job)."""
    t = time.perf_counter()
    fn = ensure()
    print(f"{module_path()}: {'ready' if fn is not None else 'not built'} after {time.perf_counter() - t:.1f} s",
          flush=True)


if __name__ == "__main__":
    main()
