"""Where a study's simulations run: this process, local processes, or Dask.

Every executor maps :func:`tasks.compute` over the tasks and yields results as
they complete; the worker writes each run's jobs file, and only the
coordinating process writes the DuckDB file.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed

from ..errors import WalltimeError
from .orphans import die_with_parent
from .tasks import SimTask, compute, compute_chunk, ready_loop


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def run_tasks(tasks: list[SimTask], executor: str = "local", workers: int | None = None,
              scheduler: str | None = None, inputs=None, pool: "Workers | None" = None) -> Iterator[dict]:
    """``inputs``: run_id -> the coordinator's Inputs, used by local workers (this
    process, or sent to the worker processes) instead of reading the Parquet
    mirrors again; Dask workers read the mirrors. ``pool``: local worker
    processes already started (:class:`Workers`), which then run the tasks
    and are shut down when the results are all in. With local processes the
    tasks are sent before this returns, so the caller can do other work while
    they run (the report's Tang grid)."""
    if not tasks:
        if pool is not None:
            pool.close()
        return iter(())
    if executor == "local":
        ready_loop(tasks)  # one build (or JIT compile) here, not one per worker
        n = pool.n if pool is not None else min(workers or default_workers(), len(tasks))
        if n <= 1:
            return _inline(tasks, inputs or {})
        return (pool or Workers(n)).run(tasks, inputs or {})
    if pool is not None:
        pool.close()
    if executor == "dask":
        if not scheduler:
            raise WalltimeError("--executor dask needs --scheduler tcp://HOST:PORT")
        return _dask(tasks, scheduler)
    raise WalltimeError(f'--executor "{executor}": unknown; use local or dask')


def _inline(tasks, inputs):
    for t in tasks:
        yield compute(t, inputs.get(t.run_id))


def forkserver_context():
    """The context of every local process pool (the study's workers, the
    report's figure drawers): a forkserver that imports the task module and
    loads the compiled loop once, started now without waiting for its imports.
    Its children do not inherit this process's DuckDB connection or threads,
    and die with it (pipeline/study/orphans.py)."""
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["pipeline.study.orphans", "pipeline.study.preload"])
    os.environ["WALLTIME_FORKSERVER"] = "1"  # read by orphans.py in the forkserver it starts
    try:
        forkserver.ensure_running()
    finally:
        os.environ.pop("WALLTIME_FORKSERVER", None)
    return ctx


class Workers:
    """Local worker processes, started as soon as this is made so that their
    start-up (a forkserver, imports: ~1-2 s) overlaps the coordinator's own
    preparation instead of following it. The forkserver imports the task
    module and loads the compiled loop once (``pipeline.study.preload``); each
    worker is a fork of it, ready in milliseconds.

    forkserver: children do not inherit the coordinator's DuckDB connection or
    threads. The forkserver and the workers die with the coordinator
    (pipeline/study/orphans.py)."""

    def __init__(self, n: int):
        self.n = n
        # the workers are forked from the forkserver when the first pieces are sent
        self.pool = ProcessPoolExecutor(max_workers=n, mp_context=forkserver_context(), initializer=die_with_parent)

    def run(self, tasks: list[SimTask], inputs: dict) -> Iterator[dict]:
        """Send every piece now (with the coordinator's arrays when it has them:
        pickling them costs milliseconds, a worker's own read of the Parquet
        mirrors a DuckDB query, 0.3-1.6 s on CTC-SP2); the returned iterator
        yields results as they complete and shuts the workers down at its end."""
        try:
            futures = [self.pool.submit(compute_chunk, c, inputs.get(c[0].run_id))
                       for c in split_tail(chunks(tasks, self.n), self.n)]
        except BaseException:
            self.close()
            raise
        return _Results(self, futures)

    def close(self) -> None:
        """Stop the workers; pieces not started are cancelled (their runs were
        not computed, so nothing of theirs is on disk)."""
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Results:
    """Results of pieces already sent: iterate to receive them, ``close()`` to
    give up early (the workers stop after their current piece)."""

    def __init__(self, workers: Workers, futures):
        self.workers, self.futures = workers, futures

    def __iter__(self) -> Iterator[dict]:
        try:
            for f in as_completed(self.futures):
                yield from _result(f)
        finally:
            self.close()

    def close(self) -> None:
        self.workers.close()


def chunks(tasks: list[SimTask], n: int) -> list[list[SimTask]]:
    """Tasks grouped so that the runs sharing inputs (same trace and input hash,
    adjacent in ``tasks``) go to one worker, which loads them once: sent one by
    one, every worker loaded nearly every input set (issue 11: 2 workers gained
    1.3-1.5x instead of 1.8x). Groups are cut to at most len(tasks) / (4 n)
    tasks, so there are still enough pieces to keep n workers busy."""
    most = max(1, len(tasks) // (4 * n))
    out: list[list[SimTask]] = []
    for t in tasks:
        last = out[-1] if out else None
        if last and len(last) < most and (last[0].trace, last[0].in_sha) == (t.trace, t.in_sha):
            last.append(t)
        else:
            out.append([t])
    return out


def split_tail(pieces: list[list[SimTask]], n: int) -> list[list[SimTask]]:
    """The last ``n`` pieces cut into pairs of runs: the workers take pieces in
    order, so the sweep's end is where one worker can be left alone with a
    whole piece (8 runs of CTC-SP2, ~1.5 s) while the other has finished.
    Pairs cost one more pickling of their inputs each (milliseconds)."""
    if n <= 1 or len(pieces) <= n:
        return pieces
    head, tail = pieces[:-n], pieces[-n:]
    return head + [p[i:i + 2] for p in tail for i in range(0, len(p), 2)]


def _result(f) -> list[dict]:
    """A worker's results; its failures (a missing or changed mirror) become
    one-line errors rather than a worker's traceback."""
    try:
        return f.result()
    except (FileNotFoundError, RuntimeError) as e:
        raise WalltimeError(f"simulation worker: {e}") from None


def _dask(tasks, scheduler):
    try:
        from distributed import Client, as_completed as dask_completed
    except ImportError:
        raise WalltimeError("--executor dask needs the dask extra: pip install 'walltime[dask]'") from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as e:
        raise WalltimeError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({e})") from None
    try:
        futures = client.map(compute, tasks, pure=False)
        for f in dask_completed(futures):
            yield f.result()
    finally:
        client.close()
