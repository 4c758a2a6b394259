"""``walltime simulate``."""

from __future__ import annotations

from typing import Annotated

import typer

from . import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, print_table, warehouse

SHOWN = ("jobs", "mean_wait", "mean_response", "mean_bounded_slowdown", "weighted_wait",
         "utilization", "backfill_ratio", "prediction_error_pct", "peak_nodes")


def _fmt(v):
    if isinstance(v, float):
        return f"{v:,.3f}" if abs(v) < 100 else f"{v:,.0f}"
    return v


@app.command()
def simulate(
    trace: Annotated[str, typer.Argument(help="Trace name (see `walltime traces`).", show_default=False)],
    policy: Annotated[str, typer.Option(help="Queue order: fcfs, sjf, lwf, wfp.")] = "fcfs",
    backfill: Annotated[str, typer.Option(help="none, easy or conservative.")] = "easy",
    estimate: Annotated[str, typer.Option(help="Estimate scheme spec (request, actual, tang:..., ...); computed first if missing.")] = "request",
    adjust: Annotated[str, typer.Option(help="regular: estimate for waiting and running jobs; selective: request once running.")] = "regular",
    overrun: Annotated[str, typer.Option(help="On an underestimate: request (extend to the request) or double.")] = "request",
    split: Annotated[str | None, typer.Option(help="'month': simulate each month of submission alone.")] = None,
    load_factor: Annotated[float, typer.Option(help="Multiply interarrival times by this factor.")] = 1.0,
    capacity: Annotated[int | None, typer.Option(help="Machine size (default: the trace header's MaxProcs/MaxNodes).")] = None,
    drop_oversized: Annotated[bool, typer.Option(help="Leave out (and count) jobs wider than the machine.")] = False,
    predict_wait: Annotated[bool, typer.Option(help="Forecast each job's start at submission (Smith et al.); conservative always has it.")] = False,
    nodes_aware: Annotated[bool, typer.Option(help="Place jobs on numbered nodes (lowest free ids first): node sets, T_node, pinning (Klusacek & Soysal 4.2). fcfs with --backfill none or conservative.")] = False,
    node_size: Annotated[int, typer.Option(help="With --nodes-aware: processors per node; a job needs ceil(processors / K) nodes.")] = 1,
    pin_interval: Annotated[str, typer.Option(help="With --nodes-aware: pin a waiting job to its planned nodes once its planned start is within this interval (1h, 2h, 90m, none).")] = "none",
    force: Annotated[bool, typer.Option(help="Run the loop again even if this run is stored (same results).")] = False,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Replay a trace under a scheduler (docs/simulate.md) and store the run.

    The same trace, options and code give the same run_id; a stored run is
    reused (its metrics printed) unless --force.
    """
    from ..simulate import make_config
    from ..simulate import simulate as run_simulation

    cfg = make_config(policy=policy, backfill=backfill, estimate=estimate, adjust=adjust,
                      overrun=overrun, split=split, load_factor=load_factor, capacity=capacity,
                      drop_oversized=drop_oversized, predict_wait=predict_wait,
                      nodes_aware=nodes_aware, node_size=node_size, pin_interval=pin_interval)
    result = run_simulation(warehouse(wh), trace, cfg, force=force)
    nm = None
    if cfg.nodes_aware:
        from ..simulate.nodes import node_metrics

        con = warehouse(wh).reader()
        try:
            nm = node_metrics(con, result.run_id)
        finally:
            con.close()
    if as_json:
        doc = result.as_dict()
        if nm is not None:
            doc["nodes"] = nm
        print_json(doc)
        return
    status = "reused stored run" if result.reused else "stored run"
    c = result.counts
    print(f"{status} {result.run_id}: {trace}, {c['jobs_simulated']:,} of {c['jobs_in_trace']:,} jobs "
          f"({cfg.policy}/{cfg.backfill}, estimate {result.config.estimate}, capacity {result.config.capacity})")
    rows = [("all", *(_fmt(result.metrics.get(k)) for k in SHOWN))]
    rows += [(m["month"], *(_fmt(m.get(k)) for k in SHOWN)) for m in result.months] if cfg.split else []
    print_table(["month", *SHOWN], rows)
    t = result.timings
    if nm is not None:
        from ..simulate.nodes import summary_text

        print(summary_text(nm))
    print(f"load {t.get('load_s', 0):.2f}s, simulate {t.get('simulate_s', 0):.3f}s, write {t.get('write_s', 0):.2f}s")

