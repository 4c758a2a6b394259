"""Numba kernels compiled ahead of time into plain extension modules (numba.pycc).

Why: a process that uses Numba's JIT pays for importing Numba and loading its
on-disk cache (0.4-1.6 s of CPU) on every run, and a fresh install compiles
on first use. The same functions built by ``numba.pycc`` load in milliseconds
and need only NumPy. Two targets use this: the simulator's event loop
(pipeline/simulate/aot.py) and the ingest tokenizers (pipeline/ingest/aot.py).

A :class:`Target` names its sources; the module's name carries a hash of them,
of this file and of the Python, NumPy and Numba versions and the CPU, so an
edit never runs stale code: a changed hash is a module not built yet. While no
module is built (or no C compiler is available) the callers use Numba's JIT.
WALLTIME_AOT=0 turns every target off.

Where: ``$NUMBA_CACHE_DIR/walltime-aot`` when that is set, else the target's
``__pycache__/aot`` (next to Numba's own cache), else
``~/.cache/walltime/aot`` when the install is read-only. One builder at a time
per module (an flock on ``<name>.lock``); the module is written under a
temporary name and renamed, so a reader sees no module or a whole one.
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the directory holding the `pipeline` package
_loaded: dict[str, object] = {}


def enabled() -> bool:
    return os.environ.get("WALLTIME_AOT", "1") != "0"


@functools.cache  # a process's versions do not change
def versions() -> str:
    out = [sys.version, sys.platform, cpu()]
    for dist in ("numpy", "numba", "llvmlite"):
        out.append(f"{dist}={dist_version(dist)}")
    return "\n".join(out)


def dist_version(name: str) -> str:
    """The installed version of package ``name`` without importing it: the
    name of its ``.dist-info`` directory beside it. Why not
    importlib.metadata: it walks every distribution on the path, 50-60 ms
    that every `walltime ingest` and `simulate` would pay before its work."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        found = sorted(Path(spec.origin).parent.parent.glob(f"{name}-*.dist-info"))
        if len(found) == 1:
            return found[0].name[len(name) + 1:-len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def cpu() -> str:
    """The CPU model and its instruction-set flags: a module is compiled for
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


def default_directory(here: Path) -> Path:
    """Where the modules of the package directory ``here`` live (created on demand)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / "walltime-aot"
    local = here / "__pycache__" / "aot"
    try:
        local.mkdir(parents=True, exist_ok=True)
        if os.access(local, os.W_OK):
            return local
    except OSError:
        pass
    return Path.home() / ".cache" / "walltime" / "aot"


@functools.cache  # an LLVM option: once per process
def _align_functions() -> None:
    """Start every function LLVM compiles from now on in this process at a 64-byte boundary.

    Why: a hot loop's speed depends on where it falls in 64-byte lines, and without this an edit
    of any function linked before a kernel moves the kernel: the conservative loop's hot scan,
    byte-identical code, ran 16% slower 32 bytes off. Aligned, a function's speed depends on its
    own code; measured at no cost (docs/architecture.md, "Kernel records")."""
    import llvmlite.binding as ll

    ll.set_option("", "-align-all-functions=6")


@dataclass
class Target:
    """One compiled module: ``prefix`` + a hash of ``sources``; ``exports()``
    (called in the builder only: it imports Numba) gives (name, py_func,
    signature) per function; ``release_gil``: the wrappers drop the GIL, as
    ``nogil=True`` does for the JIT, so threads run the kernels in parallel."""

    prefix: str
    sources: list[Path]
    directory: Callable[[], Path]
    exports: Callable[[], list[tuple[str, Callable, object]]]
    builder_module: str  # `python -m <this>` builds it (the background job)
    what: str  # "the simulator", for the messages
    build_s: int  # CPU seconds of a build on this project's 2-core machine
    release_gil: bool = False

    def module_name(self) -> str:
        h = hashlib.sha256()
        for path in (*self.sources, Path(__file__)):
            h.update(path.name.encode())
            h.update(path.read_bytes())
        h.update(versions().encode())
        return f"{self.prefix}{h.hexdigest()[:16]}"

    def module_path(self, name: str | None = None) -> Path:
        name = name or self.module_name()
        return self.directory() / (name + importlib.machinery.EXTENSION_SUFFIXES[0])

    def failed_marker(self) -> Path:
        """Marker of a build that failed for these sources (its reason inside)."""
        return self.directory() / f"{self.module_name()}.failed"

    def load(self):
        """The compiled module, or None when it is not built (or off)."""
        if not enabled():
            return None
        name = self.module_name()
        if name in _loaded:
            return _loaded[name]
        path = self.module_path(name)
        if not path.exists():
            return None
        spec = importlib.util.spec_from_file_location(name, path)
        try:
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        except ImportError:
            return None
        _loaded[name] = mod
        return mod

    @contextlib.contextmanager
    def _lock(self, blocking: bool = True):
        """The one-builder lock; yields False at once when ``blocking`` is off and it is taken."""
        d = self.directory()
        d.mkdir(parents=True, exist_ok=True)
        # O_NOFOLLOW: a link planted as the lock must not create or lock its target
        fd = os.open(d / f"{self.module_name()}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)  # releases the lock

    def _compile(self) -> None:
        """Compile the exports with numba.pycc into the module file (we hold the lock)."""
        import warnings

        name = self.module_name()
        final = self.module_path(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pycc's pending-deprecation notice
            from numba.pycc import CC

            _align_functions()
            with tempfile.TemporaryDirectory(dir=final.parent, prefix=".tmp-aot-") as tmp, _gil_released(
                    self.release_gil):
                cc = CC(name)
                cc.output_dir = tmp
                cc.verbose = False
                cc.target_cpu = "host"  # built where it runs; the name carries the CPU (cpu())
                for fname, fn, sig in self.exports():
                    cc.export(fname, sig)(fn)
                cc.compile()
                built = Path(tmp) / final.name
                os.chmod(built, 0o755)
                os.replace(built, final)
        week = time.time() - 7 * 86400
        for old in final.parent.glob(f"{self.prefix}*"):  # modules of older sources, unused for a week
            with contextlib.suppress(OSError):
                if not old.name.startswith(name) and old.stat().st_atime < week:
                    old.unlink()

    def ensure(self, note=None, check_compiler=None):
        """The compiled module: loaded, or built now (waiting for a background
        builder if one is at work). ``note(text)`` is told before a wait or a
        build. None when it cannot be built (no C compiler, say): the caller
        uses the JIT."""
        if not enabled():
            return None
        mod = self.load()
        if mod is not None:
            return mod
        failed = self.failed_marker()
        if failed.exists():  # tried before for these sources and failed: do not pay for it again
            return None
        try:
            with self._lock(blocking=False) as free:
                if not free and note:
                    note(f"waiting for the compilation of {self.what} started in the background")
            with self._lock():
                mod = self.load()
                if mod is not None:
                    return mod
                (check_compiler or check_c_compiler)()
                if note:
                    note(f"compiling {self.what} once: about {self.build_s} s of CPU on an idle machine, longer "
                         "under load; later runs load it at once (`walltime warm-up` does this ahead)")
                self._compile()
        except Exception as e:  # no compiler, read-only everywhere, ...: the JIT still works
            why = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
            with contextlib.suppress(OSError):
                failed.write_text(why + "\n")
            if note:
                note(f"could not compile {self.what} ahead of time ({why}); using Numba's JIT instead "
                     f"(delete {failed} to try again)")
            return None
        return self.load()

    def building(self) -> bool:
        """True while another process builds the module."""
        try:
            with self._lock(blocking=False) as free:
                return not free
        except OSError:
            return False

    def start_background(self) -> int | None:
        """Start building in a detached process unless built or being built;
        returns its pid (None when there is nothing to do)."""
        if not enabled() or self.module_path().exists() or self.failed_marker().exists():
            return None
        try:
            with self._lock(blocking=False) as free:
                if not free:
                    return None
            log = os.fdopen(os.open(self.directory() / f"{self.module_name()}.log",
                                    os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644), "ab")
        except OSError:
            return None
        # The builder must import this very package, so that it builds where this
        # process looks. `python -m` would put the working directory first on the
        # path: run from a source checkout after `pip install .`, it imported the
        # checkout's copy and built into ./pipeline/.../__pycache__/aot, which the
        # installed package never reads (every command then started another
        # builder). -P leaves the working directory off the path; ROOT comes first.
        with log:
            p = subprocess.Popen([sys.executable, "-P", "-m", self.builder_module], stdin=subprocess.DEVNULL,
                                 stdout=log, stderr=log, start_new_session=True,
                                 env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                     [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])})
        return p.pid

    def main(self) -> None:
        """``python -m <builder_module>``: build (the background job)."""
        t = time.perf_counter()
        mod = self.ensure()
        print(f"{self.module_path()}: {'ready' if mod is not None else 'not built'} after "
              f"{time.perf_counter() - t:.1f} s", flush=True)


def check_c_compiler() -> None:
    """Fail in a second (compiling a one-line C file) rather than after the
    compile of the kernels, when there is no C compiler (or CC names none)."""
    from numba.pycc.platform import external_compiler_works

    if not external_compiler_works():
        raise RuntimeError(f"no working C compiler (CC={os.environ.get('CC', 'the default cc')})")


@contextlib.contextmanager
def _gil_released(on: bool):
    """pycc compiles its exports with default flags (the GIL held); with ``on``
    its Python wrappers release the GIL around the call, as ``@njit(nogil=True)``."""
    if not on:
        yield
        return
    from numba.pycc import compiler

    plain = compiler.Flags

    class NoGil(plain):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.release_gil = True

    compiler.Flags = NoGil
    try:
        yield
    finally:
        compiler.Flags = plain
