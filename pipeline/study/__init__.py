"""Studies: the whole pipeline described in one TOML file (``walltime run``),
re-run from cron as logs grow, with simulations fanned out over processes or
a Dask cluster (pipeline/simulate/many.py); and the built-in demo study
(``walltime demo``).
"""

from __future__ import annotations

from .config import Study, load_study
from .runner import StudyResult, run_study

__all__ = ["Study", "StudyResult", "load_study", "run_study"]
