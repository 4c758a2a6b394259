"""The README is a short front door: at most ~200 lines,
its set-up commands are the ones CI runs (.ci/run installs what the README
says and runs the README's test command, the line after "# The README's test
command:"), and every relative link in it (and in docs/guide.md and
docs/journal/readme-history.md, which took its detail and its history) leads
somewhere: a file or folder of the checkout, and for a `#anchor` into a
Markdown file, one of its headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPO

README = REPO / "README.md"
CI = REPO / ".ci" / "run"
MAX_LINES = 200


def _sh_lines(text: str) -> list[str]:
    """Every line inside the README's ```sh fenced blocks, as written."""
    return [line for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M) for line in block.splitlines()]


def _ci_test_command() -> str:
    lines = CI.read_text().splitlines()
    i = lines.index("# The README's test command:")
    return lines[i + 1]


def test_readme_is_short():
    n = len(README.read_text().splitlines())
    assert n <= MAX_LINES, f"README.md has {n} lines; move detail to docs/guide.md or a docs page"


def test_the_test_command_is_the_one_ci_runs():
    cmd = _ci_test_command()
    assert cmd == "pip install -e '.[dev]' && pytest"  # what .ci/run is meant to hold: install the extras, run all
    assert cmd in _sh_lines(README.read_text()), "README.md's test command differs from .ci/run's"


def test_the_install_command_checks_what_ci_checks():
    """The demo's install line: the OpenMP runtime checked the way .ci/run checks it, then `pip install .`."""
    [line] = [s for s in _sh_lines(README.read_text()) if "walltime demo" in s]
    assert line == "(ldconfig -p | grep -q libgomp.so.1 || apt-get install -y libgomp1) && pip install . && walltime demo"
    assert "ldconfig -p | grep -q libgomp.so.1" in CI.read_text()


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(md: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", md.read_text(), flags=re.S | re.M)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M)}


def _relative_links(md: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", md.read_text(), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)  # inline code is not a link
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]  # http:, https:, mailto: ...


@pytest.mark.parametrize("page", ["README.md", "docs/guide.md", "docs/journal/readme-history.md"])
def test_links_lead_somewhere(page):
    """The README's links, and those of the pages that took its detail and its history."""
    md = REPO / page
    links = _relative_links(md)
    assert len(links) >= (10 if page == "README.md" else 1)  # the parser found the links
    bad = []
    for target in links:
        path, _, anchor = target.partition("#")
        file = (md.parent / path) if path else md
        if not file.exists():
            bad.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            bad.append(f"{target}: no heading #{anchor} in {file.resolve().relative_to(REPO)}")
    assert bad == []


@pytest.mark.parametrize("heading, anchor", [
    ("The papers", "the-papers"),
    ("Set-up, tests and CI", "set-up-tests-and-ci"),
    ("Slurm sites: `walltime ingest --format sacct FILE...`", "slurm-sites-walltime-ingest---format-sacct-file"),
])
def test_slug_is_githubs(heading, anchor):
    assert _slug(heading) == anchor
