"""Find and read the project's SQL files.

SQL lives in the top-level ``sql/`` directory of the source tree; wheels carry a
copy at ``pipeline/sql``. Numbered files (``NNN_name.sql``) are schema migrations;
the others are named queries loaded with :func:`load`.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_MIGRATION = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


@cache
def sql_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "sql", here / "sql"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("walltime's sql/ directory is missing from the installation")


@cache
def load(name: str) -> str:
    """The text of ``sql/<name>.sql``."""
    return (sql_dir() / f"{name}.sql").read_text()


def statements(name: str) -> list[str]:
    """The statements of ``sql/<name>.sql``, one by one (DuckDB prepares one
    statement at a time, so a file of several takes its parameters each)."""
    text = "\n".join(line for line in load(name).splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL text) of every migration, in version order."""
    found = []
    for path in sorted(sql_dir().glob("*.sql")):
        m = _MIGRATION.match(path.name)
        if m:
            found.append((int(m.group(1)), path.name, path.read_text()))
    versions = [v for v, _, _ in found]
    if len(versions) != len(set(versions)):
        raise RuntimeError(f"two migrations share a version number in {sql_dir()}")
    return found
