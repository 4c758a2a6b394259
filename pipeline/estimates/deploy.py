"""Train the deployable learned model of a trace (`walltime export-model`).

The model is the ``learned`` scheme's final state: trained on the last
``window`` jobs of the trace that completed (the walk-forward's next period),
plus two quantile models (0.1 and 0.9, pipeline/estimates/learned.py BAND)
for the band `walltime predict` prints. Written with each user's last jobs
(for the history features) into a directory pipeline/learned_model.py reads;
kept in ``<warehouse>/models/<dir>/`` (pipeline/learned_model.py model_dir;
table ``learned_models``) and copied to ``--out DIR`` when asked.

Order of work: every output is checked before any training (a
refused ``--out`` leaves the warehouse as it was); the model is written into
a new ``models/.tmp-model-*`` directory (and ``--out``'s files under
temporary names), then the catalogue row commits in the warehouse's one
transaction, then the directories are swapped in. Nothing is written through
a link: ``models``, the trace's directory and ``--out``'s four files must
not be links. A kill at any point (kill points ``model-writing``,
``model-staged``, ``after-commit``, ``model-swap``) is mended by the next
export-model: the lock removes the temporaries, and every catalogue row is
rewritten from the files its directory holds (or dropped when it holds none).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import polars as pl

from .. import sqlfiles
from ..errors import WalltimeError, quote
from ..checks import check_out_dir, open_new
from ..learned_model import PARTS, SPEC, legacy_holds, legacy_model_dir, model_dir, read_model_dir
from ..transactions import fault_hook
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


FILES = (SPEC, *(f"{p}.txt" for p in PARTS))


def check_out(out: Path) -> Path:
    """``--out``: a directory we may create or write into, whose model files,
    where they exist, are regular files (not links: never written through)."""
    out = check_out_dir(out, "--out")
    if out.is_dir():
        for name in FILES:
            _regular_or_missing(out / name, f"--out {quote(out)}: {name}")
    return out


def _regular_or_missing(path: Path, what: str) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise WalltimeError(f"{what} is a symbolic link; walltime writes no file through a link "
                            "(remove it, or choose another directory)")
    if not stat.S_ISREG(mode):
        raise WalltimeError(f"{what} is not a regular file; remove it, or choose another directory")


def _real_dir_or_missing(path: Path) -> bool:
    """Whether ``path`` is a directory (not a link to one); missing: False; else one line."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode):
        raise WalltimeError(f"{path}: is a symbolic link; walltime writes models only into directories it "
                            "made (remove the link)")
    if not stat.S_ISDIR(mode):
        raise WalltimeError(f"{path}: is not a directory; remove it (walltime keeps its models there)")
    return True


