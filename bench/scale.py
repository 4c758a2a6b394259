"""The whole pipeline on an Eagle- or F-DATA-shaped log of any size (issue 43, item 2):
each stage a whole `walltime` command in a fresh process, cold, timed with
/usr/bin/time -v (wall, CPU, peak RSS).

    .venv/bin/python bench/scale.py --shape eagle --jobs 11000000 [--root /tmp/scale-eagle-11m]
        [--stages generate,ingest,cold-summary,characterize,estimate,summary,report,walkforward] [--keep]

Stages, in order, on one warehouse under --root (deleted at the end unless --keep):

- generate: `walltime generate --shape S --jobs N --out ROOT/S.parquet`
- ingest: `walltime ingest FILE --format table --preset S --tz ZONE --capacity C`
- cold-summary: `walltime summary` on a copy of the warehouse as ingest left it (estimates and
  replays all computed by the command: the issue's "cold summary"); the copy is deleted after
- characterize: `walltime characterize`
- estimate: `walltime estimate` with every scheme the summary compares (request, Tang p85, Klusacek,
  ave2, Mu'alem-Feitelson, learned)
- summary: `walltime summary` with those estimates stored: the summary's replays
- report: `walltime report --out ROOT/report.html` (what the report adds: the Tang grid, its own replays)
- walkforward: `walltime evaluate TRACE --walk-forward` (Menear et al.'s protocol: a 100-day window, a new
  model each day; issue 43 item 3's aim: 11M jobs in < 15 min), after ingest (it needs nothing else)

Prints one line per stage: seconds, jobs/s, CPU seconds (the command's and the children it waited
for, as /usr/bin/time counts them), peak RSS of the command's largest process (/usr/bin/time) and the
peak of all its processes together (workers included; sampled every 0.5 s), the load average before and
after (the machine is shared: say what else ran). The aims (issue 43): 11M jobs: ingest < 20 s,
summary < 60 s, report < 180 s, walkforward < 15 min, peak RSS < 8 GB; 24M jobs: summary < 150 s, peak RSS < 12 GB.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAGES = ("generate", "ingest", "cold-summary", "characterize", "estimate", "summary", "report", "walkforward")
ZONE = {"eagle": "America/Denver", "fdata": "Asia/Tokyo"}
CAPACITY = {"eagle": 2618 * 36, "fdata": 158_976 * 48}  # == pipeline.generate.tables (not imported: keep this light)
# the summary's schemes (pipeline/summary CANDIDATES): Tang's key is the trace's, user+project+request where
# the log has group ids (Eagle's accounts), else user (F-DATA has none: summary._schemes picks it)
TANG_KEY = {"eagle": "user_project_req", "fdata": "user"}
SCHEMES = ["request", "tang:floor=0.5,key={key},min=10,stat=p85,window=30d", "klusacek:last=5", "ave2",
           "feitelson:horizon=7d,sd=1.5", "learned:q=0.5"]


def timed(cmd: list[str], log: Path, limit_gb: float) -> dict:
    """Run ``cmd`` under /usr/bin/time -v; its wall, CPU, peak RSS and exit code."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "WALLTIME_PROGRESS": os.environ.get("WALLTIME_PROGRESS", "0")}
    load0 = os.getloadavg()[0]
    t = time.perf_counter()
    peak_tree, killed = 0.0, False
    with open(log, "w") as fh:
        p = subprocess.Popen(["/usr/bin/time", "-v", *cmd], env=env, stdout=fh, stderr=subprocess.STDOUT,
                             start_new_session=True)
        while p.poll() is None:  # the watchdog: a shared machine must not run out of memory
            rss = tree_rss_gb(p.pid)
            peak_tree = max(peak_tree, rss)
            if rss > limit_gb:
                os.killpg(p.pid, 9)
                killed = True
                p.wait()
                break
            time.sleep(0.5)
    wall = time.perf_counter() - t
    text = log.read_text(errors="replace")

    def field(name: str) -> str:
        m = re.search(rf"^\s*{re.escape(name)}: (.*)$", text, re.M)
        return m.group(1) if m else "0"

    return {"wall": wall, "cpu": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "rss_mb": int(field("Maximum resident set size (kbytes)")) / 1024, "rc": p.returncode,
            "load": (load0, os.getloadavg()[0]), "tree_gb": peak_tree, "killed": killed}


