"""Plain-Python twins of every estimator and of the accuracy report.

Obviously correct, slow: for each job, look at every other job of the same
key. Jobs are dicts with job_id, submit, run, req (None = no request, i.e.
req <= 0 or unknown), end, user_id, group_id, exe_id, nodes. The rules are
docs/estimates.md; the fast code is pipeline/estimates.
"""

from __future__ import annotations

import math

KEYS = {
    "user": ("user_id",),
    "project": ("group_id",),
    "user_project": ("user_id", "group_id"),
    "user_project_req": ("user_id", "group_id", "req"),
    "feitelson": ("exe_id", "user_id", "nodes"),
}
QUANT = {"p95": 0.95, "p90": 0.90, "p85": 0.85, "p80": 0.80, "p75": 0.75, "p70": 0.70, "median": 0.5}
M64 = (1 << 64) - 1


def key_of(job, key):
    vals = tuple(job[c] for c in KEYS[key])
    return None if any(v is None for v in vals) else vals


def finished_before(k, j):
    """k is history for j: k ended (known end) at or before j's submission and
    was submitted strictly before j."""
    return k["end"] is not None and k["submit"] < j["submit"] and k["end"] <= j["submit"]


def group_by_key(jobs, key):
    groups = {}
    for job in jobs:
        kv = key_of(job, key)
        if kv is not None:
            groups.setdefault(kv, []).append(job)
    return groups


def history(j, groups, key, window=None):
    kv = key_of(j, key)
    if kv is None:
        return []
    return [k for k in groups.get(kv, []) if finished_before(k, j)
            and (window is None or k["end"] >= j["submit"] - window)]


def R(k):
    return min(k["run"] / k["req"], 1.0)


def quantile(values, p):
    xs = sorted(values)
    h = (len(xs) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def stat(values, name):
    if name == "max":
        return max(values)
    if name == "mean":
        return sum(values) / len(values)
    return quantile(values, QUANT[name])


def recency(k):
    return (k["end"], k["submit"], k["job_id"])


def tang(jobs, key, window, stat_name, floor=0.5, min_jobs=10, targets=None):
    """{job_id: (est, hist)}; window in seconds or None for all."""
    groups = group_by_key(jobs, key)
    out = {}
    for j in targets or jobs:
        hist = _tang_hist(j, groups, key, window)
        if j["req"] is None:
            out[j["job_id"]] = (None, len(hist))
            continue
        if len(hist) < max(min_jobs, 1):
            out[j["job_id"]] = (float(j["req"]), len(hist))
            continue
        a = max(stat([R(k) for k in hist], stat_name), floor)
        out[j["job_id"]] = (j["req"] * a, len(hist))
    return out


def _tang_hist(j, groups, key, window):
    return [k for k in history(j, groups, key, window) if k["req"] is not None and k["run"] is not None]


def klusacek(jobs, last=5, targets=None):
    groups = group_by_key(jobs, "user")
    out = {}
    for j in targets or jobs:
        hist = sorted((k for k in history(j, groups, "user") if k["req"] is not None and k["run"] is not None),
                      key=recency)[-last:]
        if j["req"] is None:
            out[j["job_id"]] = (None, len(hist))
        elif not hist:
            out[j["job_id"]] = (float(j["req"]), 0)
        else:
            out[j["job_id"]] = (j["req"] * max(R(k) for k in hist), len(hist))
    return out


def _cap(value, hist, req):
    if not hist:
        return None if req is None else float(req)
    return value if req is None else min(value, float(req))


def ave2(jobs, targets=None):
    groups = group_by_key(jobs, "user")
    out = {}
    for j in targets or jobs:
        hist = sorted((k for k in history(j, groups, "user") if k["run"] is not None), key=recency)[-2:]
        value = sum(k["run"] for k in hist) / len(hist) if hist else None
        out[j["job_id"]] = (_cap(value, hist, j["req"]), len(hist))
    return out


def feitelson(jobs, sd=1.5, horizon=7 * 86400, targets=None):
    groups = group_by_key(jobs, "feitelson")
    out = {}
    for j in targets or jobs:
        hist = [k for k in history(j, groups, "feitelson", horizon) if k["run"] is not None]
        value = None
        if hist:
            runs = [k["run"] for k in hist]
            mean = sum(runs) / len(runs)
            std = math.sqrt(sum((x - mean) ** 2 for x in runs) / len(runs))
            value = mean + sd * std
        out[j["job_id"]] = (_cap(value, hist, j["req"]), len(hist))
    return out


def uniform01(seed, job_id, stream):
    """SplitMix64 on (seed, job_id, stream), top 53 bits -> [0, 1)."""
    x = ((job_id & M64) * 0x9E3779B97F4A7C15 + seed * 0xD1B54A32D192ED03 + stream * 0x8CB92BA72F3D8DD7) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    x = x ^ (x >> 31)
    return (x >> 11) / float(1 << 53)


def simple(jobs, name, f=None, seed=None):
    """request, actual, factor, uniform, model: {job_id: (est, None)}."""
    out = {}
    for j in jobs:
        run, req = j["run"], j["req"]
        if name == "request":
            est = None if req is None else float(req)
        elif name == "actual":
            est = None if run is None else float(run)
        elif name == "factor":
            est = None if req is None else req * f
        elif name == "uniform":
            est = None if run is None else run * (1 + (f - 1) * uniform01(seed, j["job_id"], 0))
        elif name == "model":
            if run is None:
                est = None
            elif uniform01(seed, j["job_id"], 0) < 0.1:
                est = 0.99 * run
            else:
                est = run / (1.0 - uniform01(seed, j["job_id"], 1))
                if run < 90:
                    est *= 10
                est = min(est, max(86400.0, float(run)))
        else:
            raise ValueError(name)
        out[j["job_id"]] = (est, None)
    return out


def accuracy(pairs):
    """pairs: [(run, req, est)] -> the report's numbers (None where undefined)."""
    scored = [(run, req, est) for run, req, est in pairs if run is not None and est is not None]
    n = len(scored)
    if not n:
        return {"scored": 0}
    acc = [1.0 if est == run else min(est, run) / max(est, run) for run, req, est in scored]
    classes = []
    for run, req, est in scored:
        if req is not None and est == req:
            classes.append("na")
        elif est < run:
            classes.append("ue" if run - est < 1800 else "be")
        elif req is not None and est < req:
            classes.append("oe")
        else:
            classes.append("above")
    not_under = [a for a, (run, req, est) in zip(acc, scored) if est >= run]
    return {
        "scored": n,
        "acc_mean": sum(acc) / n,
        "acc_median": quantile(acc, 0.5),
        "acc_mean_not_under": sum(not_under) / len(not_under) if not_under else None,
        "under_rate": sum(1 for run, req, est in scored if est < run) / n,
        **{c: classes.count(c) / n for c in ("na", "oe", "ue", "be", "above")},
    }


def estimate(jobs, scheme, targets=None):
    """Dispatch on a parsed pipeline.schemes.Scheme."""
    p = dict(scheme.params)
    if scheme.name == "tang":
        w = None if p["window"] == "all" else int(p["window"][:-1]) * 86400
        return tang(jobs, p["key"], w, p["stat"], p["floor"], p["min"], targets)
    if scheme.name == "klusacek":
        return klusacek(jobs, p["last"], targets)
    if scheme.name == "ave2":
        return ave2(jobs, targets)
    if scheme.name == "feitelson":
        return feitelson(jobs, p["sd"], p["horizon"], targets)
    return simple(targets or jobs, scheme.name, p.get("f"), p.get("seed"))
