"""Plain-Python twin of ``pipeline.characterize``: every statistic, computed the
obvious way from the jobs, with exact fractions wherever a threshold is compared.

Input: a list of :class:`Job` (SWF values, -1 = unknown) and the trace's time zone.
:func:`read_swf` builds that list from an SWF file without using pipeline.ingest,
so the comparison also covers parsing, -1 handling and months.
"""

from __future__ import annotations

import bisect
import gzip
import math
import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path
from zoneinfo import ZoneInfo


@dataclass
class Job:
    submit: int          # absolute Unix seconds
    run: int             # -1 = unknown
    req: int             # -1 = unknown
    status: int = 1
    user: int = -1
    group: int = -1


def read_swf(path: Path) -> tuple[list[Job], str]:
    """Jobs and time zone of an SWF file (plain or gzip)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    start, tz, jobs = 0, "UTC", []
    with opener(path, "rt") as fh:
        for line in fh:
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                key, _, value = s[1:].partition(":")
                if key.strip() == "UnixStartTime":
                    start = int(value.strip())
                elif key.strip() == "TimeZoneString" and value.strip():
                    tz = value.strip()
                continue
            f = s.split()
            v = [int(float(x)) for x in f[:18]]
            jobs.append(Job(submit=start + v[1], run=v[3], req=v[8], status=v[10], user=v[11], group=v[12]))
    return jobs, tz


def r_of(j: Job) -> Fraction:
    return min(Fraction(j.run, j.req), Fraction(1))


def quarter(ts: int, tz: str) -> str:
    d = datetime.fromtimestamp(ts, timezone.utc).astimezone(ZoneInfo(tz))
    return f"{d.year}-Q{(d.month - 1) // 3 + 1}"


def _std(values: list[float]) -> float | None:
    return statistics.stdev(values) if len(values) >= 2 else None


def characterize(jobs: list[Job], tz: str = "UTC") -> dict:
    """Same keys and meaning as pipeline.characterize.read (minus notes/timestamps)."""
    ran = [j for j in jobs if j.run >= 0]
    rjobs = [j for j in ran if j.req > 0]
    rs = [r_of(j) for j in rjobs]
    n = len(rs)
    out: dict = {"jobs": len(jobs), "jobs_ran": len(ran), "jobs_r": n}

    ordered = sorted(rs)  # counting by bisection in the sorted R values keeps the twin fast on real traces

    def at_most(x: Fraction) -> int:
        return bisect.bisect_right(ordered, x)

    def below(x: Fraction) -> int:
        return bisect.bisect_left(ordered, x)

    def share(count: int) -> float | None:
        return count / n if n else None

    floats = [float(r) for r in rs]
    out["r"] = {
        "mean_r": statistics.fmean(floats) if n else None,
        "std_r": _std(floats),
        "share_lt_0_2": share(below(Fraction(1, 5))),
        "share_lt_0_5": share(below(Fraction(1, 2))),
        "share_gt_0_8": share(n - at_most(Fraction(4, 5))),
        "share_ge_0_99": share(n - below(Fraction(99, 100))),
    }

    hist = []
    if n:
        for b in range(20):
            lo, hi = Fraction(b, 20), Fraction(b + 1, 20)
            c = (at_most(hi) if b == 19 else below(hi)) - below(lo)  # [lo, hi), the last bin [0.95, 1]
            hist.append({"bin": b, "lo": b / 20, "hi": (b + 1) / 20, "jobs": c, "share": c / n})
    out["histogram"] = hist
    out["cdf"] = [{"x": k / 100, "share_le": at_most(Fraction(k, 100)) / n} for k in range(101)] if n else []

    by_q: dict[str, list[float]] = {}
    for j, r in zip(rjobs, floats):
        by_q.setdefault(quarter(j.submit, tz), []).append(r)
    out["quarters"] = [{"quarter": q, "jobs": len(v), "mean_r": statistics.fmean(v), "std_r": _std(v)}
                       for q, v in sorted(by_q.items())]

    out["mualem_feitelson"] = mualem(ran)
    out["key_spread"] = key_spread(rjobs, floats) if n else []
    return out


def mualem(ran: list[Job]) -> list[dict]:
    """Mu'alem & Feitelson Table 2 rows over the jobs that ran (see docs/characterize.md)."""
    total = len(ran)
    has_req = any(j.req > 0 for j in ran)
    has_status = any(j.status != -1 for j in ran)
    killed = lambda j: j.status in (0, 5)  # noqa: E731
    peak = [j for j in ran if j.req > 0 and Fraction(j.run, j.req) >= Fraction(99, 100)]
    rows = [
        ("total_jobs", total, total, "total", True),
        ("killed_jobs", sum(map(killed, ran)), total, "total", has_status),
        ("peak_100", len(peak), total, "total", has_req),
        ("peak_100_killed", sum(map(killed, peak)), len(peak), "100% peak", has_req and has_status),
        ("peak_0", sum(1 for j in ran if j.req > 0 and Fraction(j.run, j.req) < Fraction(1, 100)), total, "total", has_req),
        ("zero_jobs", sum(1 for j in ran if j.run == 0), total, "total", True),
        ("under_90s_jobs", sum(1 for j in ran if j.run < 90), total, "total", True),
        ("under_2h_req_jobs", sum(1 for j in ran if 0 < j.req <= 7200), total, "total", has_req),
    ]
    out = []
    for row, number, base, of, ok in rows:
        number = number if ok else None
        pct = 100.0 * number / base if (number is not None and base) else None
        out.append({"row": row, "number": number, "pct": pct, "of": of})
    return out


