"""walltime simulate against a peer simulator, pyss, on the same jobs (issue 11).

    .venv/bin/python bench/pyss_peer.py --pyss DIR [--python2 PATH] [--trace SDSC-SP2-1998-4.2-cln]

pyss (GPL v2, not part of walltime) is the Python 2.7 simulator of the
algo74/predictsim repository: get it yourself (git clone
https://github.com/algo74/predictsim) and pass its checkout with --pyss; its
EASY scheduler needs nothing beyond Python 2.7 (pyenv: 2.7.18). Both tools run
as whole processes, timed from start to exit, on one trace: pyss's
run_simulator.py with configs/algorithms/EASY_reqtime.py (FCFS + EASY, the
user's requested time as the estimate), and `walltime simulate TRACE --policy
fcfs --backfill easy --estimate request --force` on a warehouse where the
trace is already ingested (warmed once, so the loop is loaded compiled, not
compiled). Then the start times are compared job by job on the jobs both
simulated. pyss reads an SWF of exactly the jobs walltime simulated (its
input rules applied: unknown runtimes left out, missing requests filled), so
both replay the same jobs. The schedules are not expected to agree job by job:
pyss makes every runtime at least 1 s and every request at least the runtime,
and this fork runs its scheduler at most once per simulated second; the count of
equal start times is printed for information, the comparison is the time.
Aim (issue 11): walltime at least 10x faster than pyss.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRACES = Path(os.environ.get("WALLTIME_TRACES", "/work/shared/traces"))


def _timed(args: list[str], **kw) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of a whole process. Both are printed:
    on this shared machine the wall time also measures the neighbours."""
    t = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(map(str, args))}: exit code {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def _pyss_starts(out: Path) -> dict[int, int]:
    starts = {}
    for line in out.read_text().splitlines():
        f = line.split()
        if not f or line.lstrip().startswith(";"):
            continue
        starts[int(f[0])] = int(float(f[1])) + int(float(f[2]))  # submit + wait
    return starts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pyss", type=Path, required=True, help="checkout of algo74/predictsim")
    ap.add_argument("--python2", default=str(Path.home() / ".pyenv/versions/2.7.18/bin/python"))
    ap.add_argument("--trace", default="SDSC-SP2-1998-4.2-cln")
    a = ap.parse_args()
    py = [sys.executable, "-m", "pipeline"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # as installed: bytecode compiled once (not at every start under PYTHONDONTWRITEBYTECODE)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
        swf = tmp / f"{a.trace}.swf"
        with gzip.open(TRACES / f"{a.trace}.swf.gz") as src, open(swf, "wb") as dst:
            shutil.copyfileobj(src, dst)
        wh = tmp / "wh"
        subprocess.run([*py, "ingest", str(swf), "--warehouse", str(wh)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        cmd = [*py, "simulate", a.trace, "--policy", "fcfs", "--backfill", "easy", "--estimate", "request",
               "--warehouse", str(wh), "--json"]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm
        load = os.getloadavg()[0]
        ours, ours_cpu = min(_timed([*cmd, "--force"], env=env) for _ in range(3))
        doc = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
        rows = subprocess.run([*py, "sql", "SELECT job_id, start, submit, run, nodes, req FROM sim_jobs "
                               f"WHERE run_id = '{doc['run_id']}' ORDER BY submit, job_id",
                               "--csv", "--warehouse", str(wh)], env=env, check=True, capture_output=True,
                              text=True).stdout.splitlines()[1:]
        jobs = [tuple(int(x) for x in r.split(",")) for r in rows]
        mine = {j[0]: j[1] for j in jobs}
        # pyss gets exactly the jobs walltime simulated (its input rules applied): id, submit,
        # run, processors (allocated and requested), requested time; the rest unknown
        same_jobs = tmp / "same-jobs.swf"
        same_jobs.write_text(f"; MaxProcs: {doc['config'] and json.loads(doc['config'])['capacity']}\n" + "".join(
            f"{j} {s} -1 {r} {n} -1 -1 {n} {q} -1 1 -1 -1 -1 -1 -1 -1 -1\n" for j, _, s, r, n, q in jobs))
        out = tmp / "pyss-out.swf"
        theirs, theirs_cpu = _timed([a.python2, "-O", "run_simulator.py", str(same_jobs),
                         str(a.pyss / "configs/algorithms/EASY_reqtime.py"), str(out)], cwd=a.pyss / "pyss")
        peer = _pyss_starts(out)
        both = mine.keys() & peer.keys()
        same = sum(mine[j] == peer[j] for j in both)
    print(f"{a.trace}: walltime simulate (whole process, best of 3) {ours:.2f} s | pyss (whole process) "
          f"{theirs:.2f} s | walltime is {theirs / ours:.1f}x faster")
    print(f"CPU time (user + system): walltime {ours_cpu:.2f} s | pyss {theirs_cpu:.2f} s | "
          f"walltime is {theirs_cpu / ours_cpu:.1f}x faster")
    print(f"start times: {same:,} of the {len(both):,} jobs both simulated are equal "
          f"(walltime {len(mine):,} jobs, pyss {len(peer):,})")
    print(f"load average (1 min) at start: {load:.2f}, at end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
