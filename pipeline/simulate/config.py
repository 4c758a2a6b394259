"""The options of one simulation, validated, and their canonical JSON.

Why a canonical form: the run_id is a hash over it, so two spellings of the
same options (``--estimate tang:stat=p95,key=user,window=30d`` and the
positional form) must produce the same string.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

from .. import schemes
from ..errors import WalltimeError

POLICIES = ("fcfs", "sjf", "lwf", "wfp")
BACKFILLS = ("none", "easy", "conservative")
ADJUSTS = ("regular", "selective")
OVERRUNS = ("request", "double")
SPLITS = ("month",)


@dataclass(frozen=True)
class SimConfig:
    policy: str = "fcfs"
    backfill: str = "easy"
    estimate: str = "request"  # canonical scheme string
    adjust: str = "regular"
    overrun: str = "request"
    split: str | None = None
    load_factor: float = 1.0
    capacity: int | None = None  # None: the trace's capacity
    drop_oversized: bool = False
    predict_wait: bool = False
    partitions: tuple[str, ...] = ()  # replay only these partitions' jobs (all when empty)

    def __post_init__(self):
        object.__setattr__(self, "partitions", tuple(sorted(set(self.partitions or ()))))

    def with_capacity(self, capacity: int) -> SimConfig:
        return SimConfig(**{**asdict(self), "capacity": int(capacity)})

    def canonical(self) -> str:
        """Keys sorted, no spaces; capacity must be resolved first."""
        if self.capacity is None:
            raise ValueError("resolve the capacity before asking for the canonical config")
        d = asdict(self)
        if not d["partitions"]:
            del d["partitions"]  # runs without --partition keep the run ids they always had
        return json.dumps(d, sort_keys=True, separators=(",", ":"))


def _choice(value: str, choices: tuple[str, ...], option: str) -> str:
    v = (value or "").strip().lower()
    if v not in choices:
        raise WalltimeError(f'{option} "{value}": unknown; use one of {", ".join(choices)}')
    return v


def make_config(
    policy: str = "fcfs",
    backfill: str = "easy",
    estimate: str = "request",
    adjust: str = "regular",
    overrun: str = "request",
    split: str | None = None,
    load_factor: float = 1.0,
    capacity: int | None = None,
    drop_oversized: bool = False,
    predict_wait: bool = False,
    partitions: tuple[str, ...] | list[str] = (),
) -> SimConfig:
    """Validate user options (one-line errors naming the option)."""
    if load_factor is None or not math.isfinite(load_factor) or load_factor <= 0:
        raise WalltimeError(f"--load-factor {load_factor}: must be a number > 0")
    if capacity is not None and capacity < 1:
        raise WalltimeError(f"--capacity {capacity}: must be at least 1")
    return SimConfig(
        policy=_choice(policy, POLICIES, "--policy"),
        backfill=_choice(backfill, BACKFILLS, "--backfill"),
        estimate=schemes.canonical(estimate, "--estimate"),
        adjust=_choice(adjust, ADJUSTS, "--adjust"),
        overrun=_choice(overrun, OVERRUNS, "--overrun"),
        split=None if split in (None, "", "none") else _choice(split, SPLITS, "--split"),
        load_factor=float(load_factor),
        capacity=None if capacity is None else int(capacity),
        drop_oversized=bool(drop_oversized),
        predict_wait=bool(predict_wait),
        partitions=tuple(partitions or ()),
    )
