"""Studies: the whole pipeline described in one TOML file (``walltime run``),
re-run from cron as logs grow, with simulations fanned out over processes or
a Dask cluster; and the built-in demo study (``walltime demo``).

The names below are imported on first use, not with the package: the local
workers' forkserver imports ``pipeline.study.orphans`` and
``pipeline.study.preload``, and importing the study's config and runner with
them (ingest, report, polars, numba: ~0.3 s of the ~0.75 s before a worker
can start) would delay every sweep's first task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["Study", "StudyResult", "load_study", "run_study"]

if TYPE_CHECKING:
    from .config import Study, load_study
    from .runner import StudyResult, run_study


def __getattr__(name: str):
    if name in ("Study", "load_study"):
        from . import config

        return getattr(config, name)
    if name in ("StudyResult", "run_study"):
        from . import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
