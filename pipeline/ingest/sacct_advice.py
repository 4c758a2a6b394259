"""The sacct command line walltime suggests, in one place: the README's
recommended one (README.md, "Slurm sites"), so every error and note that
says "rerun sacct ..." gives the same, complete command: every job of every
user (--allusers), one line per allocation (--allocations), `|`-free fields
(--parsable2 with the unit separator as --delimiter), a time window
(--starttime/--endtime: without them sacct prints only today's jobs) and the
fields the readers use, Eligible included (the wait a site can act on).
tests/test_ingest_trust.py holds it equal to the README's.
"""

from __future__ import annotations

from ..timed import COMMAND, FIELDS, rerun  # noqa: F401  (re-exported: the one command, kept in the base layer)


def no_times_note() -> str:
    """The one line the ingest prints for a dump without times (pipeline/timed.py's, with the README's command)."""
    return ("the dump has no times (no Submit, Start or End): jobs, names, sizes, states and exit codes are loaded, "
            "submit/wait/run are NULL; for characterize, estimate, simulate, summary and report "
            f"{rerun()} --replace")
