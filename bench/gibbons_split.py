"""Gibbons' running-time split in the wait forecast (Smith's Table 7 set-up:
scheduler on the requests, forecast on Gibbons, running jobs re-predicted at
each forecast instant), with and without the split, on Smith's CTC two
months and SDSC Paragon 1996: wait-forecast error (% of mean wait), run-time
error over every prediction the forecast used (% of mean run), and the wall
seconds of each forecast (the split's cost against the same forecast without
it, in the same run).

    .venv/bin/python bench/gibbons_split.py

"Without the split" asks the running jobs at age 0 (Gibbons' predictions on
the history at T), which is what the project did before the split was built.
Ingests the two traces (from $WALLTIME_TRACES) into a temporary warehouse.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from conftest import TRACES  # noqa: E402

from pipeline.estimates import gibbons  # noqa: E402
from pipeline.ingest import ingest  # noqa: E402
from pipeline.reproduce import smith_runs as R  # noqa: E402
from pipeline.reproduce.common import CTC, PAR96  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402

CAPACITY = {CTC: 430, PAR96: 416}


def main() -> None:
    split = gibbons.predict
    with tempfile.TemporaryDirectory() as tmp:
        wh = Warehouse(Path(tmp) / "wh")
        ingest([Path(TRACES) / f"{t}.swf.gz" for t in CAPACITY], wh, lenient=False)
        con = wh.reader()
        ws = R.workloads(con, CAPACITY, True)
        con.close()
    for mode in (split, lambda prep, age=None: split(prep)):  # compile (or load) the loops once, untimed
        gibbons.predict = mode
        R.wait_forecast(R.arrays(ws[0]), ws[0].capacity, "FCFS", R.arrays(ws[0])["req"], ws[0], "gibbons")
    for w in ws:
        a = R.arrays(w)
        for alg in ("FCFS", "LWF", "Backfill"):
            res = {}
            for mode in ("without", "with"):
                gibbons.predict = split if mode == "with" else (lambda prep, age=None: split(prep))
                t = time.perf_counter()
                r = R.wait_forecast(a, w.capacity, alg, a["req"], w, "gibbons")
                res[mode] = (r["wait_pct"], r["run_pct_all"], r["running_pairs"], time.perf_counter() - t)
            gibbons.predict = split
            (w0, r0, _, t0), (w1, r1, n, t1) = res["without"], res["with"]
            print(f"{w.label} ({w.n:,} jobs, {n:,} running-job predictions), {alg}: wait-forecast error "
                  f"{w0:.1f}% -> {w1:.1f}% of mean wait, run-time error over all predictions {r0:.1f}% -> "
                  f"{r1:.1f}% of mean run, without -> with the split; forecast {t0:.1f} s -> {t1:.1f} s "
                  f"({t1 / t0:.2f}x)", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
