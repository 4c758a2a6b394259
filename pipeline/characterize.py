"""How wrong are the users' requested times? (Tang et al. 2013 Sec. 3, Mu'alem & Feitelson 2001 Sec. 4.1)

:func:`characterize` computes, in DuckDB from the ``sql/characterize_*.sql``
files, the distribution of R = least(run, req) / req, its mean per quarter, the
rows of Mu'alem & Feitelson's Table 2 and Tang's per-key spread (Table 2), stores
them in the ``characterize_*`` tables (one transaction; a re-run replaces the
trace's rows) and returns what was stored as one plain dict.

Why SQL: every statistic is a grouped count or aggregate over one trace's jobs,
which DuckDB does in one pass per query; the tests compare each one with the
plain-Python twin in ``tests/naive_characterize.py``.
"""

from __future__ import annotations

from . import sqlfiles
from .errors import WalltimeError
from .timed import require_times
from .warehouse import Warehouse, transaction

# (table, sql file that fills it, ORDER BY for reading back), in computing order.
TABLES: list[tuple[str, str, str]] = [
    ("characterize_summary", "characterize_summary", "trace"),
    ("characterize_hist", "characterize_hist", "bin"),
    ("characterize_cdf", "characterize_cdf", "x"),
    ("characterize_quarters", "characterize_quarters", "quarter"),
    ("characterize_mualem", "characterize_mualem", "pos"),
    ("characterize_keys", "characterize_keys", "pos"),
]
NOTES = "characterize_notes"

SUMMARY_FIELDS = ("mean_r", "std_r", "share_lt_0_2", "share_lt_0_5", "share_gt_0_8", "share_ge_0_99")


def unavailable(fields: dict) -> list[tuple[str, str]]:
    """(statistic, reason) for everything the trace's fields do not allow.

    ``fields`` is the row of ``sql/characterize_fields.sql``.
    """
    out: list[tuple[str, str]] = []
    if fields["jobs_ran"] == 0:
        return [("all statistics", "no job has a run time (field 4 is -1 throughout)")]
    if fields["jobs_r"] == 0:
        why = "no job has both a requested time > 0 (field 9) and a run time (field 4), so R = run/req is undefined"
        out += [
            ("R distribution (mean, std, shares, histogram, CDF)", why),
            ("mean R per quarter", why),
            ("per-key spread of R", why),
            ("Mu'alem & Feitelson: 100% peak, its killed jobs, 0% peak, <2hr jobs", why),
        ]
    else:
        if fields["r_with_group"] == 0:
            out.append(("per-key spread: project, user_project, user_project_req",
                        "no job has a group/project id (field 13 is -1 throughout)"))
        if fields["r_with_user"] == 0:
            out.append(("per-key spread: user, user_project, user_project_req",
                        "no job has a user id (field 12 is -1 throughout)"))
    if fields["ran_with_status"] == 0:
        out.append(("Mu'alem & Feitelson: killed jobs (and killed in the 100% peak)",
                    "no job has a status (field 11 is -1 throughout)"))
    return out


def check_trace(con, trace: str) -> None:
    """Raise the one-line error for a trace that is not in the warehouse."""
    if not con.execute("SELECT count(*) FROM traces WHERE trace = ?", [trace]).fetchone()[0]:
        names = [t for (t,) in con.execute("SELECT trace FROM traces ORDER BY trace").fetchall()]
        known = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "") if names else "none"
        raise WalltimeError(f'TRACE: no trace "{trace}" in the warehouse (it has: {known}); see `walltime traces`')


def _trace_fields(con, trace: str) -> dict:
    check_trace(con, trace)
    cur = con.execute(sqlfiles.load("characterize_fields"), [trace])
    cols = [d[0] for d in cur.description]
    return dict(zip(cols, cur.fetchone()))


def compute(con, trace: str) -> None:
    """Replace the trace's rows in every characterize table (caller holds a transaction)."""
    fields = _trace_fields(con, trace)
    for table, _, _ in TABLES:
        con.execute(f"DELETE FROM {table} WHERE trace = ?", [trace])
    con.execute(f"DELETE FROM {NOTES} WHERE trace = ?", [trace])
    for _, sql_name, _ in TABLES:
        con.execute(sqlfiles.load(sql_name), [trace])
    for pos, (statistic, reason) in enumerate(unavailable(fields), start=1):
        con.execute(f"INSERT INTO {NOTES} VALUES (?, ?, ?, ?)", [trace, pos, statistic, reason])


