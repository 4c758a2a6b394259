"""``walltime warm-up``: compile the simulator (and the ingest tokenizers) now rather than at first use."""

from __future__ import annotations

import time

from ._app import app


@app.command("warm-up")
def warm_up() -> None:
    """Compile the event loop and the ingest tokenizers ahead of time (once per install and version; about 90 s of CPU).

    `walltime ingest` starts this in the background; `walltime simulate` waits
    for it or does it when needed. Run it after installing to make the first
    simulation start at once and every ingest skip loading Numba.
    """
    from .. import progress
    from ..simulate import aot

    _warm_up_ingest()
    t = time.perf_counter()
    if aot.load() is not None:
        print(f"the simulator is already compiled ({aot.module_path()})")
        return
    if not aot.enabled():
        print("WALLTIME_AOT=0: the simulator uses Numba's JIT (compiled at the first simulation)")
        return
    fn = aot.ensure(note=progress.note)
    if fn is None:
        print("the simulator could not be compiled ahead of time; simulations use Numba's JIT")
    else:
        print(f"compiled the simulator in {time.perf_counter() - t:.1f} s ({aot.module_path()})")


def _warm_up_ingest() -> None:
    """The ingest kernels (pipeline/ingest/aot.py): without them `walltime
    ingest` loads Numba and its cache (0.5-1.6 s) before reading a line."""
    from .. import aot_build, progress
    from ..ingest import aot

    if not aot_build.enabled():
        return
    t = time.perf_counter()
    target = aot.target()
    if target.load() is not None:
        print(f"the ingest tokenizers are already compiled ({target.module_path()})")
        return
    if target.ensure(note=progress.note) is None:
        print("the ingest tokenizers could not be compiled ahead of time; ingests use Numba's JIT")
    else:
        print(f"compiled the ingest tokenizers in {time.perf_counter() - t:.1f} s ({target.module_path()})")
