"""Typer's parameter coercion, without Pydantic for plain values.

Why: Typer 0.29 converts every parameter it parses through a Pydantic
``TypeAdapter``; importing Pydantic and building the adapters cost 0.1-0.2 s
of CPU per command (a third of a whole `walltime simulate` on SDSC-SP2). Most
values on a command line are plain: a string, a bool flag, an integer or a
decimal number written with digits, a path, nothing. Those are converted here
the way the adapters convert them; any other value (a typo, ``1e3``, ``+5``,
an unreadable path, a constrained or custom type) goes to Typer's own
adapter, built only then, so every error message stays Typer's.
``tests/test_cli_coerce.py`` checks, on generated values, that each value
converted here equals what the adapter gives.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")
_DELEGATE = object()


def _plain_path_options(info) -> bool:
    return (not getattr(info, "exists", False) and getattr(info, "file_okay", True)
            and getattr(info, "dir_okay", True) and not getattr(info, "writable", False)
            and not getattr(info, "resolve_path", False) and not getattr(info, "allow_dash", False)
            and getattr(info, "path_type", None) is None)


def convert(annotation, info, value):
    """``value`` converted as Typer's adapter would, or _DELEGATE."""
    if getattr(info, "parser", None) is not None or getattr(info, "click_type", None) is not None:
        return _DELEGATE
    if annotation is str:
        return value if isinstance(value, str) else _DELEGATE
    if annotation is bool:
        return value if isinstance(value, bool) else _DELEGATE
    if annotation is int or annotation is float:
        if info.min is not None or info.max is not None or getattr(info, "clamp", False):
            return _DELEGATE
        if annotation is int:
            if type(value) is int:
                return value
            return int(value) if isinstance(value, str) and _INT.fullmatch(value) else _DELEGATE
        if type(value) is float:
            return value
        return float(value) if isinstance(value, str) and _FLOAT.fullmatch(value) else _DELEGATE
    if annotation is Path and _plain_path_options(info):
        if isinstance(value, Path):
            p = value
        elif isinstance(value, str) and value:
            p = Path(value)
        else:
            return _DELEGATE
        try:
            os.stat(p)
        except OSError:
            return p  # does not exist: fine for a plain path
        except ValueError:
            return _DELEGATE  # an embedded NUL byte: the adapter's error
        if getattr(info, "readable", True) and not os.access(p, os.R_OK):
            return _DELEGATE  # the adapter's "is not readable" message
        return p
    if getattr(annotation, "__origin__", None) is list and annotation.__args__ in ((str,), (Path,)):
        if not isinstance(value, (list, tuple)):
            return _DELEGATE
        out = [convert(annotation.__args__[0], info, v) for v in value]
        return _DELEGATE if any(v is _DELEGATE for v in out) else out
    return _DELEGATE


class LightParam:
    """Stands in for Typer's RuntimeParam; builds the real one only when needed."""

    def __init__(self, descriptor, build):
        self.descriptor, self._build, self._real = descriptor, build, None

    @property
    def real(self):
        if self._real is None:
            self._real = self._build(self.descriptor)
        return self._real

    def coerce(self, value, param, ctx):
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        if not (multi and isinstance(value, str)):
            out = convert(self.descriptor.annotation, self.descriptor.parameter_info, value)
            if out is not _DELEGATE:
                return out
        return self.real.coerce(value, param=param, ctx=ctx)

    def __getattr__(self, name):  # anything else Typer asks of a runtime parameter
        return getattr(self.real, name)


def install() -> bool:
    """Route Typer's parameter coercion through LightParam; False (nothing
    changed) when this Typer has no such hook."""
    try:
        import typer.core as core
    except ImportError:
        return False
    build = getattr(core, "build_runtime_param", None)
    if build is None or getattr(build, "_walltime_light", False):
        return build is not None

    def light(descriptor):
        return LightParam(descriptor, build)

    light._walltime_light = True
    light.original = build
    core.build_runtime_param = light
    return True
