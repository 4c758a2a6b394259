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
from ..errors import WalltimeError, quote

POLICIES = ("fcfs", "sjf", "lwf", "wfp")
BACKFILLS = ("none", "easy", "conservative")
ADJUSTS = ("regular", "selective")
OVERRUNS = ("request", "double", "tsafrir")
BACKFILL_ORDERS = ("queue", "sjbf")  # the EASY scan after the head: queue order, or EASY++'s by est_wait
SPLITS = ("month",)
# where an estimator's history comes from: the log's ends (the estimates stage), or the replay's own ends
# (ave2, computed inside the loop: pyss's predictor_tsafrir, as Gaussier et al. 2015 replayed it; and the
# learned scheme: its walk-forward trees evaluated in the loop on features from the replay, simulate/_learned.py)
HISTORIES = ("log", "simulated")
LEARNED_IN_LOOP = ("ave2", "learned")
# queue: the papers' one pool of processors (--policy, --backfill); slurm: the site's own Slurm, modelled
# from the slurm.conf kept with the trace (docs/slurm-replay.md)
SCHEDULERS = ("queue", "slurm")


def learned_in_loop(cfg) -> bool:
    """The learned scheme's trees run inside the replay (``--history simulated --estimate learned:...``)."""
    return cfg.history == "simulated" and cfg.estimate.split(":", 1)[0] == "learned"


EST_ROUNDINGS = ("up", "nearest")


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
    forecast_with: str | None = None  # canonical scheme: the wait forecast's run times (None: the estimates)
    partitions: tuple[str, ...] = ()  # replay only these partitions' jobs (all when empty)
    # node-level placement (Klusacek & Soysal 4.2); left out of the canonical form when off
    nodes_aware: bool = False
    node_size: int = 1
    pin_interval: int | None = None  # seconds; None: no pinning
    backfill_order: str = "queue"  # left out of the canonical form when "queue"
    history: str = "log"  # left out of the canonical form when "log"
    scheduler: str = "queue"  # left out of the canonical form when "queue"
    # fractional estimates to whole seconds: "up" (the simulator's rule, inputs.est_seconds) or "nearest"
    # (Smith, Taylor & Foster's replays, reproduce/smith_plan.py); left out of the canonical form when "up"
    est_rounding: str = "up"

    def __post_init__(self):
        object.__setattr__(self, "partitions", tuple(sorted(set(self.partitions or ()))))
        if self.est_rounding not in EST_ROUNDINGS:
            raise ValueError(f"est_rounding {self.est_rounding!r}: expected one of {', '.join(EST_ROUNDINGS)}")

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
        d = asdict(self)
        if not d["partitions"]:
            del d["partitions"]
        if d["forecast_with"] is None:
            del d["forecast_with"]  # runs without --forecast-with keep their run ids  # runs without --partition keep the run ids they always had
        if not self.nodes_aware:
            for k in NODE_KEYS:
                d.pop(k)
        if d["backfill_order"] == "queue":
            del d["backfill_order"]  # runs without --backfill-order sjbf keep their run ids
        if d["history"] == "log":
            del d["history"]  # runs without --history simulated keep their run ids
        if d["scheduler"] == "queue":
            del d["scheduler"]  # runs of the one-pool replay keep their run ids
        if d["est_rounding"] == "up":
            del d["est_rounding"]  # runs that round estimates up, as every run did, keep their run ids
        return json.dumps(d, sort_keys=True, separators=(",", ":"))


MAX_LOAD_FACTOR = 1000.0  # submit times (< 200 years) times this stay far inside 64 bits
MIN_LOAD_FACTOR = 0.001
MAX_CAPACITY = 2**31 - 1


@dataclass
class SimItem:
    """One simulation to run: a trace and its config (as a study or a report asks for it)."""

    trace: str
    config: SimConfig  # capacity may still be None (the trace's own)


def check_load_factor(value, option: str = "--load-factor") -> None:
    """A finite number in [0.001, 1000] (interarrival times are multiplied by it)."""
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or not MIN_LOAD_FACTOR <= value <= MAX_LOAD_FACTOR):
        raise WalltimeError(f"{option} {quote(value)}: must be a number from {MIN_LOAD_FACTOR:g} "
                            f"to {MAX_LOAD_FACTOR:g}")


