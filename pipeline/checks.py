"""Checks of output paths, made before any computing, so a bad ``--out`` or
``--csv`` costs nothing and leaves nothing behind (no ``.tmp-*`` file, no
half-written directory). Each raises a one-line WalltimeError naming the option.

Every file a command writes for the user goes through :func:`write_file`: a
device node, FIFO or socket at the target (also through a link) is refused,
never replaced (``--out /dev/null`` run as root would otherwise replace the
device with a regular file), and the temporary is created new
(:func:`open_new`: ``O_EXCL | O_NOFOLLOW``, a random name), so a link planted
under a temporary's name is never followed.
"""

from __future__ import annotations

import os
import stat
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

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
    check_regular(p, option)
    _check_parent(p, option)
    if p.exists() and not os.access(p, os.W_OK):
        raise WalltimeError(f"{option} {quote(p)}: cannot replace it: permission denied")
    if p.parent.absolute().is_dir():
        _probe(p, option)
    return p


def _probe(path: Path, option: str) -> None:
    """Create and remove the temporary a write would create beside ``path``:
    the one test that also holds for root (to whom ``os.access`` says yes) on
    a file system that refuses files (``/proc``, ``/sys``, a read-only mount)."""
    try:
        tmp, fh = open_new(path)
    except OSError as e:
        raise WalltimeError(f"{option} {quote(path)}: cannot write in {quote(path.parent.absolute())}: "
                            f"{e.strerror or e}") from None
    fh.close()
    tmp.unlink(missing_ok=True)


def check_out_dir(path: str | os.PathLike, option: str = "--csv", files: str | None = None) -> Path:
    """A directory we may create or write files into. ``files``: a glob of the
    names we will write there; an existing one that is not a regular file is refused."""
    p = Path(path)
    if not str(path) or "\0" in str(path):
        raise WalltimeError(f"{option}: give a directory name")
    if p.exists() and not p.is_dir():
        raise WalltimeError(f"{option} {quote(p)}: is a file; give a directory")
    if p.is_dir():
        if not os.access(p, os.W_OK | os.X_OK):
            why = "the file system is read-only" if _read_only(p) else "permission denied"
            raise WalltimeError(f"{option} {quote(p)}: cannot write in it: {why}")
        for f in sorted(p.glob(files)) if files else ():
            check_regular(f, option)
        return p
    _check_parent(p, option)
    return p


def check_regular(path: str | os.PathLike, option: str = "--out") -> None:
    """Refuse a target that exists (itself or where its link points) as anything
    but a regular file: a writer replaces files, never devices, FIFOs or sockets."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # missing (or a dangling link, which the rename replaces)
        return
    if stat.S_ISDIR(mode):
        raise WalltimeError(f"{option} {quote(Path(path))}: is a directory; give a file name")
    if not stat.S_ISREG(mode):
        raise WalltimeError(f"{option} {quote(Path(path))}: is not a regular file (a device, FIFO or socket); "
                            "give the name of a file to write")


def open_new(path: Path, suffix: str = "") -> tuple[Path, BinaryIO]:
    """A new temporary file beside ``path`` (same directory, so the rename is
    atomic), opened for writing: ``.tmp-<random hex>-<name><suffix>``, created
    exclusively and never through a link (``O_EXCL | O_NOFOLLOW``); permissions as the umask allows."""
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}{suffix}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    return tmp, os.fdopen(fd, "wb")


def write_file(path: str | os.PathLike, content: bytes | str | Callable[[BinaryIO], object],
               option: str = "--out", sync: bool = False) -> int:
    """Replace ``path`` atomically with ``content`` (text is written as UTF-8;
    a function is given the open binary file). Refuses a non-regular target
    (:func:`check_regular`); ``sync``: fsync before the rename. Returns the bytes written."""
    path = Path(path)
    check_regular(path, option)
    tmp, fh = open_new(path)
    try:
        with fh:
            if callable(content):
                content(fh)
            else:
                fh.write(content.encode("utf-8") if isinstance(content, str) else content)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
            size = fh.tell()
        os.replace(tmp, path)
    finally:  # a failed write (full disk) leaves no temporary behind
        tmp.unlink(missing_ok=True)
    return size
