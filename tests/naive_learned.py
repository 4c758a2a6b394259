"""Plain-Python twin of pipeline/estimates/learned.py: every feature of every
job rebuilt from scratch from the list of jobs (O(n^2)), and the walk-forward
rebuilt period by period (a fresh model for every period, no reuse), with the
same LightGBM settings. Compared job by job in tests/test_learned.py."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import numpy as np

from pipeline.estimates.learned import CATEGORICAL, FEATURES, LAST_K, MIN_TRAIN, train


def _name(job, name):
    v = job.get(name, None) if name in job else job.get(CATEGORICAL[name])
    return None if v is None else str(v)


def _history(jobs, j, user):
    """The user's jobs in j's history (end and run known, end <= submit_j,
    submit < submit_j), oldest first by (end, submit, job_id)."""
    out = [k for k in jobs if _name(k, "user") == user and k["end"] is not None and k["run"] is not None
           and k["end"] <= j["submit"] and k["submit"] < j["submit"]]
    return sorted(out, key=lambda k: (k["end"], k["submit"], k["job_id"]))


def features(jobs: list[dict]) -> dict[int, dict]:
    """job_id -> {feature: value or None}."""
    codes = {name: {} for name in CATEGORICAL}
    for job in sorted(jobs, key=lambda k: (k["submit"], k["job_id"])):
        for name in CATEGORICAL:
            v = _name(job, name)
            if v is not None and v not in codes[name]:
                codes[name][v] = len(codes[name])
    out = {}
    for j in jobs:
        row = {name: codes[name].get(_name(j, name)) for name in CATEGORICAL}
        row["req"] = j["req"]
        for c in ("procs", "nodes", "gpus"):
            row[c] = j.get(c)
        clock = j.get("submit_epoch")
        clock = j["submit"] if clock is None else clock
        tz = next((k["tz"] for k in jobs if k.get("tz") is not None), None)
        if tz is None:
            row["hour"] = (clock // 3600) % 24
            row["weekday"] = (clock // 86400 + 3) % 7
        else:  # the wall clock of the trace's zone (Python's zoneinfo, not Polars)
            local = datetime.fromtimestamp(clock, timezone.utc).astimezone(ZoneInfo(tz))
            row["hour"], row["weekday"] = local.hour, local.weekday()
        user = _name(j, "user")
        hist = [] if user is None else _history(jobs, j, user)
        row["user_mean_run"] = sum(k["run"] for k in hist) / len(hist) if hist else None
        sizes = [k["procs"] for k in hist if k.get("procs") is not None]
        row["procs_ratio"] = None if not sum(sizes) or j.get("procs") is None else j["procs"] / (sum(sizes) / len(sizes))
        last = hist[::-1][:LAST_K]
        for i in range(LAST_K):
            k = last[i] if i < len(last) else None
            row[f"last_run_{i + 1}"] = None if k is None else k["run"]
            row[f"last_ratio_{i + 1}"] = None if k is None or k["req"] is None else k["run"] / k["req"]
        row["since_last"] = None if not last else j["submit"] - last[0]["end"]
        mine = [] if user is None else [
            k for k in jobs if _name(k, "user") == user and k["end"] is not None and k["run"] is not None
            and k["submit"] < j["submit"] and k["end"] - k["run"] <= j["submit"] < k["end"]]
        row["running"] = None if user is None else len(mine)
        row["running_procs"] = None if user is None else sum(k.get("procs") or 0 for k in mine)
        out[j["job_id"]] = row
    return out


def _x(rows):
    return np.array([[math.nan if r[f] is None else float(r[f]) for f in FEATURES] for r in rows])


def walk_forward(jobs: list[dict], q, loss, under, retrain, window, trees) -> dict[int, tuple]:
    """job_id -> (est, hist): each job's model trained from scratch on the last
    ``window`` jobs completed by the start of its period."""
    feats = features(jobs)
    out, models = {}, {}
    for j in jobs:
        p = (j["submit"] // retrain) * retrain
        train_jobs = sorted((k for k in jobs if k["end"] is not None and k["run"] is not None
                             and k["end"] <= p and k["submit"] < p),
                            key=lambda k: (k["end"], k["submit"], k["job_id"]))[-window:]
        if j["submit"] < retrain or len(train_jobs) < MIN_TRAIN:
            out[j["job_id"]] = (None if j["req"] is None else float(j["req"]), 0)
            continue
        if p not in models:
            models[p] = train(_x([feats[k["job_id"]] for k in train_jobs]),
                              [k["run"] for k in train_jobs], loss, q, under, trees)
        booster, init = models[p]
        est = math.expm1(max(booster.predict(_x([feats[j["job_id"]]]), num_threads=2)[0] + init, 0.0))
        if j["req"] is not None:
            est = min(est, float(j["req"]))
        out[j["job_id"]] = (est, len(train_jobs))
    return out
