"""Imported once by the local workers' forkserver (executors.Workers), so every
worker it forks starts with the task module imported and the compiled loop
loaded (about 1-2 s of imports otherwise paid by each worker after it starts).
Loading returns None when the loop is not built yet; a worker then loads it
when its first task runs, after the coordinator's ``ready_loop`` built it."""

from __future__ import annotations

from . import tasks  # noqa: F401  (numpy, duckdb, the simulate stage)
from ..simulate import aot

aot.load()
