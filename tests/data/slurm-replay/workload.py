#!/usr/bin/env python3
"""The three validation workloads of the "replay" lab, and the runner that submits them to a real Slurm.

    python3 workload.py plan W1            # the plan: one line per job (offset, user, sbatch options, sleep)
    python3 workload.py run W1 runs/W1-r1  # as root, after `sh lab-setup.sh`: submit, wait, dump

Every job only sleeps. A plan is drawn from a fixed seed, so every run of a workload submits the same jobs
at the same offsets; real Slurm then starts them at slightly different times (its timers), which is why
each workload is run several times. Standard library only (it runs with the system's python3).
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import time

USERS = ["u1", "u2", "u3", "u4", "u5", "u6"]
FORMAT = ("JobID,JobIDRaw,JobName,User,Group,Account,Partition,QOS,Submit,Eligible,Start,End,Elapsed,ElapsedRaw,"
          "Timelimit,TimelimitRaw,NNodes,NCPUS,ReqCPUS,ReqNodes,ReqMem,AllocTRES,ReqTRES,State,ExitCode,NodeList,"
          "Priority,Reason,WorkDir,SubmitLine")


def _job(rng: random.Random, kind: str, users: list[str] | None = None) -> dict:
    """One job of a kind: cpu (batch/small/either), gpu, exclusive, wide (2 nodes); by one of ``users``
    (uniformly) when given, else by any user with the lab's weights."""
    user = rng.choice(users) if users else rng.choices(USERS, weights=[3, 1, 2, 2, 2, 1])[0]
    run = rng.randint(4, 34)
    limit = max(1, math.ceil(run / 60 / rng.uniform(0.15, 0.9)))  # minutes; users over-estimate
    if rng.random() < 0.04:
        run = limit * 60 + 30  # sleeps past its limit: TIMEOUT
    opts = [f"--time={limit}"]
    if kind == "cpu":
        part = rng.choices(["batch", "small", "batch,small"], weights=[6, 3, 2])[0]
        opts += ["-p", part, "-n", str(rng.choices([1, 2, 4], weights=[5, 3, 2])[0])]
    elif kind == "gpu":
        opts += ["-p", "gpu", "-n", str(rng.choice([1, 2])), f"--gres=gpu:{rng.choice([1, 1, 2])}"]
    elif kind == "exclusive":
        opts += ["-p", rng.choice(["batch", "gpu"]), "-N1", "--exclusive"]
    else:  # wide
        opts += ["-p", "batch", "-N2", "--ntasks-per-node=2"]
    return {"user": user, "opts": opts, "sleep": run, "kind": kind}


def plan(name: str) -> list[dict]:
    """W1 mixed CPU work over overlapping partitions; W2 GPUs, exclusive and 2-node jobs; W3 a burst;
    W4 QOS preemption (run with slurm-preempt.conf): `high` jobs of u1 and u4 preempt `normal` jobs
    (PreemptMode REQUEUE, the cluster's) and `low` ones (their QOS's PreemptMode CANCEL)."""
    rng = random.Random({"W1": 11, "W2": 22, "W3": 33, "W4": 44}[name])
    jobs, t = [], 0.0
    if name == "W1":
        for _ in range(220):
            t += rng.expovariate(1 / 1.9)
            jobs.append({"at": round(t, 1), **_job(rng, rng.choices(["cpu", "gpu", "exclusive"], [17, 2, 1])[0])})
    elif name == "W2":
        for _ in range(210):
            t += rng.expovariate(1 / 2.3)
            kind = rng.choices(["cpu", "gpu", "exclusive", "wide"], [8, 8, 2, 2])[0]
            jobs.append({"at": round(t, 1), **_job(rng, kind)})
    elif name == "W4":
        for _ in range(210):
            t += rng.expovariate(1 / 2.0)
            if rng.random() < 0.12:
                job = _job(rng, rng.choices(["cpu", "gpu", "exclusive"], [6, 2, 1])[0], users=["u1", "u4"])
                job["opts"] += ["--qos=high"]
            else:
                job = _job(rng, rng.choices(["cpu", "gpu"], [8, 2])[0])
                if rng.random() < 0.3:
                    job["opts"] += ["--qos=low"]
            jobs.append({"at": round(t, 1), **job})
    else:  # W3: light load, a burst of 120 jobs in 20 s that fills the queue, then a light tail
        for _ in range(40):
            t += rng.expovariate(1 / 3.0)
            jobs.append({"at": round(t, 1), **_job(rng, "cpu")})
        for _ in range(120):
            t += rng.expovariate(1 / 0.17)
            jobs.append({"at": round(t, 1), **_job(rng, rng.choices(["cpu", "gpu"], [5, 1])[0])})
        for _ in range(50):
            t += rng.expovariate(1 / 4.0)
            jobs.append({"at": round(t, 1), **_job(rng, "cpu")})
    for i, j in enumerate(jobs):
        j["name"] = f"{name.lower()}_{i:03d}_{j['kind']}"
    return jobs


