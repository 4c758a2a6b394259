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
    from pipeline.cli import common, fast, generate_cmd, report_cmd, reproduce_cmd
    from pipeline.generate import DEFAULT_START, DEFAULT_TZ

    assert common.ENV_VAR == warehouse.ENV_VAR == fast.ENV_VAR
    assert common.DEFAULT_WAREHOUSE == fast.DEFAULT_WAREHOUSE
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


# -- the fast path of `walltime traces` / `walltime sql` (pipeline/cli/fast.py) --------------

import os  # noqa: E402

import pytest  # noqa: E402

from conftest import run_cli, trace_path  # noqa: E402
from ingest_support import run_inproc  # noqa: E402


@pytest.fixture(scope="module")
def kth_wh(tmp_path_factory):
    wh = tmp_path_factory.mktemp("fast") / "wh"
    run_cli("ingest", str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")), warehouse=wh, check=True)
    return wh


def _both(monkeypatch, argv, env=None):
    """The same command line run by main() with and without the fast path."""
    from pipeline.cli import fast

    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    taken = fast.command(list(argv)) is not None
    quick = run_inproc(*argv)
    with monkeypatch.context() as m:
        m.setattr(fast, "command", lambda a: None)
        slow = run_inproc(*argv)
    return taken, quick, slow


FAST_LINES = [
    ["traces", "--warehouse", "{wh}"],
    ["traces", "--json", "--warehouse={wh}"],
    ["traces"],  # --warehouse from the environment variable
    ["sql", "SELECT count(*) FROM jobs", "--warehouse", "{wh}"],
    ["sql", "--warehouse", "{wh}", "--csv", "SELECT trace, count(*) n FROM jobs GROUP BY ALL"],
    ["sql", "SELECT * FROM jobs ORDER BY job_id LIMIT 3", "--json", "--csv", "--warehouse", "{wh}"],
    ["sql", "SELECT count(*) FROM sim_jobs", "--warehouse", "{wh}"],
    ["sql", "DELETE FROM jobs", "--warehouse", "{wh}"],  # refused: exit 1
    ["sql", "SELEC 1", "--warehouse", "{wh}"],  # syntax error: exit 1
    ["sql", "SELECT * FROM nowhere", "--warehouse", "{wh}"],
    ["traces", "--warehouse", "{wh}/missing"],  # no warehouse: exit 1
]
TYPER_LINES = [
    ["traces", "--help"], ["sql", "--help"], ["traces", "--warehouse"], ["traces", "--bogus"],
    ["traces", "--json", "--json"], ["traces", "--json=1"], ["traces", "extra"], ["sql"],
    ["sql", "SELECT 1", "SELECT 2"], ["sql", "--", "SELECT 1"], ["sql", "-1"], ["traces", "--warehouse", ""],
    ["traces", "--warehouse", "--json"], ["sql", "SELECT 1", "--warehouse", "{wh}", "--warehouse", "{wh}"],
    ["trace"], ["--help"], ["traces", "-h"],
]


@pytest.mark.parametrize("line", FAST_LINES, ids=lambda a: " ".join(a))
def test_fast_path_prints_what_typer_prints(kth_wh, monkeypatch, line):
    argv = [a.format(wh=kth_wh) for a in line]
    taken, quick, slow = _both(monkeypatch, argv, env={"WALLTIME_WAREHOUSE": str(kth_wh)})
    assert taken
    assert (quick.returncode, quick.stdout, quick.stderr) == (slow.returncode, slow.stdout, slow.stderr)
    assert quick.stdout or quick.stderr


@pytest.mark.parametrize("line", TYPER_LINES, ids=lambda a: " ".join(a))
def test_other_lines_go_to_typer(kth_wh, monkeypatch, line):
    argv = [a.format(wh=kth_wh) for a in line]
    taken, quick, slow = _both(monkeypatch, argv)
    assert not taken
    assert (quick.returncode, quick.stdout, quick.stderr) == (slow.returncode, slow.stdout, slow.stderr)


def test_fast_path_follows_the_environment_variable_like_click(kth_wh, monkeypatch, tmp_path):
    """Empty $WALLTIME_WAREHOUSE means the default `warehouse` (relative to the cwd), as in Click."""
    monkeypatch.chdir(tmp_path)
    for value in ("", str(kth_wh), f"{tmp_path}/a:{kth_wh}"):
        taken, quick, slow = _both(monkeypatch, ["traces", "--json"], env={"WALLTIME_WAREHOUSE": value})
        assert taken
        assert (quick.returncode, quick.stdout, quick.stderr) == (slow.returncode, slow.stdout, slow.stderr)


def test_traces_and_sql_processes_skip_typer(kth_wh):
    """The real process: `traces` and `sql` run without Typer, Click or Pydantic (and do run)."""
    for args in (["traces"], ["sql", "SELECT count(*) FROM jobs"]):
        code = ("import atexit, json, sys\n"
                "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
                "from pipeline.cli import main\n"
                f"main({args + ['--warehouse', str(kth_wh)]!r})")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "WALLTIME_PROGRESS": "0"})
        assert out.returncode == 0, out.stderr
        mods = {m.split(".")[0] for m in json.loads(out.stderr.strip().splitlines()[-1])}
        assert "duckdb" in mods and "28476" in out.stdout
        assert not mods & {"typer", "click", "pydantic", "pydantic_core", "numpy", "pyarrow", "polars", "numba"}


def test_app_is_built_on_first_use():
    mods = _imported_after("import pipeline.cli")
    assert "typer" not in mods
    mods = _imported_after("from pipeline.cli import app\nassert app.registered_commands")
    assert "typer" in mods and "pipeline.cli.traces_cmd" in mods


def test_command_modules_map_matches_the_registration():
    """main() imports only the named command's module (pipeline/cli/_app.py COMMAND_MODULES)."""
    from pipeline.cli import _app, app

    registered = {}
    for c in app.registered_commands:
        name = c.name or c.callback.__name__.replace("_", "-")
        registered[name] = c.callback.__module__.rsplit(".", 1)[1]
    assert registered == _app.COMMAND_MODULES


def test_a_command_alone_parses_and_helps_as_with_every_command():
    """Each command's --help and a usage error, from a process that registered
    that command only, equal those of a process that registered them all."""
    from pipeline.cli import _app

    code = ("import sys\n{pre}from pipeline.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    print('exit', e.code, file=sys.stderr)\n")
    for cmd in sorted(_app.COMMAND_MODULES):
        for args in ([cmd, "--help"], [cmd, "--no-such-option"]):
            alone, every = (subprocess.run([sys.executable, "-c", code.format(pre=pre), *args], capture_output=True,
                                           text=True, env={**os.environ, "COLUMNS": "100"})
                            for pre in ("", "from pipeline.cli import app\n"))
            assert (alone.stdout, alone.stderr) == (every.stdout, every.stderr), args
            assert "exit" in alone.stderr


def test_estimates_import_neither_numba_nor_lightgbm():
    """`walltime estimate` with a scheme that needs neither (tang, ave2, ...)
    loads no Numba (0.6-1.5 s) and no LightGBM/SciPy: compute.py imports the
    smith, gibbons, downey and learned modules when their scheme is computed."""
    mods = _imported_after("import pipeline.estimates, pipeline.estimates.compute")
    assert not {m for m in mods if m.split(".")[0] in ("numba", "lightgbm", "scipy")}
    assert "polars" in mods  # the estimates themselves did load
