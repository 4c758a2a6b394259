"""pipeline/cli/coerce.py converts plain option values without Pydantic; every
value it converts must equal what Typer's own (Pydantic) adapter gives, and
every other value must reach the adapter (same error messages)."""

from __future__ import annotations

import string
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cli import app
from pipeline.cli.coerce import _DELEGATE, LightParam, convert

import typer.main  # noqa: E402  (after pipeline.cli installed the hook)
from typer._click import Context  # noqa: E402


def _params():
    """Real parameters of walltime's commands, one per kind of annotation."""
    cmd = typer.main.get_command(app)
    found = {}
    for sub in cmd.commands.values():
        for p in sub.params:
            key = (repr(p.type_descriptor.annotation), p.multiple, p.nargs)
            found.setdefault(key, (sub, p))
    return found


PARAMS = _params()
TEXT = st.one_of(
    st.text(alphabet=string.digits + "-+._eE ", max_size=12),
    st.from_regex(r"-?[0-9]{1,20}(\.[0-9]{0,17})?", fullmatch=True),
    st.text(max_size=8),
)


def _real(sub, p, value):
    ctx = Context(sub)
    rp = p.get_runtime_param()
    assert isinstance(rp, LightParam)  # the hook is installed
    try:
        return ("ok", rp.real.coerce(value, param=p, ctx=ctx))
    except Exception as e:  # noqa: BLE001  (Typer's BadParameter)
        return ("error", type(e).__name__)


@settings(max_examples=300, deadline=None)
@given(value=TEXT)
def test_converted_values_equal_the_adapters(value):
    for (ann, multi, nargs), (sub, p) in PARAMS.items():
        v = (value,) if (multi or nargs == -1) else value
        light = convert(p.type_descriptor.annotation, p.type_descriptor.parameter_info, v)
        if light is _DELEGATE:
            continue
        kind, real = _real(sub, p, v)
        assert kind == "ok", (ann, value)
        assert type(light) is type(real) and light == real, (ann, value, light, real)


@pytest.mark.parametrize("value", ["10", "-3", "0", "1.5", "007", "2.50"])
def test_plain_numbers_are_converted_here(value):
    kinds = {a for (a, _, _) in PARAMS}
    assert "<class 'int'>" in kinds and "<class 'float'>" in kinds
    for (ann, multi, nargs), (sub, p) in PARAMS.items():
        if ann in ("<class 'float'>",) or (ann == "<class 'int'>" and "." not in value
                                            and p.type_descriptor.parameter_info.min is None):
            assert convert(p.type_descriptor.annotation, p.type_descriptor.parameter_info, value) is not _DELEGATE


def test_simulate_options_parse_without_pydantic(tmp_path):
    """A whole `walltime simulate` command line (here failing on the missing
    warehouse, after parsing) does not import Pydantic; a bad number still
    gets Typer's message."""
    code = ("import sys\nfrom pipeline.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('pydantic' in sys.modules)")
    args = ["simulate", "T", "--policy", "sjf", "--load-factor", "1.5", "--capacity", "64",
            "--partition", "a", "--partition", "b", "--warehouse", str(tmp_path / "none")]
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
    assert "no warehouse here yet" in out.stderr
    bad = subprocess.run([sys.executable, "-m", "pipeline", *args[:4], "--load-factor", "1,5"],
                         capture_output=True, text=True)
    assert bad.returncode == 1
    assert "Invalid value for '--load-factor': Input should be a valid number" in bad.stderr
