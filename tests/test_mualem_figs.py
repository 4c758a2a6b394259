"""Mu'alem & Feitelson Fig. 5 (amount of backfilling) on KTH: the shares in the
checks recomputed in plain Python from the runs' sim_jobs rows, and the reading
agreeing with them."""

from __future__ import annotations

import pytest

from conftest import ingested_warehouse
from pipeline.reproduce import mualem_figs as MF
from pipeline.reproduce.common import KTH, simulate_month_runs
from pipeline.reproduce.core import Checks, Explanation, Section, Table


@pytest.mark.slow
def test_fig5_shares_come_from_sim_jobs(tmp_path_factory):
    wh = ingested_warehouse(tmp_path_factory, "fig5", KTH)
    runs = {bf: simulate_month_runs(wh, KTH, None, bf, "request") for bf in ("easy", "conservative")}
    con = wh.reader()
    try:
        s = Section("mualem", "t")
        MF.fig5(s, con, {KTH: None})
        share = {}
        for bf, rid in runs.items():
            flags = [b for (b,) in con.execute("SELECT backfilled FROM sim_jobs WHERE run_id = ?", [rid]).fetchall()]
            share[bf] = 100 * sum(flags) / len(flags)
    finally:
        con.close()
    assert 10 < share["easy"] < 90  # KTH backfills a real share of its jobs
    (table,) = [b for b in s.blocks if isinstance(b, Table)]
    row = table.rows[0]
    assert row[2] == pytest.approx(share["easy"]) and row[3] == pytest.approx(share["conservative"])
    (check,) = [c for b in s.blocks if isinstance(b, Checks) for c in b.checks]
    assert check.id == "mualem.fig5.KTH.similar" and check.ours == pytest.approx(share["conservative"] - share["easy"])
    assert check.verdict == ("reproduced" if abs(check.ours) <= MF.SIMILAR else "differs")
    why = next(b for b in s.blocks if isinstance(b, Explanation)).text
    assert f"KTH: EASY {share['easy']:.1f}%, conservative {share['conservative']:.1f}%" in why
