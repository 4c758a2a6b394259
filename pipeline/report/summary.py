"""Report section 0: the answer first. The same three answers as
`walltime summary` (the same numbers, from the same stored runs), then the
study's own runs side by side when the report belongs to a study."""

from __future__ import annotations

from .page import Prose, Section, Table
from .views import quote


def summary(con, traces: list[str]) -> Section:
    from ..summary import read
    from ..summary.words import sentences

    sec = Section(
        "summary", "Summary: the three answers",
        "How wrong the users' requested times are, how much better the best system estimator guesses, "
        "and what that does to the queue under FCFS with EASY backfilling (with the requests, the best "
        "estimator, and exact runtimes as the bound). `walltime summary TRACE` prints the same lines.",
    )
    for t in traces:
        sec.blocks.append(Prose(sentences(read(con, t))))
    return sec


def study_runs(con, run_ids: list[str]) -> Section:
    """One row per run of the study, with its metrics in reading units."""
    sec = Section("runs", "The study's runs",
                  "Every simulation the study file asked for, side by side (whole-run metrics; the later "
                  "sections add the papers' experiments).")
    ids = ", ".join(quote(r) for r in dict.fromkeys(run_ids)) or "NULL"
    query = (f"SELECT * EXCLUDE (created_at) FROM report_runs WHERE run_id IN ({ids}) "
             "ORDER BY trace, policy, backfill, estimate, adjust, run_id")
    cur = con.execute(query)
    sec.blocks.append(Table("The study's simulation runs", "report_runs", [d[0] for d in cur.description],
                            cur.fetchall(), query))
    return sec
