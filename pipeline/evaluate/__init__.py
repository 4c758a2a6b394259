"""Evaluate stage: estimators x schedulers scored walk-forward, beside the
published learned-predictor results (``walltime evaluate``).

Protocol, per trace (jobs in loop order: submit, then job id):

1. Tune. Every candidate configuration of a family (``FAMILIES``: a list of
   scheme specs per family, data) is replayed on the first third of the jobs
   alone (``tune_jobs = n // 3``), as logged and with its arrivals TUNE_LOAD
   times as frequent, each load also in ``draws`` noise draws (arrivals
   moved up to ``shift_s`` s later; DRAWS, SHIFT_S by default), under each
   scheduler, in this process through the simulate stage's loop
   (``run_kernel``); the family's configuration is the one with the best
   mean reduction of AVEbsld over those replays. Estimates come from
   the estimate stage, computed once for the whole trace; every estimator here
   reads only jobs finished before a job's submission, so the first third's
   estimates do not depend on the rest. Nothing after the first third is read
   by the choice (tests/test_evaluate.py changes the rest and checks it).
2. Score. The chosen configuration is replayed over the whole trace through
   ``simulate_many`` (a stored run, reused when present) and scored from its
   ``sim_jobs`` rows (sql/evaluate_score.sql): on the jobs after the first
   third ('scored') and on all jobs ('whole', the period the papers report).
3. Compare. AVEbsld reduction against EASY with the users' requests over the
   same period (view ``evaluate_reductions``, migration 280) beside Gaussier
   et al.'s published cells (published.py), with a computed verdict.
4. Replay noise. Every chosen configuration is replayed again with every
   arrival moved up to ``shift_s`` seconds later (``draws`` draws, replays.py); the
   spread of its reduction is stored (evaluate_noise) and shown beside it.

Schedulers: FCFS with EASY backfilling, and EASY++ (backfill scan in SJBF
order); an estimator that overruns gets a correction tuned with it (OVERRUNS):
Tsafrir's steps or the request at the first overrun. AVEbsld: mean of max(1, (wait + run) /
max(run, 10)) -- the 10 s threshold of Gaussier et al. and of
sql/metrics_run.sql.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import schemes, sqlfiles
from ..errors import WalltimeError, quote
from ..warehouse import Warehouse, check_trace_name
from . import published, setup
from .replays import BSLD_THRESHOLD, DRAWS, SHIFT_S, avebsld, denser, noise_rows, shifted  # noqa: F401 (re-exported)


# Corrections on overrun tried for an estimator family (migration 290): Tsafrir's steps, or the
# request at the first overrun (pyss's "reqtime" corrector). The requests and exact runtimes never
# overrun (in the published set-up). ave2 is tuned over both like the others: Gaussier et al.'s
# published ave2 column is pyss's ave2 with the *request* at the first overrun (published.py).
OVERRUNS = ("tsafrir", "request")
FIXED_OVERRUN = {"request", "actual"}  # families that never overrun: Tsafrir's correction, never used


@dataclass(frozen=True)
class Family:
    key: str
    label: str
    grid: tuple[str, ...]  # candidate scheme specs; one spec = nothing to tune
    overruns: tuple[str, ...] = ("tsafrir",)  # corrections on overrun tried with each spec


# The grids are small on purpose (about 13 tuning replays of a third and 14
# whole-trace replays per trace): tang's window x statistic with the user as key
# (every trace here has user ids, not all have groups), klusacek's history length.
FAMILIES: list[Family] = [
    Family("request", "users' requests", ("request",)),
    Family("ave2", "Tsafrir ave2 + correction", ("ave2",), OVERRUNS),
    Family("klusacek", "Klusacek & Soysal last-K", tuple(f"klusacek:last={k}" for k in (2, 5, 10)), OVERRUNS),
    Family("tang", "Tang et al. history statistic", tuple(
        f"tang:key=user,window={w},stat={s}" for w in ("30d", "all") for s in ("max", "p85", "median")), OVERRUNS),
    Family("smith", "Smith et al. templates (Gibbons' fixed set)", ("gibbons",), OVERRUNS),
    Family("actual", "exact runtimes", ("actual",)),
]
# learned (gradient-boosted trees trained walk-forward on the last 20,000 finished jobs): the
# pinball loss at three quantiles and E-Loss (squared log error, underestimates weighted 4 or 16
# times), each retrained every day or every 30 days -- when the scheme exists in this build.
# Daily retraining lifted the learned cell of SDSC-SP2, KTH-SP2 and CTC-SP2 by 5-13 points (SDSC-BLUE's
# first third picked it too and did worse after: docs/journal/evaluate-log.md, "Session 12"); the
# first third chooses between the two periods like the rest.
LEARNED_LOSSES = ("loss=quantile,q=0.3", "loss=quantile,q=0.5", "loss=quantile,q=0.7", "loss=eloss,under=4",
                  "loss=eloss,under=16")
LEARNED_GRID: tuple[str, ...] = tuple(f"learned:{loss},retrain={r}" for r in ("1d", "30d") for loss in LEARNED_LOSSES)
if "learned" in schemes.SCHEMES:
    FAMILIES.insert(-1, Family("learned", "learned (gradient-boosted trees)", LEARNED_GRID, OVERRUNS))

BASELINE = ("request", "EASY")  # the reduction's reference: EASY with the users' requests
SCHEDULERS: dict[str, dict] = {  # name -> make_config options
    "EASY": {"policy": "fcfs", "backfill": "easy", "overrun": "tsafrir"},
    "EASY++": {"policy": "fcfs", "backfill": "easy", "overrun": "tsafrir", "backfill_order": "sjbf"},
}
# The first third is also replayed with its jobs arriving this many times as often (interarrival
# times / TUNE_LOAD), and a candidate is chosen on both loads. Why: a trace's first third can be
# lighter than the rest (SDSC-BLUE: AVEbsld 20.8 there, 46.0 after, EASY with the requests; 72.9 at
# 1.25x), and at a light load the most aggressive estimates win there and lose after
# (docs/journal/evaluate-log.md, "Session 13").
TUNE_LOAD = 1.25
# ... and at each load again in the noise draws (``--draws``, replays.shifted: every arrival moved up
# to ``--shift`` s later). Why: one replay is chaotic (replays.py), so a choice made on one can be a
# choice made on noise; the score is the mean over the 2 x (1 + draws) replays of the first third.
# The options' bounds (check_noise):
MAX_DRAWS = 100
MAX_SHIFT_S = 86_400

KTH, CTC, SDSC = "KTH-SP2-1996-2.1-cln", "CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln"
BLUE, CEA = "SDSC-BLUE-2000-4.2-cln", "CEA-Curie-2011-2.1-cln"
SHORT = {SDSC: "SDSC-SP2", KTH: "KTH-SP2", CTC: "CTC-SP2", BLUE: "SDSC-BLUE", CEA: "CEA-Curie"}
# --setup log: Mu'alem & Feitelson simulate CTC-SP2 at 512 nodes (the whole machine; its header says 338).
# --setup paper (the default) replays the header's 338, as Gaussier et al.'s pyss did (setup.py).
CAPACITY = {CTC: 512}


def parse_families(specs: list[str] | None, option: str = "--estimator") -> list[Family]:
    """The families to evaluate: FAMILIES, or those of ``specs`` (specs of one
    scheme form one family tuned on the first third); the users' requests (the
    baseline) are always in. A bad spec is a one-line error naming the option."""
    if not specs:
        return list(FAMILIES)
    grids: dict[str, list[str]] = {"request": ["request"]}
    for spec in specs:
        canon = schemes.canonical(spec, option)
        grids.setdefault(canon.split(":", 1)[0], [])
        if canon not in grids[canon.split(":", 1)[0]]:
            grids[canon.split(":", 1)[0]].append(canon)
    labels = {f.grid[0].split(":", 1)[0]: f.label for f in FAMILIES}
    keys = {f.grid[0].split(":", 1)[0]: f.key for f in FAMILIES}
    return [Family(keys.get(name, name), labels.get(name, name), tuple(g),
                   ("tsafrir",) if keys.get(name, name) in FIXED_OVERRUN else OVERRUNS) for name, g in grids.items()]


def short_name(trace: str) -> str | None:
    """The published table's name of a trace, or of a cut of it (``NAME-first5000``)."""
    return next((s for full, s in SHORT.items() if trace == full or trace.startswith(full + "-")), None)


