"""Where a study's simulations run: this process, local processes, or Dask.

Every executor maps :func:`tasks.compute` over the tasks and yields results as
they complete; the worker writes each run's jobs file, and only the
coordinating process writes the DuckDB file.
"""

from __future__ import annotations

import itertools
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
    and are shut down when the results are all in; if the caller already
    sent it the tasks as they were prepared (:meth:`Workers.send`), they are
    not sent again. With local processes the
    tasks are sent before this returns, so the caller can do other work while
    they run (the report's Tang grid)."""
    if not tasks:
        if pool is not None:
            pool.close()
        return iter(())
    if executor == "local":
        if pool is not None and pool.streaming:  # its pieces were sent as they were prepared
            return pool.finish()
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
    and die with it (pipeline/simulate/orphans.py)."""
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["pipeline.simulate.orphans", "pipeline.simulate.preload"])
    os.environ["WALLTIME_FORKSERVER"] = str(os.getpid())  # read by orphans.py in the forkserver it starts
    try:
        forkserver.ensure_running()
    finally:
        os.environ.pop("WALLTIME_FORKSERVER", None)
    return ctx


def start_forkserver() -> None:
    """Start the workers' forkserver now, so that its imports (~0.3 s) run
    while this process does other work (a study: checking its traces and
    estimates): a study's first task can begin as soon as its first input set
    is prepared. Costs the forkserver's imports on another core if, in the
    end, no run needs computing."""
    forkserver_context()


class Workers:
    """Local worker processes, started as soon as this is made so that their
    start-up (a forkserver, imports: ~0.3 s) overlaps the coordinator's own
    preparation instead of following it. The forkserver imports the task
    module and loads the compiled loop once (``pipeline.simulate.preload``); each
    worker is a fork of it, ready in milliseconds.

    Two ways to give it work: :meth:`run` (every task at once), or
    :meth:`send` for each input set as soon as the coordinator has prepared it
    and :meth:`finish` after the last (a study: the workers start computing
    while the other input sets are prepared).

    forkserver: children do not inherit the coordinator's DuckDB connection or
    threads. The forkserver and the workers die with the coordinator
    (pipeline/simulate/orphans.py)."""

    def __init__(self, n: int, expected: int | None = None):
        """``expected``: about how many runs :meth:`send` will be given (sizes
        the pieces, :class:`Dealer`)."""
        self.n = n
        # the workers are forked from the forkserver when the first pieces are sent
        self.pool = ProcessPoolExecutor(max_workers=n, mp_context=forkserver_context(), initializer=die_with_parent)
        self.dealer = Dealer(n, expected or 0)
        self.futures: list = []
        self.streaming = False
        self.loop_ready = False

    def run(self, tasks: list[SimTask], inputs: dict) -> Iterator[dict]:
        """Send every piece now: each run of adjacent tasks sharing inputs is
        one input set for :meth:`send` (with the coordinator's arrays when it
        has them: pickling them costs milliseconds, a worker's own read of the
        Parquet mirrors a DuckDB query, 0.3-1.6 s on CTC-SP2); the returned
        iterator yields results as they complete and shuts the workers down at
        its end."""
        self.dealer = Dealer(self.n, len(tasks))
        for _, same in itertools.groupby(tasks, key=lambda t: (t.trace, t.in_sha)):
            group = list(same)
            self.send(group, inputs.get(group[0].run_id))
        return self.finish()

    def send(self, tasks: list[SimTask], inp=None) -> None:
        """Send runs that share one input set (``inp``: the coordinator's
        arrays) now, in pieces (:class:`Dealer`). The compiled loop is made
        ready (:func:`ready_loop`) before the first piece that needs it goes."""
        if not tasks:
            return
        self.streaming = True
        if not self.loop_ready:
            self.loop_ready = ready_loop(tasks) is not None
        try:
            for piece, piece_inp in self.dealer.add(tasks, inp):
                self._submit(piece, piece_inp)
        except BaseException:
            self.close()
            raise

    def finish(self) -> "_Results":
        """Send the pieces held back for the end; the results of everything sent."""
        try:
            for piece, inp in self.dealer.finish():
                self._submit(piece, inp)
        except BaseException:
            self.close()
            raise
        return _Results(self, self.futures)

    def _submit(self, piece: list[SimTask], inp) -> None:
        self.futures.append(self.pool.submit(compute_chunk, piece, inp))
        if os.environ.get("WALLTIME_TEST_KILL_AT"):  # tests only: a kill as the first worker has just forked
            from ..transactions import fault_hook

            fault_hook("worker-forked")

    def close(self) -> None:
        """Stop the workers; pieces not started are cancelled (their runs were
        not computed, so nothing of theirs is on disk)."""
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Results:
    """Results of pieces already sent: iterate to receive them, ``close()`` to
    give up early (the workers stop after their current piece).
    ``idle()``: fewer pieces are left than there are workers, so a core is
    free (the coordinator commits then: it costs the workers nothing)."""

    def __init__(self, workers: Workers, futures):
        self.workers, self.futures = workers, futures
        self.left = len(futures)  # pieces whose results have not all been yielded
        self.piece_end = False    # the last result yielded was its piece's last

    def __iter__(self) -> Iterator[dict]:
        try:
            for f in as_completed(self.futures):
                outs = _result(f)
                self.left -= 1
                for k, out in enumerate(outs):
                    self.piece_end = k == len(outs) - 1
                    yield out
        finally:
            self.close()

    def idle(self) -> bool:
        """At a piece's end, with fewer pieces left than workers."""
        return self.piece_end and self.left < self.workers.n

    def close(self) -> None:
        self.workers.close()


class Dealer:
    """Cuts runs into pieces as their input sets arrive: each input set in
    pieces of at most ``expected / (4 n)`` runs, so there are still enough
    pieces to keep n workers busy while the runs sharing inputs go to one
    worker, which loads them once (sent one by one, every worker loaded
    nearly every input set: 2 workers gained 1.3-1.5x instead of 1.8x). The
    last ``n`` pieces are held back until :meth:`finish` and then cut into
    pairs (when there were more than ``n`` pieces): the workers take pieces
    in order, so the sweep's end is where one worker could be left alone
    with a whole piece (8 runs of CTC-SP2, ~1.5 s) while the other has
    finished. Every other piece can go to a worker as soon as :meth:`add`
    returns it. tests/study_support.py keeps the whole-list form
    (``split_tail(chunks(...))``) that the tests compare it with."""

    def __init__(self, n: int, expected: int):
        self.n, self.most = n, max(1, expected // (4 * n))
        self.held: list[tuple[list[SimTask], object]] = []
        self.dealt = 0

    def add(self, tasks: list[SimTask], inp=None) -> list[tuple[list[SimTask], object]]:
        """The pieces to send now for ``tasks`` (one input set, ``inp``)."""
        out = []
        for i in range(0, len(tasks), self.most):
            self.held.append((tasks[i:i + self.most], inp))
            while len(self.held) > self.n:
                out.append(self.held.pop(0))
        self.dealt += len(out)
        return out

    def finish(self) -> list[tuple[list[SimTask], object]]:
        """The held-back pieces, as pairs if more than ``n`` pieces were made."""
        pairs = self.n > 1 and self.dealt > 0
        out = [(p[i:i + 2], inp) for p, inp in self.held for i in range(0, len(p), 2)] if pairs else self.held
        self.held = []
        self.dealt += len(out)
        return out


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
