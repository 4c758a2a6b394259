"""Fuzz every command (issue 9): arbitrary bytes as input files and arbitrary
option strings. Whatever comes in: exit code 0 or 1, never a traceback or an
"internal error" (exit 2), and after a refusal (exit 1) the warehouse is
byte-identical to what it was.

The CLI runs in this process (the real entry point, pipeline.cli.main), so
the examples stay cheap; a modest number per command keeps the whole file
well under a minute.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_cli
from ingest_support import run_inproc
from pipeline.generate import generate_file

EXAMPLES = 10
OPTIONS = {
    "ingest": ["--name", "--format", "--lenient", "--replace", "--json"],
    "characterize": ["--json"],
    "estimate": ["--scheme", "--grid", "--json"],
    "simulate": ["--policy", "--backfill", "--estimate", "--adjust", "--overrun", "--split", "--load-factor",
                 "--capacity", "--drop-oversized", "--predict-wait", "--json"],
    "report": ["--out", "--sections", "--csv", "--capacity", "--json"],
    "run": ["--dry-run", "--executor", "--scheduler", "--workers", "--json"],
    "sql": ["--csv", "--json"],
    "traces": ["--json"],
    "generate": ["--jobs", "--seed", "--capacity", "--load", "--out", "--waits", "--start", "--timezone", "--json"],
}
# Prefixes that keep a lucky valid command cheap (fuzzed options come after and may override them).
PREFIX = {"report": ["--sections", "overview"], "generate": ["--jobs", "200", "--out", "g.swf"], "run": ["--workers", "1"]}
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)
numberish = st.sampled_from(["0", "-1", "1e300", "nan", "99999999999999999999", "small", "", " ", "fcfs",
                             "uniform:f=4,seed=99999999999999999999", "/", ".", "..", "tang", "month"])


def words(command: str):
    return st.lists(st.one_of(st.sampled_from(OPTIONS[command]), text, numberish), max_size=5)


def files(wh: Path) -> dict[str, str]:
    return {str(f.relative_to(wh)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(wh.rglob("*")) if f.is_file() and f.name != ".writer.lock"}


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("fuzz")
    generate_file(d / "small.swf", jobs=400, seed=2, capacity=32, load=0.6)
    wh = d / "wh"
    run_cli("ingest", str(d / "small.swf"), warehouse=wh, check=True)
    return wh


class Bench:
    """One warehouse copy per test; restored only after a command changed it."""

    def __init__(self, base: Path, tmp: Path):
        self.base, self.tmp = base, tmp
        self.wh = tmp / "wh"
        shutil.copytree(base, self.wh)
        self.cwd = tmp / "cwd"
        self.cwd.mkdir()

    def check(self, argv: list[str]) -> None:
        before = files(self.wh)
        ran = run_inproc(*argv, warehouse=self.wh, cwd=self.cwd)
        assert ran.returncode in (0, 1), (argv, ran.returncode, ran.stderr)
        assert "Traceback" not in ran.stderr and "internal error" not in ran.stderr, (argv, ran.stderr)
        if ran.returncode == 1:
            assert ran.stderr.startswith("error: ") and ran.stderr.count("\n") == 1, (argv, ran.stderr)
            assert files(self.wh) == before, (argv, ran.stderr)
        elif files(self.wh) != before:
            shutil.rmtree(self.wh)
            shutil.copytree(self.base, self.wh)


@pytest.fixture
def bench(base, tmp_path) -> Bench:
    return Bench(base, tmp_path)


@pytest.mark.parametrize("command", ["ingest", "run"])
def test_arbitrary_bytes_as_input_file(bench, command):
    @SETTINGS
    @given(data=st.binary(max_size=600), opts=words(command))
    def check(data, opts):
        f = bench.tmp / ("input.swf" if command == "ingest" else "input.toml")
        f.write_bytes(data)
        bench.check([command, *PREFIX.get(command, []), str(f), *opts])

    check()


def test_swf_like_lines(bench):
    """Bytes that look like SWF (numbers of any size, signs, header keys)."""
    number = st.one_of(st.integers(-10**25, 10**25).map(str), st.sampled_from(["-1", "1.5", "1e5", "x", ""]))
    line = st.lists(number, min_size=0, max_size=20).map(" ".join)
    header = st.tuples(st.sampled_from(["MaxProcs", "MaxNodes", "UnixStartTime", "TimeZone", "MaxJobs"]),
                       st.one_of(number, text)).map(lambda kv: f"; {kv[0]}: {kv[1]}")

    @SETTINGS
    @given(lines=st.lists(st.one_of(line, header), max_size=6), bom=st.booleans(), lenient=st.booleans())
    def check(lines, bom, lenient):
        f = bench.tmp / "like.swf"
        f.write_bytes((b"\xef\xbb\xbf" if bom else b"") + "\n".join(lines).encode())
        bench.check(["ingest", str(f), "--name", "like", *(["--lenient"] if lenient else [])])

    check()


@pytest.mark.parametrize("command", ["characterize", "estimate", "simulate", "report", "sql", "traces", "generate"])
def test_arbitrary_options(bench, command):
    @SETTINGS
    @given(args=words(command), trace=st.sampled_from(["small", "nope", ""]))
    def check(args, trace):
        lead = [trace] if command in ("characterize", "estimate", "simulate") else []
        if command == "sql":
            lead = [args.pop(0) if args else "SELECT 1"]
        bench.check([command, *lead, *PREFIX.get(command, []), *args])

    check()