def _write_new(path: Path, data: bytes) -> None:
    """A new file (``O_EXCL | O_NOFOLLOW``) in a directory we just made."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _mend(wh: Warehouse, con) -> None:
    """In the open transaction: make every ``learned_models`` row say what
    its directory holds (a kill between the COMMIT and the swap leaves the
    row ahead of the files), or drop it when the directory holds no valid
    model (a kill before the swap of a first export)."""
    forget, insert = sqlfiles.statements("learned_model_store")
    for trace, rel, trained_at in con.execute("SELECT trace, dir, trained_at FROM learned_models").fetchall():
        d = wh.root / rel
        if legacy_holds(d, trace, without_digests=True):
            continue  # exported by an earlier walltime, without digests: predict asks for a re-run; the row stays
        try:
            spec, _ = read_model_dir(d, f'trace "{trace}"', "", follow=False)
            ok = spec["trace"] == trace and d == model_dir(wh.root, trace)
        except WalltimeError:
            ok = False
        con.execute(forget, [trace])
        if ok:
            con.execute(insert, [trace, spec["scheme"], rel, spec.get("trace_sha256", ""), int(spec.get("jobs", 0)),
                                 spec.get("trained_at") or trained_at])


def build(wh: Warehouse, trace: str, spec: str, out: Path | None = None) -> tuple[Path, dict]:
    """Train the model of ``trace`` under ``spec`` and store it in the
    warehouse (and in ``out``, when given); returns (its directory, its spec dict).
    Raises WalltimeError for a bad scheme, trace or output, before writing anything."""
    scheme = parse(spec, "--scheme")
    if scheme.name != "learned":
        raise WalltimeError(f'--scheme "{quote(spec)}": export-model needs a learned:... scheme')
    if out is not None:
        out = check_out(out)
    if not wh.exists():
        wh.reader()  # the one-line "no warehouse here yet" error
    with wh.lock():
        models = wh.root / "models"
        final = model_dir(wh.root, trace)
        if _real_dir_or_missing(models):
            _real_dir_or_missing(final)
            for e in os.scandir(models):  # what a killed export left (the lock removes it too)
                if e.name.startswith(".tmp-model-") and e.is_dir(follow_symlinks=False):
                    shutil.rmtree(e.path, ignore_errors=True)
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
        models_ = dict(zip(tasks, L.train_many(list(tasks.values()))))
        offset = None
        if "submit_epoch" in jobs.columns and jobs["submit_epoch"].null_count() < len(jobs):
            first = jobs.filter(pl.col("submit_epoch").is_not_null()).row(0, named=True)
            offset = int(first["submit_epoch"] - first["submit"])
        texts = {f"{p}.txt": models_[p][0].model_to_string().encode() for p in PARTS}
        trained_at = datetime.now(timezone.utc)
        doc = {"trace": trace, "scheme": scheme.canonical, "trace_sha256": sha, "jobs": int(len(order)),
               "features": list(L.FEATURES), "categorical": list(L.CATEGORICAL), "vocab": vocab,
               "last_k": L.LAST_K, "band": list(L.BAND), "clock": "unix" if offset is not None else "trace",
               "init": {p: float(models_[p][1]) for p in PARTS},
               "users": _users(frame, jobs, vocab, offset), "tz": L.local_zone(jobs),
               "label": "log(1 + run seconds); estimate = exp(prediction + init) - 1, capped at the request",
               "sha256": {name: hashlib.sha256(t).hexdigest() for name, t in texts.items()},
               "trained_at": trained_at.isoformat()}
        texts[SPEC] = json.dumps(doc).encode()
        models.mkdir(exist_ok=True)
        _real_dir_or_missing(models)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-model-", dir=models))
        staged: list[tuple[Path, Path]] = []
        created: list[Path] = []
        try:
            for i, name in enumerate(FILES):
                _write_new(tmp / name, texts[name])
                if i == 0:
                    fault_hook("model-writing")  # tests: a kill while the directory is written
            if out is not None:
                created = _make_dirs(out)
                for name in FILES:
                    part, fh = open_new(out / name)
                    staged.append((part, out / name))
                    with fh:
                        fh.write(texts[name])
            fault_hook("model-staged")  # tests: a kill with everything written, nothing committed
            with wh.writer() as wcon, transaction(wcon):
                _mend(wh, wcon)
                row = [trace, scheme.canonical, str(final.relative_to(wh.root)), sha, len(order), trained_at]
                forget, insert = sqlfiles.statements("learned_model_store")
                wcon.execute(forget, row[:1])
                wcon.execute(insert, row)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            for part, _ in staged:
                part.unlink(missing_ok=True)
            for d in reversed(created):
                with _suppress():
                    d.rmdir()
            raise
        # committed (transaction()'s kill point "after-commit" is here): swap the directories in
        old = None
        if _real_dir_or_missing(final):
            old = models / f".tmp-model-old-{tmp.name[len('.tmp-model-'):]}"
            os.rename(final, old)
            fault_hook("model-swap")  # tests: a kill between the two renames
        os.rename(tmp, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        legacy = legacy_model_dir(wh.root, trace)
        if legacy != final and legacy_holds(legacy, trace):  # this trace's model where an earlier walltime put it
            shutil.rmtree(legacy, ignore_errors=True)
        for part, dest in staged:
            os.replace(part, dest)
    return final, doc


def _make_dirs(path: Path) -> list[Path]:
    """mkdir -p ``path``; returns the directories it made, outermost first."""
    missing = []
    p = path.absolute()
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    path.mkdir(parents=True, exist_ok=True)
    return list(reversed(missing))


def _suppress():
    import contextlib

    return contextlib.suppress(OSError)