def capacity_of(trace: str) -> int | None:
    """The machine size forced for ``trace`` (CAPACITY), none for the published set-up (its header's)."""
    if is_paper(trace):
        return None
    return next((c for full, c in CAPACITY.items() if trace == full or trace.startswith(full + "-")), None)


def is_paper(trace: str) -> bool:
    """Whether ``trace`` is a trace file read in the published set-up (``NAME-paper``, ``NAME-paper-firstN``)."""
    return trace.endswith(setup.SUFFIX) or re.search(re.escape(setup.SUFFIX) + r"-first\d+$", trace) is not None


def resolve_traces(wh: Warehouse, names: list[str], traces_dir: Path | None, first: int | None,
                   mode: str = "paper") -> list[str]:
    """Warehouse trace names for ``names``: a trace in the warehouse, or a short
    or full name whose file is in ``traces_dir`` (ingested now). ``first``: a
    cut of each, its first N jobs of the file, ingested as ``NAME-firstN``.
    ``mode`` 'paper': a trace with a file (a published trace's short or full
    name, or any file's full name) is that file under Gaussier et al.'s input
    rules (setup.py), ingested as ``NAME-paper`` (its cut ``NAME-paper-firstN``),
    so an out-of-sample trace is read as the published ones are; a name with
    no file is the warehouse's trace as it is. 'log': the file as it is."""
    if mode not in setup.SETUPS:
        raise WalltimeError(f"--setup {quote(mode)}: must be one of {', '.join(setup.SETUPS)}")
    if not names:
        raise WalltimeError("evaluate: give at least one TRACE")
    have: set[str] = set()
    if wh.exists():
        con = wh.reader(attach_results=False)
        try:
            have = {t for (t,) in con.execute("SELECT trace FROM traces").fetchall()}
        finally:
            con.close()
    folder = Path(traces_dir) if traces_dir else Path(os.environ.get("WALLTIME_TRACES") or "../shared/traces")
    full_of = {s: f for f, s in SHORT.items()}
    out = []
    for name in names:
        check_trace_name(name)  # a name becomes a file name below (NAME.swf.gz, the cut's NAME-firstN.swf): no path
        full = full_of.get(name, name)
        path = folder / f"{full}.swf.gz"
        paper = mode == "paper" and (full in SHORT or path.exists())
        base = full + setup.SUFFIX if paper else full
        if first is None and base in have:
            out.append(base)
            continue
        if not path.exists():
            where = f"not in the warehouse, and no file {path}" if first is None and not paper else \
                f"no file {path} to {'cut' if first is not None else 'read in the published set-up (or --setup log)'}"
            raise WalltimeError(f'trace "{quote(name)}": {where} (known short names: {", ".join(full_of)})')
        if first is None and not paper:
            from ..ingest import ingest

            ingest([path], wh, name=full)
            have.add(full)
            out.append(full)
        else:
            cut = base if first is None else f"{base}-first{first}"
            if cut not in have:
                _ingest_cut(wh, path, cut, first, paper)
                have.add(cut)
            out.append(cut)
    return out


def _ingest_cut(wh: Warehouse, path: Path, name: str, first: int | None, paper: bool = False) -> None:
    """The header and the first ``first`` job lines (all: None) of the SWF file,
    ingested as ``name``; ``paper``: the lines kept by the published input rules
    (setup.paper_line, the header's MaxProcs), the first ``first`` of them."""
    import gzip
    import tempfile

    from ..ingest import ingest

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as src, \
            tempfile.TemporaryDirectory(prefix="walltime-cut-") as tmp:
        dst = Path(tmp) / f"{name}.swf"
        n, header, maxp = 0, [], ...
        with open(dst, "w", encoding="utf-8") as fh:
            for line in src:
                if line.lstrip().startswith(";") or not line.strip():
                    header.append(line)
                    fh.write(line)
                    continue
                if n == first:
                    break
                if paper:
                    maxp = setup.max_procs(header) if maxp is ... else maxp  # the header is read by now
                    line = setup.paper_line(line, maxp)
                    if line is None:
                        continue
                fh.write(line)
                n += 1
        ingest([dst], wh, name=name)


# Estimators that learn from the replay's own ends in the published set-up (simulate --history simulated):
# pyss's predictor_tsafrir fits at each simulated termination, so Gaussier et al.'s ave2 column is that.
# The learned family too: its walk-forward trees (trained on the log) read features from the replay.
SIMULATED_HISTORY = {"ave2", "learned"}