KEYS = {
    "all": lambda j: (),
    "project": lambda j: None if j.group == -1 else (j.group,),
    "user": lambda j: None if j.user == -1 else (j.user,),
    "user_project": lambda j: None if -1 in (j.user, j.group) else (j.user, j.group),
    "user_project_req": lambda j: None if -1 in (j.user, j.group) else (j.user, j.group, j.req),
}


def key_spread(rjobs: list[Job], rs: list[float]) -> list[dict]:
    """Tang Table 2: groups of >= 10 jobs per key type and the mean of their std(R)."""
    out = []
    for name, key in KEYS.items():
        groups: dict[tuple, list[float]] = {}
        for j, r in zip(rjobs, rs):
            k = key(j)
            if k is not None:
                groups.setdefault(k, []).append(r)
        if not groups:
            out.append({"key_type": name, "groups": None, "jobs": None, "avg_std_r": None})
            continue
        big = [v for v in groups.values() if len(v) >= 10]
        out.append({"key_type": name, "groups": len(big), "jobs": sum(map(len, big)),
                    "avg_std_r": statistics.fmean([statistics.stdev(v) for v in big]) if big else None})
    return out


# -- helpers for the tests: SWF files and comparing with the stored result ----------
FLOAT_TOL = 1e-9


def write_swf(path: Path, jobs: list[Job], unix_start: int | None = None, tz: str | None = None) -> Path:
    """An 18-field SWF file; ``Job.submit`` is absolute, written relative to unix_start."""
    lines = []
    if unix_start is not None:
        lines.append(f"; UnixStartTime: {unix_start}")
    if tz is not None:
        lines.append(f"; TimeZoneString: {tz}")
    base = unix_start or 0
    for i, j in enumerate(jobs, start=1):
        f = [i, j.submit - base, 10, j.run, 4, -1, -1, 4, j.req, -1, j.status, j.user, j.group, 1, 1, 1, -1, -1]
        lines.append(" ".join(str(x) for x in f))
    path.write_text("\n".join(lines) + "\n")
    return path


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=FLOAT_TOL, abs_tol=FLOAT_TOL)
    return a == b


def assert_same(got: dict, want: dict, where: str = "") -> None:
    """Every statistic of the twin (``want``) equals the stored one (``got``)."""
    for k in ("jobs", "jobs_ran", "jobs_r"):
        assert got[k] == want[k], f"{where}{k}: {got[k]} != {want[k]}"
    for k, v in want["r"].items():
        assert _close(got["r"][k], v), f"{where}r.{k}: {got['r'][k]} != {v}"
    for section in ("histogram", "cdf", "quarters", "mualem_feitelson", "key_spread"):
        g, w = got[section], want[section]
        assert len(g) == len(w), f"{where}{section}: {len(g)} rows != {len(w)}"
        for i, (gr, wr) in enumerate(zip(g, w)):
            for k, v in wr.items():
                assert _close(gr[k], v), f"{where}{section}[{i}].{k}: {gr[k]} != {v} (row {gr})"
