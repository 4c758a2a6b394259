"""The reproduction's core: published numbers, checks with computed verdicts,
sentences generated from the numbers, and the document model.

Why: a reading that states a comparison must not be able to go stale, so the
paper's number (typed in once, with its table/figure reference), ours, the
difference and the verdict live together in a :class:`Check`, and every
comparative sentence is produced from a check (:func:`say`). Free text is
allowed only as an :class:`Explanation`, which names the checks it rests on;
the renderer prints their verdicts beside it and refuses unknown names.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

# How a check is judged. "value": |ours - paper| within tol (relative to |paper|
# when rel, else absolute); "direction": same sign as the paper (zero = no
# change counts as neither); "above"/"below": ours > / < the paper's bound;
# "range": paper..paper_hi; "half": same sign and at least half the paper's size
# (for gains a paper reports as a percentage: a +0.1% gain against +15% is "weaker",
# not a reproduction).
MODES = ("value", "direction", "above", "below", "range", "half")


@dataclass(frozen=True)
class Published:
    """One number a paper printed (or states in its text), typed in once."""
    ref: str          # "Table 4", "Fig. 11 text", "Section 4.4"
    what: str         # what it measures, in words
    value: float
    hi: float | None = None   # upper end when the paper gives a range
    unit: str = ""


@dataclass
class Check:
    """A published number beside ours, with the rule that judges them."""
    id: str
    ref: str
    what: str
    paper: float | None
    ours: float | None
    mode: str = "value"
    tol: float | None = None
    rel: bool = True
    paper_hi: float | None = None
    unit: str = ""
    trace: str = ""
    paper_note: str = ""  # how the paper states it when it gives only a direction ("rise")

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"check {self.id}: unknown mode {self.mode}")
        if self.mode == "value" and self.tol is None:
            raise ValueError(f"check {self.id}: a value check needs a tolerance")

    @property
    def diff(self) -> float | None:
        return difference(self.paper, self.ours, self.rel if self.mode == "value" else False)

    @property
    def verdict(self) -> str:
        return judge(self.mode, self.paper, self.ours, self.tol, self.rel, self.paper_hi)

    @property
    def rule(self) -> str:
        if self.mode == "value":
            if self.rel:
                return f"within {self.tol:g}%"
            unit = "points" if self.unit in ("%", "points") else self.unit
            return f"within {self.tol:g} {unit}".rstrip()
        return {"direction": "same sign", "half": "same sign, >= half the size", "above": "above paper", "below": "below paper",
                "range": "in paper's range"}[self.mode]

    def as_dict(self) -> dict:
        return {**asdict(self), "diff": self.diff, "verdict": self.verdict, "rule": self.rule}


def difference(paper: float | None, ours: float | None, rel: bool) -> float | None:
    """ours - paper; in percent of |paper| when rel."""
    if paper is None or ours is None or _nan(paper) or _nan(ours):
        return None
    if rel:
        return None if paper == 0 else 100.0 * (ours - paper) / abs(paper)
    return ours - paper


def judge(mode: str, paper, ours, tol=None, rel=True, paper_hi=None) -> str:
    """The verdict of one comparison, from its numbers only."""
    if paper is None or ours is None or _nan(paper) or _nan(ours):
        return "not computed"
    if mode == "value":
        d = difference(paper, ours, rel)
        if d is None:
            return "not computed"
        return "reproduced" if abs(d) <= tol + 1e-9 else "differs"
    if mode == "direction":
        if ours == 0 or paper == 0:
            return "no change" if ours == 0 else "paper: no change"
        return "same direction" if (ours > 0) == (paper > 0) else "opposite direction"
    if mode == "half":
        if paper == 0:
            return "paper: no change"
        if ours == 0 or (ours > 0) != (paper > 0):
            return "no change" if ours == 0 else "opposite direction"
        return "reproduced" if abs(ours) >= 0.5 * abs(paper) else "weaker"
    if mode == "above":
        return "reproduced" if ours > paper else "not reproduced"
    if mode == "below":
        return "reproduced" if ours < paper else "not reproduced"
    if mode == "range":
        return "reproduced" if paper <= ours <= paper_hi else "outside range"
    raise ValueError(mode)


GOOD = {"reproduced", "same direction"}


def _nan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def fmt(v, unit: str = "") -> str:
    if v is None or _nan(v):
        return "-"
    if isinstance(v, float) and abs(v) < 1e-9:
        v = 0.0
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) >= 100):
        s = f"{int(v):,}"
    elif abs(v) >= 100:
        s = f"{v:,.0f}"
    elif abs(v) >= 10:
        s = f"{v:.1f}"
    elif abs(v) >= 1:
        s = f"{v:.2f}"
    else:
        s = f"{v:.3g}"
    return s + (unit if unit in ("%",) else (f" {unit}" if unit else ""))


def paper_text(c: Check) -> str:
    if c.paper_note:
        return c.paper_note
    if c.mode == "range":
        return f"{fmt(c.paper)}-{fmt(c.paper_hi, c.unit)}"
    if c.mode == "above":
        return f"> {fmt(c.paper, c.unit)}"
    if c.mode == "below":
        return f"< {fmt(c.paper, c.unit)}"
    return fmt(c.paper, c.unit)


def say(c: Check) -> str:
    """One sentence stating the comparison, generated from the check's numbers."""
    d = c.diff
    tail = ""
    if c.mode == "value" and d is not None:
        tail = f", {d:+.1f}%" if c.rel else f", {d:+.3g} {c.unit}".rstrip()
    return (f"{c.what} ({c.ref}{', ' + c.trace if c.trace else ''}): paper {paper_text(c)}, "
            f"ours {fmt(c.ours, c.unit)}{tail} — {c.verdict}.")