def history_of(trace: str, scheme: str) -> str:
    """Where ``scheme`` learns in ``trace``'s replays: the replay's own ends for ave2 and the learned
    scheme's features in the published set-up (as pyss), else the log's ends (the estimates stage)."""
    name = schemes.canonical(scheme).split(":", 1)[0]
    return "simulated" if is_paper(trace) and name in SIMULATED_HISTORY else "log"


def _config(trace: str, scheduler: str, scheme: str, overrun: str = "tsafrir"):
    from ..simulate import make_config

    return make_config(estimate=scheme, capacity=capacity_of(trace), history=history_of(trace, scheme),
                       **(SCHEDULERS[scheduler] | {"overrun": overrun}))


def shown(scheme: str, overrun: str) -> str:
    """A configuration as the tables show it: the scheme, and the correction when it is not Tsafrir's."""
    return scheme if overrun == "tsafrir" else f"{scheme} (overrun: {overrun})"


def tune(con, trace: str, families: list[Family], draws: int = DRAWS,
         shift_s: int = SHIFT_S) -> tuple[int, list[dict]]:
    """(tune_jobs, one row per family x scheduler x candidate): each candidate
    replayed on the first third of the jobs alone, as logged (``avebsld``) and
    with its arrivals TUNE_LOAD times as frequent (``avebsld_loaded``), and at
    each load again in ``draws`` noise draws (arrivals moved up to ``shift_s`` s
    later, replays.shifted; all in ``replays``: load, draw (0: as logged),
    shift_s, avebsld); its ``score`` is the mean over those replays of AVEbsld over the
    requests' under EASY (the baseline) in the same replay, and the family's
    lowest per scheduler is ``chosen`` (ties: the first in the grid)."""
    import numpy as np

    from ..simulate import resolve_capacity, run_kernel
    from ..simulate.inputs import load_inputs, trace_info, with_learned

    info = trace_info(con, trace)
    rows, tune_jobs = [], None
    for fam in families:
        for scheme in fam.grid:
            cap = resolve_capacity(_config(trace, "EASY", scheme), info).capacity
            inp = load_inputs(con, trace, schemes.canonical(scheme), cap, False, "regular")
            inp = with_learned(con, inp, trace, _config(trace, "EASY", scheme))  # learned in the replay
            k = inp.n // 3
            if tune_jobs is None:
                tune_jobs = k
            part = inp.take(np.arange(k))
            replays = [(load, draw, p if draw == 0 else shifted(p, draw, shift_s))
                       for load, p in ((1.0, part), (TUNE_LOAD, denser(part, TUNE_LOAD)))
                       for draw in range(draws + 1)]
            for overrun in fam.overruns:
                for sched in SCHEDULERS:
                    cfg = resolve_capacity(_config(trace, sched, scheme, overrun), info)
                    done = [{"load": load, "draw": draw, "shift_s": shift_s if draw else 0,
                             "avebsld": avebsld(p.submit, p.run, run_kernel(p, cfg)["start"])}
                            for load, draw, p in replays]
                    rows.append({"family": fam.key, "scheduler": sched, "scheme": schemes.canonical(scheme),
                                 "overrun": overrun, "jobs": k, "avebsld": done[0]["avebsld"],
                                 "avebsld_loaded": done[draws + 1]["avebsld"], "replays": done,
                                 "chosen": False})
    base = next(r for r in rows if (r["family"], r["scheduler"]) == BASELINE)  # parse_families keeps it in
    for r in rows:  # 1 - the mean of the reductions
        r["score"] = sum(a["avebsld"] / b["avebsld"] for a, b in zip(r["replays"], base["replays"])) / len(r["replays"])
    for fam in families:
        for sched in SCHEDULERS:
            cands = [r for r in rows if r["family"] == fam.key and r["scheduler"] == sched]
            min(cands, key=lambda r: r["score"])["chosen"] = True  # min keeps the first of equal ones
    return tune_jobs or 0, rows


def replay_noise(con, trace: str, chosen: dict, tune_jobs: int, draws: int = DRAWS,
                 shift_s: int = SHIFT_S) -> list[dict]:
    """Every chosen configuration replayed over the whole trace in ``draws`` noise
    draws (arrivals moved later by 0..shift_s s, replays.noise_rows): one row
    per family x scheduler x draw x period. Only for the spread of the scores:
    nothing here feeds the choice."""
    from ..simulate import resolve_capacity
    from ..simulate.inputs import load_inputs, trace_info, with_learned

    info = trace_info(con, trace)
    rows, loaded, tuned = [], {}, None
    for (fam, sched), (scheme, overrun) in chosen.items():
        cfg = resolve_capacity(_config(trace, sched, scheme, overrun), info)
        if scheme not in loaded:  # one input per scheme: its replays differ only in the scheduler
            inp = load_inputs(con, trace, schemes.canonical(scheme), cfg.capacity, False, "regular")
            loaded[scheme] = with_learned(con, inp, trace, cfg)
        inp = loaded[scheme]
        if tuned is None:
            tuned = inp.job_id[:tune_jobs]  # the logged first third (loop order: submit, job id)
        rows += [{"family": fam, "scheduler": sched, **r} for r in noise_rows(inp, cfg, tuned, draws, shift_s)]
    return rows


def check_noise(draws, shift_s) -> None:
    """``--draws`` and ``--shift``: whole numbers in range, else a one-line error naming the option."""
    if isinstance(draws, bool) or not isinstance(draws, int) or not 0 <= draws <= MAX_DRAWS:
        raise WalltimeError(f"--draws {quote(draws)}: must be a whole number of noise draws from 0 to {MAX_DRAWS}")
    if isinstance(shift_s, bool) or not isinstance(shift_s, int) or not 1 <= shift_s <= MAX_SHIFT_S:
        raise WalltimeError(f"--shift {quote(shift_s)}: must be a whole number of seconds from 1 to {MAX_SHIFT_S:,}")


