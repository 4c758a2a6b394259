"""Report section 1: what the traces are (size, span, capacity, load, users)."""

from __future__ import annotations

from .. import sqlfiles
from . import figures
from .page import Figure, Section
from .views import view_table


def overview(con, traces: list[str]) -> Section:
    sec = Section(
        "overview", "1. Trace overview",
        "How big each log is, the period it covers, the machine size (capacity, in processors as the "
        "SWF counts them), how many users submitted work, and how busy the machine was month by month "
        "(offered load: processor-time submitted over processor-time available; first and last months "
        "are partial). Everything later in the report is relative to this workload.",
    )
    sec.blocks.append(view_table(con, "Traces", "report_trace_overview", traces))
    for trace in traces:
        rows = con.execute(sqlfiles.load("report_load_month_one"), [trace]).fetchall()
        months = [r[0] for r in rows]
        sec.blocks.append(Figure(
            f"Offered load per month: {trace}",
            figures.line_chart({"offered load": (list(range(len(rows))), [r[1] for r in rows]),
                            "users (/100)": (list(range(len(rows))), [r[2] / 100 for r in rows])},
                           f"Load and users per month: {trace}", "month of submission",
                           "offered load (ratio) / users (hundreds)", xcats=months, dates=True),
        ))
    sec.blocks.append(view_table(con, "Load per month", "report_load_month", traces))
    sec.blocks.append(view_table(con, "Partitions (names from the log; SWF: partition numbers)",
                                 "report_partitions", traces, order="trace, jobs DESC, \"partition\""))
    sec.blocks.append(view_table(con, "Accounts (Tang's projects), most jobs first", "report_accounts", traces,
                                 order="trace, rank", where="rank <= 25"))
    return sec
