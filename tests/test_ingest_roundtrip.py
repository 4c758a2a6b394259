"""Property: any valid SWF round-trips. What `jobs` holds equals what was
written (-1 <-> NULL), whatever the blanks, tabs, header/comment lines,
blank lines, CRLF endings and extra (extended SWF) tokens around the fields.

The expected values come from a plain Python reading of the generated text
(``int(tok)``, ``float(tok)``), the twin of the Numba tokenizer.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.ingest import ingest, swf
from pipeline.jobs_files import committed_files
from pipeline.warehouse import Warehouse

INT_FIELDS = [name for name, _, is_int in swf.FIELDS if is_int]

blank = st.text(alphabet=" \t", min_size=1, max_size=4)
maybe_blank = st.text(alphabet=" \t", max_size=3)
unknown_or = lambda s: st.one_of(st.just("-1"), s)  # noqa: E731
int_text = st.integers(0, 2**40).map(str)
# what ingest accepts (issue 9): times within 200 years, sizes and ids within 32 bits, and one
# job's area (time x processors) within 2**53; 2**20 processors x 200 years stays inside it
time_text = st.integers(0, swf.MAX_SPAN).map(str)
size_text = st.integers(0, 2**20).map(str)
TIME_COLUMNS = {swf.FIELDS[f][0] for f in swf.TIME_FIELDS}
SIZE_COLUMNS = {swf.FIELDS[f][0] for f in swf.SIZE_FIELDS}
float_text = st.builds(
    lambda i, frac: f"{i}.{frac}" if frac else str(i),
    st.integers(0, 10**12),
    st.one_of(st.just(""), st.text(alphabet="0123456789", min_size=1, max_size=8)),
)
extra_token = st.sampled_from(["{1241,1241}", "q_1d", "1:ppn=64:x86_64#excl", "7", "-1"])
header_line = st.one_of(
    st.builds(lambda k, v: f"; {k}: {v}", st.sampled_from(["Version", "Computer", "Note", "X-Y"]),
              st.text(alphabet="abc 123./", max_size=12)),
    st.builds(lambda v: f"; MaxNodes: {v}", st.integers(0, 2**31 - 1)),  # a known number: must be one
    st.just(";"),
)


@st.composite
def swf_text(draw):
    """(text, expected job rows as {column: value-or-None, 'line': n}, any extra tokens?)."""
    n = draw(st.integers(1, 25))
    ids = draw(st.lists(st.integers(0, 10**12), min_size=n, max_size=n, unique=True))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [draw(header_line) for _ in range(draw(st.integers(0, 4)))]
    rows, extended = [], False
    for job_id in ids:
        while draw(st.integers(0, 6)) == 0:  # blank and comment lines between jobs
            lines.append(draw(st.sampled_from(["", "   ", "\t", "; comment"])))
        tokens = []
        for name, _, is_int in swf.FIELDS:
            if name == "job_id":
                tokens.append(str(job_id))
            elif name == "submit":
                tokens.append(draw(time_text))
            elif name == "status":
                tokens.append(draw(st.sampled_from(["-1", "0", "1", "2", "3", "4", "5"])))
            elif name in TIME_COLUMNS:
                tokens.append(draw(unknown_or(time_text)))
            elif name in SIZE_COLUMNS:
                tokens.append(draw(unknown_or(size_text)))
            else:
                tokens.append(draw(unknown_or(int_text if is_int else float_text)))
        extra = draw(st.lists(extra_token, max_size=3))
        extended |= bool(extra)
        text = draw(maybe_blank)
        for k, tok in enumerate(tokens + extra):
            text += (draw(blank) if k else "") + tok
        lines.append(text + draw(maybe_blank))
        row = {name: (None if tok == "-1" else int(tok) if is_int else float(tok))
               for (name, _, is_int), tok in zip(swf.FIELDS, tokens)}
        row["line"] = len(lines)
        rows.append(row)
    body = eol.join(lines) + (eol if draw(st.booleans()) else "")
    return body, rows, extended, sum(1 for ln in lines if ln.startswith(";"))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large])
@given(swf_text())
def test_parse_round_trips(case):
    text, rows, extended, header_lines = case
    parsed = swf.parse(text.encode())
    assert parsed.bad == []
    assert parsed.jobs.to_dicts() == rows
    assert parsed.extended == extended
    assert len(parsed.header_lines) == header_lines


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large])
@given(swf_text())
def test_ingest_round_trips_through_the_warehouse(case):
    text, rows, extended, _ = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.swf"
        path.write_bytes(text.encode())
        wh = Warehouse(Path(tmp) / "wh")
        [res] = ingest([path], wh)
        assert (res.jobs, res.rejected) == (len(rows), 0)
        con = duckdb.connect(str(wh.db_path), read_only=True)
        cols = [name for name, _, _ in swf.FIELDS] + ["line"]
        got = con.sql(f"SELECT {', '.join(cols)} FROM jobs ORDER BY line").to_arrow_table().to_pylist()
        ends = con.execute('SELECT "end" FROM jobs ORDER BY line').fetchall()
        mirror = con.execute("SELECT count(*) FROM read_parquet(?)",
                             [[str(f) for f in committed_files(wh.root, "t")]]).fetchone()
        extended_flag = con.execute("SELECT extended_tokens FROM traces").fetchone()[0]
        con.close()
    assert got == rows
    want_end = [None if None in (r["wait"], r["run"]) else r["submit"] + r["wait"] + r["run"] for r in rows]
    assert [e for (e,) in ends] == want_end
    assert mirror == (len(rows),)
    assert extended_flag == extended