def noise_bands(noise: list[dict]) -> dict:
    """(family, scheduler, period) -> (lowest, highest) reduction of AVEbsld (%)
    over the noise draws, each against the baseline's replay in the same draw."""
    base = {(r["draw"], r["period"]): r["avebsld"] for r in noise
            if (r["family"], r["scheduler"]) == BASELINE}
    out: dict = {}
    for r in noise:
        red = 100.0 * (base[(r["draw"], r["period"])] - r["avebsld"]) / base[(r["draw"], r["period"])]
        lo, hi = out.get((r["family"], r["scheduler"], r["period"]), (red, red))
        out[(r["family"], r["scheduler"], r["period"])] = (min(lo, red), max(hi, red))
    return out


@dataclass
class TraceEval:
    trace: str
    short: str | None
    capacity: int
    jobs: int
    tune_jobs: int
    tuning: list[dict]
    scores: list[dict]  # family, scheduler, period, scheme, run_id, avebsld, reduction_pct, ...
    compare: list[dict]  # published cells beside ours, with verdicts
    sentence: str
    draws: int = DRAWS  # noise draws per configuration (--draws)
    shift_s: int = SHIFT_S  # largest delay of an arrival in a draw, seconds (--shift)
    ends_logged: int | None = None  # jobs whose end the log gives (a wait time): what estimators reading the log see


@dataclass
class EvalResult:
    traces: list[TraceEval]
    families: list[dict]
    seconds: dict = field(default_factory=dict)
    sentence: str = ""
    setup: str = "paper"

    def as_dict(self) -> dict:
        return asdict(self)


def evaluate(wh: Warehouse, traces: list[str], traces_dir: str | os.PathLike | None = None,
             first: int | None = None, estimators: list[str] | None = None, mode: str = "paper",
             draws: int = DRAWS, shift_s: int = SHIFT_S) -> EvalResult:
    """Tune on the first third, score on the rest and on the whole trace, store and compare.

    Args: traces: warehouse trace names, or short/full names of files in traces_dir (ingested).
        first: evaluate a cut of each trace, its first N jobs (``--first``, for tests).
        estimators: scheme specs replacing FAMILIES (specs of one scheme form one family).
        mode: ``--setup``: 'paper' (a published trace under Gaussier et al.'s input rules and its
            header's machine size, setup.py) or 'log' (the file as it is; CTC-SP2 at 512).
        draws, shift_s: ``--draws``, ``--shift``: noise draws (0: none) and the largest delay of an
            arrival in one (s), for the choice (first third) and the spread (whole trace).
    Returns: EvalResult, one TraceEval per trace, stored in evaluate_tuning / evaluate_scores.
    Raises: WalltimeError for an unknown trace, a bad spec or a failing estimator; the
        evaluate tables are written only at the end, in one transaction per trace.
    Paper: Gaussier, Glesser, Reis & Trystram, SC 2015 (the published cells, published.py).
    """
    from ..estimates import ensure_estimates
    from ..simulate import warm_up
    from ..simulate.config import SimItem
    from ..simulate.many import simulate_many

    fams = parse_families(estimators)
    if first is not None and (isinstance(first, bool) or not isinstance(first, int) or first < 30):
        raise WalltimeError(f"--first {quote(first)}: must be a whole number of jobs, at least 30")
    check_noise(draws, shift_s)
    t0 = time.perf_counter()
    names = resolve_traces(wh, traces, Path(traces_dir) if traces_dir else None, first, mode)
    seconds: dict[str, float] = {"ingest": round(time.perf_counter() - t0, 1)}
    warm_up()
    if any(history_of(n, spec) == "simulated" and not spec.startswith("learned")
           for n in names for fam in fams for spec in fam.grid):
        warm_up(learn=True)  # ave2 learned in the replay: its loop compiled before the first trace, said once
    results = []
    for trace in names:
        t = time.perf_counter()
        # the writer lock for the whole trace: simulate_many needs it held (a writer opened meanwhile
        # would drop the files of runs not committed yet), and nothing changes under our feet
        with wh.lock():
            ensure_estimates(wh, trace, [s for f in fams for s in f.grid])
            con = wh.reader(attach_results=False)
            try:
                tune_jobs, tuning = tune(con, trace, fams, draws, shift_s)
            finally:
                con.close()
            chosen = {(r["family"], r["scheduler"]): (r["scheme"], r["overrun"]) for r in tuning if r["chosen"]}
            items = [SimItem(trace, _config(trace, s, sch, o)) for (_, s), (sch, o) in chosen.items()]
            simulate_many(wh, items, label=f"evaluate {trace}: {len(items)} whole-trace replays")
            con = wh.reader(attach_results=False)
            try:
                noise = replay_noise(con, trace, chosen, tune_jobs, draws, shift_s)
            finally:
                con.close()
            results.append(_score_and_store(wh, trace, fams, tune_jobs, tuning, chosen, noise, draws, shift_s))
        seconds[trace] = round(time.perf_counter() - t, 1)
    seconds["total"] = round(time.perf_counter() - t0, 1)
    fam_doc = [{"key": f.key, "label": f.label, "grid": list(f.grid)} for f in fams]
    return EvalResult(results, fam_doc, seconds, " ".join(r.sentence for r in results), mode)


