"""A learned model a site can deploy: read its directory, predict jobs (`predict`).

A model directory (written by pipeline/estimates/deploy.py: `export-model`,
and under ``<warehouse>/models/<dir>/``, :func:`model_dir`) holds ``spec.json``
(features, categorical vocabularies, each user's history at the end of the
trace, the scheme, the sha256 of each model file) and three LightGBM text
models: ``mid.txt`` (the scheme's estimate) and ``lo.txt`` / ``hi.txt``
(quantiles 0.1 and 0.9: the band). :func:`read_model_dir` checks all of it
before LightGBM sees any (a tampered tree made LightGBM crash, a
FIFO or a link cycle made it hang), and LightGBM reads the checked bytes.

Why ctypes on LightGBM's own C library instead of ``import lightgbm``: the
Python package imports SciPy (1.7 s here), which would make a one-job
`walltime predict` miss its 0.3 s aim; the C API (LGBM_BoosterCreateFromModelfile,
LGBM_BoosterPredictForMat) is the same library, loaded from the same wheel.
This module imports no Polars, DuckDB or Typer for the same reason.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import re
from pathlib import Path

from .errors import WalltimeError, quote

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see pipeline/estimates/learned.py

# JSON field / option -> feature. Requests: seconds, or Slurm's [D-]HH:MM:SS / MM:SS / minutes "MM".
FIELDS = {"user": "user", "account": "account", "partition": "partition", "qos": "qos",
          "name": "job_name", "request": "req", "processors": "procs", "nodes": "nodes",
          "gpus": "gpus", "submit": None, "running": "running", "running_processors": "running_procs"}
SPEC = "spec.json"
PARTS = ("lo", "mid", "hi")


MAX_SPAN = 200 * 365 * 86400 + 49 * 86400  # 200 years of seconds, as pipeline/ingest/ranges.py
MAX_SUBMIT = 253402214399  # 9999-12-30 23:59:59 UTC: still year 9999 on every zone's wall clock
MAX_COUNT = 2 ** 53  # processors, nodes, ...: integers a float64 holds exactly
SPAN_WHY = f"at most 200 years ({MAX_SPAN:,} s)"


class _Big(float):
    """A JSON integer of more than 18 digits (json's ``parse_int``): its float
    value (inf beyond 1e308) and its length, for the message (Python refuses to
    convert more than 4,300 digits to an int at all)."""

    digits: int


def _parse_int(text: str):
    if len(text) <= 18:
        return int(text)
    big = _Big(float(text))
    big.digits = len(text.lstrip("-"))
    return big


def loads(line: str):
    """One JSON value with integers of any length (see :class:`_Big`)."""
    return json.loads(line, parse_int=_parse_int)


def _show(value) -> str:
    """A value for a message: JSON, or the length of a huge number."""
    if isinstance(value, _Big):
        return f"a number of {value.digits:,} digits"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    return quote(json.dumps(value))


def parse_request(value, where: str) -> float | None:
    """Seconds from an int/float or a Slurm time string ([D-]HH:MM:SS, MM:SS,
    MM minutes), positive and at most 200 years (as every reader of walltime)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise WalltimeError(f'{where}: request "{value}" must be seconds or [D-]HH:MM:SS')
    if isinstance(value, (int, float)):
        try:
            secs = float(value)
        except OverflowError:
            secs = math.inf
        if not math.isfinite(secs) or secs > MAX_SPAN:
            raise WalltimeError(f"{where}: request {_show(value)} must be {SPAN_WHY}")
        if secs <= 0:
            raise WalltimeError(f"{where}: request {_show(value)} must be a positive number of seconds")
        return secs
    m = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", str(value).strip())
    if not m:
        raise WalltimeError(f'{where}: request "{quote(value)}" must be seconds or [D-]HH:MM:SS')
    if any(x is not None and len(x) > 12 for x in m.groups()):
        raise WalltimeError(f'{where}: request "{quote(value)}" must be {SPAN_WHY}')
    d, a, b, c = (int(x) if x else None for x in m.groups())
    if c is not None:
        secs = a * 3600 + b * 60 + c
    elif b is not None:
        secs = a * 60 + b if d is None else a * 3600 + b * 60
    else:
        secs = a * 60 if d is None else a * 3600  # Slurm: "MM" is minutes, "D-HH" hours
    secs += (d or 0) * 86400
    if secs <= 0:
        raise WalltimeError(f'{where}: request "{quote(value)}" must be positive')
    if secs > MAX_SPAN:
        raise WalltimeError(f'{where}: request "{quote(value)}" must be {SPAN_WHY}')
    return float(secs)


def _number(value, where: str, field: str) -> float | None:
    if value is None:
        return None
    top, why = (MAX_SUBMIT, "Unix seconds before the year 10000") if field == "submit" else (MAX_COUNT, "a count")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WalltimeError(f'{where}: field "{field}" must be a number >= 0, not {_show(value)}')
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    if not math.isfinite(x) or x < 0 or x > top:
        raise WalltimeError(f'{where}: field "{field}" must be a number from 0 to {top:,} ({why}), '
                            f"not {_show(value)}")
    return x


def check_job(job: dict, where: str) -> dict:
    """A job as given (JSON object or options): known fields only, typed, in range."""
    if not isinstance(job, dict):
        raise WalltimeError(f"{where}: not a JSON object")
    for k in job:
        if k not in FIELDS:
            raise WalltimeError(f'{where}: unknown field "{quote(k)}" (known: {", ".join(FIELDS)})')
    out = {}
    for k, v in job.items():
        if k == "request":
            out[k] = parse_request(v, where)
        elif k in ("user", "account", "partition", "qos", "name"):
            if v is not None and (isinstance(v, (bool, _Big)) or not isinstance(v, (str, int))):
                raise WalltimeError(f'{where}: field "{k}" must be a name, not {_show(v)}')
            out[k] = None if v is None else str(v)
        else:
            out[k] = _number(v, where, k)
    return out


class _Lib:
    """LightGBM's C library, from the installed wheel (found without importing it)."""

    def __init__(self):
        import importlib.util

        spec = importlib.util.find_spec("lightgbm")
        if spec is None or not spec.submodule_search_locations:
            raise WalltimeError("predict: the lightgbm package is not installed (pip install lightgbm)")
        base = Path(list(spec.submodule_search_locations)[0])
        for name in ("lib/lib_lightgbm.so", "lib_lightgbm.so", "lib/lib_lightgbm.dylib", "lib/lib_lightgbm.dll"):
            if (base / name).exists():
                self.lib = ctypes.cdll.LoadLibrary(str(base / name))
                self.lib.LGBM_GetLastError.restype = ctypes.c_char_p
                # LightGBM logs on stdout, which is ours (the answers): a log callback that drops it
                self._quiet = ctypes.CFUNCTYPE(None, ctypes.c_char_p)(lambda msg: None)
                self.lib.LGBM_RegisterLogCallback(self._quiet)
                break
        else:
            raise WalltimeError(f"predict: LightGBM's library not found under {base}")

    def load(self, text: bytes, path: Path, nfeat: int):
        """A booster from a model's text (read and checked by :func:`read_model_dir`,
        so LightGBM never opens a file itself); its feature count must be ``nfeat``."""
        handle, iters, got = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_int()
        if self.lib.LGBM_BoosterLoadModelFromString(ctypes.c_char_p(text), ctypes.byref(iters),
                                                    ctypes.byref(handle)):
            raise WalltimeError(f"{path}: not a LightGBM model ({quote(self.lib.LGBM_GetLastError().decode())})")
        if self.lib.LGBM_BoosterGetNumFeature(handle, ctypes.byref(got)) or got.value != nfeat:
            raise WalltimeError(f"{path}: the model has {got.value} features, spec.json lists {nfeat}; "
                                "re-run `walltime export-model`")
        return handle

    def predict(self, handle, flat, nrow: int, ncol: int) -> list[float]:
        """Raw scores of ``nrow`` rows of ``flat`` (a row-major float64
        ``array.array``: no NumPy import, 0.2-0.4 s of a one-job `predict`).
        One call for the whole batch; LightGBM's 2 threads over rows for a
        large batch, 1 for a few (a thread team costs more than it saves)."""
        buf = (ctypes.c_double * (nrow * ncol)).from_buffer(flat)
        out = (ctypes.c_double * nrow)()
        n = ctypes.c_int64()
        threads = b"num_threads=2" if nrow >= 2000 else b"num_threads=1"
        rc = self.lib.LGBM_BoosterPredictForMat(
            handle, ctypes.cast(buf, ctypes.c_void_p), ctypes.c_int(1), ctypes.c_int32(nrow),
            ctypes.c_int32(ncol), ctypes.c_int(1), ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(-1),
            threads, ctypes.byref(n), out)
        if rc:
            raise WalltimeError(f"predict: LightGBM failed ({self.lib.LGBM_GetLastError().decode()})")
        return list(out)


MAX_SPEC_BYTES = 256 << 20  # spec.json: vocabularies and user histories of a large trace are a few MB
MAX_MODEL_BYTES = 256 << 20  # one LightGBM text model: 5,000 trees (the most a scheme allows) of 31 leaves ~ 20 MB
_KEYS = {"trace": str, "scheme": str, "features": list, "vocab": dict, "last_k": int, "band": list,
         "init": dict, "users": dict, "sha256": dict}


def _open_regular(dirfd: int, name: str, limit: int, where: Path) -> bytes:
    """The bytes of ``name`` in the directory ``dirfd``: a regular file (not a
    link, FIFO, device or directory) of at most ``limit`` bytes, or one line."""
    import errno
    import stat

    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dirfd)
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise WalltimeError(f"{where}: missing; re-run `walltime export-model`") from None
        if e.errno in (errno.ELOOP, errno.EMLINK):
            raise WalltimeError(f"{where}: is a symbolic link; a model directory holds regular files only "
                                "(re-run `walltime export-model`)") from None
        raise WalltimeError(f"{where}: cannot read it: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise WalltimeError(f"{where}: is not a regular file (a directory, FIFO, socket or device); "
                                "re-run `walltime export-model`")
        if st.st_size > limit:
            raise WalltimeError(f"{where}: {st.st_size:,} bytes, more than a model file holds "
                                f"({limit:,}); re-run `walltime export-model`")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise WalltimeError(f"{where}: more than {limit:,} bytes; re-run `walltime export-model`")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise WalltimeError(f"{where}: cannot read it: {e.strerror or e}") from None
    finally:
        os.close(fd)


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_spec(spec, path: Path, label: str, again: str, trace: str | None = None) -> dict:
    """``spec.json`` as export-model writes it: the keys predict reads, with
    their types (a user's history is checked when it is used: :meth:`Model.history`)."""
    def bad(what: str):
        raise WalltimeError(f"{path}: not a model spec written by `walltime export-model` ({what}); {again}")

    if not isinstance(spec, dict):
        bad("not a JSON object")
    if trace is not None and isinstance(spec.get("trace"), str) and spec["trace"] != trace:
        raise WalltimeError(f'{label}: no trained model ({path.parent} holds the model of trace '
                            f'"{quote(spec["trace"])}"); run `walltime export-model`')
    if "sha256" not in spec and all(k in spec for k in _KEYS if k != "sha256"):
        raise WalltimeError(f"{label}: exported by an older walltime, without file digests; {again}")
    for k, t in _KEYS.items():
        if k not in spec:
            bad(f'no "{k}"')
        if not isinstance(spec[k], t) or isinstance(spec[k], bool):
            bad(f'"{k}" is not a {t.__name__}')
    feats = spec["features"]
    if not feats or len(feats) > 10_000 or not all(isinstance(f, str) for f in feats) or len(set(feats)) < len(feats):
        bad('"features" must be distinct names')
    for k, names in spec["vocab"].items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            bad(f'"vocab" "{quote(k)}" must be a list of names')
    if not 0 <= spec["last_k"] <= 1000:
        bad('"last_k" out of range')
    if len(spec["band"]) != 2 or not all(_finite(q) and 0 <= q <= 1 for q in spec["band"]):
        bad('"band" must be two quantiles')
    if not all(_finite(spec["init"].get(p)) for p in PARTS):
        bad('"init" must give lo, mid and hi')
    if not all(isinstance(spec["sha256"].get(f"{p}.txt"), str) and re.fullmatch(r"[0-9a-f]{64}",
               spec["sha256"][f"{p}.txt"]) for p in PARTS):
        bad('"sha256" must give the digest of lo.txt, mid.txt and hi.txt')
    if not isinstance(spec.get("tz"), (str, type(None))):
        bad('"tz" must be a zone name')
    return spec