def check_capacity(value, option: str = "--capacity") -> None:
    """None (the trace's own), or a whole number of processors within 32 bits."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CAPACITY:
        raise WalltimeError(f"{option} {quote(value)}: must be a whole number from 1 to {MAX_CAPACITY:,}")


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
        raise WalltimeError(f'{option} "{quote(value)}": use none or a duration such as 1h, 2h, 90m, 3600s')
    from ..ingest.ranges import MAX_SPAN  # here: the workers' forkserver imports this module and no ingest

    if x * (unit or 1) > MAX_SPAN:
        raise WalltimeError(f'{option} "{quote(value)}": at most 200 years ({MAX_SPAN:,} s), the longest time '
                            "a trace may hold; use none or a duration such as 1h, 2h, 90m, 3600s")
    return int(round(x * (unit or 1)))


def _choice(value: str, choices: tuple[str, ...], option: str) -> str:
    v = (value or "").strip().lower()
    if v not in choices:
        raise WalltimeError(f'{option} "{quote(value)}": unknown; use one of {", ".join(choices)}')
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
    forecast_with: str | None = None,
    partitions: tuple[str, ...] | list[str] = (),
    nodes_aware: bool = False,
    node_size: int = 1,
    pin_interval: str | None = None,
    backfill_order: str = "queue",
    history: str = "log",
    scheduler: str = "queue",
) -> SimConfig:
    """Validate user options (one-line errors naming the option)."""
    check_load_factor(load_factor)
    check_capacity(capacity)
    pin = parse_interval(pin_interval)
    if isinstance(node_size, bool) or not isinstance(node_size, int) or not 1 <= node_size <= MAX_CAPACITY:
        raise WalltimeError(f"--node-size {quote(node_size)}: must be a whole number from 1 to {MAX_CAPACITY:,}")
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
        if forecast_with:
            raise WalltimeError("--forecast-with: not available with --nodes-aware")
    sched = _choice(scheduler, SCHEDULERS, "--scheduler")
    if sched == "slurm":
        _check_slurm(policy, backfill, nodes_aware, split, predict_wait, forecast_with, history, backfill_order)
    order = _choice(backfill_order, BACKFILL_ORDERS, "--backfill-order")
    if order == "sjbf" and _choice(backfill, BACKFILLS, "--backfill") != "easy":
        raise WalltimeError(f"--backfill-order sjbf: orders the EASY backfill scan; use it with --backfill easy, "
                            f"not --backfill {backfill}")
    fc = None if forecast_with in (None, "") else schemes.canonical(forecast_with, "--forecast-with")
    hist = _choice(history, HISTORIES, "--history")
    if hist == "simulated":
        _check_simulated_history(schemes.canonical(estimate, "--estimate"), backfill, adjust, split, nodes_aware, fc,
                                 bool(predict_wait))
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
        predict_wait=bool(predict_wait) or fc is not None,
        forecast_with=fc,
        partitions=tuple(partitions or ()),
        nodes_aware=bool(nodes_aware),
        node_size=int(node_size),
        pin_interval=pin,
        backfill_order=order,
        history=hist,
        scheduler=sched,
    )


def auto_scheduler(has_slurm_conf: bool, policy="fcfs", backfill="easy", nodes_aware=False, split=None,
                   predict_wait=False, forecast_with=None, history="log", backfill_order="queue", capacity=None,
                   partitions=()) -> str:
    """``--scheduler auto``: the Slurm model for a trace ingested with its slurm.conf, unless an option asks
    for the one-pool replay (a policy, conservative backfill, node placement, a split, forecasts, a machine
    size, a partition subset); else the one pool."""
    one_pool = ((policy or "fcfs").lower() != "fcfs" or (backfill or "easy").lower() == "conservative"
                or nodes_aware or split not in (None, "", "none") or predict_wait or bool(forecast_with)
                or (history or "log") != "log" or (backfill_order or "queue") != "queue" or capacity is not None
                or bool(partitions))
    return "slurm" if has_slurm_conf and not one_pool else "queue"


def _check_slurm(policy, backfill, nodes_aware, split, predict_wait, forecast_with, history, order) -> None:
    """--scheduler slurm: Slurm's multifactor priority orders the queue and its backfill (sched/backfill)
    fills it; the one-pool options do not apply."""
    if _choice(policy, POLICIES, "--policy") != "fcfs":
        raise WalltimeError(f"--policy {policy}: --scheduler slurm orders jobs by Slurm's multifactor priority "
                            "(slurm.conf's PriorityWeight*); leave --policy out")
    if _choice(backfill, BACKFILLS, "--backfill") == "conservative":
        raise WalltimeError("--backfill conservative: --scheduler slurm backfills as sched/backfill does "
                            "(--backfill easy, the default) or not at all (--backfill none)")
    for on, option in ((nodes_aware, "--nodes-aware"), (split not in (None, "", "none"), "--split"),
                       (predict_wait, "--predict-wait"), (bool(forecast_with), "--forecast-with"),
                       (history not in (None, "", "log"), "--history"), (order not in (None, "", "queue"),
                                                                          "--backfill-order")):
        if on:
            raise WalltimeError(f"{option}: not available with --scheduler slurm (it places jobs on the "
                                "configuration's nodes itself)")


def _check_simulated_history(estimate: str, backfill: str, adjust: str, split, nodes_aware: bool, fc,
                             predict_wait: bool = False) -> None:
    """--history simulated: the estimator runs inside the EASY/none loop (kernel.simulate_learn, _learned.py)."""
    if estimate.split(":", 1)[0] == "learned" and predict_wait:
        raise WalltimeError("--history simulated --estimate learned: no --predict-wait (the trees run in the "
                            "replay, not in its forecasts)")
    if estimate.split(":", 1)[0] not in LEARNED_IN_LOOP:
        raise WalltimeError(f'--history simulated: learns {", ".join(LEARNED_IN_LOOP)} inside the replay; '
                            f'not --estimate {estimate}')
    if _choice(backfill, BACKFILLS, "--backfill") == "conservative" or nodes_aware:
        raise WalltimeError("--history simulated: needs --backfill none or easy (without --nodes-aware)")
    if _choice(adjust, ADJUSTS, "--adjust") != "regular":
        raise WalltimeError("--history simulated: the learned estimate serves waiting and running jobs; "
                            "use --adjust regular")
    if split not in (None, "", "none"):
        raise WalltimeError("--history simulated: not with --split (each month would start with no history)")
    if fc is not None:
        raise WalltimeError("--history simulated: not with --forecast-with")
