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
# when rel, else absolute); "direction": same sign as the paper, and only when
# ours is a clear effect (see :func:`clear_effect`: at least a stated absolute
# and relative size, and an interval that excludes 0 where one is known;
# otherwise "no clear effect"); "above"/"below": ours > / < the paper's bound;
# "range": paper..paper_hi; "half": same sign and at least half the paper's size
# (for gains a paper reports as a percentage: a +0.1% gain against +15% is "weaker",
# not a reproduction).
MODES = ("value", "direction", "above", "below", "range", "half")
# Sign stability: a direction or half check that also carries ``alt``, ours under another set-up
# of the same experiment (the --quick set-up beside the full run, or the reverse), is "unstable" when the
# two have opposite signs: neither set-up's sign can then be read as the result.
SIGNED_MODES = ("direction", "half")
# Two simulators' baselines: a value, above or below check against a published simulator figure
# that also carries both baselines (``base_paper``, ``base_ours``: the same figure without the treatment, in
# the paper's simulator and in ours) is "level" when it fails its rule yet differs from the paper by less
# than the two baselines do: a difference under the simulators' own gap says nothing about the treatment.
LEVEL_MODES = ("value", "above", "below")

# Effect sizes: a direction counts only when ours is at least this
# large. Absolute, in the check's unit; a "%" check is itself a relative change
# (the unit default is then the relative threshold too). A check without a unit
# default states ``min_abs`` and/or ``base`` (the level its change is relative
# to, so that ``min_rel`` percent of it can be judged).
MIN_ABS = {"%": 1.0, "points": 0.5, "h": 0.1, "min": 1.0, "s": 60.0}
MIN_REL = 1.0  # percent of ``base``
# Verdict groups of the headline (:func:`headline`).
VALUE_MODES = ("value", "above", "below", "range", "half")


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
    # effect size of a direction check: see MIN_ABS / MIN_REL and clear_effect()
    min_abs: float | None = None  # smallest |ours| that counts (default MIN_ABS[unit])
    base: float | None = None     # the level ours is a change of (for the relative threshold)
    min_rel: float = MIN_REL      # percent of |base|
    lo: float | None = None       # 95% interval of ours (over seeds or months), where one exists
    hi: float | None = None
    interval: str = ""            # what the interval resamples ("months", "seeds"), or why there is none
    alt: float | None = None      # ours under the other set-up (SIGNED_MODES: opposite signs -> "unstable")
    alt_label: str = ""           # which set-up ``alt`` comes from ("--quick")
    base_paper: float | None = None  # the paper's baseline of this figure (LEVEL_MODES: see above)
    base_ours: float | None = None   # ours

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"check {self.id}: unknown mode {self.mode}")
        if self.mode == "value" and self.tol is None:
            raise ValueError(f"check {self.id}: a value check needs a tolerance")

    @property
    def diff(self) -> float | None:
        return difference(self.paper, self.ours, self.rel if self.mode == "value" else False)

    @property
    def threshold(self) -> float | None:
        """The smallest |ours| this direction check counts as an effect, in its unit (None: no size rule)."""
        return effect_threshold(self.unit, self.min_abs, self.base, self.min_rel)

    @property
    def baseline_gap(self) -> float | None:
        """|ours' baseline - the paper's|, in the check's difference unit (percent of the paper's when rel)."""
        if self.mode not in LEVEL_MODES:
            return None
        g = difference(self.base_paper, self.base_ours, self.rel if self.mode == "value" else False)
        return None if g is None else abs(g)

    @property
    def verdict(self) -> str:
        v = self._rule_verdict()
        if v == "not computed":
            return v
        if self.mode in SIGNED_MODES and unstable(self.ours, self.alt):
            return "unstable"
        gap = self.baseline_gap
        if gap is not None and v in ("differs", "not reproduced"):
            d = self.diff if self.mode == "value" else difference(self.paper, self.ours, False)
            if d is not None and abs(d) < gap:
                return "level"
        return v

    def _rule_verdict(self) -> str:
        if self.mode == "direction":
            return judge_direction(self.paper, self.ours, self.threshold, self.lo, self.hi)
        if self.mode == "half" and self.paper not in (None, 0) and self.ours is not None and not _nan(self.ours) \
                and not clear_effect(self.ours, self.threshold, self.lo, self.hi):
            return "no clear effect"  # a gain too small to have a sign is neither weaker nor opposite
        return judge(self.mode, self.paper, self.ours, self.tol, self.rel, self.paper_hi)

    @property
    def rule(self) -> str:
        if self.mode == "value":
            if self.rel:
                return f"within {self.tol:g}%"
            unit = "points" if self.unit in ("%", "points") else self.unit
            return f"within {self.tol:g} {unit}".rstrip()
        if self.mode == "direction":
            t = self.threshold
            size = "no size rule" if t is None else f"|ours| >= {fmt(t, self.unit)}"
            return f"same sign, {size}" + (", 95% interval excludes 0" if self.lo is not None else "")
        if self.mode == "half" and self.threshold is not None:
            r = f"same sign, >= half the size (|ours| >= {fmt(self.threshold, self.unit)})"
        else:
            r = {"half": "same sign, >= half the size", "above": "above paper", "below": "below paper",
                 "range": "in paper's range"}[self.mode]
        return r + (", 95% interval excludes 0" if self.mode == "half" and self.lo is not None else "")

    def rule_text(self) -> str:
        """The rule with the two extra tests a check may carry (sign stability, the baselines' gap)."""
        r = self.rule
        if self.mode in SIGNED_MODES and self.lo is None and self.interval:
            r += f" ({self.interval})"  # why there is no interval
        if self.mode in SIGNED_MODES and self.alt is not None:
            r += f"; same sign under {self.alt_label or 'the other set-up'}"
        if self.baseline_gap is not None:
            r += f"; level if off by less than the baselines' gap ({self._gap_text()})"
        return r

    def _gap_text(self) -> str:
        g = self.baseline_gap
        return f"{g:.1f}%" if self.mode == "value" and self.rel else fmt(g, self.unit)

    def as_dict(self) -> dict:
        return {**asdict(self), "diff": self.diff, "verdict": self.verdict, "rule": self.rule_text(),
                "baseline_gap": self.baseline_gap,
                "threshold": self.threshold if self.mode in ("direction", "half") else None, "kind": kind(self),
                "sentence": say(self)}