def _score_and_store(wh: Warehouse, trace: str, fams: list[Family], tune_jobs: int, tuning: list[dict],
                     chosen: dict, noise: list[dict], draws: int, shift_s: int) -> TraceEval:
    from .. import derived
    from ..simulate import resolve_capacity
    from ..simulate.inputs import trace_info
    from ..warehouse import transaction

    labels = {f.key: f.label for f in fams}
    with wh.writer() as con, transaction(con):
        info = trace_info(con, trace)
        scores = []
        for (fam, sched), (scheme, overrun) in chosen.items():
            cfg = resolve_capacity(_config(trace, sched, scheme, overrun), info)
            run_id = derived.stored_run(con, trace, cfg.canonical())
            if run_id is None:
                raise WalltimeError(f'trace "{trace}": the run of {scheme} under {sched} is missing after the replay')
            for period, jobs, bsld, wait, under in con.execute(sqlfiles.load("evaluate_score"),
                                                                [run_id, tune_jobs]).fetchall():
                scores.append({"family": fam, "label": labels[fam], "scheduler": sched, "period": period,
                               "scheme": scheme, "overrun": overrun, "run_id": run_id, "tune_jobs": tune_jobs, "jobs": jobs,
                               "avebsld": bsld, "mean_wait": wait, "under_rate": under})
        con.execute("DELETE FROM evaluate_tuning WHERE trace = ?", [trace])
        con.execute("DELETE FROM evaluate_scores WHERE trace = ?", [trace])
        con.execute("DELETE FROM evaluate_noise WHERE trace = ?", [trace])
        if noise:  # none with --draws 0
            con.executemany("INSERT INTO evaluate_noise (trace, family, scheduler, draw, shift_s, period, jobs, avebsld) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [[trace, r["family"], r["scheduler"], r["draw"], r["shift_s"], r["period"], r["jobs"],
                              r["avebsld"]] for r in noise])
        con.execute("DELETE FROM evaluate_tuning_replays WHERE trace = ?", [trace])
        con.executemany("INSERT INTO evaluate_tuning_replays (trace, family, scheduler, scheme, overrun, load, draw, "
                        "shift_s, jobs, avebsld) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [[trace, r["family"], r["scheduler"], r["scheme"], r["overrun"], x["load"], x["draw"],
                          x["shift_s"], r["jobs"], x["avebsld"]] for r in tuning for x in r["replays"]])
        con.executemany("INSERT INTO evaluate_tuning (trace, family, scheduler, scheme, overrun, jobs, avebsld, "
                        "avebsld_loaded, score, chosen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [[trace, r["family"], r["scheduler"], r["scheme"], r["overrun"], r["jobs"], r["avebsld"],
                          r["avebsld_loaded"], r["score"], r["chosen"]] for r in tuning])
        con.executemany("INSERT INTO evaluate_scores (trace, family, scheduler, period, scheme, run_id, tune_jobs, "
                        "jobs, avebsld, mean_wait, under_rate, overrun) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [[trace, s["family"], s["scheduler"], s["period"], s["scheme"], s["run_id"], tune_jobs,
                          s["jobs"], s["avebsld"], s["mean_wait"], s["under_rate"], s["overrun"]] for s in scores])
        red = {(f, s, p): r for f, s, p, r in con.execute(
            "SELECT family, scheduler, period, reduction_pct FROM evaluate_reductions WHERE trace = ?",
            [trace]).fetchall()}
        cap = resolve_capacity(_config(trace, "EASY", "request"), info).capacity
        ends = ends_logged(con, trace)
    return trace_eval(trace, fams, tune_jobs, tuning, scores, red, noise, draws, shift_s, cap, ends)


def ends_logged(con, trace: str) -> int:
    """Jobs of ``trace`` whose end the log gives (a wait time, so submit + wait + run): none on a log
    without waits (LLNL-Atlas), where every estimator reading the log's ends sees no history."""
    return con.execute("SELECT count(*) FILTER (WHERE wait IS NOT NULL AND wait >= 0) FROM jobs WHERE trace = ?",
                       [trace]).fetchone()[0]


def trace_eval(trace: str, fams: list[Family], tune_jobs: int, tuning: list[dict], scores: list[dict], red: dict,
               noise: list[dict], draws: int, shift_s: int, cap: int, ends: int | None = None) -> TraceEval:
    """One trace's evaluation from its rows (a run's, or the stored ones: stored.py): each score's
    reduction and spread, the published comparison and the sentence."""
    bands = noise_bands(noise)
    for s in scores:
        s["reduction_pct"] = red.get((s["family"], s["scheduler"], s["period"]))
        lo, hi = bands.get((s["family"], s["scheduler"], s["period"]), (None, None))
        if lo is not None and s["reduction_pct"] is not None:  # the spread of the logged replay and the draws
            s["noise_lo"], s["noise_hi"] = min(lo, s["reduction_pct"]), max(hi, s["reduction_pct"])
        else:
            s["noise_lo"], s["noise_hi"] = lo, hi
    order = {f.key: i for i, f in enumerate(fams)}
    scores.sort(key=lambda s: (order[s["family"]], list(SCHEDULERS).index(s["scheduler"]), s["period"]))
    compare = _compare(trace, tuning, scores, {f.key: f.label for f in fams})
    jobs = next(s["jobs"] for s in scores if s["period"] == "whole")
    ev = TraceEval(trace, short_name(trace), cap, jobs, tune_jobs, tuning, scores, compare, "", draws, shift_s, ends)
    ev.sentence = sentence(ev)
    return ev


def pick_on_first_third(tuning: list[dict], scheduler: str = "EASY++") -> dict | None:
    """Our own pick without hindsight: the chosen configuration, among the
    estimators (not the requests, not exact runtimes), with the lowest tuning
    score on the first third (both loads, ``tune``) under ``scheduler``."""
    cands = [r for r in tuning if r["chosen"] and r["scheduler"] == scheduler
             and r["family"] not in ("request", "actual")]
    return min(cands, key=lambda r: r["score"]) if cands else None


def _compare(trace: str, tuning: list[dict], scores: list[dict], labels: dict) -> list[dict]:
    """The published cells of the trace beside ours under EASY++, each period, with verdicts, and
    both simulators' baselines where the published source gives its own (``_baselines``)."""
    short = short_name(trace)
    cells = published.REDUCTIONS.get(short or "", {})
    red = {(s["family"], s["scheduler"], s["period"]): s["reduction_pct"] for s in scores}
    bsld = {(s["family"], s["scheduler"], s["period"]): s["avebsld"] for s in scores}
    band = {(s["family"], s["scheduler"], s["period"]): (s.get("noise_lo"), s.get("noise_hi")) for s in scores}
    pick = pick_on_first_third(tuning)
    out = []
    for col, pub in cells.items():  # the learned cell and the cross-validated one: our learned family and our pick
        learned = col in ("learned", "cv")
        fams = [col] if not learned else (["learned"] if any(f == "learned" for f, *_ in red) else [])
        if learned and pick is not None:
            fams.append(("pick", pick["family"]))
        for fam in fams:
            key, name = (fam[1], f"ours chosen on the first third ({labels[fam[1]]}, "
                                 f"{shown(pick['scheme'], pick['overrun'])})") \
                if isinstance(fam, tuple) else (fam, labels.get(fam, fam))
            for period in ("whole", "scored"):
                ours = red.get((key, "EASY++", period))
                lo, hi = band.get((key, "EASY++", period), (None, None))
                base = _baselines(trace, period, bsld.get((key, "EASY++", period)), bsld.get((*BASELINE, period)))
                out.append({"column": col, "column_label": published.COLUMNS[col], "published": pub,
                            "ours_label": name, "family": key, "period": period, "ours": ours,
                            "difference": None if ours is None else ours - pub, **base,
                            "verdict": published.verdict(ours, pub, base["baseline_gap"]),
                            "noise_lo": lo, "noise_hi": hi,
                            "within_noise": None if lo is None else lo <= pub <= hi,
                            # where ours lands among every learned configuration pyss ran (the learned cell is their best)
                            **_standing(short if col == "learned" else None, ours, base["baseline_gap"])})
    return out