def tree_rss_gb(pid: int) -> float:
    """RSS of ``pid``'s session (the command and its workers), GB, from /proc."""
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            if int(fields[3]) != pid:  # the session id (field 6 of stat)
                continue
            with open(f"/proc/{d}/statm") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total / 2**30


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=sorted(ZONE), default="eagle")
    ap.add_argument("--jobs", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--root", default=None, help="default /tmp/scale-SHAPE-N")
    ap.add_argument("--stages", default=",".join(STAGES))
    ap.add_argument("--keep", action="store_true", help="keep the warehouse and the file")
    ap.add_argument("--step-days", type=float, default=1.0,
                    help="walkforward: a new model every this many days (the protocol's is 1)")
    ap.add_argument("--rss-limit-gb", type=float, default=15.0,
                    help="kill a stage whose processes together hold more than this (the machine is shared)")
    args = ap.parse_args()
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    bad = [s for s in stages if s not in STAGES]
    if bad:
        sys.exit(f"--stages: unknown {bad[0]}; use {','.join(STAGES)}")
    root = Path(args.root or f"/tmp/scale-{args.shape}-{args.jobs}")
    root.mkdir(parents=True, exist_ok=True)
    data, wh, trace = root / f"{args.shape}.parquet", root / "warehouse", f"{args.shape}{args.jobs}"
    w = [sys.executable, "-m", "pipeline"]
    cmds = {
        "generate": w + ["generate", "--shape", args.shape, "--jobs", str(args.jobs), "--seed", str(args.seed),
                         "--out", str(data)],
        "ingest": w + ["ingest", str(data), "--format", "table", "--preset", args.shape, "--tz", ZONE[args.shape],
                       "--capacity", str(CAPACITY[args.shape]), "--name", trace, "--warehouse", str(wh)],
        "cold-summary": w + ["summary", trace, "--warehouse", str(root / "cold")],
        "characterize": w + ["characterize", trace, "--warehouse", str(wh)],
        "estimate": w + ["estimate", trace, *[a for s in SCHEMES for a in ("--scheme", s.format(key=TANG_KEY[args.shape]))], "--warehouse", str(wh)],
        "summary": w + ["summary", trace, "--warehouse", str(wh)],
        "report": w + ["report", trace, "--out", str(root / "report.html"), "--warehouse", str(wh)],
        "walkforward": w + ["evaluate", trace, "--walk-forward", *(["--step-days", f"{args.step_days:g}"]
                                                                  if args.step_days != 1 else []),
                            "--warehouse", str(wh)],
    }
    print(f"{args.shape}, {args.jobs:,} jobs, seed {args.seed}; {os.cpu_count()} cores; root {root}; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    print(f"{'stage':<13} {'seconds':>8} {'jobs/s':>11} {'CPU s':>8} {'peak RSS':>10} {'all procs':>10}  "
          "load before/after", flush=True)
    failed = False
    for stage in STAGES:
        if stage not in stages:
            continue
        if stage == "cold-summary":
            shutil.rmtree(root / "cold", ignore_errors=True)
            shutil.copytree(wh, root / "cold")
        r = timed(cmds[stage], root / f"{stage}.log", args.rss_limit_gb)
        if stage == "cold-summary":
            shutil.rmtree(root / "cold", ignore_errors=True)
        print(f"{stage:<13} {r['wall']:8.1f} {args.jobs / r['wall']:11,.0f} {r['cpu']:8.1f} "
              f"{r['rss_mb'] / 1024:7.2f} GB {r['tree_gb']:7.2f} GB  {r['load'][0]:.2f} / {r['load'][1]:.2f}"
              + (f"  KILLED above {args.rss_limit_gb:g} GB" if r["killed"] else "")
              + ("" if r["rc"] == 0 else f"  FAILED (exit {r['rc']}, see {root / (stage + '.log')})"), flush=True)
        print("    $ " + " ".join(cmds[stage][2:]), flush=True)
        if stage == "walkforward" and r["rc"] == 0:  # the command's table (the log before /usr/bin/time's lines)
            text = (root / f"{stage}.log").read_text(errors="replace").split("\tCommand being timed:")[0]
            print("\n".join("    " + ln for ln in text.rstrip().splitlines()), flush=True)
        if r["rc"] != 0:
            failed = True
            print((root / f"{stage}.log").read_text(errors="replace")[-2000:], flush=True)
            break
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