def kind(c: Check) -> str:
    """"value" (a number within a tolerance, a bound, a range or half a gain) or "direction"."""
    return "direction" if c.mode == "direction" else "value"


def effect_threshold(unit: str, min_abs: float | None = None, base: float | None = None,
                     min_rel: float = MIN_REL) -> float | None:
    """The smallest |effect| that counts: the larger of the absolute threshold
    (``min_abs``, else the unit's default) and ``min_rel`` percent of |base|.
    None when neither applies (the check then has no size rule)."""
    parts = [t for t in (min_abs if min_abs is not None else MIN_ABS.get(unit),
                         None if base is None or _nan(base) else abs(base) * min_rel / 100.0) if t is not None]
    return max(parts) if parts else None


def unstable(ours, alt) -> bool:
    """Ours and ours under the other set-up have opposite signs (both known and non-zero)."""
    if ours is None or alt is None or _nan(ours) or _nan(alt):
        return False
    return ours != 0 and alt != 0 and (ours > 0) != (alt > 0)


def judge_direction(paper, ours, threshold: float | None = None, lo=None, hi=None) -> str:
    """Same sign as the paper with a clear effect; "no clear effect" when ours is
    under the threshold or its interval includes 0; "opposite direction" only
    for a clear effect of the other sign."""
    if paper is None or ours is None or _nan(paper) or _nan(ours):
        return "not computed"
    if paper == 0:
        return "paper: no change"
    if not clear_effect(ours, threshold, lo, hi):
        return "no clear effect"
    return "same direction" if (ours > 0) == (paper > 0) else "opposite direction"