def _baselines(trace: str, period: str, avebsld: float | None, base_ours: float | None) -> dict:
    """Both simulators' baselines for one comparison (EASY with the users' requests, AVEbsld): ours
    (``base_ours``) and the published simulator's (``base_published``: pyss's, whole trace, and only
    for the whole file, not a cut); ours read against theirs (``ours_against_published``, %) and the
    points between the two readings (``baseline_gap``, what published.verdict calls level within)."""
    short = short_name(trace)
    full = next((f for f, s in SHORT.items() if s == short), None)
    whole_file = short is not None and trace in (full, f"{full}{setup.SUFFIX}")
    base_pub = published.easy_requests(short) if period == "whole" and whole_file else None
    r = published.reading(avebsld, base_ours, base_pub)
    return {"base_ours": base_ours, "base_published": base_pub,
            "ours_against_published": r and r["against_published"], "baseline_gap": r and r["gap"]}


def _standing(short: str | None, ours: float | None, gap: float | None = None) -> dict:
    st = published.standing(short, ours, gap) if short else None
    return {"pyss_configs": st and st["configs"], "pyss_below_ours": st and st["below_ours"],
            "pyss_share_pct": st and st["share_pct"]}


PERIOD_WORDS = {"whole": "the whole trace", "scored": "the last two thirds"}
SETUP_WORDS = {
    "paper": "Set-up: Gaussier et al.'s (pyss): each trace's file under their input rules (jobs with no "
             "runtime or no request left out, runtimes cut at the request, jobs wider than the header's MaxProcs "
             "left out) on a machine of the header's MaxProcs (CTC-SP2: 338 processors), as `NAME-paper`; ave2 "
             "learns from the jobs ended in the replay itself (`--history simulated`, pyss's predictor_tsafrir), and the "
             "learned family's trees (trained walk-forward on the log) read the users' features from the replay.",
    "log": "Set-up: each trace's file as it is (jobs may run past their request); CTC-SP2 at 512 processors.",
}


def sentence(ev: TraceEval) -> str:
    """The answer first, from the numbers: the pick's reduction on both periods, and the learned cell's verdict."""
    full = next((f for f, s in SHORT.items() if s == ev.short), None)
    name = ev.short if ev.trace in (full, f"{full}{setup.SUFFIX}") else (
        f"{ev.trace} (a cut of {ev.short}: not the published set-up)" if ev.short else ev.trace)
    pick = pick_on_first_third(ev.tuning)
    if pick is None:
        base = next((s for s in ev.scores if (s["family"], s["scheduler"], s["period"]) == (*BASELINE, "whole")), None)
        return f"{name}: AVEbsld {base['avebsld']:.2f} under EASY with the users' requests over {ev.jobs:,} jobs."
    red = {(s["family"], s["scheduler"], s["period"]): s["reduction_pct"] for s in ev.scores}
    whole, scored = red[(pick["family"], "EASY++", "whole")], red[(pick["family"], "EASY++", "scored")]
    text = (f"{name}: the estimator chosen on the first third ({ev.tune_jobs:,} of {ev.jobs:,} jobs), "
            f"{shown(pick['scheme'], pick['overrun'])} under EASY++, {_change(scored)} AVEbsld by {abs(scored):.1f}% on the last two thirds "
            f"and {_change(whole, False)} by {abs(whole):.1f}% on the whole trace against EASY with the users' requests")
    band = next((s for s in ev.scores if (s["family"], s["scheduler"], s["period"]) == (pick["family"], "EASY++", "whole")
                 and s.get("noise_lo") is not None), None)
    if band is not None:
        text += (f" ({band['noise_lo']:.1f}% to {band['noise_hi']:.1f}% over that replay and {ev.draws} with every "
                 f"arrival moved up to {ev.shift_s} s later)")
    cell = _pick_row(ev, pick, "learned")
    cv = _pick_row(ev, pick, "cv")
    row = cell or cv
    if row is not None and row.get("baseline_gap") is not None:  # both baselines, said once: the verdicts' yardstick
        text += (f"; that baseline's AVEbsld is {row['base_ours']:.2f} here and {row['base_published']:.2f} in "
                 f"pyss, and against pyss's ours reads {row['ours_against_published']:.1f}%: the two baselines "
                 f"alone move it {row['baseline_gap']:.1f} points")
    if cell is not None:
        text += _versus(cell, "the best learned predictor published", lead="that is ", hindsight=", chosen with hindsight")
        if cell.get("within_noise") is not None:
            text += f"; the published figure lies {'inside' if cell['within_noise'] else 'outside'} our spread"
        if cell.get("pyss_configs"):
            text += (f"; it is above {cell['pyss_below_ours']:,} of the {cell['pyss_configs']:,} learned "
                     f"configurations pyss ran{' by more than that gap' if cell.get('baseline_gap') is not None else ''} "
                     f"({cell['pyss_share_pct']:.1f}%; their median {published.percentile(ev.short, 50):.1f}%)")
    if cv is not None and cv["ours"] is not None:
        text += _versus(cv, "the configuration Gaussier et al. chose by cross-validation")
    return text + "."


def _pick_row(ev: TraceEval, pick: dict, column: str) -> dict | None:
    """The compare row of our first-third pick against the published ``column``, whole trace."""
    return next((c for c in ev.compare if c["column"] == column and c["family"] == pick["family"]
                 and c["period"] == "whole" and c["ours_label"].startswith("ours chosen")), None)


def _versus(row: dict, what: str, lead: str = "", hindsight: str = "") -> str:
    """'; <lead>D points above/below <what> (P%<hindsight>)[, within/beyond the baselines' gap]: verdict'
    (published.verdict), or within its rounding of it: ties."""
    if row["verdict"] == "ties":
        return f"; within {published.TIE} points of {what} ({row['published']:.1f}%): ties"
    words = "above" if row["difference"] > 0 else "below"
    gap = row.get("baseline_gap")
    said = "" if gap is None else f", {'within' if row['verdict'] == 'level' else 'beyond'} that gap"
    return (f"; {lead}{abs(row['difference']):.1f} points {words} {what} "
            f"({row['published']:.1f}%{hindsight}){said}: {row['verdict']}")


