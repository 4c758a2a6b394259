"""The stages that need job times refuse a trace loaded without them.

Why a check of its own: a sacct dump made with the default fields has no
Submit/Start/End; it is loaded (names, sizes, states) so that a site sees
what it gave, but characterize, estimate, simulate, summary, report and
export would otherwise fail deep inside with NULL arithmetic.
"""

from __future__ import annotations

from .errors import WalltimeError

# what to rerun sacct with (README, Slurm sites)
SACCT_FORMAT = ("JobID,JobIDRaw,JobName,User,Group,Account,Partition,QOS,Submit,Start,End,ElapsedRaw,"
                "Timelimit,TimelimitRaw,NNodes,NCPUS,ReqCPUS,AllocTRES,ReqTRES,State,ExitCode")


def no_times_note() -> str:
    """The one line the ingest summary prints for a dump without times."""
    return ("the dump has no times (no Submit, Start or End): jobs, names, sizes, states and exit codes are loaded, "
            "submit/wait/run are NULL; for characterize, estimate, simulate, summary and report rerun "
            f"sacct --allusers --parsable2 --format={SACCT_FORMAT} and ingest that with --replace")


def require_times(con, trace: str, what: str) -> None:
    """Raise the one-line error when ``trace`` was loaded without times
    (traces.has_times FALSE); unknown traces are left to the caller's check."""
    rows = con.execute("SELECT has_times FROM traces WHERE trace = ?", [trace]).fetchall()  # all: frees the result
    if rows and rows[0][0] is False:
        raise WalltimeError(
            f'trace "{trace}" has no job times (a sacct dump without Submit/Start/End), so {what} cannot use it; '
            f"rerun sacct --allusers --parsable2 --format={SACCT_FORMAT} and ingest that file with --replace")
