"""Issue 25, item 2: the backfill scheduler prints 365-00:00:00 (TimelimitRaw
525600) for a job it started in a MaxTime=UNLIMITED partition, where the
main scheduler prints UNLIMITED. Both are no limit (req NULL, counted in
no_limit), unless slurm.conf gives the partition a finite MaxTime. On
tests/data/slurm/live-sacct.txt: 10 started by the main scheduler, 15 and
16 by backfill, all three in `unlim` without --time."""

from __future__ import annotations

from sacct_dumps import CONF, LIVE, LIVE_SHORT, load, trace_row
from pipeline.ingest import sacct
from pipeline.ingest.slurm_conf import read_slurm_conf


def test_backfills_year_is_no_limit(tmp_path):
    raw = {line.split("|")[0]: line.split("|")[14] for line in LIVE.read_text().splitlines()[1:]}
    assert (raw["10"], raw["15"], raw["16"]) == ("UNLIMITED", "365-00:00:00", "365-00:00:00")  # as Slurm printed
    res, wh, jobs = load(tmp_path)
    assert [jobs[s]["req"] for s in ("10", "15", "16")] == [None, None, None]
    assert res.counts["no_limit"] == 3 == trace_row(wh, res.trace)["no_limit"]
    assert res.counts["backfill_year"] == 2
    assert jobs["17"]["req"] == 300  # started by backfill too, with --time=00:05:00: kept


def test_no_unused_year_in_the_summary(tmp_path):
    res, wh, _ = load(tmp_path, slurm_conf=str(CONF))
    con = wh.reader()
    try:
        jobs_r, unused = con.execute("SELECT jobs_r, unused_share FROM summary_r WHERE trace = ?", [res.trace]).fetchone()
    finally:
        con.close()
    assert jobs_r == 3 and unused < 0.99  # (with 15 read as a 31,536,000 s request: 0.9999...)


def test_slurm_conf_maxtime_is_read():
    parts = read_slurm_conf(CONF)
    assert {n: p.max_time for n, p in parts.items()} == {"short": 120, "long": 86400, "unlim": None}


def test_a_year_in_a_partition_with_a_finite_maxtime_is_a_request(tmp_path):
    # the same dump, with `unlim` given a two-year MaxTime: there 365 days can only be asked for
    conf = tmp_path / "slurm.conf"
    conf.write_text(CONF.read_text().replace("Nodes=node[3-4] Default=NO MaxTime=UNLIMITED",
                                             "Nodes=node[3-4] Default=NO MaxTime=730-00:00:00"))
    res, _, jobs = load(tmp_path, LIVE_SHORT, slurm_conf=str(conf))
    assert [jobs[s]["req"] for s in ("10", "15", "16")] == [None, 31_536_000, 31_536_000]
    assert res.counts["no_limit"] == 1 and res.counts["backfill_year"] == 0
    parsed = sacct.parse(LIVE_SHORT.read_bytes(), "x", "UTC", finite_max=("unlim",))
    assert parsed.counts["backfill_year"] == 0