_SPLIT = re.compile(rb"^split_feature=(.*)$", re.M)
_MAXF = re.compile(rb"^max_feature_idx=(\d+)$", re.M)


def check_model_text(text: bytes, path: Path, nfeat: int) -> None:
    """What LightGBM would crash on rather than refuse (a digest can be
    rewritten with the file): a split on a feature the rows do not have
    (SIGSEGV), a file cut before its end (SIGABRT)."""
    m = _MAXF.search(text)
    if not text.startswith(b"tree\n") or not m or int(m.group(1)) != nfeat - 1 or b"\nend of trees\n" not in text:
        raise WalltimeError(f"{path}: not a whole LightGBM model of {nfeat} features; re-run `walltime export-model`")
    for line in _SPLIT.findall(text):
        for x in line.split():
            if not x.isdigit() or int(x) >= nfeat:
                raise WalltimeError(f"{path}: a tree splits on feature {quote(x)}, not among the {nfeat} features; "
                                    "re-run `walltime export-model`")


def read_model_dir(directory: Path, label: str, again: str, follow: bool = True,
                   trace: str | None = None) -> tuple[dict, dict]:
    """(spec, {part: model text}) of a model directory, checked before
    LightGBM sees any of it: regular files only (no link, FIFO or device, so
    nothing hangs or reads elsewhere), sizes bounded, spec.json's keys and
    types, each model's sha256 against the one export-model wrote into
    spec.json, and its feature indices. ``follow``: whether ``directory``
    itself may be a link (a user's --model may; a warehouse's models/<dir> may not).
    ``trace``: the trace whose model this must be."""
    import errno
    import hashlib

    directory = Path(directory)
    try:
        dirfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise WalltimeError(f"{label}: no trained model (no {directory}); run `walltime export-model`") from None
        if e.errno == errno.ELOOP or (e.errno == errno.ENOTDIR and not follow and directory.is_symlink()):
            raise WalltimeError(f"{directory}: is a symbolic link{' loop' if follow else ''}; {again}") from None
        if e.errno == errno.ENOTDIR:
            raise WalltimeError(f"{directory}: not a model directory (not a directory); {again}") from None
        raise WalltimeError(f"{directory}: cannot read it: {e.strerror or e}") from None
    try:
        raw = _open_regular(dirfd, SPEC, MAX_SPEC_BYTES, directory / SPEC)
        try:
            spec = loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as e:
            raise WalltimeError(f"{directory / SPEC}: not a model spec ({quote(e)}); {again}") from None
        check_spec(spec, directory / SPEC, label, again, trace)
        texts = {}
        for p in PARTS:
            name = f"{p}.txt"
            text = _open_regular(dirfd, name, MAX_MODEL_BYTES, directory / name)
            if hashlib.sha256(text).hexdigest() != spec["sha256"][name]:
                raise WalltimeError(f"{directory / name}: its sha256 is not the one spec.json gives "
                                    f"(changed since export); {again}")
            check_model_text(text, directory / name, len(spec["features"]))
            texts[p] = text
        return spec, texts
    finally:
        os.close(dirfd)


