"""Speed of the learned scheme and of `walltime predict`, whole processes.

    .venv/bin/python bench/learned.py [--only sdsc|cea]

Ingests SDSC-SP2 and CEA-Curie (from $WALLTIME_TRACES) into a fresh temporary
warehouse, then times, as
separate processes: `walltime estimate TRACE --scheme learned` (walk-forward
training and prediction of every job), the same for `tang:user,all,p95` (a
peer history scheme, for a ratio), `walltime export-model`, and `walltime
predict` of one job and of 10,000 jobs from stdin. Prints wall and CPU seconds
(the machine may be shared) and jobs/s. Aims (2 cores): CEA-Curie under 60 s,
SDSC-SP2 under 10 s; one prediction under 0.3 s, 10,000 under 2 s.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from conftest import TRACES  # noqa: E402

FILES = {"SDSC-SP2-1998-4.2-cln": "SDSC-SP2-1998-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln": "CEA-Curie-2011-2.1-cln.swf.gz"}
WALLTIME = [sys.executable, "-m", "pipeline"]


def timed(args, wh, stdin=None):
    """(wall s, CPU s of the child, stdout) of one walltime process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([*WALLTIME, *args, "--warehouse", str(wh)], input=stdin, capture_output=True, text=True,
                          env={**os.environ, "WALLTIME_PROGRESS": "0"})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"walltime {' '.join(args)} failed: {proc.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def main() -> None:
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    traces = [t for t in FILES if only is None or only.lower() in t.lower()]
    wh = Path(tempfile.mkdtemp(prefix="bench-learned-")) / "wh"  # fresh: nothing stored yet
    for t in traces:
        timed(["ingest", str(TRACES / FILES[t])], wh)
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for t in traces:
        jobs = None
        rows = {}
        for spec in ("learned", "tang:user,all,p95"):
            wall, cpu, out = timed(["estimate", t, "--scheme", spec, "--json"], wh)
            doc = json.loads(out)
            jobs = doc["jobs"]
            computed = doc["schemes"][0]["computed"]
            rows[spec] = wall
            print(f"{t}: estimate --scheme {spec}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
                  f"{jobs / wall:,.0f} jobs/s{'' if computed else ' (was stored: not computed!)'}")
        print(f"{t}: learned / tang wall ratio {rows['learned'] / rows['tang:user,all,p95']:.1f}x")
        wall, cpu, _ = timed(["export-model", t], wh)
        print(f"{t}: export-model: {wall:.1f} s wall, {cpu:.1f} s CPU")
    t = traces[0]
    for label, args, stdin in (
        ("one job (options)", ["predict", t, "--user", "100", "--request", "3600", "--processors", "8"], None),
        ("10,000 jobs (stdin)", ["predict", t, "--json"],
         "".join(json.dumps({"user": str(100 + i % 300), "request": 60 * (1 + i % 600), "processors": 1 + i % 64})
                 + "\n" for i in range(10000))),
    ):
        best = min((timed(args, wh, stdin)[:2] for _ in range(3)), key=lambda x: x[0])
        print(f"predict {label}: {best[0]:.2f} s wall, {best[1]:.2f} s CPU (best of 3)")
    bare = min(timed(["traces"], wh)[0] for _ in range(3))
    print(f"for scale: `walltime traces` (the fastest command) {bare:.2f} s wall")


if __name__ == "__main__":
    main()
