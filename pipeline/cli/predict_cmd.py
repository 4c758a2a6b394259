"""``walltime predict`` and ``walltime export-model``."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from ..errors import WalltimeError
from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, warehouse


def duration(secs: float | None) -> str:
    """1 h 23 min, 45 min, 30 s: a runtime in words."""
    if secs is None:
        return "none"
    s = int(round(secs))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min"
    return f"{s} s"


def read_jobs(stream) -> list[dict]:
    """JSON lines (one object per line, blank lines skipped), checked."""
    from ..learned_model import check_job

    jobs = []
    for n, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line.rstrip("\r\n"))
        except ValueError as e:
            raise WalltimeError(f"stdin line {n}: not JSON ({e.msg} at column {e.colno})") from None
        job = check_job(obj, f"stdin line {n}")
        job["_line"] = n
        jobs.append(job)
    return jobs


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
    gpus, submit, running. Estimates are capped at the request.
    """
    from ..learned_model import FIELDS, Model, check_job, model_dir

    if (trace is None) == (model is None):
        raise WalltimeError("predict: give a TRACE or --model DIR (one of them)")
    given = {"user": user, "account": account, "partition": partition, "qos": qos, "name": name,
             "request": request, "processors": processors, "nodes": nodes, "gpus": gpus, "submit": submit}
    given = {k: v for k, v in given.items() if v is not None}
    if given:
        if isinstance(given.get("request"), str) and given["request"].isdigit():
            given["request"] = int(given["request"])
        jobs = [check_job(given, "options") | {"_line": None}]
    else:
        jobs = read_jobs(sys.stdin)
    assert set(FIELDS) >= {k for j in jobs for k in j if k != "_line"}
    m = Model(model, f"--model {model}") if model is not None else Model(
        model_dir(wh, trace), f'trace "{trace}"')
    clean = [{k: v for k, v in j.items() if k != "_line"} for j in jobs]
    out = m.predict(clean, time.time())
    for j, r in zip(jobs, out):
        r["line"] = j["_line"]
    lo, hi = m.spec["band"]
    if as_json:
        print_json({"trace": m.spec["trace"], "scheme": m.spec["scheme"], "band": [lo, hi], "jobs": out})
        return
    for r in out:
        where = "job" if r["line"] is None else f"line {r['line']}"
        print(f"{where}: {r['est']:.0f} s ({duration(r['est'])}), band {r['lo']:.0f}-{r['hi']:.0f} s"
              f" (quantiles {lo:g}-{hi:g}), request {duration(r['request'])}")
    if len(out) == 1:
        r = out[0]
        print(f"Predicted runtime {duration(r['est'])} ({r['est']:.0f} s); {lo * 100:.0f}%-{hi * 100:.0f}% "
              f"band {duration(r['lo'])} to {duration(r['hi'])}; model of {m.spec['trace']}.")
    else:
        import statistics

        med = statistics.median(r["est"] for r in out) if out else 0.0
        print(f"Predicted {len(out):,} jobs: median predicted runtime {duration(med)} ({med:.0f} s); "
              f"model of {m.spec['trace']}.")


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
    from ..estimates.deploy import build, export

    final, doc = build(warehouse(wh), trace, scheme)
    if out is not None:
        export(final, out)
    where = out if out is not None else final
    res = {"trace": trace, "scheme": doc["scheme"], "jobs": doc["jobs"], "dir": str(where),
           "features": doc["features"], "users": len(doc["users"])}
    if as_json:
        print_json(res)
        return
    print(f"Model of {trace} ({doc['scheme']}) trained on its last {doc['jobs']:,} completed jobs, "
          f"{len(doc['features'])} features, history of {len(doc['users']):,} users; written to {where}.")
