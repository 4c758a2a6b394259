"""Report section 0: the answer first. The same three answers as
`walltime summary` (the same numbers, from the same stored runs), then the
study's own runs side by side when the report belongs to a study."""

from __future__ import annotations

from .. import sqlfiles
from .memo import cached
from .page import Prose, Section, Table
from .views import quote


def read_summary(con, trace: str):
    """summary.read(con, trace): the summary and the queue sections both show it; read once per page."""
    from ..summary import read

    return cached(con, ("summary", trace), lambda: read(con, trace))


def summary(con, traces: list[str]) -> Section:
    from ..summary.words import sentences

    sec = Section(
        "summary", "Summary: the three answers",
        "How wrong the users' requested times are, how much better the best system estimator guesses, "
        "and what that does to the queue under FCFS with EASY backfilling (with the requests, the best "
        "estimator, and with exact runtimes). Each change is paired over periods of submission with a "
        "bootstrap 95% interval; the recommendation is on the balanced objective and names what gets "
        "worse; the table gives who wins and who loses. `walltime summary TRACE` prints the same lines.",
    )
    for t in traces:
        s = read_summary(con, t)
        sec.blocks.append(Prose(sentences(s)))
        if s.winners and s.winners.get("kinds"):
            sec.blocks.append(winners_table(con, t, s.winners))
    return sec


def winners_table(con, trace: str, w: dict) -> Table:
    """Who wins and who loses (summary_owner_change): the owners that gain and lose most.
    The page shows the view's query; the rows come from sql/summary_owner_change_pair.sql, the same
    definitions for the one pair (the view joins every run's jobs before the pair is chosen: at 1M
    Eagle-shaped jobs and 55 runs 0.9 s against 0.4 s), in the view query's order
    (tests/test_report_scale.py holds the two equal)."""
    from ..summary import TOP_OWNERS

    query = ("SELECT kind, owner, jobs, base_mean_wait_h, mean_wait_h, wait_change_h, total_wait_change_h, "
             "base_mean_bsld, mean_bsld, bsld_change, rank_gain, rank_loss FROM summary_owner_change "
             f"WHERE base_run = {quote(w['base_run'])} AND run_id = {quote(w['run_id'])} "
             f"AND (rank_gain <= {TOP_OWNERS} OR rank_loss <= {TOP_OWNERS}) ORDER BY kind, total_wait_change_h")
    cur = con.execute(sqlfiles.load("summary_owner_change_pair"), [trace, w["base_run"], w["run_id"], TOP_OWNERS])
    names = [d[0] for d in cur.description]
    got = sorted(cur.fetchall(), key=lambda r: (r[0], r[6] is None, r[6]))  # ORDER BY kind, total_wait_change_h
    return Table(f"{trace}: who wins and who loses under {w['label']} against the requests (hours; "
                 "ranked by the total change in hours of waiting)", "summary_owner_change", names, got, query)


def study_runs(con, run_ids: list[str]) -> Section:
    """One row per run of the study, with its metrics in reading units."""
    sec = Section("runs", "The study's runs",
                  "Every simulation the study file asked for, side by side (whole-run metrics; the later "
                  "sections add the papers' experiments). Each row says its replay: a run replayed month by "
                  "month starts every month from an empty machine, so its waits differ from those of the same "
                  "scheduler replayed over the whole trace at once, which is what the summary above shows.")
    ids = ", ".join(quote(r) for r in dict.fromkeys(run_ids)) or "NULL"
    query = ("SELECT run_id, trace, policy, backfill, estimate, adjust, overrun, CASE split WHEN 'month' "
             "THEN 'month by month' ELSE 'whole trace' END AS replay, "
             "capacity, jobs, mean_wait_h, median_wait_h, mean_bounded_slowdown, utilization, backfill_ratio "
             f"FROM report_runs WHERE run_id IN ({ids}) ORDER BY trace, policy, backfill, estimate, adjust, run_id")
    cur = con.execute(query)
    sec.blocks.append(Table("The study's simulation runs", "report_runs", [d[0] for d in cur.description],
                            cur.fetchall(), query))
    return sec
