"""Plain-Python twins of Smith's, Gibbons' and Downey's predictors
(pipeline/estimates/smith.py, gibbons.py, downey.py).

Obviously correct, slow: for each job, list every completed job that is
history for it (tests/naive_estimates.finished_before), put it in the
job's categories, and compute each statistic from the list with two-pass
formulas. Jobs are dicts with job_id, submit, run, req, end, nodes and the
characteristic columns (missing key = unknown).
"""

from __future__ import annotations

import math

from naive_estimates import finished_before

from pipeline.estimates.smith import TIE, ZERO_VAR
from pipeline.estimates.tdist import t975
from pipeline.estimates.templates import CHARACTERISTICS, NAMES


def recency(k):
    return (k["end"], k["submit"], k["job_id"])


def done(k):
    return k["end"] is not None and k["run"] is not None


def past(j, jobs):
    """History of j, oldest first."""
    return sorted((k for k in jobs if done(k) and finished_before(k, j)), key=recency)


def char_key(job, chars):
    vals = tuple(job.get(CHARACTERISTICS[c]) for c in chars)
    return None if any(v is None for v in vals) else vals


# -- Smith -----------------------------------------------------------------------

def smith_category(job, t):
    key = char_key(job, t.chars)
    if key is None:
        return None
    if t.nodes:
        if job["nodes"] is None or job["nodes"] < 1:
            return None
        key = key + ((job["nodes"] - 1) // t.nodes,)
    return key


def mean_ci(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    if var <= ZERO_VAR * mean * mean:
        var = 0.0
    return mean, t975(n - 1) * math.sqrt(var / n)


def smith(jobs, templates, targets=None, age=0):
    """{job_id: (est, hist)}: the smallest 95% CI among categories with >= 2 points.
    ``age`` > 0: the targets have run that long; an ``rt=S`` template then uses
    the points whose job ran >= floor(age / S) x S (the latest h of them)."""
    out = {}
    for j in targets or jobs:
        hist = past(j, jobs)
        best, choice = math.inf, None
        for t in templates:
            cat = smith_category(j, t)
            if cat is None or (t.relative and j["req"] is None):
                continue
            pts = [k for k in hist if smith_category(k, t) == cat and (not t.relative or k["req"] is not None)]
            if t.runtime and age >= t.runtime:
                pts = [k for k in pts if k["run"] >= (age // t.runtime) * t.runtime]
            if t.history:
                pts = pts[-t.history:]
            if len(pts) < 2:
                continue
            vals = [k["run"] / k["req"] if t.relative else float(k["run"]) for k in pts]
            mean, hw = mean_ci(vals)
            scale = j["req"] if t.relative else 1.0
            if hw * scale < best * (1 - TIE):
                best, choice = hw * scale, (mean * scale, len(pts))
        if choice is None:
            choice = (None if j["req"] is None else float(j["req"]), 0)
        out[j["job_id"]] = choice
    return out


# -- Gibbons ---------------------------------------------------------------------

def bucket(nodes):
    if nodes is None or nodes < 1:
        return None
    b = 0
    while 2 ** (b + 1) <= nodes:
        b += 1
    return b


def runtime_low(age):
    """Lower bound of the running-time range [0, 1 min), [1, 2 min), [2, 4 min), ... holding ``age`` s."""
    if age < 60:
        return 0
    low = 60
    while 2 * low <= age:
        low *= 2
    return low


def gibbons(jobs, targets=None, age=0):
    """``age`` > 0: the targets have run that long; the mean templates
    (level, n, runtime) then use the points whose job ran >= runtime_low(age)."""
    levels = (("u", "e"), ("e",), ())
    low = runtime_low(age)
    out = {}
    for j in targets or jobs:
        hist = past(j, jobs)
        b = bucket(j["nodes"])
        choice = None
        for chars in levels if b is not None else ():
            key = char_key(j, chars)
            if key is None:
                continue
            members = [k for k in hist if char_key(k, chars) == key and bucket(k["nodes"]) is not None]
            own = [k["run"] for k in members if bucket(k["nodes"]) == b and k["run"] >= low]
            if len(own) >= 2:
                choice = (sum(own) / len(own), len(own))
                break
            subs = {}
            for k in members:
                subs.setdefault(bucket(k["nodes"]), []).append(k)
            pts = []  # (x, y, w, size)
            for ks in subs.values():
                if len(ks) < 2:
                    continue
                runs = [k["run"] for k in ks]
                y = sum(runs) / len(runs)
                var = sum((r - y) ** 2 for r in runs) / (len(runs) - 1)
                pts.append((sum(k["nodes"] for k in ks) / len(ks), y, 1 / max(var, 1.0), len(ks)))
            if not pts:
                continue
            sw = sum(w for _, _, w, _ in pts)
            xbar = sum(w * x for x, _, w, _ in pts) / sw
            ybar = sum(w * y for _, y, w, _ in pts) / sw
            pred = ybar
            if len(pts) >= 2:
                sxx = sum(w * (x - xbar) ** 2 for x, _, w, _ in pts)
                sxy = sum(w * (x - xbar) * (y - ybar) for x, y, w, _ in pts)
                pred = ybar + sxy / sxx * (j["nodes"] - xbar)
            choice = (max(pred, 0.0), sum(m for *_, m in pts))
            break
        if choice is None:
            choice = (None if j["req"] is None else float(j["req"]), 0)
        out[j["job_id"]] = choice
    return out


# -- Downey ----------------------------------------------------------------------

def downey_fit(runs):
    """(b0, b1) of F = b0 + b1 ln t by least squares on ((i - 1/2)/n, ln t_(i))."""
    xs = sorted(math.log(max(r, 1)) for r in runs)
    n = len(xs)
    fs = [(i + 0.5) / n for i in range(n)]
    mx, mf = sum(xs) / n, sum(fs) / n
    b1 = sum((x - mx) * (f - mf) for x, f in zip(xs, fs)) / sum((x - mx) ** 2 for x in xs)
    return mf - b1 * mx, b1


def downey_predict(runs, stat, age=None):
    """Conditional median / average for a job of age ``age`` (None: t_min)."""
    b0, b1 = downey_fit(runs)
    cap = math.log(1e9)
    e_max, e_min = min((1 - b0) / b1, cap), min(-b0 / b1, cap)
    if age is not None:
        e_min = min(max(math.log(age), e_min), cap)
    if stat == "median":
        return math.sqrt(math.exp(e_min) * math.exp(e_max))
    if e_max <= e_min:
        return math.exp(e_max)
    return (math.exp(e_max) - math.exp(e_min)) / (e_max - e_min)


def downey(jobs, key="queue", stat="median", targets=None, age=0):
    chars = (NAMES[key],)
    out = {}
    for j in targets or jobs:
        k0 = char_key(j, chars)
        runs = [] if k0 is None else [k["run"] for k in past(j, jobs) if char_key(k, chars) == k0]
        if len(runs) >= 2 and len({math.log(max(r, 1)) for r in runs}) >= 2:
            out[j["job_id"]] = (downey_predict(runs, stat, age or None), len(runs))
        else:
            out[j["job_id"]] = (None if j["req"] is None else float(j["req"]), 0)
    return out


# -- running jobs at a forecast instant -------------------------------------------

def running_at(jobs, start, t):
    """Indices of the jobs running at instant t in a schedule: start < t < start + run."""
    return [i for i, j in enumerate(jobs) if start[i] < t < start[i] + j["run"]]


def conditional(jobs, scheme, templates, job, t, age):
    """The prediction for ``job``, running for ``age`` s at instant ``t``, from
    the jobs completed by t (``jobs``' ends are the simulated ones): a copy of
    the job submitted at t, never history itself."""
    q = dict(job, submit=t, end=None, run=None)
    if scheme.name == "smith":
        return smith(jobs, templates, [q], age)[job["job_id"]][0]
    if scheme.name == "gibbons":
        return gibbons(jobs, [q], age)[job["job_id"]][0]
    return downey(jobs, scheme["key"], scheme["stat"], [q], age)[job["job_id"]][0]
