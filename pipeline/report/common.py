"""Helpers the report sections share: which traces have which fields."""

from __future__ import annotations

from .memo import cached


def trace_fields(con, traces: list[str]) -> dict[str, dict]:
    """trace -> row of report_trace_fields (has_request, has_group, tang_key, ...): a group-by over
    all the jobs, read once per page (memo.session) though every section asks."""
    def run():
        cur = con.execute("SELECT * FROM report_trace_fields")
        names = [d[0] for d in cur.description]
        return {r[0]: dict(zip(names, r)) for r in cur.fetchall()}

    out = cached(con, "report_trace_fields", run)
    return {t: dict(out[t]) for t in traces if t in out}


def split_by_request(con, traces: list[str], what: str) -> tuple[list[str], list[str]]:
    """(traces with requested times, notes for the others)."""
    f = trace_fields(con, traces)
    have = [t for t in traces if f.get(t, {}).get("has_request")]
    notes = [f'{t}: {what} skipped: the trace has no requested times (SWF field 9 is -1 throughout), '
             "so there is no user estimate to measure or adjust" for t in traces if t not in have]
    return have, notes


def by_trace(rows: list[dict], key: str = "trace") -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r[key], []).append(r)
    return out


def series(rows: list[dict], name_col: str, x_col: str, y_col: str) -> dict[str, tuple[list, list]]:
    """Rows -> {name: (xs, ys)} in row order, for figures.line_chart."""
    out: dict[str, tuple[list, list]] = {}
    for r in rows:
        xs, ys = out.setdefault(str(r[name_col]), ([], []))
        xs.append(r[x_col])
        ys.append(r[y_col])
    return out


def capacity_notes(con, traces: list[str]) -> tuple[list[str], list[str]]:
    """(traces that can be simulated, notes for those without a machine size)."""
    f = trace_fields(con, traces)
    ok = [t for t in traces if f.get(t, {}).get("capacity") is not None]
    have_runs = cached(con, "report_plan_runs traces", lambda: {t for (t,) in con.execute(
        "SELECT DISTINCT trace FROM report_plan_runs WHERE run_id IS NOT NULL").fetchall()})
    ok = sorted(set(ok) | (have_runs & set(traces)), key=traces.index)
    notes = [f"{t}: simulations skipped: the trace header gives no machine size (MaxProcs/MaxNodes); "
             f"rerun with --capacity {t}=N" for t in traces if t not in ok]
    return ok, notes
