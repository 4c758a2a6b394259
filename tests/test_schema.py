"""sql/schema.sql is the schema the migrations build today (pipeline/schema.py): every table and view with
its columns and their types (the statements' own text is DuckDB's and may be spelled differently by another
release, so the columns are what is compared)."""

from __future__ import annotations

from pathlib import Path

from pipeline.schema import column_lines, current_schema


def test_schema_file_is_current():
    committed = (Path(__file__).parent.parent / "sql" / "schema.sql").read_text()
    assert column_lines(committed) == column_lines(current_schema()), \
        "a migration changed the schema: run python -m pipeline.schema > sql/schema.sql"
    names = [ln.split(":")[0][3:] for ln in column_lines(committed)]
    assert {"traces", "jobs", "runs", "trace_slurm_files", "run_calibration"} <= set(names)
    assert len(names) == len(set(names)) > 80
