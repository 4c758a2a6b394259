"""Scheme specs: ``NAME`` or ``NAME:key=value,...`` -> one canonical string.

The canonical string (defaults filled in, keys sorted) names a scheme everywhere
in the warehouse, so ``tang:stat=p95,key=user`` and
``tang:key=user,stat=p95,window=all,floor=0.5,min=10`` are the same scheme.
Values may also be given positionally, in the order listed in ``SCHEMES``
(``tang:user,30d,p95``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import WalltimeError, quote

KEYS = ("user", "project", "user_project", "user_project_req")
WINDOWS = ("30d", "60d", "90d", "180d", "365d", "all")
DOWNEY_KEYS = ("queue", "user", "group", "partition", "exe")  # pipeline/estimates/templates.py NAMES
STATS = ("max", "p95", "p90", "p85", "p80", "p75", "p70", "median", "mean")


def _enum(choices):
    def parse(v: str):
        if v not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return v
    parse.render = str
    parse.choices = choices
    return parse


def _float(lo=None, lo_open=False, hi=1e6):
    def parse(v: str):
        try:
            x = float(v)
        except ValueError:
            raise ValueError("must be a number") from None
        if x != x or x in (float("inf"), float("-inf")):
            raise ValueError("must be a finite number")
        if lo is not None and (x < lo or (lo_open and x == lo)):
            raise ValueError(f"must be {'>' if lo_open else '>='} {lo:g}")
        if x > hi:  # estimates are seconds stored in 64 bits: keep them finite
            raise ValueError(f"must be <= {hi:g}")
        return x
    parse.render = lambda x: format(x, "g")
    return parse


def _prob():
    def parse(v: str):
        try:
            x = float(v)
        except ValueError:
            raise ValueError("must be a number") from None
        if not 0.0 < x < 1.0:
            raise ValueError("must be a quantile strictly between 0 and 1")
        return x
    parse.render = lambda x: format(x, "g")
    return parse


def _int(lo=None, hi=2**31 - 1):
    def parse(v: str):
        if not re.fullmatch(r"-?\d{1,30}", v):
            raise ValueError("must be an integer")
        x = int(v)
        if lo is not None and x < lo:
            raise ValueError(f"must be >= {lo}")
        if x > hi:
            raise ValueError(f"must be <= {hi}")
        return x
    parse.render = str
    return parse


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def _name():
    def parse(v: str):
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", v):
            raise ValueError("must be a template set name (letters, digits, _ . -)")
        return v
    parse.render = str
    parse.choices = ("a stored template set name",)
    return parse


def _duration():
    def parse(v: str):
        m = re.fullmatch(r"(\d{1,30})([smhdw]?)", v)
        if not m:
            raise ValueError("must be a duration like 90s, 30m, 12h, 7d or 2w")
        secs = int(m.group(1)) * _UNITS[m.group(2) or "s"]
        if secs <= 0:
            raise ValueError("must be positive")
        if secs > 200 * 366 * 86400:
            raise ValueError("must be at most 200 years")
        return secs
    parse.render = duration_text
    return parse


def duration_text(secs: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if secs % size == 0:
            return f"{secs // size}{unit}"
    return f"{secs}s"


# name -> ordered {param: (parser, default)}
SCHEMES: dict[str, dict[str, tuple]] = {
    "request": {},
    "actual": {},
    "tang": {
        "key": (_enum(KEYS), None),
        "window": (_enum(WINDOWS), None),
        "stat": (_enum(STATS), None),
        "floor": (_float(0), 0.5),
        "min": (_int(0), 10),
    },
    "klusacek": {"last": (_int(1), 5)},
    "feitelson": {"sd": (_float(0), 1.5), "horizon": (_duration(), 7 * 86400)},
    "ave2": {},
    "factor": {"f": (_float(0, lo_open=True), 2.0)},
    "uniform": {"f": (_float(1), 4.0), "seed": (_int(0, 2**32 - 1), 0)},
    "model": {"seed": (_int(0, 2**32 - 1), 0)},
    "smith": {"set": (_name(), None)},
    "gibbons": {},
    "learned": {
        "q": (_prob(), 0.5),
        "loss": (_enum(("quantile", "eloss")), "quantile"),
        "under": (_float(1, hi=1000), 4.0),
        "retrain": (_duration(), 30 * 86400),
        "window": (_int(100, 10_000_000), 20000),
        "trees": (_int(1, 5000), 50),
    },
    "downey": {"stat": (_enum(("median", "mean")), "median"), "key": (_enum(DOWNEY_KEYS), "queue")},
}


@dataclass(frozen=True)
class Scheme:
    name: str
    params: tuple[tuple[str, object], ...]  # sorted by key

    def __getitem__(self, key):
        return dict(self.params)[key]

    @property
    def canonical(self) -> str:
        if not self.params:
            return self.name
        spec = SCHEMES[self.name]
        body = ",".join(f"{k}={spec[k][0].render(v)}" for k, v in self.params)
        return f"{self.name}:{body}"

    def __str__(self) -> str:
        return self.canonical


def parse(spec: str, option: str = "--scheme") -> Scheme:
    """Parse and validate a spec; errors name the option and the bad part."""
    shown = quote(spec)
    text = spec.strip()
    name, _, body = text.partition(":")
    name = name.strip()
    if name not in SCHEMES:
        raise WalltimeError(f'{option} "{shown}": unknown scheme "{quote(name)}"; known: {", ".join(SCHEMES)}')
    params = SCHEMES[name]
    given: dict[str, str] = {}
    if body.strip():
        order = list(params)
        for i, part in enumerate(p.strip() for p in body.split(",")):
            if "=" in part:
                k, _, v = part.partition("=")
                k, v = k.strip(), v.strip()
            elif i < len(order):
                k, v = order[i], part
            else:
                raise WalltimeError(f'{option} "{shown}": too many values for {name}')
            if k not in params:
                known = ", ".join(params) or "none"
                raise WalltimeError(f'{option} "{shown}": {name} has no parameter "{quote(k)}" (parameters: {known})')
            if k in given:
                raise WalltimeError(f'{option} "{shown}": parameter "{quote(k)}" given twice')
            given[k] = v
    values = {}
    for k, (parser, default) in params.items():
        if k in given:
            try:
                values[k] = parser(given[k])
            except ValueError as e:
                raise WalltimeError(f'{option} "{shown}": {k}={quote(given[k])} {e}') from None
        elif default is None:
            choices = ", ".join(getattr(parser, "choices", ()))
            raise WalltimeError(f'{option} "{shown}": {name} needs {k}= (one of {choices})')
        else:
            values[k] = default
    return Scheme(name, tuple(sorted(values.items())))


def canonical(spec: str, option: str = "--scheme") -> str:
    return parse(spec, option).canonical


def tang_grid(floor: float = 0.5, min_jobs: int = 10) -> list[Scheme]:
    """All 4 keys x 6 windows x 9 statistics (Tang et al. Figs. 4-10)."""
    return [
        parse(f"tang:key={k},window={w},stat={s},floor={floor:g},min={min_jobs}")
        for k in KEYS for w in WINDOWS for s in STATS
    ]
