"""Train the deployable learned model of a trace (`walltime export-model`).

The model is the ``learned`` scheme's final state: trained on the last
``window`` jobs of the trace that completed (the walk-forward's next period),
plus two quantile models (0.1 and 0.9, pipeline/estimates/learned.py BAND)
for the band `walltime predict` prints. Written with each user's last jobs
(for the history features) into a directory pipeline/learned_model.py reads;
kept in ``<warehouse>/models/<trace>/`` (table ``learned_models``) and copied
to ``--out DIR`` when asked.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import polars as pl

from .. import sqlfiles
from ..errors import WalltimeError, quote
from ..learned_model import SPEC, model_dir
from ..schemes import parse
from ..warehouse import Warehouse, transaction
from . import learned as L
from . import load_jobs, _trace_row


def _users(frame: pl.DataFrame, jobs: pl.DataFrame, vocab: dict, offset: int | None) -> dict:
    """Each user's last LAST_K completed jobs (newest first) and last end, in
    the clock of `predict` (Unix seconds when the trace has them)."""
    names = vocab["user"]
    done = frame.filter(pl.col("end").is_not_null() & pl.col("run").is_not_null() & pl.col("user").is_not_null())
    done = done.sort("end", "submit", "job_id", descending=[True, True, True])
    out = {}
    for (code,), g in done.group_by(["user"], maintain_order=True):
        last = g.head(L.LAST_K)
        runs = last["run"].cast(pl.Float64).to_list()
        reqs = last["req_s"].to_list()
        out[names[int(code)]] = {
            "runs": runs, "ratios": [None if q is None else r / q for r, q in zip(runs, reqs)],
            "last_end": float(last["end"][0] + (offset or 0)),
            # Gaussier et al.'s user features over the whole history, as features() builds them
            "mean_run": float(g["run"].cast(pl.Float64).mean()),
            "mean_procs": g["procs"].drop_nulls().mean()}
    return out


def build(wh: Warehouse, trace: str, spec: str) -> tuple[Path, dict]:
    """Train the model of ``trace`` under ``spec`` and store it in the
    warehouse; returns (its directory, its spec dict)."""
    scheme = parse(spec, "--scheme")
    if scheme.name != "learned":
        raise WalltimeError(f'--scheme "{quote(spec)}": export-model needs a learned:... scheme')
    if not wh.exists():
        wh.reader()  # the one-line "no warehouse here yet" error
    with wh.lock():
        con = wh.reader()
        try:
            sha, _ = _trace_row(con, trace)
            jobs = load_jobs(con, trace)
        finally:
            con.close()
        frame, vocab = L.features(jobs)
        order = L.training_rows(frame)[-scheme["window"]:]
        if len(order) < L.MIN_TRAIN:
            raise WalltimeError(f'trace "{trace}": {len(order)} completed jobs; a model needs {L.MIN_TRAIN}')
        x = L.matrix(frame)[order]
        run = frame["run"].to_numpy()[order].astype(np.float64)
        q, loss = scheme["q"], scheme["loss"]
        tasks = {"mid": (x, run, loss, q, scheme["under"], scheme["trees"]),
                 **{part: (x, run, "quantile", band_q, 1.0, scheme["trees"])
                    for part, band_q in zip(("lo", "hi"), L.BAND)}}
        models = dict(zip(tasks, L.train_many(list(tasks.values()))))
        offset = None
        if "submit_epoch" in jobs.columns and jobs["submit_epoch"].null_count() < len(jobs):
            first = jobs.filter(pl.col("submit_epoch").is_not_null()).row(0, named=True)
            offset = int(first["submit_epoch"] - first["submit"])
        doc = {"trace": trace, "scheme": scheme.canonical, "trace_sha256": sha, "jobs": int(len(order)),
               "features": list(L.FEATURES), "categorical": list(L.CATEGORICAL), "vocab": vocab,
               "last_k": L.LAST_K, "band": list(L.BAND), "clock": "unix" if offset is not None else "trace",
               "init": {p: float(models[p][1]) for p in models},
               "users": _users(frame, jobs, vocab, offset), "tz": L.local_zone(jobs),
               "label": "log(1 + run seconds); estimate = exp(prediction + init) - 1, capped at the request"}
        final = model_dir(wh.root, trace)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-model-", dir=final.parent))
        try:
            for p, (booster, _) in models.items():
                booster.save_model(str(tmp / f"{p}.txt"))
            (tmp / SPEC).write_text(json.dumps(doc))
            shutil.rmtree(final, ignore_errors=True)
            tmp.rename(final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        with wh.writer() as wcon, transaction(wcon):
            row = [trace, scheme.canonical, str(final.relative_to(wh.root)), sha, len(order),
                   datetime.now(timezone.utc)]
            forget, insert = sqlfiles.statements("learned_model_store")
            wcon.execute(forget, row[:1])
            wcon.execute(insert, row)
    return final, doc


def export(final: Path, out: Path) -> None:
    """Copy a model directory to ``out`` (created; files replaced)."""
    if out.exists() and not out.is_dir():
        raise WalltimeError(f"--out {quote(out)}: is a file, not a directory")
    out.mkdir(parents=True, exist_ok=True)
    for f in final.iterdir():
        shutil.copyfile(f, out / f.name)
