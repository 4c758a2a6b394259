"""The report's figures drawn in other processes while its sections' queries run.

Why: matplotlib draws one figure at a time under the GIL (about 0.2 s each;
a CEA-Curie report has 36, 7-8 s), and the sections' DuckDB queries take as
long again, one after the other on one core. Each section's figures are sent
to local processes as soon as the section is built, so drawing overlaps the
next sections' queries and uses the second core. The SVG text is the same as
drawn in this process (same matplotlib, same rc settings, a fixed hash salt).
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ProcessPoolExecutor

from .page import Figure, Section


def draw_workers() -> int:
    """Processes for drawing: WALLTIME_DRAW_WORKERS, else 2 on a machine with
    2 or more cores, else 0 (draw in this process)."""
    env = os.environ.get("WALLTIME_DRAW_WORKERS")
    if env is not None and env.strip().isdigit():
        return int(env)
    from ..simulate.executors import default_workers

    return 2 if default_workers() >= 2 else 0


def _drawn(chart) -> str:
    return chart.drawn_svg()


class Drawer:
    """``add(section)`` sends its figures; ``finish()`` waits and keeps every
    drawing on its chart, where ``Chart.svg`` finds it. With 0 workers it does
    nothing and the page draws in this process as before."""

    def __init__(self, workers: int | None = None):
        self.workers = draw_workers() if workers is None else workers
        self._pool: ProcessPoolExecutor | None = None
        self._sent: list[tuple[object, Future]] = []

    def add(self, section: Section) -> None:
        charts = [b.chart for b in section.blocks if isinstance(b, Figure) and b.chart._svg is None]
        if not charts or self.workers < 1:
            return
        if self._pool is None:
            from ..simulate.executors import forkserver_context
            from ..simulate.orphans import die_with_parent

            self._pool = ProcessPoolExecutor(self.workers, mp_context=forkserver_context(),
                                             initializer=die_with_parent)
        self._sent += [(c, self._pool.submit(_drawn, c)) for c in charts]

    def finish(self) -> None:
        try:
            for chart, fut in self._sent:
                chart._svg = fut.result()
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
