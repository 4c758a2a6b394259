"""``walltime search-templates``: Smith's genetic search for a template set."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import progress
from ._app import app
from .common import DEFAULT_WAREHOUSE, JsonOpt, WarehouseOpt, print_json, print_table, warehouse


@app.command("search-templates")
def search_templates_cmd(
    trace: Annotated[str, typer.Argument(help="Trace name (see `walltime traces`).", show_default=False)],
    name: Annotated[str, typer.Option("--name", help="Store the best set under this name "
                                                     "(use it as smith:set=NAME).", show_default=False)],
    generations: Annotated[int, typer.Option(help="Generations to evolve (1 to 1,000).")] = 20,
    population: Annotated[int, typer.Option(help="Individuals per generation (4 to 1,000).")] = 20,
    seed: Annotated[int, typer.Option(help="Random seed: the same seed gives the same search.")] = 0,
    train_until: Annotated[str | None, typer.Option(
        help="Train on jobs submitted before this date (YYYY-MM-DD, UTC); default: all jobs.")] = None,
    wh: WarehouseOpt = DEFAULT_WAREHOUSE,
    as_json: JsonOpt = False,
) -> None:
    """Find a template set for Smith's run-time predictor by genetic search.

    Smith, Taylor & Foster Section 2.1.3: individuals of 1-10 templates in
    binary, fitness from the mean absolute run-time prediction error on the
    training jobs, stochastic sampling with replacement, variable-length
    crossover, elitism of 2, mutation 0.01 per bit. Stores the best set with
    its training error (replacing a set of the same name).
    """
    from ..estimates.search import search_templates
    from ..estimates.templates import set_text

    with progress.bar() as bar:
        task = bar.add_task(f"searching {trace}", total=generations) if bar else None

        def tick(g):
            if bar:
                bar.update(task, advance=1, description=f"generation {g.number}: best {g.best_error / 60:,.1f} min")

        res = search_templates(warehouse(wh), trace, name, generations, population, seed, train_until, tick)
    if as_json:
        print_json(res.as_dict())
        return
    print_table(["generation", "best error (min)", "mean error (min)", "best set"],
                [(g.number, f"{g.best_error / 60:.2f}", f"{g.mean_error / 60:.2f}", set_text(g.best))
                 for g in res.generations], title=f"{trace}: genetic template search, seed {seed}")
    print(f"Stored template set {name}: {set_text(res.templates)}. Its mean absolute run-time prediction "
          f"error on the {res.train_jobs:,} training jobs is {res.train_error / 60:.2f} min "
          f"({100 * res.train_error / res.mean_run:.0f}% of their mean run time of {res.mean_run / 60:.1f} min); "
          f"{res.evaluations:,} individuals evaluated in {res.seconds:.1f} s.")
