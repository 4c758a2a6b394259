"""`walltime simulate`'s table shows each duration in a unit chosen per value
(issue 23: a 16 s mean wait printed as 0.00 h), checked on the hand-worked
tiny trace (tests/report_support.py) whose EASY waits are known."""

from __future__ import annotations

import json
import statistics

from report_support import EASY_START, JOBS, write_tiny

from conftest import run_cli


def test_short_waits_read_in_seconds(tmp_path):
    wh = tmp_path / "wh"
    run_cli("ingest", str(write_tiny(tmp_path)), warehouse=wh, check=True)
    waits = [EASY_START[j] - submit for j, submit, *_ in JOBS]
    mean = sum(waits) / len(waits)  # 269 / 6 = 44.8 s
    doc = json.loads(run_cli("simulate", "tiny", "--backfill", "easy", "--json", warehouse=wh, check=True).stdout)
    assert doc["metrics"]["mean_wait"] == mean
    human = run_cli("simulate", "tiny", "--backfill", "easy", warehouse=wh, check=True).stdout
    header = next(line for line in human.splitlines() if "mean wait" in line and "month" in line)
    row = next(line for line in human.splitlines() if line.strip("│┃ ").startswith("all"))
    cells = [c.strip() for c in row.strip("│┃ ").split("│")]
    names = [c.strip() for c in header.strip("│┃ ").split("┃")]
    assert cells[names.index("mean wait")] == f"{mean:.0f} s" == "45 s"
    assert doc["metrics"]["median_wait"] == statistics.median(waits) == 40
    assert cells[names.index("median wait")] == "40 s"
    assert "(h)" not in header and "mean wait 45 s" in human
