"""Report section 6: the queue as a site sees it (evalys-style views).

For the runs the summary compares (the scheduler with the requests, the best
estimator regular and selective, exact runtimes): utilisation and queue length
(waiting jobs, waiting size-hours in the replay's unit) per time bin (a day, or shorter for a short
trace: sql/225), and the wait-time distribution (a study's runs as small
multiples, one plot per scheduler);
then R and unused CPU-hours (SWF: processor-hours) per user, account and partition; and, with
``--gantt RUN_ID:FROM:TO``, a Gantt chart of a window of one run.
"""

from __future__ import annotations

from datetime import datetime, timezone

from .. import sqlfiles
from ..errors import WalltimeError
from ..summary import hours_unit
from . import figures
from .common import by_trace, capacity_notes, split_by_request
from .page import Figure, Section, Table
from .views import quote, rows, view_query, view_table

TOP = 15  # owners per figure
BINS = {60: "minute", 300: "5 minutes", 900: "15 minutes", 3600: "hour", 10800: "3 hours", 21600: "6 hours",
        86400: "day"}  # the time bins of report_run_timeline_bins
GANTT_MAX = 5000  # jobs in one Gantt chart (each is drawn; more is unreadable and heavy)


def compared_runs(con, trace: str) -> dict[str, str]:
    """run_id -> label of the summary's stored runs of ``trace``."""
    from .summary import read_summary

    return {q.run_id: q.label for q in read_summary(con, trace).queue if q.run_id}


CALIBRATION = ("estimate", "adjust", "jobs", "log_mean_wait", "rep_mean_wait", "log_median_wait", "rep_median_wait",
               "bin_s", "bins_scored", "moving_wait_mape")  # the columns of report_calibration the page shows


def calibration_table(con, title: str, trace: str, run_ids: list[str]) -> Table:
    """report_calibration's rows of ``run_ids`` (load factor 1), ordered by estimate, adjustment, scheduler
    and run.
    The page shows the view's query; the rows come from sql/calibration_run.sql, run by run: the view
    joins every run's jobs to the log before the runs are chosen (1M Eagle-shaped jobs, 55 runs:
    10.7 s for the four runs of the summary, against 0.2 s a run here). tests/test_report_scale.py
    holds the two equal."""
    ids = ", ".join(quote(r) for r in run_ids) or "NULL"
    # (runs of one estimate and adjustment under two schedulers: ordered by scheduler, then run, both ways)
    query = view_query("report_calibration", [trace], "estimate, adjust, policy, backfill, run_id",
                       ", ".join(CALIBRATION), f"run_id IN ({ids}) AND load_factor = 1")
    one = sqlfiles.load("calibration_run")
    got = []
    for run_id in dict.fromkeys(run_ids):
        cur = con.execute(one, [run_id])
        row = cur.fetchone()
        if row is None:
            continue
        r = dict(zip([d[0] for d in cur.description], row))
        if r["trace"] == trace and r["load_factor"] == 1:
            got.append(((r["estimate"], r["adjust"], r["policy"], r["backfill"], run_id),
                        tuple(r[c] for c in CALIBRATION)))
    got.sort(key=lambda kr: kr[0])
    return Table(title, "report_calibration", list(CALIBRATION), [row for _, row in got], query)


def study_labels(con, run_ids: list[str]) -> dict[str, tuple[str, str]]:
    """run_id -> (trace, label) of a study's runs: scheduler, estimate, adjustment."""
    if not run_ids:
        return {}
    ids = ", ".join(quote(r) for r in dict.fromkeys(run_ids))
    out = {}
    for run_id, trace, policy, backfill, estimate, adjust in con.execute(
            f"SELECT run_id, trace, policy, backfill, estimate, adjust FROM runs WHERE run_id IN ({ids}) "
            "ORDER BY policy, backfill, estimate, adjust").fetchall():
        short = estimate.replace("tang:floor=0.5,", "tang:").replace(",min=10", "")
        out[run_id] = (trace, f"{policy.upper()} + {backfill}, {short}, {adjust}")
    return out


