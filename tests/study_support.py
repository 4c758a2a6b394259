"""What the study tests compare between two warehouses: every stored run's
config, its metrics and the sum of its jobs' starts (one row per run and
split), so a run simulated elsewhere must equal one simulated here."""

from __future__ import annotations

from pipeline.warehouse import Warehouse


def stored_runs(wh: Warehouse) -> list[tuple]:
    con = wh.reader()
    try:
        return con.execute(
            "SELECT r.config, m.* EXCLUDE (run_id), (SELECT sum(start) FROM sim_jobs s WHERE s.run_id = r.run_id) "
            "FROM runs r JOIN run_metrics m USING (run_id) ORDER BY ALL").fetchall()
    finally:
        con.close()
