"""Speed of the learned scheme and of `walltime predict`, whole processes.

    .venv/bin/python bench/learned.py [--only sdsc|cea] [--peer DIR] [--repeat N]

Ingests SDSC-SP2 and CEA-Curie (from $WALLTIME_TRACES) into a fresh temporary
warehouse, then times, as separate processes: `walltime estimate TRACE
--scheme learned` (walk-forward training and prediction of every job, each
run on its own copy of the freshly ingested warehouse, so nothing is stored
yet), `walltime export-model`, and `walltime predict` of one job and of
10,000 jobs from stdin. Prints wall and CPU seconds (the machine may be
shared: the load average is printed at start and end) and jobs/s.

The peer, for a ratio in the same run: ``--peer DIR``, another checkout of
walltime with its own .venv (e.g. the main branch before this change), run
alternately with this one on the same warehouse copies and the same model,
best of ``--repeat`` (default 2) each; the estimates' accuracy numbers and the
predictions must come out the same. Without a peer, the ratio is against
`--scheme tang:user,all,p95` (a history scheme without a model).
Aims (2 cores): CEA-Curie under 60 s, SDSC-SP2 under 10 s; one prediction
under 0.3 s, 10,000 under 2 s.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from conftest import TRACES  # noqa: E402

FILES = {"SDSC-SP2-1998-4.2-cln": "SDSC-SP2-1998-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln": "CEA-Curie-2011-2.1-cln.swf.gz"}


def timed(root: Path, args, wh, stdin=None):
    """(wall s, CPU s of the child, stdout) of one walltime process of the
    checkout ``root`` (its .venv, run from its directory)."""
    py = root / ".venv" / "bin" / "python"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([str(py if py.exists() else sys.executable), "-m", "pipeline", *args, "--warehouse", str(wh)],
                          input=stdin, capture_output=True, text=True, cwd=root,
                          env={**os.environ, "WALLTIME_PROGRESS": "0"})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{root}: walltime {' '.join(args)} failed: {proc.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def fresh(base: Path, tmp: Path) -> Path:
    """A copy of the freshly ingested warehouse (no estimate stored yet)."""
    dst = Path(tempfile.mkdtemp(dir=tmp)) / "wh"
    shutil.copytree(base, dst)
    return dst


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0] if __doc__ else None)
    ap.add_argument("--only", help="only the traces whose name contains this")
    ap.add_argument("--peer", type=Path, help="another checkout to time beside this one (its own .venv or ours)")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each command (best kept)")
    a = ap.parse_args()
    only, repeat = a.only, a.repeat
    peer = a.peer.resolve() if a.peer else None
    traces = [t for t in FILES if only is None or only.lower() in t.lower()]
    tmp = Path(tempfile.mkdtemp(prefix="bench-learned-"))
    base = tmp / "base"
    for t in traces:
        timed(REPO, ["ingest", str(TRACES / FILES[t])], base)
    sides = [("this", REPO)] + ([("peer", peer)] if peer else [])
    print(f"load average at start: {load()} on {os.cpu_count()} cores; peer: {peer or 'none (tang as the peer)'}")
    for t in traces:
        best, docs = {}, {}
        for rep in range(repeat):
            order = sides if rep % 2 == 0 else sides[::-1]  # alternate who goes first
            for who, root in order:
                wall, cpu, out = timed(root, ["estimate", t, "--scheme", "learned", "--json"], fresh(base, tmp))
                doc = json.loads(out)
                assert doc["schemes"][0]["computed"], "estimate was stored, not computed"
                docs[who] = doc
                if who not in best or wall < best[who][0]:
                    best[who] = (wall, cpu)
        jobs = docs["this"]["jobs"]
        for who, _ in sides:
            wall, cpu = best[who]
            print(f"{t}: {who} estimate --scheme learned: {wall:.1f} s wall, {cpu:.1f} s CPU, "
                  f"{jobs / wall:,.0f} jobs/s (best of {repeat})")
        if peer:
            a, b = docs["peer"]["schemes"][0], docs["this"]["schemes"][0]
            differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k)
                            and k != "computed" and "second" not in k and not k.endswith("_at"))
            print(f"{t}: peer / this: {best['peer'][0] / best['this'][0]:.2f}x wall, "
                  f"{best['peer'][1] / best['this'][1]:.2f}x CPU; same accuracy numbers: "
                  f"{'yes' if not differ else 'NO: ' + ', '.join(differ)}")
        else:
            wall, _, _ = timed(REPO, ["estimate", t, "--scheme", "tang:user,all,p95", "--json"], fresh(base, tmp))
            print(f"{t}: learned / tang wall ratio {best['this'][0] / wall:.1f}x (tang {wall:.1f} s)")
        for who, root in sides:
            wall, cpu, _ = timed(root, ["export-model", t], base)
            print(f"{t}: {who} export-model: {wall:.1f} s wall, {cpu:.1f} s CPU")
    t = traces[0]
    many = "".join(json.dumps({"user": str(100 + i % 300), "request": 60 * (1 + i % 600), "processors": 1 + i % 64})
                   + "\n" for i in range(10000))
    for label, args, stdin, n in (
        ("one job (options)", ["predict", t, "--user", "100", "--request", "3600", "--processors", "8"], None, 5),
        ("10,000 jobs (stdin)", ["predict", t, "--json"], many, 3),
    ):
        best, outs = {}, {}
        for rep in range(n):
            for who, root in (sides if rep % 2 == 0 else sides[::-1]):
                wall, cpu, out = timed(root, args, base, stdin)
                outs[who] = out
                if who not in best or wall < best[who][0]:
                    best[who] = (wall, cpu)
        for who, _ in sides:
            print(f"predict {label}: {who} {best[who][0]:.2f} s wall, {best[who][1]:.2f} s CPU (best of {n})")
        if peer:
            print(f"predict {label}: peer / this {best['peer'][0] / best['this'][0]:.2f}x wall, "
                  f"{best['peer'][1] / best['this'][1]:.2f}x CPU; same output: "
                  f"{'yes' if outs['peer'] == outs['this'] else 'NO'}")
    bare = min(timed(REPO, ["traces"], base)[0] for _ in range(3))
    print(f"for scale: `walltime traces` (the fastest command) {bare:.2f} s wall")
    print(f"load average at end: {load()}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
