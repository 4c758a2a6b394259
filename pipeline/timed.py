"""The stages that need job times refuse a trace loaded without them.

Why a check of its own: a sacct dump made with the default fields has no
Submit/Start/End; it is loaded (names, sizes, states) so that a site sees
what it gave, but characterize, estimate, simulate, summary, report and
export would otherwise fail deep inside with NULL arithmetic.
"""

from __future__ import annotations

from .errors import WalltimeError

# README.md, "Slurm sites": the --format list, and the command every "rerun sacct" says
# (pipeline/ingest/sacct_advice.py builds the ingest's notes from them; tests/test_ingest_trust.py
# holds them equal to the README's)
FIELDS = ("JobID,JobIDRaw,JobName,User,Group,Account,Partition,QOS,Submit,Eligible,Start,End,Elapsed,ElapsedRaw,"
          "Timelimit,TimelimitRaw,NNodes,NCPUS,ReqCPUS,ReqNodes,ReqMem,AllocTRES,ReqTRES,State,ExitCode,SubmitLine")
COMMAND = ("sacct --allusers --parsable2 --allocations --starttime 2024-01-01 --endtime 2025-01-01 "
           "--delimiter=\"$(printf '\\037')\" --format=" + FIELDS)


def rerun() -> str:
    """What to run instead, as one sentence's end."""
    return (f"run sacct with --format=<the README's fields> and its other options: {COMMAND} (README, Slurm sites; "
            "your period's dates), then ingest that with --format sacct --delimiter US")


def require_times(con, trace: str, what: str) -> None:
    """Raise the one-line error when ``trace`` was loaded without times
    (traces.has_times FALSE); unknown traces are left to the caller's check."""
    rows = con.execute("SELECT has_times FROM traces WHERE trace = ?", [trace]).fetchall()  # all: frees the result
    if rows and rows[0][0] is False:
        raise WalltimeError(
            f'trace "{trace}" has no job times (a sacct dump without Submit/Start/End), so {what} cannot use it; '
            f"{rerun()} --replace")
