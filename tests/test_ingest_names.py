"""SWF string ids written as Arrow dictionaries (pipeline/ingest/names.py)
equal the plain Polars cast they replace, value by value, NULLs included."""

from __future__ import annotations

import polars as pl
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.ingest.names import EXTRA_COLUMNS, STRING_IDS, ids_as_strings, string_ids_arrow

IDS = sorted(set(STRING_IDS.values()))
ids = st.one_of(st.none(), st.integers(0, 40), st.integers(-3, 3), st.integers(0, 2**40))


def _target(frame: pl.DataFrame) -> pa.Schema:
    fields = [pa.field("trace", pa.string())]
    fields += [pa.field(c, pa.int64()) for c in frame.columns]
    fields += [pa.field(c, pa.string() if t == pl.String else pa.int64()) for c, t in EXTRA_COLUMNS.items()]
    return pa.schema(fields)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(*[ids] * len(IDS)), min_size=1, max_size=60), st.integers(0, 5))
def test_dictionary_strings_equal_polars_cast(rows, cut):
    frame = pl.DataFrame([list(r) for r in rows], schema={c: pl.Int64 for c in IDS}, orient="row")
    target = _target(frame)
    want = ids_as_strings(frame.with_columns(pl.lit("t").alias("trace")))
    table = frame.to_arrow()
    if cut and cut < table.num_rows:  # slices of a bigger buffer (offset != 0), in several chunks
        table = pa.concat_tables([table.slice(0, cut), table.slice(cut)])
    got = string_ids_arrow(table, target, "t")
    assert got.schema.names == target.names
    for name in target.names:
        col = got.column(name)
        if name in STRING_IDS or name == "trace":
            assert pa.types.is_dictionary(col.type) or pa.types.is_string(col.type) or col.null_count == len(col)
            assert col.cast(pa.string()).to_pylist() == want[name].to_list(), name
        elif name in EXTRA_COLUMNS:
            assert col.null_count == len(col)


def test_the_written_file_reads_back_as_strings(tmp_path):
    """Through the Parquet writer and DuckDB, as the jobs files are read."""
    import duckdb

    from pipeline import jobs_files

    frame = pl.DataFrame({c: [5, None, 7, 5] for c in IDS}, schema={c: pl.Int64 for c in IDS})
    target = _target(frame)
    table = string_ids_arrow(frame.to_arrow(), target, "t")
    path = tmp_path / "p.parquet"
    jobs_files._write_part(path, table)
    con = duckdb.connect()
    got = con.execute(f"SELECT trace, user, account, qos, typeof(user) FROM read_parquet('{path}')").fetchall()
    assert got == [("t", "5", "5", "5", "VARCHAR"), ("t", None, None, None, "VARCHAR"),
                   ("t", "7", "7", "7", "VARCHAR"), ("t", "5", "5", "5", "VARCHAR")]


def _codes_by_first_appearance(values: list) -> list:
    """The naive twin of add_codes: 1, 2, ... in order of first appearance."""
    seen: dict = {}
    return [None if v is None else seen.setdefault(v, len(seen) + 1) for v in values]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(["u1", "u2", "é", "", "u10"])),
                          st.one_of(st.none(), st.text(max_size=3))), min_size=0, max_size=80),
       st.integers(1, 3))
def test_add_codes_number_by_first_appearance(rows, chunks):
    """sacct's integer ids (user_id, group_id, ...) number the names 1, 2, ... in row order, NULL kept, in frames
    of several chunks too."""
    from pipeline.ingest.names import add_codes

    frame = pl.DataFrame(rows, schema={"a": pl.String, "b": pl.String}, orient="row")
    if chunks > 1 and frame.height > 1:
        cut = frame.height // 2
        frame = pl.concat([frame[:cut], frame[cut:]], rechunk=False)
    got = add_codes(frame, {"a_id": "a", "b_id": "b"})
    assert got["a_id"].dtype == pl.Int64 and got["b_id"].dtype == pl.Int64
    assert got["a_id"].to_list() == _codes_by_first_appearance(frame["a"].to_list())
    assert got["b_id"].to_list() == _codes_by_first_appearance(frame["b"].to_list())
