"""``walltime warm-up``: compile the simulator now rather than at the first simulation."""

from __future__ import annotations

import time

from ._app import app


@app.command("warm-up")
def warm_up() -> None:
    """Compile the event loop ahead of time (once per install and version; about 25 s of CPU).

    `walltime ingest` starts this in the background; `walltime simulate` waits
    for it or does it when needed. Run it after installing to make the first
    simulation start at once.
    """
    from .. import progress
    from ..simulate import aot

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
