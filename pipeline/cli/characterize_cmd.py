"""``walltime characterize``."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, print_table, shown, stdout, warehouse


def _f(v, digits: int = 3) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def _n(v) -> str:
    return "n/a" if v is None else f"{v:,}"


def show(doc: dict) -> None:
    """The characterization as human tables on stdout."""
    r = doc["r"]
    stdout.print(f"[bold]{shown(doc['trace'])}[/bold]: {doc['jobs']:,} jobs, {doc['jobs_ran']:,} ran, "
                 f"{doc['jobs_r']:,} with R = run/requested (capped at 1)", highlight=False)
    if doc["jobs_r"]:
        print_table(["statistic", "value"], [
            ("mean R", _f(r["mean_r"])), ("std R", _f(r["std_r"])),
            ("share R < 0.2", _f(r["share_lt_0_2"])), ("share R < 0.5", _f(r["share_lt_0_5"])),
            ("share R > 0.8", _f(r["share_gt_0_8"])), ("share R >= 0.99 (at the limit)", _f(r["share_ge_0_99"])),
        ], title="R = run / requested (Tang et al. Sec. 3.2)")
        print_table(["R bin", "jobs", "share", "CDF at hi"], [
            (f"[{h['lo']:.2f}, {h['hi']:.2f}{']' if h['bin'] == 19 else ')'}", f"{h['jobs']:,}", _f(h["share"]),
             _f(next(c["share_le"] for c in doc["cdf"] if abs(c["x"] - h["hi"]) < 1e-9)))
            for h in doc["histogram"]
        ], title="Histogram of R (Tang Fig. 1)")
        print_table(["quarter", "jobs", "mean R", "std R"],
                    [(q["quarter"], f"{q['jobs']:,}", _f(q["mean_r"]), _f(q["std_r"])) for q in doc["quarters"]],
                    title="Mean R per quarter of submission (Tang Fig. 2)")
    print_table(["parameter", "number", "%", "of"],
                [(m["label"], _n(m["number"]), _f(m["pct"], 1), m["of"]) for m in doc["mualem_feitelson"]],
                title="Mu'alem & Feitelson Table 2")
    if doc["key_spread"]:
        print_table(["key type", "groups (>= 10 jobs)", "jobs in them", "avg std(R)"],
                    [(k["key_type"], _n(k["groups"]), _n(k["jobs"]), _f(k["avg_std_r"])) for k in doc["key_spread"]],
                    title="Spread of R within groups (Tang Table 2)")
    if doc.get("partitions"):
        print_table(["partition", "jobs", "users", "accounts", "with R", "mean R", "median R", "size"],
                    [(p["partition"], f"{p['jobs']:,}", _n(p["users"]), _n(p["accounts"]), _n(p["jobs_r"]),
                      _f(p["mean_r"]), _f(p["median_r"]), _n(p["capacity"])) for p in doc["partitions"]],
                    title="R per partition")
        gpu = [p for p in doc["partitions"] if p.get("gpu_jobs")]
        if gpu:
            print_table(["partition", "jobs with GPUs", "GPU-hours requested", "GPU-hours used"],
                        [(p["partition"], f"{p['gpu_jobs']:,}", _f(p["req_gpu_h"], 1), _f(p["used_gpu_h"], 1))
                         for p in gpu], title="GPU-hours per partition (gpus x requested time, gpus x run)")
            stdout.print(gpu_sentence(gpu), highlight=False)
    if doc.get("lost_attempts"):
        from ..characterize import lost_sentence

        stdout.print(lost_sentence(doc["lost_attempts"]), highlight=False)
    for u in doc["unavailable"]:
        stdout.print(f"cannot compute {shown(u['statistic'])}: {shown(u['reason'])}", highlight=False)


def gpu_sentence(gpu: list[dict]) -> str:
    """One sentence from the partitions' GPU-hours (requested, used, the share used)."""
    req = sum(p["req_gpu_h"] or 0 for p in gpu)
    used = sum(p["used_gpu_h"] or 0 for p in gpu)
    jobs = sum(p["gpu_jobs"] for p in gpu)
    share = f", {100 * used / req:.1f}% of the request" if req else ""
    return (f"Jobs with GPUs ({jobs:,} in {len(gpu)} partition{'s' if len(gpu) != 1 else ''}) "
            f"requested {req:,.1f} GPU-hours and used {used:,.1f}{share}.")


@app.command()
def characterize(
    trace: Annotated[str, typer.Argument(help="Trace name as listed by `walltime traces`.", show_default=False)],
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """How accurate the users' requested times are (R = run / requested).

    R's distribution and quarters, Mu'alem & Feitelson's Table 2 and the per-key
    spread of Tang's Table 2.
    Stored in the characterize_* tables (re-running replaces the trace's rows).
    Statistics the trace's fields do not allow are named, not guessed.
    """
    from ..characterize import characterize as run_characterize

    doc = run_characterize(trace, warehouse(wh))
    if as_json:
        print_json(doc)
        return
    show(doc)
