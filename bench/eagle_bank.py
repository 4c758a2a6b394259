"""Write pipeline/generate/eagle_bank.py from the NREL Eagle sample (1,000 rows):
what `walltime generate --shape eagle` draws from (docs/generate.md).

    .venv/bin/python bench/eagle_bank.py [../shared/traces/NREL-Eagle-sample-1000.csv.gz]

tests/test_generate_tables.py recomputes the bank from the sample and checks
that the embedded one equals it.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pipeline.generate.tables import bank_from_sample  # noqa: E402


def main() -> None:
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "traces" / "NREL-Eagle-sample-1000.csv.gz"
    b = bank_from_sample(src)
    lines = ['"""The NREL Eagle sample\'s distributions, as `walltime generate --shape eagle` draws them.',
             "",
             f"Written by bench/eagle_bank.py from {src.name} ({b['rows']} rows); do not edit by hand.",
             "ROWS: (partition, qos, wallclock_req, nodes_req, processors_req, gpus_req, mem_req, count);",
             "RATIOS: run_time / wallclock_req of every row, sorted; WAITS: start - submit of every row (s), sorted.",
             '"""', "",
             f"SAMPLE = {src.name!r}",
             "ROWS = ["]
    lines += [f"    {r!r}," for r in b["ROWS"]]
    lines.append("]")
    lines.append("RATIOS = [")
    r = b["RATIOS"]
    for i in range(0, len(r), 8):
        lines.append("    " + " ".join(f"{x!r}," for x in r[i:i + 8]))
    lines.append("]")
    lines.append("WAITS = [")
    w = b["WAITS"]
    for i in range(0, len(w), 16):
        lines.append("    " + " ".join(f"{x!r}," for x in w[i:i + 16]))
    lines.append("]")
    (REPO / "pipeline" / "generate" / "eagle_bank.py").write_text("\n".join(lines) + "\n")
    print(f"{len(b['ROWS'])} row kinds, {len(r)} ratios, {len(w)} waits")


if __name__ == "__main__":
    main()
