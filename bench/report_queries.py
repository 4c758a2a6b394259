"""Every SQL statement `walltime report` runs while rendering, timed (issue 43 item 2).

    .venv/bin/python bench/report_queries.py WAREHOUSE OUT.html

Builds the report with everything it needs already stored (run `walltime report` on the
warehouse first, or use a copy of one it filled: the report stores what it computes), wrapping
the read-only connection's ``execute``, and prints the total and per-section seconds, then the
40 costliest statements (summed over identical ones, with how many times each ran).
"""

from __future__ import annotations

import collections
import sys
import time

from pipeline.report import build_report
from pipeline.warehouse import Warehouse

LOG: list[tuple[float, str]] = []


class Timed:
    """A connection whose execute is timed (the cursor's rows are fetched from it)."""

    def __init__(self, con):
        self._con = con

    def execute(self, q, params=None):
        t = time.perf_counter()
        self._con.execute(q, params) if params is not None else self._con.execute(q)
        LOG.append((time.perf_counter() - t, q))
        return self

    def __getattr__(self, name):
        return getattr(self._con, name)


def main() -> None:
    reader = Warehouse.reader
    Warehouse.reader = lambda self, *a, **k: Timed(reader(self, *a, **k))
    t = time.perf_counter()
    r = build_report(Warehouse(sys.argv[1]), None, sys.argv[2])
    print("total", round(time.perf_counter() - t, 2), "compute", r.seconds["compute_s"], "render",
          r.seconds["render_s"], r.seconds["sections"])
    agg: dict[str, list] = collections.defaultdict(lambda: [0, 0.0])
    for dt, q in LOG:
        k = " ".join(q.split())[:150]
        agg[k][0] += 1
        agg[k][1] += dt
    for k, (n, s) in sorted(agg.items(), key=lambda x: -x[1][1])[:40]:
        print(f"{s:7.2f} {n:3d}  {k}")
    print("sum", round(sum(x[0] for x in LOG), 2), "statements", len(LOG))


if __name__ == "__main__":  # the report's drawing pool re-imports this file
    main()
