"""Keep Numba's on-disk cache honest across edits of the kernel's modules.

Numba checks only the source file of the cached function itself, so a
change in a helper module (say the heap) would leave `kernel.simulate`
running stale machine code. At import we hash the kernel's modules and, when
the hash moved, delete their cache entries so everything recompiles once.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

MODULES = ("kernel", "_common", "_heaps", "_sorted", "_easy", "_profile", "_conservative")


def refresh(here: Path) -> None:
    digest = hashlib.sha256()
    for name in MODULES:
        digest.update((here / f"{name}.py").read_bytes())
    cache = here / "__pycache__"
    stamp = cache / "kernel-sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for name in MODULES:
            for f in cache.glob(f"{name}.*.nb[ic]"):
                f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # read-only install: Numba uses its own cache dir; best effort
        pass
