"""The CLI starts without the heavy libraries (issue 11): `walltime --help`,
`traces` and `sql` must not wait for Numba, Polars or Arrow. Speed itself is
measured in bench/startup.py; here we check what is imported."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("numba", "polars", "pyarrow", "duckdb", "numpy")


def _imported_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_importing_the_cli_imports_nothing_heavy():
    mods = _imported_after("import pipeline.cli")
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


def test_help_imports_nothing_heavy():
    mods = _imported_after(
        "from pipeline.cli import app\n"
        "try:\n    app(args=['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass")
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


def test_every_command_help_imports_nothing_heavy():
    from pipeline.cli import app  # noqa: F401  (registers the commands)
    import typer.main

    names = sorted(typer.main.get_command(app).commands)
    code = ("from pipeline.cli import app\n"
            f"for name in {names!r}:\n"
            "    try:\n        app(args=[name, '--help'], standalone_mode=False)\n"
            "    except SystemExit:\n        pass")
    mods = _imported_after(code)
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


def test_cli_copies_of_library_constants_agree():
    """The CLI keeps a few constants itself so as not to import their modules."""
    from pipeline import report, reproduce, warehouse
    from pipeline.cli import common, generate_cmd, report_cmd, reproduce_cmd
    from pipeline.generate import DEFAULT_START, DEFAULT_TZ

    assert common.ENV_VAR == warehouse.ENV_VAR
    assert tuple(report.SECTIONS) == report_cmd.SECTIONS
    assert tuple(reproduce.PAPERS) == reproduce_cmd.PAPERS
    assert (generate_cmd.DEFAULT_START, generate_cmd.DEFAULT_TZ) == (DEFAULT_START, DEFAULT_TZ)


def test_sql_plain_and_arrow_paths_give_the_same_rows(tmp_path):
    """`walltime sql` skips Arrow for plain column types; both paths agree."""
    import duckdb

    from pipeline.cli.sql_cmd import _plain_types

    con = duckdb.connect()
    rel = con.sql("SELECT 1::TINYINT a, 1.5::DECIMAL(10,2) d, DATE '2020-01-02' x, "
                  "TIMESTAMP '2020-01-01 10:00' ts, NULL n, 'a' s, 1.0::FLOAT f, true b, 3::UBIGINT u, 2.5 g")
    assert _plain_types(rel)
    assert rel.fetchall() == [tuple(r.values()) for r in rel.to_arrow_table().to_pylist()]
    assert not _plain_types(con.sql("SELECT TIMESTAMPTZ '2020-01-01 10:00+01' t"))
    assert not _plain_types(con.sql("SELECT INTERVAL 1 DAY i"))