class Model:
    """A model directory, loaded (checked by :func:`read_model_dir` first)."""

    def __init__(self, directory: Path, label: str, trace: str | None = None):
        self.dir = Path(directory)
        again = (f"re-run `walltime export-model {trace}`" if trace is not None
                 else "re-export it with `walltime export-model TRACE --out DIR`")
        self.spec, texts = read_model_dir(self.dir, label, again, follow=trace is None, trace=trace)
        self.features = self.spec["features"]
        self.codes = {k: {name: i for i, name in enumerate(v)} for k, v in self.spec["vocab"].items()}
        self.lib = _Lib()
        self.handles = {p: self.lib.load(texts[p], self.dir / f"{p}.txt", len(self.features)) for p in PARTS}

    def history(self, user: str) -> dict:
        """spec.json's history of ``user`` ({} when none), checked: lists of
        numbers or nulls, numbers or nulls."""
        hist = self.spec["users"].get(user, {})
        ok = isinstance(hist, dict) and all(
            isinstance(hist.get(k, []), list) and all(v is None or _finite(v) for v in hist.get(k, []))
            for k in ("runs", "ratios")) and all(
            hist.get(k) is None or _finite(hist[k]) for k in ("last_end", "mean_run", "mean_procs"))
        if not ok:
            raise WalltimeError(f'{self.dir / SPEC}: users "{quote(user)}" is not a history written by '
                                "`walltime export-model`; re-run it")
        return hist

    def row(self, job: dict, now: float) -> list[float]:
        """The feature row of a checked job: names coded with the trace's
        vocabularies (unseen: missing), history from the user's last jobs."""
        f = {FIELDS[k]: v for k, v in job.items() if FIELDS[k] is not None}
        submit = job.get("submit")
        submit = now if submit is None else submit
        for k in self.codes:
            f[k] = self.codes[k].get(f.get(k)) if f.get(k) is not None else None
        f["hour"], f["weekday"] = self.clock(submit)
        f.setdefault("running", 0.0)
        f.setdefault("running_procs", 0.0)
        hist = self.history(job.get("user") or "")
        for i in range(self.spec["last_k"]):
            runs, ratios = hist.get("runs", []), hist.get("ratios", [])
            f[f"last_run_{i + 1}"] = runs[i] if i < len(runs) else None
            f[f"last_ratio_{i + 1}"] = ratios[i] if i < len(ratios) else None
        last_end = hist.get("last_end")
        f["since_last"] = None if last_end is None else max(submit - last_end, 0.0)
        f["user_mean_run"] = hist.get("mean_run")
        mean_procs = hist.get("mean_procs")
        f["procs_ratio"] = None if f.get("procs") is None or not mean_procs else f["procs"] / mean_procs
        return [math.nan if f.get(k) is None else float(f[k]) for k in self.features]

    def clock(self, submit: float) -> tuple[float, float]:
        """(hour, weekday with Monday 0) of a submission on the trace's wall clock (spec "tz", as
        learned.features() reads it; UTC for a model without one)."""
        tz = self._zone()
        if tz is None:
            return float((int(submit) // 3600) % 24), float((int(submit) // 86400 + 3) % 7)
        from datetime import datetime

        t = datetime.fromtimestamp(int(submit), tz)
        return float(t.hour), float(t.weekday())

    def _zone(self):
        if not hasattr(self, "_tz"):
            name = self.spec.get("tz")
            self._tz = None
            if name:
                from zoneinfo import ZoneInfo

                try:
                    self._tz = ZoneInfo(name)
                except (KeyError, ValueError, OSError):
                    self._tz = None
        return self._tz

    def matrix(self, jobs: list[dict], now: float):
        """The feature rows of checked jobs as one row-major float64
        ``array.array``: :meth:`row` for every job, with each user's history
        features looked up once (tests/test_deploy.py compares the two job by job)."""
        from array import array

        nan = math.nan
        feats = self.features
        pos = {k: i for i, k in enumerate(feats)}
        names = [(pos[k], self.codes[k], src) for src, k in FIELDS.items() if k in self.codes and k in pos]
        nums = [(pos[k], src) for src, k in FIELDS.items() if k is not None and k not in self.codes and k in pos]
        run_at, hour_at, day_at, since_at = (pos.get(k) for k in ("running", "hour", "weekday", "since_last"))
        rproc_at, mean_at, ratio_at, procs_at = (pos.get(k) for k in ("running_procs", "user_mean_run",
                                                                    "procs_ratio", "procs"))
        k_last = self.spec["last_k"]
        hists = {}
        out = array("d")
        for job in jobs:
            row = [nan] * len(feats)
            for i, codes, src in names:
                v = job.get(src)
                if v is not None:
                    c = codes.get(v)
                    if c is not None:
                        row[i] = float(c)
            for i, src in nums:
                v = job.get(src)
                if v is not None:
                    row[i] = float(v)
            if run_at is not None and "running" not in job:
                row[run_at] = 0.0
            if rproc_at is not None and "running_processors" not in job:
                row[rproc_at] = 0.0
            submit = job.get("submit")
            submit = now if submit is None else submit
            hour, day = self.clock(submit)
            if hour_at is not None:
                row[hour_at] = hour
            if day_at is not None:
                row[day_at] = day
            user = job.get("user") or ""
            cached = hists.get(user)
            if cached is None:
                hist = self.history(user)
                runs, ratios = hist.get("runs", []), hist.get("ratios", [])
                cached = [(pos[f"{name}_{i + 1}"], float(vals[i])) for name, vals in
                          (("last_run", runs), ("last_ratio", ratios)) for i in range(min(k_last, len(vals)))
                          if f"{name}_{i + 1}" in pos and vals[i] is not None], hist.get("last_end"), hist
                hists[user] = cached
            for i, v in cached[0]:
                row[i] = v
            if since_at is not None and cached[1] is not None:
                row[since_at] = float(max(submit - cached[1], 0.0))
            hist = cached[2]
            if mean_at is not None and hist.get("mean_run") is not None:
                row[mean_at] = float(hist["mean_run"])
            mean_procs = hist.get("mean_procs")
            if ratio_at is not None and mean_procs and procs_at is not None and row[procs_at] == row[procs_at]:
                row[ratio_at] = row[procs_at] / mean_procs
            out.extend(row)
        return out

    def predict(self, jobs: list[dict], now: float) -> list[dict]:
        """Per job: est (seconds), lo and hi (the band), each capped at the request."""
        if not jobs:
            return []
        flat = self.matrix(jobs, now)
        n = len(self.features)
        out = {p: self.lib.predict(self.handles[p], flat, len(jobs), n) for p in PARTS}
        init = self.spec["init"]
        expm1 = math.expm1
        res = []
        for i, job in enumerate(jobs):
            req = job.get("request")
            vals = {}
            for p in PARTS:
                v = expm1(max(out[p][i] + init[p], 0.0))
                vals[p] = v if req is None else min(v, req)
            lo, hi = min(vals["lo"], vals["mid"]), max(vals["hi"], vals["mid"])
            res.append({"est": vals["mid"], "lo": lo, "hi": hi, "request": req})
        return res


_SAFE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")


def model_dir(warehouse: Path, trace: str) -> Path:
    """Where the warehouse keeps a trace's model (beside the DuckDB file):
    ``models/<trace>`` when the name is a plain file name (letters, digits,
    ``_ . -``, not starting with a dot, at most 100 characters), otherwise
    the name with every other character made ``_`` (cut to 60) and ``@`` and
    16 hex digits of the exact name's sha256: one directory per trace
    (``a+b`` and ``a_b`` no longer share ``a_b``), and never ``.``, ``..``
    or a ``.tmp-*`` name. No plain name holds ``@``, so the two kinds never meet."""
    import hashlib

    if _SAFE.fullmatch(trace):
        name = trace
    else:
        tag = hashlib.sha256(trace.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        name = f"{re.sub(r'[^A-Za-z0-9_.-]', '_', trace)[:60]}@{tag}"
    return Path(warehouse) / "models" / name


def legacy_model_dir(warehouse: Path, trace: str) -> Path:
    """Where earlier versions of walltime kept the model of a trace whose name
    needed changing (``a+b`` -> ``a_b``, shared with trace ``a_b``)."""
    return Path(warehouse) / "models" / re.sub(r"[^A-Za-z0-9_.-]", "_", trace)


def legacy_holds(d: Path, trace: str, without_digests: bool = False) -> bool:
    """Whether ``d`` is a real directory (not a link) whose spec.json -- a
    regular file, read without following a link or waiting on a FIFO -- says
    it holds ``trace``'s model; ``without_digests``: one written by an earlier walltime, without the files' digests."""
    import stat

    try:
        st = os.lstat(d / SPEC)
        if not stat.S_ISDIR(os.lstat(d).st_mode) or not stat.S_ISREG(st.st_mode) or st.st_size > (64 << 20):
            return False
        spec = json.loads((d / SPEC).read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(spec, dict) and spec.get("trace") == trace and not (without_digests and "sha256" in spec)
