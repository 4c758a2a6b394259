"""Speed of `walltime characterize` (SQL in DuckDB) against its plain-Python twin.

    .venv/bin/python bench/characterize.py [TRACE_FILE ...]

Default traces: SDSC-SP2 and CEA-Curie from $WALLTIME_TRACES (../shared/traces).
Each trace is ingested into a temporary warehouse (not timed), then characterized
(compute + store + read back, one transaction) and run through
tests/naive_characterize.py; prints seconds, jobs/s and the ratio.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from naive_characterize import characterize as naive  # noqa: E402
from naive_characterize import read_swf  # noqa: E402

from pipeline.characterize import characterize  # noqa: E402
from pipeline.ingest import ingest  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402

TRACES = Path(os.environ.get("WALLTIME_TRACES") or ROOT.parent / "shared" / "traces")
DEFAULT = ["SDSC-SP2-1998-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"]


def main(files: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wh = Warehouse(Path(tmp) / "wh")
        for f in files:
            path = Path(f) if os.path.sep in f else TRACES / f
            [res] = ingest([path], wh)
            t0 = time.perf_counter()
            doc = characterize(res.trace, wh)
            sql_s = time.perf_counter() - t0
            jobs, tz = read_swf(path)
            t0 = time.perf_counter()
            naive(jobs, tz)
            naive_s = time.perf_counter() - t0
            n = doc["jobs"]
            print(f"{res.trace}: {n:,} jobs; characterize {sql_s:.2f} s ({n / sql_s:,.0f} jobs/s); "
                  f"naive twin {naive_s:.2f} s ({n / naive_s:,.0f} jobs/s); speed-up x{naive_s / sql_s:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
