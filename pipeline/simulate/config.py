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
    # node-level placement (Klusacek & Soysal 4.2); left out of the canonical form when off
    nodes_aware: bool = False
    node_size: int = 1
    pin_interval: int | None = None  # seconds; None: no pinning

    @property
    def machine_nodes(self) -> int:
        """Nodes of the machine: capacity (processors) // node size."""
        return int(self.capacity) // self.node_size

    def with_capacity(self, capacity: int) -> SimConfig:
        return SimConfig(**{**asdict(self), "capacity": int(capacity)})

    def canonical(self) -> str:
        """Keys sorted, no spaces; capacity must be resolved first."""
        if self.capacity is None:
            raise ValueError("resolve the capacity before asking for the canonical config")
        doc = asdict(self)
        if not self.nodes_aware:
            for k in NODE_KEYS:
                doc.pop(k)
        return json.dumps(doc, sort_keys=True, separators=(",", ":"))


NODE_KEYS = ("nodes_aware", "node_size", "pin_interval")
NODE_BACKFILLS = ("none", "conservative")


def parse_interval(value: str | None, option: str = "--pin-interval") -> int | None:
    """'none' -> None; '1h', '90m', '3600s', '3600' -> seconds (> 0)."""
    v = (value or "none").strip().lower()
    if v in ("none", "off", "0"):
        return None
    unit = {"h": 3600, "m": 60, "s": 1}.get(v[-1:], None)
    num = v[:-1] if unit else v
    try:
        x = float(num)
    except ValueError:
        x = float("nan")
    if not math.isfinite(x) or x <= 0:
        raise WalltimeError(f'{option} "{value}": use none or a duration such as 1h, 2h, 90m, 3600s')
    return int(round(x * (unit or 1)))


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
    nodes_aware: bool = False,
    node_size: int = 1,
    pin_interval: str | None = None,
) -> SimConfig:
    """Validate user options (one-line errors naming the option)."""
    if load_factor is None or not math.isfinite(load_factor) or load_factor <= 0:
        raise WalltimeError(f"--load-factor {load_factor}: must be a number > 0")
    if capacity is not None and capacity < 1:
        raise WalltimeError(f"--capacity {capacity}: must be at least 1")
    pin = parse_interval(pin_interval)
    if node_size is None or node_size < 1:
        raise WalltimeError(f"--node-size {node_size}: must be at least 1")
    if not nodes_aware and (node_size != 1 or pin is not None):
        raise WalltimeError("--node-size and --pin-interval need --nodes-aware")
    if nodes_aware:
        if _choice(policy, POLICIES, "--policy") != "fcfs":
            raise WalltimeError(f'--policy {policy}: --nodes-aware plans in arrival order; use --policy fcfs')
        if _choice(backfill, BACKFILLS, "--backfill") not in NODE_BACKFILLS:
            raise WalltimeError(f'--backfill {backfill}: --nodes-aware supports none or conservative')
        if split not in (None, "", "none"):
            raise WalltimeError("--split: not available with --nodes-aware (simulate the whole trace)")
        if predict_wait:
            raise WalltimeError("--predict-wait: --nodes-aware always records each job's first planned start")
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
        nodes_aware=bool(nodes_aware),
        node_size=int(node_size),
        pin_interval=pin,
    )
