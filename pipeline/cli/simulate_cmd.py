"""``walltime simulate``."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import progress
from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, print_table, warehouse

def _hours(seconds) -> str:
    """Seconds in the summary's own wording of durations, the unit chosen per
    value (16 s, 2.5 min, 1.9 h; imported late: the CLI starts light)."""
    from ..summary.words import hours
    return hours(None if seconds is None else seconds / 3600)


def _fmt(v, factor=1):
    if v is None:
        return ""
    if isinstance(v, int) and factor == 1:
        return f"{v:,}"
    v = float(v) * factor
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}"


# metric -> (header with unit, how a stored value is shown); durations carry their unit per value
SHOWN = {
    "jobs": ("jobs", _fmt), "mean_wait": ("mean wait", _hours), "median_wait": ("median wait", _hours),
    "mean_response": ("mean response", _hours),
    "mean_bounded_slowdown": ("mean bounded slowdown", _fmt),
    "weighted_wait": ("weighted wait", _hours), "utilization": ("utilisation (%)", lambda v: _fmt(v, 100)),
    "backfill_ratio": ("backfilled (%)", lambda v: _fmt(v, 100)),
    "prediction_error_pct": ("prediction error (% of wait)", _fmt),
    "peak_nodes": ("peak processors", _fmt),
}


def _cells(m: dict) -> list[str]:
    return ["" if m.get(k) is None else show(m.get(k)) for k, (_, show) in SHOWN.items()]


def sentence(m: dict) -> str:
    """The run in plain words, with units."""
    return (f"mean wait {_hours(m.get('mean_wait'))}, median wait {_hours(m.get('median_wait'))}, "
            f"mean bounded slowdown {m.get('mean_bounded_slowdown') or 0:,.1f}, "
            f"utilisation {100 * (m.get('utilization') or 0):.1f}%, "
            f"{100 * (m.get('backfill_ratio') or 0):.1f}% of jobs backfilled")


def forecast_sentence(m: dict, forecast_with: str | None) -> str:
    """The wait forecast's error in plain words (mean |predicted start - start|)."""
    on = f"on {forecast_with}" if forecast_with else "on the scheduler's estimates"
    pct = m.get("prediction_error_pct")
    return (f"wait forecasts at submission ({on}) were off by {_hours(m['prediction_error'])} on average"
            + (f", {pct:.0f}% of the mean wait" if pct is not None else ""))