def _sh(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def run(name: str, out: str) -> None:
    """Reset the fair-share usage, submit the plan at its offsets, wait for every job, then dump."""
    os.makedirs(out, exist_ok=True)
    for acct in ("proj_a", "proj_b", "proj_c"):
        _sh("sacctmgr", "-i", "modify", "account", acct, "set", "RawUsage=0")
    for user, acct in zip(USERS, ["proj_a", "proj_a", "proj_b", "proj_b", "proj_c", "proj_c"]):
        _sh("sacctmgr", "-i", "modify", "user", user, "where", f"account={acct}", "set", "RawUsage=0")
    # the fair-share factors follow a reset usage only at the next PriorityCalcPeriod (1 min here): wait for it,
    # so that every run starts from zero usage and factors of 1.0 (sshare-start.txt shows them)
    time.sleep(65)
    with open(f"{out}/sshare-start.txt", "w") as f:
        f.write(_sh("sshare", "-a", "-l", "-P"))
    start = time.time()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(start - 1))
    procs = []
    for j in plan(name):
        delay = start + j["at"] - time.time()
        if delay > 0:
            time.sleep(delay)
        cmd = ["runuser", "-u", j["user"], "--", "sbatch", "--parsable", "-D", "/tmp", "-o", "/dev/null",
               "-J", j["name"], *j["opts"], "--wrap", f"sleep {j['sleep']}"]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    ids = []
    for p in procs:
        o, e = p.communicate()
        if p.returncode:
            sys.exit(f"sbatch failed: {e.strip()}")
        ids.append(o.strip())
    while _sh("squeue", "-h", "-j", ",".join(ids)).strip():
        time.sleep(5)
    time.sleep(3)
    with open(f"{out}/sshare-end.txt", "w") as f:
        f.write(_sh("sshare", "-a", "-l", "-P"))
    with open(f"{out}/sacct.txt", "w") as f:
        # W4: every attempt of a requeued job (--duplicates), and the QOS table the preemption follows
        dup = ["--duplicates"] if name == "W4" else []
        f.write(_sh("sacct", "--allusers", "--parsable2", *dup, "--starttime", stamp, "--format", FORMAT))
    if name == "W4":
        with open(f"{out}/qos.txt", "w") as f:
            f.write(_sh("sacctmgr", "show", "qos", "-P", "format=Name,Priority,Preempt,PreemptMode"))
    with open(f"{out}/README.txt", "w") as f:
        f.write(f"workload {name}: {len(ids)} jobs, ids {ids[0]}-{ids[-1]}, submitted from {stamp} "
                f"(host time, UTC) for {time.time() - start:.0f} s until the last ended\n"
                f"sacct --allusers --parsable2 --starttime {stamp} --format {FORMAT}\n")


if __name__ == "__main__":
    if sys.argv[1] == "plan":
        for j in plan(sys.argv[2]):
            print(f"{j['at']:7.1f} {j['user']} {' '.join(j['opts'])} sleep {j['sleep']}  # {j['name']}")
    else:
        run(sys.argv[2], sys.argv[3])
