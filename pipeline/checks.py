"""Checks of output paths, made before any computing, so a bad ``--out`` or
``--csv`` costs nothing and leaves nothing behind (no ``.tmp-*`` file, no
half-written directory). Each raises a one-line WalltimeError naming the option.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import WalltimeError, quote


def _nearest_existing(path: Path) -> Path:
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _check_parent(path: Path, option: str) -> None:
    """Everything above ``path`` that exists must be a writable directory."""
    anc = _nearest_existing(path.parent if path.name else path)
    if not anc.is_dir():
        raise WalltimeError(f"{option} {quote(path)}: {quote(anc)} is a file, not a directory")
    if not os.access(anc, os.W_OK | os.X_OK):
        why = "the file system is read-only" if _read_only(anc) else "permission denied"
        raise WalltimeError(f"{option} {quote(path)}: cannot write in {quote(anc)}: {why}")


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def check_out_file(path: str | os.PathLike, option: str = "--out") -> Path:
    """A file we may create or replace."""
    p = Path(path)
    if not str(path) or "\0" in str(path):
        raise WalltimeError(f"{option}: give a file name")
    if p.is_dir():
        raise WalltimeError(f"{option} {quote(p)}: is a directory; give a file name")
    if p.exists() and not p.is_file():
        raise WalltimeError(f"{option} {quote(p)}: is not a regular file")
    _check_parent(p, option)
    if p.exists() and not os.access(p, os.W_OK):
        raise WalltimeError(f"{option} {quote(p)}: cannot replace it: permission denied")
    return p


def check_out_dir(path: str | os.PathLike, option: str = "--csv") -> Path:
    """A directory we may create or write files into."""
    p = Path(path)
    if not str(path) or "\0" in str(path):
        raise WalltimeError(f"{option}: give a directory name")
    if p.exists() and not p.is_dir():
        raise WalltimeError(f"{option} {quote(p)}: is a file; give a directory")
    if p.is_dir():
        if not os.access(p, os.W_OK | os.X_OK):
            why = "the file system is read-only" if _read_only(p) else "permission denied"
            raise WalltimeError(f"{option} {quote(p)}: cannot write in it: {why}")
        return p
    _check_parent(p, option)
    return p
