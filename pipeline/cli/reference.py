"""docs/cli.md, the per-command reference, generated from the commands themselves.

Why generated: the README tours the commands; every option of every command
is here, with its help text, type and default, taken from the commands
Typer builds (each parameter's help record, as ``--help`` prints it, not a
terminal rendering, whose width would move the text), so it cannot drift from ``--help``: tests/test_cli_reference.py
fails when the file differs from what this module writes.

    python -m pipeline.cli.reference > docs/cli.md
"""

from __future__ import annotations

import inspect

HEAD = """# Command reference

Generated from the commands' own help (`python -m pipeline.cli.reference > docs/cli.md`;
tests/test_cli_reference.py keeps it equal). The README tours the commands; `walltime
COMMAND --help` prints the same text in the terminal; `walltime --version` prints the version.
"""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    """The whole reference as Markdown, commands in alphabetical order."""
    import typer

    from ._app import app, register

    register()
    group = typer.main.get_command(app)
    out = [HEAD]
    for name in sorted(group.commands):
        cmd = group.commands[name]
        if cmd.hidden:
            continue
        ctx = cmd.make_context(name, [], resilient_parsing=True)
        args = " ".join(p.name.upper() for p in cmd.params if p.param_type_name == "argument")
        out += [f"## `walltime {name}{' ' + args if args else ''}`", "",
                inspect.cleandoc(cmd.help or "").strip(), ""]
        rows = []
        for p in cmd.params:
            record = p.get_help_record(ctx)  # (the declaration with its type, the help with its default): --help's
            if record is None:
                continue
            decl, text = record
            rows.append(f"| `{_cell(decl)}` | {_cell(text)} |")
        rows.append("| `--help` | Show this message and exit. |")
        out += ["| argument or option | what |", "|---|---|", *rows, ""]
    return "\n".join(out)


if __name__ == "__main__":
    print(render(), end="")