def _change(pct: float, verb: bool = True) -> str:
    if pct >= 0:
        return "cuts" if verb else "cuts it"
    return "raises" if verb else "raises it"


def markdown(res: EvalResult, path: str = "docs/evaluate-results.md", names: list[str] | None = None) -> str:
    """Tables per trace (generated: docs/evaluate-results.md, docs/evaluate-out-of-sample-results.md),
    after the standing of learned against ave2 over every trace (``standing``). ``names``: the
    traces as the command named them (for the command line the file quotes)."""
    named = names or [t.short or t.trace for t in res.traces]
    lines = ["# walltime evaluate: results", "",
             "Generated by `walltime evaluate " + " ".join(named)
             + f" --setup {res.setup} --markdown {path}` (do not edit by hand). Protocol, "
             "set-up and definitions: docs/evaluate.md.", "", SETUP_WORDS[res.setup], ""]
    lines += standing_lines(res) + [""]
    for t in res.traces:
        lines += [f"## {t.short or t.trace} ({t.trace + ', ' if t.short else ''}{t.capacity:,} processors, {t.jobs:,} jobs; tuned on the "
                  f"first {t.tune_jobs:,})", "", t.sentence, ""]
        lines += table_lines(t, md=True) + [""]
        if t.compare:
            lines += [f"Published ({published.SOURCE}) beside ours, EASY++, reduction of AVEbsld against EASY "
                      "with the users' requests (%):", "",
                      "| " + " | ".join(COMPARE_HEAD).format(draws=t.draws, shift_s=t.shift_s) + " |",
                      "|" + "---|" * len(COMPARE_HEAD)]
            for c in t.compare:
                lines.append(f"| {c['column_label']} | {c['published']:.1f} | {c['ours_label']} | "
                             f"{PERIOD_WORDS[c['period']]} | {_f(c['ours'], 1)} | {_f(c['difference'], 1)} | "
                             f"{_f(c.get('base_ours'), 2)} | {_f(c.get('base_published'), 2)} | "
                             f"{_f(c.get('ours_against_published'), 1)} | {_f(c.get('baseline_gap'), 1)} | "
                             f"{c['verdict']} | {_band(c)} | {_yes(c['within_noise'])} | {_among(c)} |")
            lines += ["", COMPARE_RULE, "", *pyss_lines(t.short)]
            lines.append("")
    lines.append(f"Took {res.seconds['total']:.0f} s." if "total" in res.seconds else
                 "Rendered from the evaluations stored in the warehouse (`--stored`): nothing replayed.")
    return "\n".join(lines) + "\n"


COMPARE_HEAD = ["published column", "published", "ours", "period", "ours (%)", "difference (points)",
                "EASY with the requests, AVEbsld: ours", "pyss's", "ours against pyss's EASY (%)",
                "baselines' gap (points)", "verdict",
                "ours, as logged and {draws} draws of arrivals up to {shift_s} s later (min to max %)",
                "published within it", "pyss's learned configurations below ours"]
COMPARE_RULE = (f"Verdict (published.verdict): ties within {published.TIE} points; level when the difference is "
                "smaller than the baselines' gap, the points between ours read against our EASY with the requests and "
                "against pyss's (its baseline is given for the whole trace only); else beats or below.")


def standing(res: EvalResult, scheduler: str = "EASY++") -> list[dict]:
    """Per trace: learned's, ave2's and exact runtimes' whole-trace reductions under ``scheduler``
    with their spreads, and where learned stands against ave2: 'above' when learned's lowest
    replay is above ave2's highest, 'below' the reverse, else 'overlap' (with the logged
    replays' order)."""
    out = []
    for t in res.traces:
        at = {s["family"]: s for s in t.scores if s["scheduler"] == scheduler and s["period"] == "whole"}
        le, av, ex = at.get("learned"), at.get("ave2"), at.get("actual")
        if le is None or av is None:
            continue
        band = {k: (r.get("noise_lo"), r.get("noise_hi")) for k, r in (("learned", le), ("ave2", av))}
        if t.ends_logged == 0:
            where = "untestable"
        elif band["learned"][0] is None or band["ave2"][0] is None:
            where = "no spread"
        elif band["learned"][0] > band["ave2"][1]:
            where = "above"
        elif band["learned"][1] < band["ave2"][0]:
            where = "below"
        else:
            where = "overlap"
        out.append({"trace": t.short or t.trace, "jobs": t.jobs, "capacity": t.capacity, "ends_logged": t.ends_logged,
                    "learned": le["reduction_pct"], "learned_lo": band["learned"][0], "learned_hi": band["learned"][1],
                    "learned_scheme": shown(le["scheme"], le["overrun"]),
                    "ave2": av["reduction_pct"], "ave2_lo": band["ave2"][0], "ave2_hi": band["ave2"][1],
                    "ave2_scheme": shown(av["scheme"], av["overrun"]),
                    "actual": ex["reduction_pct"] if ex else None, "learned_vs_ave2": where,
                    "logged_order": "above" if le["reduction_pct"] > av["reduction_pct"] else "below"})
    return out


STANDING_WORDS = {"above": "learned above ave2 beyond both spreads", "below": "learned below ave2 beyond both spreads",
                  "overlap": "spreads overlap", "no spread": "no noise draws",
                  "untestable": "not a test of learned: the log gives no job's end (no wait times), so its "
                                "trees, trained on the log's ended jobs, never train and it gives the request"}


