"""Imports run one way (issue 24): the layers of docs/architecture.md, read
from its ``layers`` block, against every import in pipeline/ (those inside
functions too), walked with ``ast``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "pipeline"


def _layers() -> dict[str, int]:
    """Top-level module or package -> its layer's height (0: base)."""
    block = re.search(r"```layers\n(.*?)```", (ROOT / "docs" / "architecture.md").read_text(), re.S).group(1)
    rows = [line.split()[1:] for line in block.strip().splitlines()]
    return {unit: len(rows) - 1 - i for i, units in enumerate(rows) for unit in units}


def _modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of pipeline/ (a package by its __init__.py)."""
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the pipeline modules it imports anywhere in its file."""
    out = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]) if node.level else ""
                mod = ".".join(p for p in (base, node.module) if p)
                found |= {f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names}
        out[name] = {m for m in found if m in mods and m != name}
    return out


def _unit(module: str) -> str:
    """The top-level module or package of a pipeline module (``__init__``: the package itself)."""
    return module.split(".")[1] if "." in module else "__init__"


def test_every_top_level_module_is_in_one_layer_and_says_what_it_is_for():
    units = {_unit(m) for m in _modules()}
    assert units == set(_layers()), "docs/architecture.md: add or remove these in the layers block"
    for name, path in _modules().items():
        if name.count(".") <= 1:
            assert ast.get_docstring(ast.parse(path.read_text())), f"{path}: no docstring"


def test_no_module_imports_from_a_higher_layer():
    layer = _layers()
    upward = [f"{m} -> {t}" for m, targets in _imports(_modules()).items() for t in sorted(targets)
              if layer[_unit(t)] > layer[_unit(m)]]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_no_import_circles():
    graph = _imports(_modules())
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    circles = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                circles.append(" -> ".join(path[path.index(t):] + [t]))
            elif t not in state:
                visit(t, path + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not circles, "import circles:\n" + "\n".join(circles)


def _private_imports(mods: dict[str, Path]) -> list[str]:
    """``from X import _name`` where X (or the module ``X._name``) lies outside the importer's own
    package (or a package above it): a private name used across packages (a module or a function a
    package keeps to itself); a top-level module of pipeline/ counts as a package of its own."""
    out = []
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.module == "__future__":
                continue
            base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]) if node.level else ""
            mod = ".".join(p for p in (base, node.module) if p)
            if not mod.startswith("pipeline"):
                continue
            # the unit that owns the names: a package, or a top-level module (pipeline.X is a unit of its own)
            is_pkg = mods.get(mod) is not None and mods[mod].name == "__init__.py"
            owner = mod if is_pkg or mod.count(".") == 1 else mod.rpartition(".")[0]
            for a in node.names:
                inside = package == owner or package.startswith(owner + ".")  # a subpackage may use its parent's
                if a.name.startswith("_") and not a.name.startswith("__") and not inside:
                    out.append(f"{name}: from {mod} import {a.name}")
    return out


def test_no_private_name_is_imported_across_packages():
    """Issue 41, item 1: a stage uses another's public names only (study re-implemented the
    simulate stage's planner from six of its private names; now both use simulate.many.plan_runs)."""
    found = _private_imports(_modules())
    assert not found, "private names imported across packages:\n" + "\n".join(found)


def test_the_private_import_check_can_fail(tmp_path):
    """The walk above finds the kind of import it forbids (here: the one study used to make)."""
    mods = {"pipeline.study.runner": tmp_path / "runner.py", "pipeline.simulate.many": tmp_path / "many.py",
            "pipeline.simulate": tmp_path / "__init__.py"}
    mods["pipeline.study.runner"].write_text("from ..simulate.many import _prepare, plan_runs\n")
    mods["pipeline.simulate.many"].write_text("from . import _kernel\nfrom ._easy import _pass\n")
    mods["pipeline.simulate"].write_text("")
    assert _private_imports(mods) == ["pipeline.study.runner: from pipeline.simulate.many import _prepare"]


def _dynamic_imports(mods: dict[str, Path]) -> list[tuple[str, str | None, str]]:
    """``import_module(...)`` calls (importlib's, by any spelling) in pipeline/: (module, the pipeline
    module or package the string names, the call as written). The name is the string's fixed part:
    an f-string's leading ``{__name__}`` or ``{__package__}`` stands for the module or its package,
    a relative string is resolved against its ``package`` argument; None when nothing fixed names a
    pipeline module (a string built elsewhere)."""
    out = []
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and node.args
                    and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module"):
                continue
            arg = node.args[0]
            text = None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                text = arg.value
            elif isinstance(arg, ast.JoinedStr):
                text = ""
                for part in arg.values:
                    if isinstance(part, ast.Constant):
                        text += part.value
                    elif not text and isinstance(part.value, ast.Name) and part.value.id in ("__name__", "__package__"):
                        text += name if part.value.id == "__name__" else package
                    else:
                        break
            target = None
            if text is not None and text.startswith("."):  # relative to the package argument (__package__)
                levels = len(text) - len(text.lstrip("."))
                base = ".".join(package.split(".")[:len(package.split(".")) - levels + 1])
                text = f"{base}.{text.lstrip('.')}"
            if text and text.startswith("pipeline"):
                parts = text.split(".")
                while parts and ".".join(parts) not in mods:  # the longest module the fixed part names
                    parts.pop()
                target = ".".join(parts) or None
            out.append((name, target, ast.unparse(node)))
    return out


def test_no_module_imports_a_higher_layer_by_name():
    """Issue 41, item 1: ``import_module`` strings obey the layers too, and each names a pipeline
    module in its fixed part (a string the walk cannot place would hide an arrow up)."""
    layer = _layers()
    calls = _dynamic_imports(_modules())
    assert calls, "the walk finds the CLI's and the reproduction's import_module calls"
    unplaced = [f"{m}: {call}" for m, target, call in calls if target is None]
    assert not unplaced, "import_module with no fixed pipeline name:\n" + "\n".join(unplaced)
    upward = [f"{m} -> {target}: {call}" for m, target, call in calls if layer[_unit(target)] > layer[_unit(m)]]
    assert not upward, "import_module from a higher layer:\n" + "\n".join(upward)


def test_the_dynamic_import_check_can_fail(tmp_path):
    """A string that names a higher layer is found, written out, as an f-string or relative."""
    mods = {"pipeline.simulate.many": tmp_path / "many.py", "pipeline.report": tmp_path / "__init__.py",
            "pipeline.report.compute": tmp_path / "compute.py", "pipeline.simulate": tmp_path / "s.py"}
    mods["pipeline.simulate.many"].write_text(
        "import importlib\nfrom importlib import import_module\n"
        "importlib.import_module('pipeline.report.compute')\n"
        "import_module(f'pipeline.report.{x}')\n"
        "import_module('..report', __package__)\n"
        "import_module(f'{__package__}.tasks')\n")
    for p in list(mods.values())[1:]:
        p.write_text("")
    got = [(m, t) for m, t, _ in _dynamic_imports(mods)]
    assert got == [("pipeline.simulate.many", "pipeline.report.compute"), ("pipeline.simulate.many", "pipeline.report"),
                   ("pipeline.simulate.many", "pipeline.report"), ("pipeline.simulate.many", "pipeline.simulate")]
