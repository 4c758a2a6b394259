"""Issue 25: SLURM_TIME_FORMAT. Sites set it to %s (Unix seconds) or to a
strftime form; sacct then prints every time that way. The dumps below were
made from the same jobs of a real Slurm with three settings
(tests/data/slurm/README.md): each must give the same jobs as the ISO dump."""

from __future__ import annotations

import pytest

from conftest import run_cli
from sacct_dumps import ATTEMPTS, DUMPS, load
from test_reliability import one_line_error
from pipeline.errors import WalltimeError
from pipeline.ingest import sacct, slurmtime

EPOCH = DUMPS / "attempts-sacct-D-epoch.txt"   # SLURM_TIME_FORMAT=%s
DMY = DUMPS / "attempts-sacct-D-dmy.txt"       # SLURM_TIME_FORMAT='%d/%m/%Y %H:%M:%S'
CUT = DUMPS / "attempts-sacct-DX-cut.txt"      # '%a %d %b %Y %T': sacct cut every time to 19 characters

COLUMNS = ("slurm_id", "submit", "wait", "run", "req", "state")


def _rows(path, **kw):
    p = sacct.parse(path.read_bytes(), str(path), **{"tz": "UTC", **kw})
    assert p.bad == []
    return p, p.jobs.select(COLUMNS).rows()


@pytest.mark.parametrize("path, fmt", [(EPOCH, "%s"), (DMY, "%d/%m/%Y %H:%M:%S")])
def test_same_jobs_as_the_iso_dump_detected_or_given(path, fmt):
    iso, want = _rows(ATTEMPTS)
    for given in (None, fmt):
        p, got = _rows(path, time_format=given)
        assert got == want and p.header["unix_start_time"] == iso.header["unix_start_time"] == 1795790204
        assert p.attempts.equals(iso.attempts)
        assert any(f"SLURM_TIME_FORMAT={fmt} (detected" in n for n in p.notes) == (given is None)


def test_unix_seconds_are_instants_whatever_the_zone():
    # the ISO dump is local time: read in Berlin it moves by an hour; Unix seconds do not
    berlin, _ = _rows(ATTEMPTS, tz="Europe/Berlin")
    utc, _ = _rows(EPOCH, tz="UTC")
    epoch_berlin, rows = _rows(EPOCH, tz="Europe/Berlin")
    assert berlin.header["unix_start_time"] == 1795790204 - 3600  # 14:36:44 CET is 13:36:44 UTC
    assert epoch_berlin.header["unix_start_time"] == utc.header["unix_start_time"] == 1795790204
    assert rows == _rows(ATTEMPTS)[1]


def test_detection_refuses_a_day_month_guess():
    # 01/02 and 02/01: both day-first and month-first read every value, differently
    v = slurmtime.detect_format(__import__("polars").Series(["01/02/2026 10:00:00", "02/01/2026 11:00:00"]))
    assert v == ("%d/%m/%Y %H:%M:%S", [("%m/%d/%Y %H:%M:%S", 0)])
    # a day above 12 settles it
    v = slurmtime.detect_format(__import__("polars").Series(["01/02/2026 10:00:00", "13/01/2026 11:00:00"]))
    assert v == ("%d/%m/%Y %H:%M:%S", [])
    text = DMY.read_text().replace("27/11/2026", "01/02/2026")  # every time on 1 Feb or 2 Jan
    with pytest.raises(WalltimeError) as e:
        sacct.parse(text.encode(), "dmy.txt", "UTC")
    assert str(e.value).startswith('dmy.txt:2: the time "01/02/2026 14:36:44" reads differently as '
                                   "%d/%m/%Y %H:%M:%S and as %m/%d/%Y %H:%M:%S")
    p = sacct.parse(text.encode(), "dmy.txt", "UTC", time_format="%m/%d/%Y %H:%M:%S")
    assert p.bad == [] and p.header["unix_start_time"] == 1767364604  # 2026-01-02T14:36:44Z


def test_a_bad_value_among_iso_times_is_not_read_as_unix_seconds():
    lines = ATTEMPTS.read_text().splitlines()
    lines[1] = lines[1].replace("2026-11-27T14:36:44", "1795790204", 1)  # one Submit of a dump otherwise ISO
    p = sacct.parse(("\n".join(lines) + "\n").encode(), "mixed.txt", "UTC")
    assert [b.line for b in p.bad] == [2] and p.bad[0].reason.startswith('field 9 (Submit) is "1795790204"')


@pytest.mark.slow
def test_cli_cut_times_and_bad_formats_are_one_line_errors(tmp_path):
    wh = tmp_path / "wh"
    run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(ATTEMPTS), warehouse=wh, check=True)
    before = run_cli("sql", "SELECT trace, count(*) FROM jobs GROUP BY ALL", warehouse=wh, check=True).stdout
    p = run_cli("ingest", "--format", "sacct", "--tz", "UTC", str(CUT), warehouse=wh)
    one_line_error(p, f'{CUT}:2: field 9 (Submit) is "Fri 27 Nov 2026 14:", expected a time like', "--time-format")
    p = run_cli("ingest", "--format", "sacct", "--time-format", "%a %d %b %Y %T", str(CUT), warehouse=wh)
    one_line_error(p, f'{CUT}:2: field 9 (Submit) is "Fri 27 Nov 2026 14:", expected a time in --time-format')
    p = run_cli("ingest", "--format", "sacct", "--time-format", "%Q", str(DMY), warehouse=wh)
    one_line_error(p, "--time-format %Q: %Q is not a strftime directive")
    p = run_cli("ingest", "--time-format", "%s", str(DMY), warehouse=wh)
    one_line_error(p, "--time-format %s: only with --format sacct")
    assert run_cli("sql", "SELECT trace, count(*) FROM jobs GROUP BY ALL", warehouse=wh, check=True).stdout == before
    p = run_cli("ingest", "--format", "sacct", "--tz", "UTC", "--time-format", "%d/%m/%Y %H:%M:%S", str(DMY),
                warehouse=wh, check=True)
    assert "13 jobs" in p.stdout