def standing_lines(res: EvalResult) -> list[str]:
    """The answer first: how many traces learned beats ave2 on beyond the replay noise, then the table."""
    rows = standing(res)
    if not rows:
        return []
    n = {k: sum(r["learned_vs_ave2"] == k for r in rows) for k in STANDING_WORDS}
    over = [r for r in rows if r["learned_vs_ave2"] == "overlap"]
    text = (f"Under EASY++ over the whole trace, learned beats ave2 beyond the replay noise (its lowest replay "
            f"above ave2's highest) on {n['above']} of {len(rows) - n['untestable']} traces, is below it beyond "
            f"the noise on {n['below']}")
    if over:
        ahead = sum(r["logged_order"] == "above" for r in over)
        text += f", and the spreads overlap on {len(over)} (learned ahead in the logged replay on {ahead} of them)"
    if n["no spread"]:
        text += f"; {n['no spread']} without noise draws"
    idle = [r["trace"] for r in rows if r["learned_vs_ave2"] == "overlap" and r["actual"] is not None
            and abs(r["actual"]) <= published.TIE]
    if idle:  # counted as the rule says, but no estimate can move these: say so
        text += (f"; on {', '.join(idle)} exact runtimes change AVEbsld by {published.TIE} points or less, so no "
                 "estimate can matter there and its overlap is no evidence either way")
    if n["untestable"]:
        names = ", ".join(r["trace"] for r in rows if r["learned_vs_ave2"] == "untestable")
        text += (f"; not counted: {names} (the log gives no job's end, so learned, trained on the log's ended "
                 "jobs, never trains there and gives the request)")
    lines = [text + ".", "",
             "| trace | jobs | processors | learned (%) | learned spread | learned chosen | ave2 (%) | ave2 spread | "
             "ave2 chosen | exact runtimes (%) | learned against ave2 |", "|" + "---|" * 11]
    for r in rows:
        lines.append(f"| {r['trace']} | {r['jobs']:,} | {r['capacity']:,} | {r['learned']:.1f} | "
                     f"{_pair(r['learned_lo'], r['learned_hi'])} | {r['learned_scheme']} | {r['ave2']:.1f} | "
                     f"{_pair(r['ave2_lo'], r['ave2_hi'])} | {r['ave2_scheme']} | {_f(r['actual'], 1)} | "
                     f"{STANDING_WORDS[r['learned_vs_ave2']]} |")
    lines += ["", "Reduction of AVEbsld against EASY with the users' requests over the whole trace, under EASY++, "
              "for the configuration each family chose on its trace's first third; spread: lowest to highest over "
              "the logged replay and the noise draws."]
    return lines


def _pair(lo, hi) -> str:
    return "-" if lo is None else f"{lo:.1f} to {hi:.1f}"


def _among(row: dict) -> str:
    if not row.get("pyss_configs"):
        return "-"
    return f"{row['pyss_below_ours']:,} of {row['pyss_configs']:,} ({row['pyss_share_pct']:.1f}%)"


def compare_line(c: dict, shift_s: int) -> str:
    """One whole-trace comparison with a published cell, for the terminal: both figures, the verdict, both
    baselines and the gap it is read within (where pyss gives its baseline), the noise spread, and where ours
    stands among pyss's learned configurations."""
    ours = "-" if c["ours"] is None else f"{c['ours']:.1f}%"
    line = f"published {c['column']}: {c['published']:.1f}% vs {c['ours_label']}: {ours} on the whole trace: {c['verdict']}"
    if c.get("baseline_gap") is not None:
        line += (f" (baselines: ours {c['base_ours']:.2f}, pyss's {c['base_published']:.2f}; ours against pyss's "
                 f"{c['ours_against_published']:.1f}%, a gap of {c['baseline_gap']:.1f} points)")
    if c["noise_lo"] is not None:
        line += (f" (ours {c['noise_lo']:.1f}% to {c['noise_hi']:.1f}% with arrivals up to {shift_s} s later: "
                 f"published {'inside' if c['within_noise'] else 'outside'})")
    if c.get("pyss_configs"):
        line += (f"; above {c['pyss_below_ours']:,} of pyss's {c['pyss_configs']:,} learned configurations "
                 f"({c['pyss_share_pct']:.1f}%)")
    return line


def pyss_lines(short: str | None) -> list[str]:
    """The spread of pyss's learned configurations on ``short`` (the field's own noise floor), in words."""
    runs = published.pyss_reductions(short or "")
    if not runs:
        return []
    at = {p: published.percentile(short, p) for p in (100, 99, 90, 50, 10)}
    text = (f"pyss completed {len(runs):,} of the {published.PYSS['traces'][short]['runs']:,} learned configurations it "
            f"ran under EASY++ on {short} ({published.PYSS_SOURCE}); their "
            f"reductions against pyss's EASY with the requests: best {at[100]:.1f}% (the published learned cell), "
            f"99th percentile {at[99]:.1f}%, 90th {at[90]:.1f}%, median {at[50]:.1f}%, 10th {at[10]:.1f}%")
    cv = {c: published.cross_validated(short, c) for c in ("tsafrir", "reqtime")}
    said = [f"{v:.1f}% with {'Tsafrir' if c == 'tsafrir' else 'the request at the first overrun'}"
            for c, v in cv.items() if v is not None]
    text += ("; the configuration they chose by cross-validation: " + " and ".join(said)) if said else ""
    if cv["tsafrir"] is None:
        text += " (pyss's run with Tsafrir's correction did not complete)"
    return [text + "."]


def _band(row: dict) -> str:
    return "-" if row.get("noise_lo") is None else f"{row['noise_lo']:.1f} to {row['noise_hi']:.1f}"


def _yes(flag) -> str:
    return "-" if flag is None else ("yes" if flag else "no")


def _f(x, digits: int) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


TABLE_HEAD = ["estimator", "scheduler", "chosen on the first third", "AVEbsld 2/3", "reduction 2/3 %",
              "AVEbsld whole", "reduction whole %", "spread whole %", "mean wait whole (min)",
              "underestimated whole %"]


def table_lines(t: TraceEval, md: bool = False) -> list[str]:
    """One row per family x scheduler; "spread": the whole-trace reduction's lowest and highest over
    the logged replay and the noise draws (arrivals up to ``t.shift_s`` s later)."""
    by = {(s["family"], s["scheduler"], s["period"]): s for s in t.scores}
    rows = []
    for (fam, sched, period), s in by.items():
        if period != "whole":
            continue
        sc = by[(fam, sched, "scored")]
        rows.append([s["label"], sched, shown(s["scheme"], s["overrun"]), _f(sc["avebsld"], 2), _f(sc["reduction_pct"], 1),
                     _f(s["avebsld"], 2), _f(s["reduction_pct"], 1), _band(s), _f(s["mean_wait"] / 60, 1),
                     _f(100 * s["under_rate"], 1)])
    if md:
        return ["| " + " | ".join(TABLE_HEAD) + " |", "|" + "---|" * len(TABLE_HEAD)] + \
            ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(TABLE_HEAD)]
    fmt = "  ".join(f"{{:{'<' if i < 3 else '>'}{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*TABLE_HEAD)] + [fmt.format(*r) for r in rows]
