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
import os
import sys
import time
from pathlib import Path

from ..errors import WalltimeError, quote
from ..learned_model import FIELDS, Model, check_job, legacy_holds, legacy_model_dir, loads, model_dir


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


BATCH = 4096  # jobs per LightGBM call at most: memory stays bounded however long stdin is
MAX_LINE = 1 << 20  # bytes in one stdin line


def _job(line: str, n: int) -> dict:
    try:
        obj = loads(line.rstrip("\r\n"))
    except json.JSONDecodeError as e:
        raise WalltimeError(f"stdin line {n}: not JSON ({e.msg} at column {e.colno})") from None
    except (ValueError, RecursionError) as e:  # (a number json cannot convert, nesting too deep)
        raise WalltimeError(f"stdin line {n}: not JSON ({quote(e)})") from None
    job = check_job(obj, f"stdin line {n}")
    job["_line"] = n
    return job


def job_batches(stream):
    """Checked jobs from JSON lines (one object per line, blank lines
    skipped), in lists of at most :data:`BATCH`, each yielded as soon as the
    lines that are there have been read: a pipe that sends one line gets its
    answer before it sends the next (a real file descriptor is read with
    os.read, which returns what is there instead of waiting for a full buffer)."""
    for ready in _ready_lines(stream):
        batch = []
        for n, text in ready:
            if text.strip():
                batch.append(_job(text, n))
                if len(batch) == BATCH:
                    yield batch
                    batch = []
        if batch:
            yield batch


def _ready_lines(stream):
    """Groups of (line number, text): the lines read so far, as they arrive
    (one group per os.read of a real file descriptor; the whole of a file-like
    object without one, such as io.StringIO)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.StringIO (tests, in-process callers)
        yield enumerate(stream, 1)
        return
    n, rest = 0, b""
    while True:
        try:
            chunk = os.read(fd, MAX_LINE)
        except InterruptedError:
            continue
        except OSError as e:
            raise WalltimeError(f"stdin: cannot read it: {e.strerror or e}") from None
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop() if chunk else b""
        if len(rest) > MAX_LINE:
            raise WalltimeError(f"stdin line {n + len(lines) + 1}: longer than {MAX_LINE:,} bytes")
        yield _decoded(lines, n)
        n += len(lines)
        if not chunk:
            return


def _decoded(lines: list[bytes], n: int):
    """(line number, text) of raw lines that follow line ``n``; one line naming a line that is not UTF-8."""
    for k, raw in enumerate(lines, n + 1):
        try:
            yield k, raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise WalltimeError(f"stdin line {k}: not UTF-8 (byte {e.start + 1})") from None


def read_jobs(stream) -> list[dict]:
    """All checked jobs of JSON lines (see :func:`job_batches`)."""
    return [job for batch in job_batches(stream) for job in batch]


def print_json(doc) -> None:
    """As pipeline/cli/plain.py print_json (indent 2), for plain JSON values
    only, in one write: ``json.dump`` writes each of its ~24 pieces per job
    separately (240,000 writes, 0.4 s of CPU for 10,000 jobs)."""
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")


def load(trace: str | None, model: Path | None, wh: Path) -> Model:
    """The model of ``trace`` in the warehouse ``wh``, or the directory ``model``."""
    if model is not None:
        return Model(model, f"--model {model}")
    d = model_dir(wh, trace)
    old = legacy_model_dir(wh, trace)
    if not os.path.lexists(d) and old != d and legacy_holds(old, trace):
        raise WalltimeError(f'trace "{quote(trace)}": its model in {old} was exported by an older walltime; '
                            f"re-run `walltime export-model {trace}`")
    return Model(d, f'trace "{quote(trace)}"', trace=trace)


def run(trace: str | None, model: Path | None, given: dict, wh: Path, as_json: bool) -> None:
    """Predict the job of ``given`` (option name -> value or None), or the
    JSON lines on stdin when no option is given; print the answers batch by
    batch as the lines come (line in, line out; memory bounded by the batch,
    plus 8 bytes a job for the closing median)."""
    from array import array

    if (trace is None) == (model is None):
        raise WalltimeError("predict: give a TRACE or --model DIR (one of them)")
    given = {k: v for k, v in given.items() if v is not None}
    if given:
        if isinstance(given.get("request"), str) and given["request"].isdigit() and len(given["request"]) <= 18:
            given["request"] = int(given["request"])
        batches = iter([[check_job(given, "options") | {"_line": None}]])
    else:
        batches = None
    m = load(trace, model, wh)
    if batches is None:
        batches = job_batches(sys.stdin)
    lo, hi = m.spec["band"]
    ests = array("d")
    last = None
    out = sys.stdout
    if as_json:
        head = json.dumps({"trace": m.spec["trace"], "scheme": m.spec["scheme"], "band": [lo, hi]}, indent=2)
        out.write(head[:-2] + ',\n  "jobs": [')
    first = True
    for jobs in batches:
        assert set(FIELDS) >= {k for j in jobs for k in j if k != "_line"}
        clean = [{k: v for k, v in j.items() if k != "_line"} for j in jobs]
        res = m.predict(clean, time.time())
        text = []
        for j, r in zip(jobs, res):
            r["line"] = j["_line"]
            ests.append(r["est"])
            if as_json:
                text.append(("\n" if first else ",\n") + "    " + json.dumps(r, indent=2).replace("\n", "\n    "))
                first = False
            else:
                where = "job" if r["line"] is None else f"line {r['line']}"
                text.append(f"{where}: {r['est']:.0f} s ({duration(r['est'])}), band {r['lo']:.0f}-{r['hi']:.0f} s"
                            f" (quantiles {lo:g}-{hi:g}), request {duration(r['request'])}\n")
        last = res[-1] if res else last
        out.write("".join(text))
        out.flush()
    if as_json:
        out.write("]\n}\n" if first else "\n  ]\n}\n")
        out.flush()
        return
    if len(ests) == 1:
        r = last
        print(f"Predicted runtime {duration(r['est'])} ({r['est']:.0f} s); {lo * 100:.0f}%-{hi * 100:.0f}% "
              f"band {duration(r['lo'])} to {duration(r['hi'])}; model of {m.spec['trace']}.")
    else:
        import statistics

        med = statistics.median(ests) if ests else 0.0
        print(f"Predicted {len(ests):,} jobs: median predicted runtime {duration(med)} ({med:.0f} s); "
              f"model of {m.spec['trace']}.")