def queue(con, traces: list[str], gantt: list[tuple[str, int, int]] | None = None,
          study: list[str] | None = None) -> Section:
    """``study``: a study's run ids, added to the wait-time distribution."""
    sec = Section(
        "queue", "6. The queue over time, and who wastes what",
        "The runs of the summary over time: the share of the machine busy, how many jobs wait and how "
        "many size-hours they ask for (the replay's size unit: processors, CPUs or nodes; time averages over each day of the trace's own time zone, or over each hour or minute "
        "when the trace spans less than 500 of them), and the distribution of wait times (in a study's report, "
        "also the study's runs, one small plot per scheduler). Then the owners whose requests leave the most CPU-hours (SWF: processor-hours) unused: users, accounts "
        "(the SWF group id) and partitions, with their mean R.",
    )
    sim, notes = capacity_notes(con, traces)
    sec.notes += notes
    for t in sim:
        runs = compared_runs(con, t)
        if not runs:
            continue
        # one query per run: DuckDB pushes `run_id = x` into the view's scans, not an IN list
        # (CEA-Curie, 4 of 55 runs: 0.14 s each against 5.4 s for the IN list)
        tl = {r: got for r in runs
              if (got := rows(con, "report_run_timeline_bins", [t], order="t", where=f"run_id = {quote(r)}"))}
        bin_s = next((v[0]["bin_s"] for v in tl.values()), 86400)  # chosen from the span (sql/225)
        tz = next((v[0]["tz"] for v in tl.values()), "UTC")  # bins on the trace's own clock (sql/322)
        per = BINS.get(bin_s, f"{bin_s} s")
        for col, what, unit in (("utilization", "Utilisation", "busy share of the machine (%)"),
                                ("waiting_jobs", "Waiting jobs", f"waiting jobs (mean over each {per})"),
                                ("waiting_node_h", "Waiting size-hours", "size-hours requested by waiting jobs (the replay's unit)")):
            scale = 100 if col == "utilization" else 1
            sec.blocks.append(Figure(f"{col} {t}", figures.time_chart(
                {runs[r]: ([x["t"] for x in tl[r]], [x[col] * scale for x in tl[r]]) for r in runs if r in tl},
                f"{what} per {per}: {t}", f"time ({tz})" if bin_s < 86400 else f"day ({tz})", unit)))
        sec.blocks.append(calibration_table(
            con, f"The replay beside the log, for the same jobs (a replay with the users' requests should "
                 f"reproduce the log's queue before its what-ifs mean anything): {t}", t, list(runs)))
        extra = {r: label for r, (tr, label) in study_labels(con, study or []).items() if tr == t and r not in runs}
        ids = ", ".join(quote(r) for r in {**runs, **extra})
        cdf = by_trace(rows(con, "report_wait_cdf", [t], order="run_id, share_le", where=f"run_id IN ({ids})"),
                       "run_id")
        curve = {r: ([x["wait_h"] for x in cdf[r]], [x["share_le"] for x in cdf[r]]) for r in cdf}
        axes = dict(xlabel="wait (h; linear to 0.1 h, logarithmic beyond)", ylabel="share of jobs waiting <= x (0-1)",
                    step=True, ylim=(0, 1), symlog=0.1)
        sec.blocks.append(Figure(f"wait cdf {t}", figures.line_chart(
            {runs[r]: curve[r] for r in runs if r in curve},
            f"Wait-time distribution (CDF), the summary's runs: {t}", **axes)))
        if extra:  # a study's runs: one small plot per scheduler, a few estimators in each (never 20 lines in one)
            panels: dict[str, dict] = {}
            for r, label in extra.items():
                if r in curve:
                    sched, _, rest = label.partition(", ")
                    panels.setdefault(sched, {})[rest or label] = curve[r]
            sec.blocks.append(Figure(f"wait cdf study {t}", figures.line_chart(
                {}, f"Wait-time distribution (CDF), the study's runs, one plot per scheduler: {t}", **axes,
                panels=panels)))
        runs = {**runs, **extra}
        sec.blocks.append(view_table(con, f"Wait time at each percentile (h): {t}", "report_wait_cdf", [t],
                                     order="run_id, share_le", where=f"run_id IN ({ids})"))
    have, notes = split_by_request(con, traces, "R and unused CPU-hours per owner")
    sec.notes += notes
    waste = rows(con, "report_waste_by_owner", have, order="trace, kind, rank", where=f"rank <= {TOP}")
    units = {t: hours_unit(con, t) for t in have}
    for t in have:
        for kind in ("user", "account", "partition"):
            w = [r for r in waste if r["trace"] == t and r["kind"] == kind]
            if len(w) < 2:
                continue
            u = units[t]
            sec.blocks.append(Figure(f"waste {kind} {t}", figures.bar_chart(
                [r["owner"] for r in w], {f"unused {u}": [r["unused_core_h"] for r in w],
                                          f"used {u}": [r["req_core_h"] - r["unused_core_h"] for r in w]},
                f"Requested {u} per {kind}, {len(w)} with the most unused: {t}", f"{kind} (id)",
                u, stacked=True)))
    if have:
        sec.blocks.append(view_table(con, f"R and unused CPU-hours (SWF: processor-hours) per user, account and partition "
                                          f"({TOP} with the most unused of each)", "report_waste_by_owner", have,
                                     order="trace, kind, rank", where=f"rank <= {TOP}"))
    for run_id, t0, t1 in gantt or []:
        jobs = rows(con, "report_gantt_jobs", traces + [r for (r,) in con.execute(
            "SELECT trace FROM runs WHERE run_id = ?", [run_id]).fetchall()],
            order="start, job_id", where=f"run_id = {quote(run_id)} AND start < {t1} AND \"end\" > {t0}")
        if len(jobs) > GANTT_MAX:
            raise WalltimeError(f"--gantt {run_id}: {len(jobs):,} jobs in that window; a Gantt chart shows at most "
                                f"{GANTT_MAX:,}: choose a shorter window")
        cap, start, label = con.execute(
            "SELECT r.capacity, coalesce(t.unix_start_time, 0), r.trace || ', ' || upper(r.policy) || ' + ' || "
            "upper(r.backfill) || ', ' || r.estimate FROM runs r JOIN traces t USING (trace) WHERE run_id = ?",
            [run_id]).fetchone()
        window = tuple(datetime.fromtimestamp(start + x, timezone.utc).replace(tzinfo=None) for x in (t0, t1))
        sec.blocks.append(Figure(f"gantt {run_id}", figures.gantt_chart(
            jobs, cap, f"Gantt chart of run {run_id} ({label}), {len(jobs):,} jobs", "time (UTC)",
            "processors (placed first-fit)", window)))
    return sec
