"""The dumps made with a real Slurm 22.05 in this repository (tests/data/slurm/README.md says how)."""

from __future__ import annotations

from pathlib import Path

from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions
from pipeline.warehouse import Warehouse

DUMPS = Path(__file__).parent / "data" / "slurm"
LIVE = DUMPS / "live-sacct.txt"              # 11 jobs + steps; 13, 16 RUNNING, 14 SUSPENDED, 19, 20 PENDING
LIVE_US = DUMPS / "live-sacct-X-us.txt"      # the same jobs, --allocations, --delimiter 0x1f
LIVE_SHORT = DUMPS / "live-sacct-X-short.txt"  # --allocations, 12 columns, JobName the only free text
ATTEMPTS = DUMPS / "attempts-sacct-D.txt"      # --duplicates: 13 jobs, 5 earlier attempts (README.md)
ATTEMPTS_PLAIN = DUMPS / "attempts-sacct.txt"  # the same jobs without --duplicates: each job's last attempt
CONF = DUMPS / "slurm.conf"                  # short MaxTime 00:02:00, long 1-00:00:00, unlim UNLIMITED


def load(tmp_path, path=LIVE, name=None, **opts):
    """Ingest one dump into a new warehouse; (result, warehouse, {slurm_id: job row})."""
    wh = Warehouse(tmp_path / "wh")
    [res] = ingest([path], wh, name=name, options=IngestOptions(format="sacct", tz="UTC", **opts))
    return res, wh, jobs_of(wh, res.trace)


def jobs_of(wh: Warehouse, trace: str) -> dict:
    con = wh.reader()
    try:
        cur = con.execute('SELECT slurm_id, job_name, wait, run, req, status, state, "end" FROM jobs '
                          "WHERE trace = ? ORDER BY job_id", [trace])
        names = [d[0] for d in cur.description]
        return {r[0]: dict(zip(names, r)) for r in cur.fetchall()}
    finally:
        con.close()


def trace_row(wh: Warehouse, trace: str) -> dict:
    con = wh.reader()
    try:
        cur = con.execute("SELECT * FROM traces WHERE trace = ?", [trace])
        return dict(zip([d[0] for d in cur.description], cur.fetchone()))
    finally:
        con.close()