def tally(checks: list[Check]) -> str:
    """'k of n checks reproduced or in the same direction (a differ, b opposite, ...)'."""
    n = len(checks)
    good = sum(c.verdict in GOOD for c in checks)
    rest: dict[str, int] = {}
    for c in checks:
        if c.verdict not in GOOD:
            rest[c.verdict] = rest.get(c.verdict, 0) + 1
    more = "; ".join(f"{v} {k}" for k, v in sorted(rest.items()))
    return f"{good} of {n} checks reproduced or in the paper's direction" + (f" ({more})" if more else "")


# --- the document ---------------------------------------------------------

@dataclass
class Text:
    """Generated text (comparisons come from :func:`say` / :func:`tally`), or set-up facts."""
    text: str


@dataclass
class Explanation:
    """Free text explaining a result; ``checks`` names the checks that support it."""
    text: str
    checks: list[str]


@dataclass
class Table:
    """Context numbers (ours and, where the paper printed them, theirs)."""
    title: str
    columns: list[str]
    rows: list[list]
    source: str = ""  # the warehouse view or query it comes from


@dataclass
class Checks:
    title: str
    checks: list[Check]


@dataclass
class Section:
    paper: str   # registry key
    title: str
    blocks: list = field(default_factory=list)

    def checks(self) -> list[Check]:
        return [c for b in self.blocks if isinstance(b, Checks) for c in b.checks]

    def add(self, *blocks) -> "Section":
        self.blocks.extend(blocks)
        return self


def validate(sections: list[Section]) -> None:
    """Every explanation names existing checks; check ids are unique."""
    ids: dict[str, Check] = {}
    for s in sections:
        for c in s.checks():
            if c.id in ids:
                raise ValueError(f"duplicate check id {c.id}")
            ids[c.id] = c
    for s in sections:
        for b in s.blocks:
            if isinstance(b, Explanation):
                missing = [i for i in b.checks if i not in ids]
                if missing or not b.checks:
                    raise ValueError(f"explanation in {s.paper} names unknown checks {missing or '(none)'}")
