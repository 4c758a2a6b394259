"""The ingest kernels (SWF tokenizer, sacct scan) compiled ahead of time.

Why: before reading a line, a `walltime ingest` process that uses Numba's JIT
spent 0.3 s importing Numba and 0.7-1.6 s loading its cache of these kernels,
about half of the 2 s that a 2-million-line sacct dump may take at 1 M
lines/s. The same functions (_swf_jit.py, _sacct_jit.py, unchanged) built by
``numba.pycc`` into an extension module (pipeline/aot_build.py, as the
simulator's loop) load in milliseconds and need only NumPy; their wrappers
release the GIL like ``nogil=True``, so the drivers still run them in
threads on every core.

:func:`kernels` picks, once per process, the compiled module when it is built,
else the JIT module. The module is built by `walltime warm-up`, or in the
background after a `walltime ingest` at a terminal, or by
``python -m pipeline.ingest.aot``; WALLTIME_AOT=0 turns it off.
tests/test_ingest_aot.py compares the two on the real traces.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import SimpleNamespace

from .. import aot_build

HERE = Path(__file__).resolve().parent
SOURCES = ("tokenizer", "_swf_jit", "sacct_scan", "sacct_codes", "_sacct_jit", "sacct_json_codes", "_sacct_json_jit",
           "aot")
# the functions of each kernel set (exported as <set>_<name>)
NAMES = {"swf": ("count_rows", "tokenize_into", "range_flags", "next_line"),
         "sacct": ("count_newlines", "next_line", "scan_into", "split_into"),
         "sacct_json": ("scan", "gather")}
BUILD_S = 20  # CPU seconds of a build on this project's 2-core machine (docs/speed.md, "Compiles")
_chosen: dict[tuple[str, bool], SimpleNamespace] = {}  # (kind, compiled) -> kernels


def _signatures() -> dict[str, dict[str, object]]:
    """Exact argument types (C-contiguous arrays; the byte buffer read-only,
    as ``np.frombuffer`` over ``bytes`` gives it): no dispatch at run time."""
    from numba import types as t

    buf = t.Array(t.uint8, 1, "C", readonly=True)
    i64, f64 = t.int64, t.float64

    def a(dtype, ndim=1):
        return t.Array(dtype, ndim, "C")

    out = t.Array(t.int64, 1, "A")
    return {
        "swf": {
            "count_rows": t.UniTuple(i64, 2)(buf, i64, i64),
            "tokenize_into": t.Tuple((i64, i64, out, out, out))(
                buf, i64, i64, i64, i64, a(t.boolean), a(f64), a(i64, 2), a(f64, 2), a(i64), a(t.int8),
                a(t.int8), a(i64), a(i64), a(i64), a(i64), a(t.uint8), i64),
            "range_flags": t.UniTuple(t.Array(t.boolean, 1, "A"), 2)(
                a(i64, 2), a(t.int8), a(i64), a(i64), i64, i64, f64),
            "next_line": i64(buf, i64),
        },
        "sacct": {
            "count_newlines": i64(buf, i64, i64),
            "next_line": i64(buf, i64),
            "scan_into": t.none(buf, i64, i64, i64, i64, a(i64), a(i64), a(t.int32), a(t.boolean)),
            "split_into": i64(buf, a(i64), a(i64), a(i64), a(i64), a(i64), a(i64), a(i64), i64, i64, a(t.uint8, 2),
                              a(t.uint32, 2), a(t.boolean, 2), a(i64, 2), a(t.uint8, 2), a(i64, 2), a(t.uint8), a(f64),
                              a(t.uint8), a(i64, 2), a(t.boolean, 2), a(i64, 2), a(t.uint8, 2), a(t.int8), a(f64)),
        },
        "sacct_json": {
            "scan": t.UniTuple(i64, 4)(buf, i64, i64, i64, i64, a(i64, 2), a(i64), a(t.uint8, 2), a(i64, 2), a(i64, 3),
                                       a(t.uint8), i64),
            "gather": i64(buf, a(i64), a(i64), a(t.uint8), a(i64)),
        },
    }


def _exports():
    sigs = _signatures()
    out = []
    for kind, names in NAMES.items():
        jit = importlib.import_module(f"._{kind}_jit", __package__)
        out += [(f"{kind}_{n}", getattr(jit, n).py_func, sigs[kind][n]) for n in names]
    return out


def target() -> aot_build.Target:
    return aot_build.Target(prefix="_walltime_ingest_", sources=[HERE / f"{m}.py" for m in SOURCES],
                            directory=lambda: aot_build.default_directory(HERE), exports=_exports,
                            builder_module="pipeline.ingest.aot", what="the ingest tokenizers", build_s=BUILD_S,
                            release_gil=True)


class _Compiled(SimpleNamespace):
    """The compiled module's functions under the JIT module's names; the byte
    buffer is passed read-only (its exact type in the module)."""


def _wrap(fn):
    def call(buf, *args):
        if buf.flags.writeable:
            buf = buf.view()
            buf.flags.writeable = False
        return fn(buf, *args)

    return call


def kernels(kind: str) -> SimpleNamespace:
    """The ``kind`` ("swf", "sacct" or "sacct_json") kernels: compiled ahead when built (and
    WALLTIME_AOT is not 0), else Numba's JIT. The compiled module is looked
    for on every call (a path check) until found, so a module built later in
    the process (a test, a background build) is used from then on."""
    mod = target().load() if aot_build.enabled() else None
    key = (kind, mod is not None)
    got = _chosen.get(key)
    if got is not None:
        return got
    if mod is not None:
        fns = {n: getattr(mod, f"{kind}_{n}") for n in NAMES[kind]}
        got = _Compiled(**{n: (fn if n == "range_flags" else _wrap(fn)) for n, fn in fns.items()})
    else:
        jit = importlib.import_module(f"._{kind}_jit", __package__)
        got = SimpleNamespace(**{n: getattr(jit, n) for n in NAMES[kind]})
    _chosen[key] = got
    return got


def compiled_in_use(kind: str = "sacct") -> bool:
    return isinstance(kernels(kind), _Compiled)


def compiled_available() -> bool:
    """The compiled module is built and on (asking imports no Numba, unlike :func:`kernels`)."""
    return aot_build.enabled() and target().load() is not None


if __name__ == "__main__":
    target().main()
