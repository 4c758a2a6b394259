"""A six-job trace whose report numbers are checked by hand (tests/test_report*.py).

Capacity 4, two months (January and February 2020, UTC). Times in seconds.

  job submit      run nodes req user group   FCFS+EASY / conservative start (requests)
  1   0           100  4    200  1   1        0      (J1 alone)
  2   10          50   2    100  1   1        100    (waits for J1, ends early at 100)
  3   20          30   2    40   2   1        100
  4   T           100  3    100  1   1        T
  5   T+1         50   4    100  3   2        T+100  (head, waits for J4)
  6   T+2         20   1    50   2   1        T+2    (backfilled: T+2+50 <= shadow T+100)

with T = 31 days + 1 hour (in February). Without backfilling (FCFS) job 6 starts
at T+150, after job 5.
"""

from __future__ import annotations

from pathlib import Path

import pytest

T = 31 * 86400 + 3600
JOBS = [  # job, submit, run, nodes, req, user, group
    (1, 0, 100, 4, 200, 1, 1),
    (2, 10, 50, 2, 100, 1, 1),
    (3, 20, 30, 2, 40, 2, 1),
    (4, T, 100, 3, 100, 1, 1),
    (5, T + 1, 50, 4, 100, 3, 2),
    (6, T + 2, 20, 1, 50, 2, 1),
]
EASY_START = {1: 0, 2: 100, 3: 100, 4: T, 5: T + 100, 6: T + 2}


def write_tiny(folder: Path, name: str = "tiny", requests: bool = True, groups: bool = True,
               capacity: bool = True) -> Path:
    lines = ["; Version: 2.2", "; UnixStartTime: 1577836800", "; TimeZoneString: UTC"]
    if capacity:
        lines += ["; MaxNodes: 4", "; MaxProcs: 4"]
    for job, submit, run, nodes, req, user, group in JOBS:
        wait = EASY_START[job] - submit
        fields = [job, submit, wait, run, nodes, -1, -1, nodes, req if requests else -1, -1, 1, user,
                  group if groups else -1, 1, 1, 1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    path = folder / f"{name}.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """(warehouse, folder, ReportResult) of the full report on the tiny trace,
    built once for the test session (report.html and csv/ in the folder)."""
    from pipeline.ingest import ingest
    from pipeline.report import build_report
    from pipeline.warehouse import Warehouse

    root = tmp_path_factory.mktemp("report")
    wh = Warehouse(root / "wh")
    ingest([write_tiny(root)], wh)
    res = build_report(wh, ["tiny"], root / "r.html", csv_dir=root / "csv")
    return wh, root, res
