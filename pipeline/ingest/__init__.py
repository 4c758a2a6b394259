"""Ingest stage: trace files into the warehouse, all or nothing.

Library entry point :func:`ingest` (pipeline/ingest/load.py); the CLI's
``walltime ingest`` is a thin wrapper. Files are read and parsed before the
warehouse is touched; the writes of one call happen in one DuckDB
transaction, and the jobs files are committed by it.

Why this file is empty: importing the package must not import Polars,
pyarrow and DuckDB, so that `walltime ingest` can start hashing and scanning
its files (early.py, which needs only NumPy and the compiled kernels) while
those libraries load. The names of load.py are served on first use.
"""

from __future__ import annotations

# the names of load.py served from the package (anything else is a submodule)
_LOAD = {"ingest", "IngestResult", "default_name", "BIG_FILE", "_read_one", "_parse_one", "_write", "_Loaded"}


def __getattr__(name: str):
    if name in _LOAD:
        from . import load

        return getattr(load, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
