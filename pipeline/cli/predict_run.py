"""The body of `walltime predict`, without Typer, Rich, Polars, DuckDB or NumPy.

Why apart from predict_cmd.py: a one-job `walltime predict` (a site's
job_submit.lua runs it at every submission) aims at 0.3 s for the whole
process; Typer's parameter machinery and Rich cost 0.2 s of that.
pipeline/cli/fast.py parses the plain command lines and calls :func:`run`;
everything else (--help, mistakes) goes through Typer's `predict`, which
calls :func:`run` too.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ..errors import WalltimeError
from ..learned_model import FIELDS, Model, check_job, model_dir


def duration(secs: float | None) -> str:
    """1 h 23 min, 45 min, 30 s: a runtime in words."""
    if secs is None:
        return "none"
    s = int(round(secs))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min"
    return f"{s} s"


def read_jobs(stream) -> list[dict]:
    """JSON lines (one object per line, blank lines skipped), checked."""
    jobs = []
    for n, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line.rstrip("\r\n"))
        except ValueError as e:
            raise WalltimeError(f"stdin line {n}: not JSON ({e.msg} at column {e.colno})") from None
        job = check_job(obj, f"stdin line {n}")
        job["_line"] = n
        jobs.append(job)
    return jobs


def print_json(doc) -> None:
    """As pipeline/cli/plain.py print_json (indent 2), for plain JSON values
    only, in one write: ``json.dump`` writes each of its ~24 pieces per job
    separately (240,000 writes, 0.4 s of CPU for 10,000 jobs)."""
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")


def run(trace: str | None, model: Path | None, given: dict, wh: Path, as_json: bool) -> None:
    """Predict the job of ``given`` (option name -> value or None), or the
    JSON lines on stdin when no option is given; print them."""
    if (trace is None) == (model is None):
        raise WalltimeError("predict: give a TRACE or --model DIR (one of them)")
    given = {k: v for k, v in given.items() if v is not None}
    if given:
        if isinstance(given.get("request"), str) and given["request"].isdigit():
            given["request"] = int(given["request"])
        jobs = [check_job(given, "options") | {"_line": None}]
    else:
        jobs = read_jobs(sys.stdin)
    assert set(FIELDS) >= {k for j in jobs for k in j if k != "_line"}
    m = Model(model, f"--model {model}") if model is not None else Model(
        model_dir(wh, trace), f'trace "{trace}"')
    clean = [{k: v for k, v in j.items() if k != "_line"} for j in jobs]
    out = m.predict(clean, time.time())
    for j, r in zip(jobs, out):
        r["line"] = j["_line"]
    lo, hi = m.spec["band"]
    if as_json:
        print_json({"trace": m.spec["trace"], "scheme": m.spec["scheme"], "band": [lo, hi], "jobs": out})
        return
    for r in out:
        where = "job" if r["line"] is None else f"line {r['line']}"
        print(f"{where}: {r['est']:.0f} s ({duration(r['est'])}), band {r['lo']:.0f}-{r['hi']:.0f} s"
              f" (quantiles {lo:g}-{hi:g}), request {duration(r['request'])}")
    if len(out) == 1:
        r = out[0]
        print(f"Predicted runtime {duration(r['est'])} ({r['est']:.0f} s); {lo * 100:.0f}%-{hi * 100:.0f}% "
              f"band {duration(r['lo'])} to {duration(r['hi'])}; model of {m.spec['trace']}.")
    else:
        import statistics

        med = statistics.median(r["est"] for r in out) if out else 0.0
        print(f"Predicted {len(out):,} jobs: median predicted runtime {duration(med)} ({med:.0f} s); "
              f"model of {m.spec['trace']}.")
