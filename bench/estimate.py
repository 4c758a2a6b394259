"""Speed of `walltime estimate`: one Tang scheme on HPC2N, the whole Tang grid on
CTC-SP2 and CEA-Curie, and the naive twin on a sample for a ratio.

    .venv/bin/python bench/estimate.py

Ingests the traces (from $WALLTIME_TRACES, default ../shared/traces) into a
temporary warehouse. Prints wall seconds and, in brackets, CPU seconds of this
process (the machine may be shared). Aims: one scheme on HPC2N under 2 s, the
full grid on CTC under a minute.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import naive_estimates as N  # noqa: E402
from conftest import TRACES  # noqa: E402

from pipeline.estimates import estimate, load_jobs  # noqa: E402
from pipeline.estimates.compute import compute  # noqa: E402
from pipeline.estimates.grid import tang_grid_rows  # noqa: E402
from pipeline.ingest import ingest  # noqa: E402
from pipeline.schemes import parse  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402

FILES = {
    "HPC2N-2002-2.2-cln": "HPC2N-2002-2.2-cln.swf.gz",
    "CTC-SP2-1996-3.1-cln": "CTC-SP2-1996-3.1-cln.swf.gz",
    "CEA-Curie-2011-2.1-cln": "CEA-Curie-2011-2.1-cln.swf.gz",
}
SCHEME = "tang:key=user_project_req,window=30d,stat=p85"
NAIVE_SAMPLE = 2000


class Clock:
    def __init__(self, fn):
        t0, c0 = time.perf_counter(), time.process_time()
        self.out = fn()
        self.wall, self.cpu = time.perf_counter() - t0, time.process_time() - c0

    def __str__(self) -> str:
        return f"{self.wall:.2f} s [cpu {self.cpu:.2f} s]"


def timed(fn):
    c = Clock(fn)
    return c.out, c


def main() -> None:
    tmp = tempfile.TemporaryDirectory(prefix="walltime-bench-")
    wh = Warehouse(Path(tmp.name) / "wh")
    _, s = timed(lambda: ingest([TRACES / f for f in FILES.values()], wh))
    print(f"(ingested {len(FILES)} traces in {s})")
    con = wh.reader()
    jobs = {t: load_jobs(con, t) for t in FILES}
    con.close()

    hpc = jobs["HPC2N-2002-2.2-cln"]
    scheme = parse(SCHEME)
    compute(hpc.head(1000), scheme)  # warm-up (Polars thread pool, imports)
    fast, s = timed(lambda: compute(hpc, scheme))
    print(f"{SCHEME} on HPC2N: {hpc.height:,} jobs in {s} = {hpc.height / s.wall:,.0f} jobs/s (compute)")
    _, s_all = timed(lambda: estimate(wh, "HPC2N-2002-2.2-cln", [SCHEME]))
    print(f"  end to end (compute + accuracy + store + Parquet): {s_all}")

    rows = hpc.to_dicts()
    targets = random.Random(0).sample(rows, NAIVE_SAMPLE)
    _, s_naive = timed(lambda: N.estimate(rows, scheme, targets))
    naive_rate = NAIVE_SAMPLE / s_naive.wall
    print(f"  naive twin on {NAIVE_SAMPLE:,} sampled jobs: {s_naive} = {naive_rate:,.0f} jobs/s; "
          f"fast/naive = {hpc.height / s.wall / naive_rate:,.0f}x")

    for t in ("CTC-SP2-1996-3.1-cln", "CEA-Curie-2011-2.1-cln"):
        grid, s = timed(lambda: tang_grid_rows(jobs[t]))
        n = jobs[t].height
        print(f"--grid tang on {t}: {grid.height} schemes x {n:,} jobs in {s} = "
              f"{grid.height * n / s.wall:,.0f} job-estimates/s (compute + score)")
    tmp.cleanup()


if __name__ == "__main__":
    main()
