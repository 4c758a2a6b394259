"""Local worker processes die with their coordinator.

Why: after a ``kill -9`` of ``walltime run``, a forkserver and its pool workers
would otherwise keep computing (and holding memory) for a dead parent. On
Linux the kernel's parent-death signal does it: the forkserver imports this
module (``set_forkserver_preload``) and every worker calls
:func:`die_with_parent` as its pool initializer, so the coordinator's death
kills the forkserver, whose death kills the workers. Elsewhere the workers
watch their parent's pid instead.

The signal only covers a parent that dies after the child asked for it. A
worker is forked by the forkserver and asks in its initializer, a few
milliseconds later; a coordinator killed in between took the forkserver with
it, and the orphaned worker (re-parented to init) waited for its tasks forever,
keeping the resource tracker alive through the pipe it holds. So each process
compares its parent with the one it was started by -- the forkserver records
its own pid for the workers it forks, and learns the coordinator's from
``WALLTIME_FORKSERVER`` -- and exits at once when they differ.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
FORKSERVER: int | None = None  # in the forkserver and the workers it forks: the forkserver's pid


def die_with_parent(expected_parent: int | None = None) -> None:
    """Ask the kernel for SIGKILL when our parent dies (or poll where that
    is not available); exit at once if the parent is already gone: the
    parent is ``expected_parent``, else the forkserver for its workers."""
    forked = FORKSERVER if FORKSERVER is not None and FORKSERVER != os.getpid() else None
    parent = expected_parent or forked or os.getppid()
    done = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            done = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            done = False
    if not done:
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before we asked
        os._exit(1)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


if __name__ != "__main__" and os.environ.get("WALLTIME_FORKSERVER", "").isdigit():
    # imported as the forkserver's preload (only that process reads this variable): the coordinator's pid
    FORKSERVER = os.getpid()
    die_with_parent(int(os.environ["WALLTIME_FORKSERVER"]))
