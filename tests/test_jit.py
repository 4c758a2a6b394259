"""pipeline/jit.py: one decorator for every kernel's compile options (issue 41, item 2).

Each flag maps to the Numba option it names, every kernel is cached, and no
module of pipeline/ spells ``njit`` options itself any more (the eight
spellings this replaced)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("flags,want", [
    ({}, {"cache": True}),
    ({"inline": True}, {"cache": True, "inline": "always"}),
    ({"nrt": False}, {"cache": True, "_nrt": False}),
    ({"inline": True, "nrt": False}, {"cache": True, "inline": "always", "_nrt": False}),
    ({"nogil": True}, {"cache": True, "nogil": True}),
    ({"numpy_errors": True}, {"cache": True, "error_model": "numpy"}),
])
def test_each_flag_is_the_numba_option_it_names(flags, want):
    from pipeline.jit import jit

    def f(x):
        return x + 1

    d = jit(**flags)(f) if flags else jit(f)
    opts = {k: v for k, v in d.targetoptions.items() if k in ("inline", "_nrt", "nogil", "error_model")}
    assert opts == {k: v for k, v in want.items() if k != "cache"}
    assert type(d._cache).__name__ == "FunctionCache"  # cache=True (a plain njit has a NullCache)
    assert d(1) == 2


def test_no_module_spells_njit_options_itself():
    found = []
    for path in sorted((ROOT / "pipeline").rglob("*.py")):
        if path.name == "jit.py":
            continue
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"\s*@(nb\.|numba\.)?n?jit\(", line) and not line.strip().startswith("@jit("):
                found.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
            if re.match(r"\s*(from numba import .*\bnjit\b|import numba\b)", line):
                found.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
    assert not found, "use pipeline.jit.jit:\n" + "\n".join(found)


def test_kernels_are_cached_with_their_flags():
    """Two real kernels, read back: the node loop's helper without reference counting, an
    inlined heap helper, and the sacct scan releasing the GIL."""
    from pipeline.ingest import _sacct_jit
    from pipeline.simulate import _heaps, _profile

    assert _profile.seg.targetoptions["_nrt"] is False and type(_profile.seg._cache).__name__ == "FunctionCache"
    inlined = [f for f in vars(_heaps).values() if getattr(f, "targetoptions", {}).get("inline") == "always"]
    assert inlined and all(type(f._cache).__name__ == "FunctionCache" for f in inlined)
    nogil = [f for f in vars(_sacct_jit).values() if getattr(f, "targetoptions", {}).get("nogil")]
    assert nogil
