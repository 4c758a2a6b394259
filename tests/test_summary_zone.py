"""`summary` states dates in the trace's own zone, as `traces` and the report
do (issue 23: summary printed the first submission in UTC)."""

from __future__ import annotations

import json

from report_support import write_tiny

from conftest import run_cli


def test_summary_dates_are_in_the_trace_zone_and_agree_with_traces(tmp_path):
    path = write_tiny(tmp_path)  # starts 2020-01-01 00:00 UTC: 2019-12-31 19:00 in New York
    path.write_text(path.read_text().replace("; TimeZoneString: UTC", "; TimeZoneString: America/New_York"))
    wh = tmp_path / "wh"
    run_cli("ingest", str(path), warehouse=wh, check=True)
    doc = json.loads(run_cli("summary", "tiny", "--json", warehouse=wh, check=True).stdout)
    (listed,) = [t for t in json.loads(run_cli("traces", "--json", warehouse=wh, check=True).stdout)
                 if t["trace"] == "tiny"]
    assert doc["tz"] == listed["tz"] == "America/New_York"
    assert doc["first"] == listed["first_submit"][:10] == "2019-12-31"  # not 2020-01-01, its UTC date
    assert f"submitted {doc['first']} .. {doc['last']} (America/New_York time)" in doc["text"][0]
