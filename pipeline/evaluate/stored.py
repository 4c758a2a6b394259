"""An evaluation read back from the warehouse (``walltime evaluate --stored``).

Why: an evaluation of many traces is long (the out-of-sample eight took
hours), and is best run one trace per process so that a failure loses one
trace; the combined tables and Markdown then come from what each run stored
(evaluate_tuning, evaluate_tuning_replays, evaluate_scores with its view
evaluate_reductions, evaluate_noise), through the same code that renders a
live run (``trace_eval``, ``markdown``), with nothing replayed.
"""

from __future__ import annotations

from .. import schemes
from ..errors import WalltimeError
from ..warehouse import Warehouse
from . import SCHEDULERS, SHIFT_S, SHORT, EvalResult, Family, _config, ends_logged, setup as setups, trace_eval


def stored_name(con, name: str, mode: str, first: int | None) -> str:
    """The warehouse name the run gave ``name`` (a short, full or warehouse name): in the published
    set-up its file's ``NAME-paper`` first, else the name as it is (``NAME-firstN`` for a cut)."""
    full = {s: f for f, s in SHORT.items()}.get(name, name)
    cands = ([full + setups.SUFFIX] if mode == "paper" else []) + [full]
    cands = [c if first is None else f"{c}-first{first}" for c in cands]
    have = {t for (t,) in con.execute("SELECT DISTINCT trace FROM evaluate_tuning").fetchall()}
    found = next((c for c in cands if c in have), None)
    if found is None:
        raise WalltimeError(f'--stored: trace "{name}" has no stored evaluation (looked for {", ".join(cands)}): '
                            f"run `walltime evaluate {name}` first")
    return found


def load(wh: Warehouse, names: list[str], fams: list[Family], setup: str, first: int | None = None) -> EvalResult:
    """The stored evaluation of each trace (named as for a run: ``stored_name``), for the families ``fams``.

    Raises: WalltimeError naming the trace when it has no stored evaluation, or one of other
        families than ``fams`` (evaluated with other ``--estimator`` options)."""
    from ..simulate import resolve_capacity
    from ..simulate.inputs import trace_info

    if not wh.exists():
        raise WalltimeError(f"--stored: no warehouse at {wh.root}: evaluate the traces first")
    con = wh.reader(attach_results=False)
    try:
        out = []
        for trace in [stored_name(con, n, setup, first) for n in names]:
            tuning = _tuning(con, trace, fams)
            scores, red = _scores(con, trace, fams)
            noise = [dict(zip(("family", "scheduler", "draw", "shift_s", "period", "jobs", "avebsld"), r))
                     for r in con.execute("SELECT family, scheduler, draw, shift_s, period, jobs, avebsld "
                                          "FROM evaluate_noise WHERE trace = ? ORDER BY draw, family, scheduler, "
                                          "period", [trace]).fetchall()]
            draws = max((r["draw"] for r in noise), default=0)
            shift_s = next((r["shift_s"] for r in noise if r["draw"] > 0), SHIFT_S)
            cap = resolve_capacity(_config(trace, "EASY", "request"), trace_info(con, trace)).capacity
            out.append(trace_eval(trace, fams, scores[0]["tune_jobs"], tuning, scores, red, noise, draws, shift_s,
                                  cap, ends_logged(con, trace)))
    finally:
        con.close()
    fam_doc = [{"key": f.key, "label": f.label, "grid": list(f.grid)} for f in fams]
    return EvalResult(out, fam_doc, {}, " ".join(t.sentence for t in out), setup)


def _tuning(con, trace: str, fams: list[Family]) -> list[dict]:
    """The tuning rows in the order the run made them (family, grid, overrun, scheduler): the choice's
    ties go to the first, so the order is part of the result."""
    cols = ("family", "scheduler", "scheme", "overrun", "jobs", "avebsld", "avebsld_loaded", "score", "chosen")
    rows = [dict(zip(cols, r)) for r in con.execute(
        f"SELECT {', '.join(cols)} FROM evaluate_tuning WHERE trace = ?", [trace]).fetchall()]
    if not rows:
        raise WalltimeError(f'--stored: trace "{trace}" has no stored evaluation: run `walltime evaluate '
                            f'{trace}` first')
    keys = {f.key for f in fams}
    other = sorted({r["family"] for r in rows} ^ keys)
    if other:
        raise WalltimeError(f'--stored: trace "{trace}" was evaluated with other families ({", ".join(other)} '
                            "differ): give the --estimator options of that run")
    replays: dict[tuple, list[dict]] = {}
    for fam, sched, scheme, overrun, load_, draw, shift_s, avebsld in con.execute(
            "SELECT family, scheduler, scheme, overrun, load, draw, shift_s, avebsld FROM evaluate_tuning_replays "
            "WHERE trace = ? ORDER BY load, draw", [trace]).fetchall():
        replays.setdefault((fam, sched, scheme, overrun), []).append(
            {"load": load_, "draw": draw, "shift_s": shift_s, "avebsld": avebsld})
    order = {(f.key, schemes.canonical(s), o): (i, j, k) for i, f in enumerate(fams)
             for j, s in enumerate(f.grid) for k, o in enumerate(f.overruns)}
    for r in rows:
        r["replays"] = replays.get((r["family"], r["scheduler"], r["scheme"], r["overrun"]), [])
    return sorted(rows, key=lambda r: (*order.get((r["family"], r["scheme"], r["overrun"]), (99, 99, 99)),
                                       list(SCHEDULERS).index(r["scheduler"])))


def _scores(con, trace: str, fams: list[Family]) -> tuple[list[dict], dict]:
    labels = {f.key: f.label for f in fams}
    cols = ("family", "scheduler", "period", "scheme", "overrun", "run_id", "tune_jobs", "jobs", "avebsld",
            "mean_wait", "under_rate", "reduction_pct")
    rows = [dict(zip(cols, r)) for r in con.execute(
        f"SELECT {', '.join(cols)} FROM evaluate_reductions WHERE trace = ?", [trace]).fetchall()]
    red = {(r["family"], r["scheduler"], r["period"]): r.pop("reduction_pct") for r in rows}
    return [{"label": labels[r["family"]], **r} for r in rows], red
