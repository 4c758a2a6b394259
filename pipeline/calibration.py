"""The replay beside the log: how far a run's waits are from the waits the log recorded.

A replay with the users' own requests has to reproduce the log's queue before
its what-ifs mean anything. ``run_calibration`` (sql/323) gives,
per run, the same jobs' logged and replayed mean and median waits and the
MAPE of their 7-bin moving-average wait (FastSim's measure); this module
reads a run's row and says it in words, with what the replay leaves out.
"""

from __future__ import annotations

from . import sqlfiles

BINS = {86400: "day", 3600: "hour", 60: "minute"}
# What the one-pool replay does not model (docs/simulate.md); said beside every calibration.
LEFT_OUT = ("partitions, priorities (fair share, QOS, age), reservations, GPUs, memory and node placement")
# What the Slurm-shaped replay does not model (docs/slurm-replay.md, "What is not modelled").
SLURM_LEFT_OUT = ("reservations, QOS limits, preemption other than by QOS (CANCEL, REQUEUE), node weights and "
                  "topology, and the timing of Slurm's own passes (real runs of one workload differ by it)")


def read(con, run_id: str) -> dict | None:
    """``run_calibration``'s row of ``run_id`` with its ``run_preemptions`` columns (None: no job with a
    logged wait), by a query for the one run (sql/calibration_run.sql: the views join every run first)."""
    cur = con.execute(sqlfiles.load("calibration_run"), [run_id])
    names = [d[0] for d in cur.description]
    row = cur.fetchone()
    return dict(zip(names, row)) if row else None


def _secs(s: float | None) -> str:
    """A wait for reading: seconds under a minute, minutes under an hour, else hours."""
    if s is None:
        return "n/a"
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def change(rep: float | None, log: float | None) -> str:
    """'36% below the log', '12% above the log', 'equal' (where the replay stands:
    below/above, not the shorter/longer that what-ifs against the requests say)."""
    if rep is None or log is None:
        return "n/a"
    if log == 0:
        return "equal" if rep == 0 else "above the log, which has no wait"
    pct = 100 * (rep / log - 1)
    if round(pct) == 0:
        return "equal to the log within 0.5%"
    return f"{abs(pct):.0f}% {'above' if pct > 0 else 'below'} the log"


def _preempted(c: dict) -> str:
    """A Slurm replay with QOS preemption: its preemptions beside the log's (empty for any other run)."""
    if c.get("preempted_jobs") is None:
        return ""

    def times(n: int) -> str:
        return f"{n:,} time{'s' if n != 1 else ''}"
    return (f"It preempted {c['preempted_jobs']:,} jobs {times(c['preemptions'])}; the log shows "
            f"{c['log_preempted_jobs']:,} jobs preempted {times(c['log_preemptions'])}. ")


def sentence(c: dict, what: str, model: str, left_out: str = LEFT_OUT) -> str:
    """The calibration of one run in words: ``what`` names the run (the users'
    requests replayed), ``model`` the replay (one pool of N processors, FCFS + EASY)."""
    unit = BINS.get(c["bin_s"], f"{c['bin_s']} s")
    mape = ("no bin has a logged wait to compare" if c["moving_wait_mape"] is None else
            f"the 7-{unit} moving-average wait is off by {c['moving_wait_mape']:.1f}% on average (MAPE over "
            f"{c['bins_scored']:,} {unit}{'s' if c['bins_scored'] != 1 else ''} with a logged wait)")
    return (f"Beside the log ({what}, the same {c['jobs']:,} jobs): mean wait {_secs(c['rep_mean_wait'])} "
            f"against {_secs(c['log_mean_wait'])} logged ({change(c['rep_mean_wait'], c['log_mean_wait'])}), "
            f"median {_secs(c['rep_median_wait'])} against {_secs(c['log_median_wait'])}; {mape}. "
            f"{_preempted(c)}"
            f"The replay is {model}: it leaves out {left_out}, so its changes are this model's, "
            "to be read against how far it is from the log.")
