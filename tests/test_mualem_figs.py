"""Mu'alem & Feitelson Fig. 5 (amount of backfilling) on KTH: the shares in the
checks recomputed in plain Python from the runs' sim_jobs rows, and the reading
agreeing with them."""

from __future__ import annotations

import pytest

from conftest import ingested_warehouse
from pipeline.reproduce import mualem_figs as MF
from pipeline.reproduce.common import KTH, simulate_month_runs
from pipeline.reproduce.core import Checks, Explanation, Section, Table, Text


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


@pytest.mark.slow
def test_par96_reading_agrees_with_table1b_checks_and_the_header(tmp_path_factory):
    """Fewer jobs yet more load: the months counted, the ratios and the removed jobs
    in the sentence are those of the Table 1(b) checks and of the log's header."""
    import re

    from pipeline.reproduce import mualem, mualem_table1b as T1B
    from pipeline.reproduce.common import PAR96, SHORT

    wh = ingested_warehouse(tmp_path_factory, "par96", PAR96)
    for bf in ("easy", "conservative"):
        simulate_month_runs(wh, PAR96, 416, bf, "actual")
    con = wh.reader()
    try:
        s = Section("mualem", "t")
        mualem._table1b(s, con, PAR96, 416)
        T1B.par_reading(s, con, PAR96, SHORT[PAR96])
        (head,) = con.execute("SELECT header_raw FROM traces WHERE trace = ?", [PAR96]).fetchone()
    finally:
        con.close()
    c = {x.id: x for x in s.checks()}
    months = [f"1996-{m:02d}" for m in range(1, 13)]
    both = [m for m in months if c[f"mualem.t1b.SDSC-Par1996.{m}.jobs"].ours < c[f"mualem.t1b.SDSC-Par1996.{m}.jobs"].paper
            and c[f"mualem.t1b.SDSC-Par1996.{m}.load"].ours > c[f"mualem.t1b.SDSC-Par1996.{m}.load"].paper]
    ratio = [c[f"mualem.t1b.SDSC-Par1996.{m}.load"].ours / c[f"mualem.t1b.SDSC-Par1996.{m}.load"].paper for m in both]
    removed = sum(int(n) for n in re.findall(r"\((\d+) jobs removed\)", head))
    why = [b.text for b in s.blocks if isinstance(b, Explanation)][-1]
    assert f"in {len(both)} of 12 months our log holds fewer jobs yet a higher offered load" in why
    assert f"removed {removed:,} jobs" in why and removed > 0
    assert f"ours / paper {min(ratio):.2f} to {max(ratio):.2f}" in why


@pytest.mark.slow
def test_table1a_load_and_jobs_come_from_the_jobs_table(tmp_path_factory):
    import calendar

    wh = ingested_warehouse(tmp_path_factory, "t1a", KTH)
    for bf in ("easy", "conservative"):
        simulate_month_runs(wh, KTH, None, bf, "request")
    con = wh.reader()
    try:
        s = Section("mualem", "t")
        MF.table1a_load(s, con, KTH)
        jobs = con.execute("SELECT month, run, nodes FROM jobs WHERE trace = ?", [KTH]).fetchall()
        (cap,) = con.execute("SELECT capacity FROM traces WHERE trace = ?", [KTH]).fetchone()
    finally:
        con.close()
    n, work = {}, {}
    for month, run, nodes in jobs:
        if run is not None and run >= 0 and nodes:
            n[month] = n.get(month, 0) + 1
            work[month] = work.get(month, 0) + run * nodes
    checks = [c for c in s.checks()]
    assert len(checks) == 20  # KTH: ten months in the paper, load and jobs each
    for c in checks:
        month = c.id.split(".")[3]
        if c.id.endswith(".jobs"):
            assert c.ours == n[month], month
        else:
            y, m = map(int, month.split("-"))
            assert c.ours == pytest.approx(work[month] / (cap * calendar.monthrange(y, m)[1] * 86400), abs=6e-4)
    text = next(b.text for b in s.blocks if isinstance(b, Text))
    good = sum(c.verdict == "reproduced" for c in checks if c.id.endswith(".load"))
    assert f"agrees within 0.05 in {good} of 10 months" in text
