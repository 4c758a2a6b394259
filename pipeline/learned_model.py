"""A learned model a site can deploy: read its directory, predict jobs (`predict`).

A model directory (written by pipeline/estimates/deploy.py: `export-model`,
and under ``<warehouse>/models/<trace>/``) holds ``spec.json`` (features,
categorical vocabularies, each user's history at the end of the trace, the
scheme) and three LightGBM text models: ``mid.txt`` (the scheme's estimate)
and ``lo.txt`` / ``hi.txt`` (quantiles 0.1 and 0.9: the band).

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


def parse_request(value, where: str) -> float | None:
    """Seconds from an int/float or a Slurm time string ([D-]HH:MM:SS, MM:SS, MM minutes)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise WalltimeError(f'{where}: request "{value}" must be seconds or [D-]HH:MM:SS')
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value <= 0:
            raise WalltimeError(f"{where}: request {value} must be a positive number of seconds")
        return float(value)
    m = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", str(value).strip())
    if not m:
        raise WalltimeError(f'{where}: request "{quote(value)}" must be seconds or [D-]HH:MM:SS')
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
    return float(secs)


def _number(value, where: str, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise WalltimeError(f'{where}: field "{field}" must be a number >= 0, not {quote(json.dumps(value))}')
    return float(value)


def check_job(job: dict, where: str) -> dict:
    """A job as given (JSON object or options): known fields only, typed."""
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
            if v is not None and not isinstance(v, (str, int)):
                raise WalltimeError(f'{where}: field "{k}" must be a name, not {quote(json.dumps(v))}')
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
                break
        else:
            raise WalltimeError(f"predict: LightGBM's library not found under {base}")

    def load(self, path: Path):
        handle, iters = ctypes.c_void_p(), ctypes.c_int()
        if self.lib.LGBM_BoosterCreateFromModelfile(str(path).encode(), ctypes.byref(iters), ctypes.byref(handle)):
            raise WalltimeError(f"{path}: not a LightGBM model ({self.lib.LGBM_GetLastError().decode()})")
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


class Model:
    """A model directory, loaded."""

    def __init__(self, directory: Path, label: str):
        self.dir = Path(directory)
        path = self.dir / SPEC
        if not path.is_file():
            raise WalltimeError(f"{label}: no trained model (no {path}); run `walltime export-model`")
        try:
            self.spec = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise WalltimeError(f"{path}: not a model spec ({e})") from None
        self.features = self.spec["features"]
        self.codes = {k: {name: i for i, name in enumerate(v)} for k, v in self.spec["vocab"].items()}
        self.lib = _Lib()
        self.handles = {p: self.lib.load(self.dir / f"{p}.txt") for p in PARTS}

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
        hist = self.spec["users"].get(job.get("user") or "", {})
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
        users = self.spec["users"]
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
                hist = users.get(user, {})
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


def model_dir(warehouse: Path, trace: str) -> Path:
    """Where the warehouse keeps a trace's model (beside the DuckDB file)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", trace)
    return Path(warehouse) / "models" / safe
