"""User-facing errors: one line on stderr, exit code 1, never a traceback."""

from __future__ import annotations


class WalltimeError(Exception):
    """A mistake in the user's input or options (bad file, unknown trace, busy warehouse).

    The message is the whole story: it names the file and line, or the option, at fault.
    """


class WarehouseBusy(WalltimeError):
    """Another process is writing the warehouse (or holds it open)."""


class DamagedWarehouse(WalltimeError):
    """The warehouse database cannot be read: restore it or re-ingest."""


LONG = 60


def quote(raw: object, limit: int = LONG) -> str:
    """Raw input made safe for a one-line message: control bytes escaped
    (``\\n``, ``\\x1b``), and a long token cut to ``limit`` characters with its
    length stated. Why: a message quotes what the user gave, which may be a
    binary blob or a megabyte-long line. A path (os.PathLike) is only cut
    beyond 400 characters: the user needs it whole to find the file."""
    import os

    if isinstance(raw, os.PathLike):
        raw, limit = os.fspath(raw), max(limit, 400)
    if isinstance(raw, bytes):
        text = raw.decode("utf-8", "backslashreplace")
    else:
        text = str(raw)
    n = len(text)
    if n > limit:
        text = text[:limit]
    return printable(text) + (f"... ({n:,} characters)" if n > limit else "")


def printable(text: str) -> str:
    """``text`` with every character that is not printable (control bytes,
    line and paragraph separators, bidi overrides) written as its escape
    (``\\n``, ``\\x1b``, ``\\u202e``): what reaches a terminal, a one-line
    message or a line-based file can neither act on the terminal nor start a line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def os_message(e: OSError) -> str:
    """One line for a failed file operation: which file, and why in plain
    words (a full disk and a read-only file system say so)."""
    import errno

    where = quote(e.filename, 400) if getattr(e, "filename", None) else None
    why = {errno.ENOSPC: "the disk is full (no space left on device)",
           errno.EROFS: "the file system is read-only",
           errno.EACCES: "permission denied",
           errno.EDQUOT: "disk quota exceeded"}.get(e.errno or -1)
    if why is None:
        text = e.strerror or " ".join(str(e).split()) or type(e).__name__
        low = text.lower()
        why = ("the disk is full (no space left on device)" if "no space left" in low else
               "the file system is read-only" if "read-only file system" in low else quote(text, 200))
    return f"{where}: {why}" if where else why


# words in a DuckDB error that mean the database file is damaged or not DuckDB's
# (duckdb_message; pipeline/warehouse.py: damaged)
OPENED: list = []  # the database file this process opened last (pipeline/warehouse.py sets it)
DAMAGE = ("not a valid duckdb database", "could not read enough bytes", "checksum", "corrupt",
          "extension", "serializ", "invalid block", "magic")


def duckdb_message(e: Exception) -> str:
    """One line for a DuckDB error that escaped the stages: a full disk, a
    read-only file system, or a damaged database file."""
    text = " ".join(str(e).split())
    low = text.lower()
    if "no space left" in low:
        return f"cannot write the warehouse: the disk is full (no space left on device): {quote(text, 160)}"
    if "read-only file system" in low or "read only file system" in low:
        return f"cannot write the warehouse: the file system is read-only: {quote(text, 160)}"
    if any(d in low for d in DAMAGE):
        where = "".join(f"{quote(p)}: " for p in OPENED)  # the file: DuckDB names only a block's offset
        return (f"{where}damaged warehouse ({quote(text, 160)}): restore it from a backup or re-ingest "
                "into a new --warehouse")
    return f"warehouse: {quote(text, 200)}"


def one_line(message: str, token_limit: int = LONG) -> str:
    """The final form of any error message: one line, control bytes escaped,
    any single token longer than ``token_limit`` cut (with its length).
    Tokens holding a '/' are paths, and ``--format=...`` the sacct fields to
    rerun with (copied whole by the user): cut only beyond 400 characters."""
    parts = []
    for tok in message.replace("\r", " ").replace("\n", " ").split(" "):
        long_ok = "/" in tok or tok.startswith("--format=") or tok.endswith("...")  # "...": cut by quote()
        parts.append(quote(tok, 400 if long_ok else token_limit) if len(tok) > token_limit
                     or not tok.isprintable() else tok)
    return " ".join(parts)


def why(e: OSError) -> str:
    """Just the reason of a failed file operation, in plain words."""
    return os_message(OSError(e.errno, e.strerror or str(e)))
