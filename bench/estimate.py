"""Speed of `walltime estimate`: one Tang scheme on HPC2N, the whole Tang grid on
CTC-SP2 and CEA-Curie, and the naive twin on a sample for a ratio; Smith's,
Gibbons' and Downey's predictors on CTC-SP2 (77k jobs) against their naive
twins; a 20 x 20 genetic template search on CTC-SP2's first 6 months.

    .venv/bin/python bench/estimate.py

Ingests the traces (from $WALLTIME_TRACES, default ../shared/traces) into a
temporary warehouse. Prints wall seconds and, in brackets, CPU seconds of this
process (the machine may be shared). Aims: one scheme on HPC2N under 2 s, the
full grid on CTC under a minute; Smith, Gibbons, Downey on CTC under 2 s
each; the 20 x 20 search under 3 minutes. `--only predictors` skips the Tang part.
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
import naive_predictors as NP  # noqa: E402
import numpy as np  # noqa: E402
from conftest import TRACES  # noqa: E402

from pipeline.estimates import estimate, load_jobs  # noqa: E402
from pipeline.estimates.compute import compute  # noqa: E402
from pipeline.estimates.grid import tang_grid_rows  # noqa: E402
from pipeline.estimates.search import search  # noqa: E402
from pipeline.estimates.templates import parse_set  # noqa: E402
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
SMITH_SET = "(u,q,e,h=8,rel) (u,q,rt=512,h=32,rel) (u,n=16,abs) (q,abs)"
PREDICTOR_NAIVE_SAMPLE = 60
SIX_MONTHS = 183 * 86400


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


def predictors(ctc) -> None:
    """Smith, Gibbons, Downey on CTC: compute, end to end, naive ratio; the GA."""
    templates = parse_set(SMITH_SET)
    rows = ctc.to_dicts()
    targets = random.Random(0).sample(rows, PREDICTOR_NAIVE_SAMPLE)
    cases = [("smith:set=<4 templates>", "smith:set=x", lambda r, t: NP.smith(r, templates, t)),
             ("gibbons", "gibbons", NP.gibbons),
             ("downey:stat=median,key=queue", "downey", lambda r, t: NP.downey(r, "queue", "median", t)),
             ("downey:stat=mean,key=queue", "downey:stat=mean", lambda r, t: NP.downey(r, "queue", "mean", t))]
    for label, spec, twin in cases:
        scheme = parse(spec)
        compute(ctc.head(500), scheme, templates)  # warm-up (Numba cache load)
        _, s = timed(lambda: compute(ctc, scheme, templates))
        _, sn = timed(lambda: twin(rows, targets))
        rate, naive_rate = ctc.height / s.wall, PREDICTOR_NAIVE_SAMPLE / sn.wall
        print(f"{label} on CTC: {ctc.height:,} jobs in {s} = {rate:,.0f} jobs/s; naive twin "
              f"{naive_rate:,.1f} jobs/s on {PREDICTOR_NAIVE_SAMPLE} sampled jobs; fast/naive = {rate / naive_rate:,.0f}x")
    first = ctc["submit"].min()
    six = ctc.filter(ctc["submit"] < first + SIX_MONTHS)
    train = np.ones(six.height, bool)
    (best, err, log), s = timed(lambda: search(six, train, 20, 20, seed=0))
    print(f"search-templates 20 generations x 20 individuals on CTC's first 6 months ({six.height:,} jobs): "
          f"{s} = {400 / s.wall:.1f} individuals/s; best training error {err / 60:.1f} min")


def main() -> None:
    tmp = tempfile.TemporaryDirectory(prefix="walltime-bench-")
    wh = Warehouse(Path(tmp.name) / "wh")
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    files = {"CTC-SP2-1996-3.1-cln": FILES["CTC-SP2-1996-3.1-cln"]} if only == "predictors" else FILES
    _, s = timed(lambda: ingest([TRACES / f for f in files.values()], wh))
    print(f"(ingested {len(files)} traces in {s})")
    con = wh.reader()
    jobs = {t: load_jobs(con, t) for t in files}
    con.close()
    t0 = time.perf_counter()
    end_to_end = Clock(lambda: estimate(wh, "CTC-SP2-1996-3.1-cln",
                                        ["gibbons", "downey", "downey:stat=mean", "smith:set=user"]))
    print(f"walltime estimate CTC --scheme gibbons, downey (median, mean), smith:set=user, end to end "
          f"(compute + accuracy + store + Parquet, first call compiles/loads Numba): {end_to_end}")
    predictors(jobs["CTC-SP2-1996-3.1-cln"])
    if only == "predictors":
        print(f"(predictor part: {time.perf_counter() - t0:.1f} s)")
        tmp.cleanup()
        return

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
