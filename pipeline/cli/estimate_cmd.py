"""``walltime estimate``."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import WalltimeError
from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, print_table, warehouse

SHOWN = ("scored", "acc_mean", "acc_median", "acc_mean_not_under", "under_rate", "na", "oe", "ue", "be", "above")
HEADERS = ("scored", "acc mean", "acc median", "mean not under", "under", "NA", "OE", "UE", "BE", "above req")


def _fmt(v):
    return "" if v is None else (f"{v:.3f}" if isinstance(v, float) else v)


@app.command()
def estimate(
    trace: Annotated[str | None, typer.Argument(help="Trace name (see `walltime traces`).",
                                                show_default=False)] = None,
    scheme: Annotated[list[str] | None, typer.Option(
        "--scheme", help="Scheme spec, e.g. request, tang:key=user,window=30d,stat=p85, klusacek, "
                         "feitelson, ave2, factor:f=2, uniform:f=4,seed=0, model:seed=0, smith:set=NAME, "
                         "gibbons, downey:stat=median,key=queue, learned:q=0.5,loss=quantile. Repeatable.")] = None,
    grid: Annotated[str | None, typer.Option(
        help="'tang': accuracy of all 4 keys x 6 windows x 9 statistics, at floor 0.5 and 0.")] = None,
    list_sets: Annotated[bool, typer.Option(
        "--list-template-sets", help="List the template sets usable as smith:set=NAME and exit.")] = False,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Estimate every job's runtime under each scheme; store and print accuracy.

    Accuracy is Tang et al. Eq. 3, min(run, est) / max(run, est). Shares:
    NA est = requested, OE run <= est < requested, UE/BE est < run by less /
    at least 30 min, above: est over the request. Stored schemes are reused.
    """
    if list_sets:
        _list_sets(wh, as_json)
        return
    if trace is None:
        raise WalltimeError("estimate: give a TRACE (or --list-template-sets)")
    from ..estimates import estimate as run_estimate

    report = run_estimate(warehouse(wh), trace, scheme or [], grid=grid)
    if as_json:
        print_json(report.as_dict())
        return
    if report.schemes:
        rows = [(r["scheme"], *(_fmt(r[c]) for c in SHOWN), "new" if r["computed"] else "stored")
                for r in report.schemes]
        print_table(["scheme", *HEADERS, ""], rows, title=f"{trace}: {report.jobs:,} jobs")
    if report.grid:
        rows = [(r["key_type"], r["win"], r["stat"], f"{r['floor']:g}", *(_fmt(r[c]) for c in SHOWN))
                for r in report.grid_rows]
        print_table(["key", "window", "stat", "floor", *HEADERS], rows,
                    title=f"{trace}: {report.grid} grid (min {report.grid_rows[0]['min_jobs']} history jobs)")


def _list_sets(wh, as_json: bool) -> None:
    from ..estimates.templates import list_sets

    sets = list_sets(warehouse(wh))
    if as_json:
        print_json(sets)
        return
    rows = [(r["name"], "built-in" if r["builtin"] else r["trace"], r["templates"],
             "" if r["train_error"] is None else f"{r['train_error'] / 60:.2f}",
             "" if r["generations"] is None else f"{r['generations']} x {r['population']}, seed {r['seed']}")
            for r in sets]
    print_table(["name", "searched on", "templates", "training error (min)", "search"], rows,
                title="template sets for smith:set=NAME")
    print(f"{len(sets)} template sets: {sum(r['builtin'] for r in sets)} built in, "
          f"{sum(not r['builtin'] for r in sets)} found by `walltime search-templates`.")
