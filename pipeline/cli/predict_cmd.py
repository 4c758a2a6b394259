"""``walltime predict`` and ``walltime export-model`` (Typer's side: the body of
`predict` is in pipeline/cli/predict_run.py, which pipeline/cli/fast.py also
runs without Typer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, warehouse
from .predict_run import duration, read_jobs, run  # noqa: F401 (duration, read_jobs: their old home)


@app.command()
def predict(
    trace: Annotated[str | None, typer.Argument(help="Trace whose stored model to use (`walltime export-model TRACE`).",
                                                show_default=False)] = None,
    model: Annotated[Path | None, typer.Option(help="A model directory written by `walltime export-model --out` "
                                                    "(instead of TRACE).", show_default=False)] = None,
    user: Annotated[str | None, typer.Option(help="User name.", show_default=False)] = None,
    account: Annotated[str | None, typer.Option(help="Account (SWF: group).", show_default=False)] = None,
    partition: Annotated[str | None, typer.Option(help="Partition.", show_default=False)] = None,
    qos: Annotated[str | None, typer.Option(help="QOS (SWF: queue).", show_default=False)] = None,
    name: Annotated[str | None, typer.Option(help="Job name (SWF: executable).", show_default=False)] = None,
    request: Annotated[str | None, typer.Option(help="Requested time: seconds or [D-]HH:MM:SS.",
                                                show_default=False)] = None,
    processors: Annotated[int | None, typer.Option(help="Processors.", show_default=False)] = None,
    nodes: Annotated[int | None, typer.Option(help="Nodes.", show_default=False)] = None,
    gpus: Annotated[int | None, typer.Option(help="GPUs.", show_default=False)] = None,
    submit: Annotated[int | None, typer.Option(help="Submit time, Unix seconds (default: now).",
                                               show_default=False)] = None,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Predicted runtime of jobs, with the model's 10%-90% quantile band.

    One job from the options, or (with no job option) JSON lines on stdin with
    fields user, account, partition, qos, name, request, processors, nodes,
    gpus, submit, running, running_processors. Estimates are capped at the request.
    """
    given = {"user": user, "account": account, "partition": partition, "qos": qos, "name": name,
             "request": request, "processors": processors, "nodes": nodes, "gpus": gpus, "submit": submit}
    run(trace, model, given, wh, as_json)


@app.command("export-model")
def export_model(
    trace: Annotated[str, typer.Argument(help="Trace name (see `walltime traces`).", show_default=False)],
    out: Annotated[Path | None, typer.Option(help="Also copy the model directory here.",
                                             show_default=False)] = None,
    scheme: Annotated[str, typer.Option(help="The learned scheme to train (learned:q=...,loss=...).")] = "learned",
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Train the learned model on the trace's completed jobs; store it in the
    warehouse (for `walltime predict TRACE`) and copy it to --out for a site's
    job_submit.lua / cli_filter (docs/deploy.md)."""
    from ..estimates.deploy import build

    final, doc = build(warehouse(wh), trace, scheme, out)
    where = out if out is not None else final
    res = {"trace": trace, "scheme": doc["scheme"], "jobs": doc["jobs"], "dir": str(where),
           "features": doc["features"], "users": len(doc["users"])}
    if as_json:
        print_json(res)
        return
    print(f"Model of {trace} ({doc['scheme']}) trained on its last {doc['jobs']:,} completed jobs, "
          f"{len(doc['features'])} features, history of {len(doc['users']):,} users; written to {where}.")
