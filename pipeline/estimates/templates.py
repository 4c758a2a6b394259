"""Smith, Taylor & Foster's templates (paper 004, Section 2.1): what they are,
their text form, the built-in sets, and the stored sets of the warehouse.

A template names job characteristics (categorical columns), an optional node
range size, an optional running-time range size, a maximum history, and
whether it stores absolute run times or run / request. Text form, as listed
by ``walltime estimate --list-template-sets``::

    (u,q,n=4,rt=1024,h=32,rel)     ()     (e,abs)

Characteristics are looked up in ``CHARACTERISTICS`` (letter -> column); add
a column there and every predictor, the search and the twins use it.
"""

from __future__ import annotations

import json

import duckdb
import re
from dataclasses import dataclass

from ..errors import WalltimeError

# letter -> jobs column; extend here when the jobs table gains categorical columns
CHARACTERISTICS: dict[str, str] = {
    "u": "user_id",
    "g": "group_id",
    "q": "queue_id",
    "p": "partition_id",
    "e": "exe_id",
}
# long names (Downey's key=, the docs) -> letters
NAMES: dict[str, str] = {"user": "u", "group": "g", "queue": "q", "partition": "p", "exe": "e"}
NODE_SIZES = tuple(2 ** k for k in range(10))            # 1 .. 512
RUNTIME_SIZES = tuple(2 ** k for k in range(6, 17))      # 64 .. 65536 s
HISTORY_SIZES = tuple(2 ** k for k in range(1, 17))      # 2 .. 65536
MAX_TEMPLATES = 10
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class Template:
    chars: tuple[str, ...] = ()      # letters of CHARACTERISTICS, in CHARACTERISTICS order
    nodes: int | None = None         # node range size, None = nodes not used
    runtime: int | None = None       # running-time range size (s), None = not used
    history: int | None = None       # maximum history, None = unlimited
    relative: bool = False           # store run / request instead of run

    def text(self) -> str:
        parts = list(self.chars)
        if self.nodes:
            parts.append(f"n={self.nodes}")
        if self.runtime:
            parts.append(f"rt={self.runtime}")
        if self.history:
            parts.append(f"h={self.history}")
        parts.append("rel" if self.relative else "abs")
        return "(" + ",".join(parts) + ")"

    def columns(self) -> list[str]:
        return [CHARACTERISTICS[c] for c in self.chars]


def parse_template(text: str) -> Template:
    """``(u,q,n=4,rt=1024,h=32,rel)`` -> Template; ValueError names the bad part."""
    body = text.strip()
    if not (body.startswith("(") and body.endswith(")")):
        raise ValueError(f'template "{text}" must be in parentheses, e.g. (u,n=4,abs)')
    chars, nodes, runtime, history, relative = [], None, None, None, False
    for part in filter(None, (p.strip() for p in body[1:-1].split(","))):
        k, _, v = part.partition("=")
        if part in CHARACTERISTICS:
            chars.append(part)
        elif part in ("abs", "rel"):
            relative = part == "rel"
        elif k == "n" and v.isdigit() and int(v) in NODE_SIZES:
            nodes = int(v)
        elif k == "rt" and v.isdigit() and int(v) in RUNTIME_SIZES:
            runtime = int(v)
        elif k == "h" and v.isdigit() and int(v) in HISTORY_SIZES:
            history = int(v)
        else:
            raise ValueError(f'template "{text}": bad part "{part}" (characteristics '
                             f'{"/".join(CHARACTERISTICS)}, n=1..512, rt=64..65536, h=2..65536 '
                             f'in powers of 2, abs or rel)')
    order = list(CHARACTERISTICS)
    return Template(tuple(sorted(set(chars), key=order.index)), nodes, runtime, history, relative)


def parse_set(text: str) -> tuple[Template, ...]:
    """``(u,abs) (q,n=4,rel)`` -> templates (1..10)."""
    found = re.findall(r"\([^()]*\)", text)
    if not found or re.sub(r"\([^()]*\)", "", text).strip(" ;"):
        raise ValueError(f'template set "{text}": write templates like (u,n=4,abs) (q,rel)')
    if len(found) > MAX_TEMPLATES:
        raise ValueError(f"template set has {len(found)} templates; at most {MAX_TEMPLATES}")
    return tuple(parse_template(t) for t in found)


def set_text(templates) -> str:
    return " ".join(t.text() for t in templates)


# Built-in sets: usable without a search. "example" is the paper's
# Section 2.1.1 illustration, (q,u) and (u,n=4), plus the whole-system category.
BUILTIN: dict[str, tuple[Template, ...]] = {
    "example": parse_set("(u,q,abs) (u,n=4,abs) ()"),
    "user": parse_set("(u,abs) (u,rel) (u,n=8,abs) ()"),
}


def stored_sets(con) -> dict[str, dict]:
    """name -> row of the template_sets table (templates parsed), built-ins first."""
    out = {name: {"name": name, "templates": ts, "trace": None, "train_error": None, "train_until": None,
                  "generations": None, "population": None, "seed": None, "created_at": None, "builtin": True}
           for name, ts in BUILTIN.items()}
    if con is None:
        return out
    try:
        rows = con.execute(
            "SELECT name, templates, trace, train_error, strftime(train_until, '%Y-%m-%d %H:%M:%S UTC'), "
            "generations, population, seed, strftime(created_at, '%Y-%m-%d %H:%M:%S UTC') "
            "FROM template_sets ORDER BY name").fetchall()
    except duckdb.CatalogException:  # warehouse from before migration 090 (read-only connection)
        return out
    for name, tjson, trace, err, until, gens, pop, seed, created in rows:
        out[name] = {"name": name, "templates": tuple(parse_template(t) for t in json.loads(tjson)),
                     "trace": trace, "train_error": err, "train_until": until, "generations": gens,
                     "population": pop, "seed": seed, "created_at": created, "builtin": False}
    return out


def resolve(name: str, con=None) -> tuple[Template, ...]:
    sets = stored_sets(con)
    if name not in sets:
        raise WalltimeError(f'smith:set={name}: no template set "{name}"; known: {", ".join(sets)} '
                            f'(see `walltime estimate --list-template-sets`, `walltime search-templates`)')
    return sets[name]["templates"]


def store_set(con, name: str, templates, trace: str, train_error: float, train_until, generations: int,
              population: int, seed: int) -> None:
    """Replace set ``name`` and forget estimates computed with it (they are stale)."""
    if name in BUILTIN:
        raise WalltimeError(f'--name "{name}": that name is a built-in template set; choose another')
    con.execute("DELETE FROM template_sets WHERE name = ?", [name])
    con.execute(
        "INSERT INTO template_sets VALUES (?, ?, ?, ?, ?, ?, ?, ?, now())",
        [name, json.dumps([t.text() for t in templates]), trace, train_error, train_until, generations,
         population, seed])
    scheme = f"smith:set={name}"
    con.execute("DELETE FROM estimates WHERE scheme = ?", [scheme])
    con.execute("DELETE FROM estimate_accuracy WHERE scheme = ?", [scheme])


def list_sets(wh) -> list[dict]:
    """Every usable set as plain rows (templates as text), built-ins first."""
    con = wh.reader() if wh.exists() else None
    try:
        sets = stored_sets(con)
    finally:
        if con is not None:
            con.close()
    return [{**r, "templates": set_text(r["templates"])} for r in sets.values()]