def clear_effect(ours: float, threshold: float | None = None, lo=None, hi=None) -> bool:
    """|ours| at least the threshold (when one is stated), not 0, and the interval (when known) excludes 0."""
    if ours == 0 or (threshold is not None and abs(ours) < threshold - 1e-12):
        return False
    if lo is not None and hi is not None and not (lo > 0 or hi < 0):
        return False
    return True


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
    if mode == "direction":  # sign only: the Check property adds the effect size
        return judge_direction(paper, ours)
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
    if c.lo is not None and c.hi is not None:
        tail += f" (95% interval {fmt(c.lo, c.unit)} to {fmt(c.hi, c.unit)})"
    elif c.interval and c.mode in SIGNED_MODES:
        tail += f" ({c.interval})"
    if c.alt is not None and c.mode in SIGNED_MODES:
        tail += f"; {c.alt_label or 'the other set-up'} {fmt(c.alt, c.unit)}"
    if c.baseline_gap is not None:
        tail += (f"; baselines: paper {fmt(c.base_paper, c.unit)}, ours {fmt(c.base_ours, c.unit)} "
                 f"(gap {c._gap_text()})")
    verdict = c.verdict
    if verdict == "no clear effect" and c.mode in ("direction", "half"):
        t = c.threshold
        verdict += (f" (under {fmt(t, c.unit)})" if c.ours is not None and t is not None and abs(c.ours) < t
                    else " (the interval includes 0)" if c.lo is not None else "")
    return (f"{c.what} ({c.ref}{', ' + c.trace if c.trace else ''}): paper {paper_text(c)}, "
            f"ours {fmt(c.ours, c.unit)}{tail} — {verdict}.")


def counts(checks: list[Check]) -> dict:
    """The headline's numbers: value checks (reproduced / other verdicts) and
    direction checks (clear effect the paper's way / no clear effect / clear
    effect the other way / not computed), kept apart."""
    out = {"value": {}, "direction": {}}
    for c in checks:
        k = out[kind(c)]
        k[c.verdict] = k.get(c.verdict, 0) + 1
    return out


def tally(checks: list[Check]) -> str:
    """The headline of a set of checks, value matches and direction matches apart:
    'values: a of n within the paper's tolerance (...); directions: b of m with a
    clear effect the paper's way, c no clear effect, d opposite (...)'."""
    n = counts(checks)
    parts = []
    v = n["value"]
    if v:
        nv = sum(v.values())
        rest = "; ".join(f"{k} {x}" for x, k in sorted(((x, k) for x, k in v.items() if x != "reproduced"),
                                                        key=lambda t: t[0]))
        parts.append(f"values: {v.get('reproduced', 0)} of {nv} reproduced" + (f" ({rest})" if rest else ""))
    d = n["direction"]
    if d:
        nd = sum(d.values())
        other = {x: k for x, k in d.items() if x not in ("same direction", "no clear effect", "opposite direction")}
        parts.append(f"directions: {d.get('same direction', 0)} of {nd} with a clear effect the paper's way, "
                     f"{d.get('no clear effect', 0)} no clear effect, {d.get('opposite direction', 0)} opposite"
                     + "".join(f", {k} {x}" for x, k in sorted(other.items())))
    return "; ".join(parts) if parts else "no checks"


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
class Figure:
    """A figure of ours beside the paper's (pipeline/report/figures.py draws it):
    ``chart`` holds the plotted data (series name -> (xs, ys)); ``name`` is the
    file stem written beside the page (``reproduction-NAME.svg`` / ``.png``);
    ``paper`` says what of the paper's figure is on it (its published points, or
    why none); ``source`` the query the data comes from."""
    name: str
    chart: object
    paper: str
    source: str = ""

    def files(self, stem: str) -> dict[str, str]:
        return {ext: f"{stem}-{self.name}.{ext}" for ext in ("svg", "png")}


EXPLORATORY = "exploratory, not the paper's model; not counted in the headline"


@dataclass
class Section:
    paper: str   # registry key
    title: str
    blocks: list = field(default_factory=list)
    # a probe of this project's own (a stand-in workload model, a variant of our making): its checks are
    # tallied apart and kept out of the headline
    exploratory: bool = False

    def checks(self) -> list[Check]:
        return [c for b in self.blocks if isinstance(b, Checks) for c in b.checks]

    def figures(self) -> list[Figure]:
        return [b for b in self.blocks if isinstance(b, Figure)]

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
