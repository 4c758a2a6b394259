"""Generate docs/reproduction-klusacek-nodes.md (.html, -checks.json): Klusacek & Soysal 2018 Section 4.

    .venv/bin/python bench/reproduce_nodes.py [--warehouse DIR] [--out DIR] [--quick]

The same section `walltime reproduce --paper klusacek` writes into docs/reproduction.md
(pipeline/reproduce/klusacek_nodes.py: Figures 9-14 on CTC-SP2 at 512 nodes and
SDSC-SP2, checks with computed verdicts), written on its own so the node-level
results can be regenerated without the other papers. Runs are stored in the
warehouse and reused.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pipeline.reproduce import reproduce  # noqa: E402
from pipeline.warehouse import Warehouse  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", default=str(REPO / "warehouse" / "repro-nodes"))
    ap.add_argument("--out", default=str(REPO / "docs"))
    ap.add_argument("--quick", action="store_true", help="the CI set-up (KTH, reduced grid)")
    a = ap.parse_args()
    t = time.perf_counter()
    res = reproduce(Warehouse(Path(a.warehouse)), ["klusacek-nodes"], out=a.out, quick=a.quick,
                    md_name="reproduction-klusacek-nodes.md")
    print(f"wrote {res.markdown}: {res.checks} checks {res.verdicts} in {time.perf_counter() - t:,.0f} s")


if __name__ == "__main__":
    main()
