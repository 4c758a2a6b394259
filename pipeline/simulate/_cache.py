"""Keep Numba's on-disk cache honest across edits of the kernel's modules.

Numba checks only the source file of the cached function itself, so a
change in a helper module (say the heap) would leave `kernel.simulate`
running stale machine code. At import we hash the kernel's modules and, when
the hash moved, delete their cache entries so everything recompiles once.
That is done in each place Numba may keep them: the package's __pycache__
and, when NUMBA_CACHE_DIR is set, Numba's directory for this package under
it (named as numba.core.caching._CacheLocator.get_suitable_cache_subpath does).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

MODULES = ("kernel", "_common", "_heaps", "_sorted", "_easy", "_profile", "_conservative", "_learned")
# the learned loop (_learned) compiles another package's trees evaluator in: its edits count too; and
# pipeline/jit.py holds every kernel's compile options, which Numba's cache does not see
OTHERS = ("../estimates/learned_trees.py", "../jit.py")


def cache_dirs(here: Path) -> list[Path]:
    """Where Numba keeps the cache of functions defined in ``here``."""
    dirs = [here / "__pycache__"]
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        sub = os.path.abspath(here)
        dirs.append(Path(user) / f"{os.path.basename(sub)}_{hashlib.sha1(sub.encode()).hexdigest()}")
    return dirs


def refresh(here: Path, modules: tuple[str, ...] = MODULES, others: tuple[str, ...] = OTHERS,
            stamp_name: str = "kernel-sources.sha256") -> None:
    """Drop the cached machine code of ``modules`` (files in ``here``) when they or ``others``
    (paths relative to ``here``) changed since the stamp was written; the one refresher of every
    kernel set (the queue loop here, the node loop in _nodes.py, the Slurm kernel)."""
    digest = hashlib.sha256()
    for name in modules:
        digest.update((here / f"{name}.py").read_bytes())
    for rel in others:
        other = here / rel
        if other.exists():
            digest.update(other.read_bytes())
    for cache in cache_dirs(here):
        stamp = cache / stamp_name
        try:
            if stamp.exists() and stamp.read_text() == digest.hexdigest():
                continue
            for name in modules:
                for f in cache.glob(f"{name}.*.nb[ic]"):
                    f.unlink(missing_ok=True)
            cache.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest.hexdigest())
        except OSError:  # read-only install: Numba uses its own cache dir; best effort
            pass