@app.command()
def simulate(
    trace: Annotated[str, typer.Argument(help="Trace name (see `walltime traces`).", show_default=False)],
    policy: Annotated[str, typer.Option(help="Queue order: fcfs, sjf, lwf, wfp.")] = "fcfs",
    backfill: Annotated[str, typer.Option(help="none, easy or conservative.")] = "easy",
    backfill_order: Annotated[str, typer.Option(help="The EASY backfill scan after the blocked head: queue (queue order) or sjbf (shortest est_wait first: EASY++, Tsafrir et al. 2007). sjbf needs --backfill easy.")] = "queue",
    estimate: Annotated[str, typer.Option(help="Estimate scheme spec (request, actual, tang:..., ...); computed first if missing.")] = "request",
    adjust: Annotated[str, typer.Option(help="regular: estimate for waiting and running jobs; selective: request once running.")] = "regular",
    history: Annotated[str, typer.Option(help="Where --estimate ave2 or learned:... learns: log (jobs ended before the submission in the log, the estimates stage) or simulated (jobs ended before it in this replay, learned inside the loop: pyss's ave2, as Gaussier et al. 2015; for learned, the walk-forward trees trained on the log read the user's features from the replay).")] = "log",
    scheduler: Annotated[str, typer.Option(help="queue: the papers' one pool of processors, ordered by --policy, backfilled by --backfill; slurm: the site's own Slurm, modelled from the slurm.conf (and gres.conf, association dump) ingested with the trace: its nodes, overlapping partitions, GPUs, multifactor priority with fair-share, main and backfill passes (docs/slurm-replay.md); auto: slurm for a trace ingested with its slurm.conf (unless another option asks for the one pool), else queue.")] = "auto",
    overrun: Annotated[str, typer.Option(help="On an underestimate: request (extend to the request), double, or tsafrir (add 1, 5, 15, 30 min, 1, 2, 5, 10, 20, 50, 100 h at the 1st, 2nd, ... overrun; Tsafrir et al. 2007), never past the request.")] = "request",
    split: Annotated[str | None, typer.Option(help="'month': simulate each month of submission alone.")] = None,
    load_factor: Annotated[float, typer.Option(help="Multiply interarrival times by this factor.")] = 1.0,
    capacity: Annotated[int | None, typer.Option(help="Machine size (default: the trace's capacity, or its partitions' sizes with --partition).")] = None,
    partition: Annotated[list[str] | None, typer.Option("--partition", help="Replay only this partition's jobs (repeatable); sized by ingest --capacity PARTITION=N or --slurm-conf.")] = None,
    drop_oversized: Annotated[bool, typer.Option(help="Leave out (and count) jobs wider than the machine.")] = False,
    predict_wait: Annotated[bool, typer.Option(help="Forecast each job's start at submission (Smith et al.); conservative always has it.")] = False,
    forecast_with: Annotated[str | None, typer.Option(help="Forecast waits with this scheme's run times (e.g. smith:set=NAME, gibbons, actual) while the scheduler keeps --estimate: Smith et al.'s set-up. Implies --predict-wait.")] = None,
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

    if scheduler.strip().lower() == "auto":
        from ..simulate import has_slurm_conf
        from ..simulate.config import auto_scheduler

        scheduler = auto_scheduler(has_slurm_conf(warehouse(wh), trace), policy, backfill, nodes_aware, split,
                                   predict_wait, forecast_with, history, backfill_order, capacity, partition)
    cfg = make_config(policy=policy, backfill=backfill, backfill_order=backfill_order, estimate=estimate, adjust=adjust,
                      overrun=overrun, split=split, load_factor=load_factor, capacity=capacity,
                      drop_oversized=drop_oversized, predict_wait=predict_wait, forecast_with=forecast_with,
                      partitions=partition or (),
                      nodes_aware=nodes_aware, node_size=node_size, pin_interval=pin_interval, history=history,
                      scheduler=scheduler)
    result = run_simulation(warehouse(wh), trace, cfg, force=force)
    from .. import calibration

    nm = None
    con = warehouse(wh).reader()
    try:
        if cfg.nodes_aware:
            from ..simulate.nodes import node_metrics

            nm = node_metrics(con, result.run_id)
        # the replay beside the log: only with the arrivals as logged (a scaled load has no logged queue)
        cal = calibration.read(con, result.run_id) if cfg.load_factor == 1.0 else None
    finally:
        con.close()
    if as_json:
        doc = result.as_dict()
        if nm is not None:
            doc["nodes"] = nm
        doc["calibration"] = cal
        print_json(doc)
        return
    c = result.counts
    sched = (("Slurm model: its priority, main pass" + (" and backfill" if cfg.backfill != "none" else ""))
             if cfg.scheduler == "slurm" else f"{cfg.policy}/{cfg.backfill}{'++' if cfg.backfill_order == 'sjbf' else ''}")
    what = (f"{trace}, {c['jobs_simulated']:,} of {c['jobs_in_trace']:,} jobs ({sched}, "
            f"estimate {result.config.estimate}"
            f"{' learned in the replay' if cfg.history == 'simulated' else ''}"
            f"{', wait forecast on ' + cfg.forecast_with if cfg.forecast_with else ''}"
            f", capacity {result.config.capacity:,}"
            f"{', partition ' + ', '.join(cfg.partitions) if cfg.partitions else ''})")
    for n in result.notes:
        progress.note(f"note: {n}")
    if result.reused:
        print(f"reused the stored run {result.run_id} (same trace, options and code; --force runs it again): {what}")
    else:
        print(f"stored run {result.run_id}: {what}")
    rows = [("all", *_cells(result.metrics))]
    rows += [(m["month"], *_cells(m)) for m in result.months] if cfg.split else []
    print_table(["month", *(h for h, _ in SHOWN.values())], rows)
    print(sentence(result.metrics) + ".")
    if c.get("held_running"):
        n = c["held_running"]
        print(f"{n:,} job{'s' * (n > 1)} running or suspended when the sacct dump was taken "
              f"{'were' if n > 1 else 'was'} replayed holding {'their' if n > 1 else 'its'} CPUs until the dump "
              "(run unknown beyond it; docs/simulate.md)")
    if c.get("left_out_running"):
        print(f"left out {c['left_out_running']:,} job{'s' * (c['left_out_running'] > 1)} still running or suspended "
              "when the sacct dump was taken (run unknown; docs/ingest.md)")
    if cal is not None:
        what_run = "the users' requests replayed" if cfg.estimate == "request" else f"estimate {result.config.estimate}"
        if cfg.scheduler == "slurm":
            print(calibration.sentence(cal, what_run, result.model, calibration.SLURM_LEFT_OUT))
        else:
            print(calibration.sentence(cal, what_run, f"one pool of {result.config.capacity:,} processors in "
                                                      f"{cfg.policy.upper()} + {cfg.backfill.upper()} order"))
    if cfg.predict_wait and result.metrics.get("prediction_error") is not None:
        print(forecast_sentence(result.metrics, cfg.forecast_with) + ".")
    if nm is not None:
        from ..simulate.nodes import summary_text

        print(summary_text(nm))
    if not result.reused:
        t = result.timings
        print(f"load {t.get('load_s', 0):.2f} s, simulate {t.get('simulate_s', 0):.2f} s, "
              f"write {t.get('write_s', 0):.2f} s")
