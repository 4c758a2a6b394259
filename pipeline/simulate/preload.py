"""Imported once by the local workers' forkserver (executors.Workers), so every
worker it forks starts with the task module imported and the compiled loop
loaded (about 1-2 s of imports otherwise paid by each worker after it starts).
Loading returns None when the loop is not built yet; a worker then loads it
when its first task runs, after the coordinator's ``ready_loop`` built it.
pyarrow.parquet too: each task writes its run's file with it. Nothing here
imports DuckDB, Polars or Numba (a local worker needs none of them: ~0.35 s
in all instead of ~0.75 s; tests/test_study_stream.py checks it)."""

from __future__ import annotations

import pyarrow.parquet  # noqa: F401

from . import tasks  # noqa: F401  (numpy, pyarrow, the simulate stage)
from ..simulate import aot

aot.load()