def read(con, trace: str) -> dict:
    """The stored characterization of one trace as a JSON-ready dict."""
    def rows(table: str, order: str, replace: str = "") -> list[dict]:
        cur = con.execute(f"SELECT * EXCLUDE (trace) {replace} FROM {table} WHERE trace = ? ORDER BY {order}", [trace])
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    # TIMESTAMPTZ as text: fetching it as a datetime would need pytz
    summary = rows("characterize_summary", "trace", "REPLACE (CAST(computed_at AS VARCHAR) AS computed_at)")
    if not summary:
        raise WalltimeError(f'TRACE: trace "{trace}" has not been characterized; run `walltime characterize {trace}`')
    s = summary[0]
    return {
        "trace": trace,
        "jobs": s["jobs"],
        "jobs_ran": s["jobs_ran"],
        "jobs_r": s["jobs_r"],
        "r": {k: s[k] for k in SUMMARY_FIELDS},
        "histogram": rows("characterize_hist", "bin"),
        "cdf": rows("characterize_cdf", "x"),
        "quarters": rows("characterize_quarters", "quarter"),
        "mualem_feitelson": [{k: v for k, v in r.items() if k != "pos"} for r in rows("characterize_mualem", "pos")],
        "key_spread": [{k: v for k, v in r.items() if k != "pos"} for r in rows("characterize_keys", "pos")],
        "unavailable": [{k: v for k, v in r.items() if k != "pos"} for r in rows(NOTES, "pos")],
        "partitions": _partitions(con, trace),
        "lost_attempts": lost_attempts(con, trace),
        "computed_at": s["computed_at"],
    }


def _partitions(con, trace: str) -> list[dict]:
    """R per partition (sacct traces: names; SWF: partition ids as text)."""
    cur = con.execute(sqlfiles.load("characterize_partitions"), [trace])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def lost_attempts(con, trace: str) -> dict | None:
    """The CPU-hours used by the earlier attempts of requeued jobs
    (``job_attempts``, from a ``sacct --duplicates`` dump): ``attempts``,
    ``jobs``, ``core_hours`` and ``by_state`` (PREEMPTED, NODE_FAIL,
    REQUEUED, ...; largest first). None when the trace has no such attempts."""
    cur = con.execute(sqlfiles.load("characterize_attempts"), [trace])
    cols = [d[0] for d in cur.description]
    rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    if not rows:
        return None
    jobs = con.execute("SELECT count(DISTINCT job_id) FROM job_attempts WHERE trace = ?", [trace]).fetchone()[0]
    return {"attempts": sum(r["attempts"] for r in rows), "jobs": jobs,
            "core_hours": sum(r["core_hours"] or 0.0 for r in rows), "by_state": rows}


def lost_sentence(lost: dict) -> str:
    """The lost CPU-hours in one sentence, from the numbers of :func:`lost_attempts`."""
    parts = ", ".join(f"{r['state']} {core_hours(r['core_hours'])} ({r['attempts']:,} attempt"
                      f"{'s' * (r['attempts'] > 1)})" for r in lost["by_state"])
    return (f"{lost['attempts']:,} earlier attempt{'s' * (lost['attempts'] > 1)} of {lost['jobs']:,} requeued "
            f"job{'s' * (lost['jobs'] > 1)} used {core_hours(lost['core_hours'])} before they were cut short "
            f"and ran again: {parts}.")


def core_hours(x: float | None) -> str:
    """Core-hours for reading: two decimals under 10 (a small lab's 0.07 is not 0), else none."""
    if x is None:
        return "n/a"
    return f"{x:,.2f} CPU-hours" if x < 10 else f"{x:,.0f} CPU-hours"


def characterize(trace: str, warehouse: Warehouse | None = None) -> dict:
    """Compute and store the characterization of ``trace``; return it (see :func:`read`).

    Raises WalltimeError for an unknown trace (nothing written).
    """
    wh = warehouse or Warehouse()
    con = wh.reader()  # fails with "no warehouse here yet" before anything is created
    try:
        check_trace(con, trace)
        require_times(con, trace, "characterize")
    finally:
        con.close()
    with wh.writer() as con, transaction(con):
        compute(con, trace)
        return read(con, trace)
