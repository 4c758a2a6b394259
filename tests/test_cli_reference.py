"""docs/cli.md is the commands' own help (issue 41): equal to what
pipeline/cli/reference.py renders, every command a section, and every option
that a real `walltime COMMAND --help` prints in that section."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO
from pipeline.cli._app import COMMAND_MODULES
from pipeline.cli.reference import render

DOC = REPO / "docs" / "cli.md"


def test_docs_cli_md_is_generated_from_the_commands():
    assert DOC.read_text() == render(), "regenerate: python -m pipeline.cli.reference > docs/cli.md"


def _section(name: str) -> str:
    text = DOC.read_text()
    m = re.search(rf"^## `walltime {re.escape(name)}\b.*?(?=^## |\Z)", text, re.S | re.M)
    assert m, f"docs/cli.md has no section for {name}"
    return m.group(0)


@pytest.mark.parametrize("name", sorted(COMMAND_MODULES))
def test_every_command_has_its_section(name):
    assert _section(name)


@pytest.mark.parametrize("name", ["simulate", "ingest", "summary"])
def test_every_option_of_the_help_is_in_the_section(name):
    """The options as a person sees them: `--help` of the real command, in a wide terminal."""
    out = subprocess.run([sys.executable, "-m", "pipeline", name, "--help"], capture_output=True, text=True,
                         env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}, check=True).stdout
    options = set(re.findall(r"(--[a-z][a-z0-9-]*)", out))
    assert len(options) > 3
    section = _section(name)
    assert {o for o in options if o not in section} == set()
