"""``walltime evaluate``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, warehouse


@app.command("evaluate")
def evaluate_cmd(
    traces: Annotated[list[str], typer.Argument(metavar="TRACE",
        help="Traces: names in the warehouse, or short names (SDSC-SP2, KTH-SP2, CTC-SP2, SDSC-BLUE, CEA-Curie) "
             "or full names of files in --traces (ingested first).", show_default=False)],
    estimator: Annotated[list[str] | None, typer.Option(
        "--estimator", help="Scheme spec to evaluate (repeatable; default the built-in families; specs of one "
                            "scheme form one family, tuned on the first third).", show_default=False)] = None,
    first: Annotated[int | None, typer.Option(
        "--first", help="Evaluate a cut of each trace file: its first N jobs, ingested as NAME-firstN (quick runs).",
        show_default=False)] = None,
    traces_dir: Annotated[Path | None, typer.Option(
        "--traces", help="Directory of the SWF traces (default $WALLTIME_TRACES, else ../shared/traces).",
        show_default=False)] = None,
    markdown: Annotated[Path | None, typer.Option(
        "--markdown", help="Also write the tables as Markdown to this file (docs/evaluate-results.md).",
        show_default=False)] = None,
    setup: Annotated[str, typer.Option(
        "--setup", help="paper: each trace's file (published or not) under Gaussier et al.'s input rules (no "
                        "runtime or request: left out; runtimes cut at the request) on its header's MaxProcs "
                        "(CTC-SP2 338), as NAME-paper; log: the file as it is (CTC-SP2 at 512).")] = "paper",
    draws: Annotated[int, typer.Option(
        "--draws", help="Noise draws: the first third of each candidate (for the choice) and each chosen "
                        "configuration over the whole trace (for the spread) replayed again this many times with "
                        "every arrival moved up to --shift s later (0: none).")] = 5,
    shift: Annotated[int, typer.Option(
        "--shift", help="Largest delay of an arrival in a noise draw, seconds (each job's delay: a whole "
                        "number of seconds from 0 to this, drawn per draw and job id).")] = 60,
    walk: Annotated[bool, typer.Option(
        "--walk-forward", help="Instead: the field's walk-forward benchmark (Menear et al. 2023): a learned model "
                               "trained every --step-days on the jobs that ended in the --window-days before, "
                               "predicting the step's submissions; R^2, RMSE, MAE, accuracy and underestimation of "
                               "learned, ave2 and the requests on the same jobs, beside the published numbers; "
                               "stored in evaluate_walk_forward. Traces as they are (--setup is not used).")] = False,
    window_days: Annotated[float, typer.Option("--window-days", help="--walk-forward: the training window, days.")] = 100.0,
    step_days: Annotated[float, typer.Option("--step-days", help="--walk-forward: a new model every this many days.")] = 1.0,
    stored: Annotated[bool, typer.Option(
        "--stored", help="Replay nothing: the tables (and --markdown) of the evaluation the warehouse holds for "
                         "these traces, as the runs that stored it printed them (e.g. traces evaluated one per "
                         "process, rendered together).")] = False,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Estimators x schedulers (EASY, EASY++) tuned on each trace's first third, scored on the rest.

    Each family's configuration is chosen by AVEbsld on the first third of the
    jobs alone (as logged and with its arrivals 1.25 times as often, each also
    in --draws draws with every arrival moved up to --shift s later: evaluate_tuning_replays);
    the chosen one is replayed over the whole trace and scored on
    the last two thirds and on the whole trace: AVEbsld, its reduction against
    EASY with the users' requests, mean wait and the underestimation rate,
    beside the published numbers (Gaussier et al. 2015) with a verdict, and
    counted against every learned configuration their pyss ran. Stored
    in the tables evaluate_tuning and evaluate_scores (view evaluate_reductions);
    the replay noise (each chosen configuration replayed again with every
    arrival moved up to --shift s later, --draws draws) in evaluate_noise (view
    evaluate_noise_reductions).
    """
    from ..checks import check_out_file, write_file
    from ..evaluate import (compare_line, evaluate, markdown as render_md, pyss_lines, standing, standing_lines,
                            table_lines)

    if walk:
        from ..evaluate import resolve_traces
        from ..evaluate.walk_forward import lines, run

        w = warehouse(wh)
        done = run(w, resolve_traces(w, traces, traces_dir, first, "log"), window_days, step_days)
        if as_json:
            print_json({"walk_forward": [x.as_dict() for x in done]})
            return
        for x in done:
            print("\n".join(lines(x)))
        return

    if markdown is not None:
        check_out_file(markdown, "--markdown")  # before any work: a refused run stores nothing
    if stored:
        from ..evaluate import parse_families, setup as setups
        from ..evaluate.stored import load

        from ..errors import WalltimeError, quote

        if setup not in setups.SETUPS:
            raise WalltimeError(f"--setup {quote(setup)}: must be one of {', '.join(setups.SETUPS)}")
        res = load(warehouse(wh), traces, parse_families(estimator or None), setup, first)
    else:
        res = evaluate(warehouse(wh), traces, traces_dir, first, estimator or None, setup, draws, shift)
    if markdown is not None:
        write_file(markdown, render_md(res, str(markdown), traces), "--markdown")
    if as_json:
        print_json({**res.as_dict(), "standing": standing(res)})
        return
    for t in res.traces:
        print(f"{t.trace}: {t.jobs:,} jobs, {t.capacity:,} processors, tuned on the first {t.tune_jobs:,}")
        print("\n".join(table_lines(t)))
        for c in t.compare:
            if c["period"] == "whole":
                print(f"  {compare_line(c, t.shift_s)}")
        for line in pyss_lines(t.short):
            print(f"  {line}")
        print()
    print(res.sentence)
    if len(res.traces) > 1 and standing(res):
        print(standing_lines(res)[0])  # over every trace: where learned stands against ave2
