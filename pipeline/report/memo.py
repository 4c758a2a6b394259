"""What one rendering of the page reads more than once, read once.

Several sections read the same things from the warehouse: a figure and the table
under it run the same view query (``views.rows`` then ``views.view_table``), every
section asks for ``report_trace_fields`` (a group-by over all the jobs), and the
summary and queue sections both need the summary of a trace (``summary.read``:
a dozen queries). ``build_report`` renders from one read-only connection inside
``session(con)``; while it lasts, ``cached(con, key, compute)`` computes each key
once. Outside a session (a section built on its own, e.g. in a test, or with a
connection that writes) nothing is kept: each call computes afresh.
"""

from __future__ import annotations

import contextlib
import weakref

_MEMOS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def session(con):
    """Keep what is read through ``con`` until the block ends (``con`` must not write meanwhile)."""
    _MEMOS[con] = {}
    try:
        yield con
    finally:
        _MEMOS.pop(con, None)


def cached(con, key, compute):
    """``compute()``, once per ``key`` within ``session(con)``; every call outside one."""
    memo = _MEMOS.get(con)
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]
