"""Naive twin of pipeline/ingest/sacct.py: plain Python, one line at a time.

Written from slurm-lab.md and the sacct man page, not from the fast reader, so
that the two can be compared job by job on the real lab dumps.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

STATUS = {"COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "DEADLINE": 0, "CANCELLED": 5, "NODE_FAIL": 0,
          "OUT_OF_MEMORY": 0, "PREEMPTED": 0, "BOOT_FAIL": 0, "REQUEUED": 0, "RUNNING": None, "SUSPENDED": None, "PENDING": None}
YEAR = 365 * 86400  # what backfill prints for a job it started without a limit (tests/data/slurm/README.md)


def duration(s: str) -> int | None:
    if s in ("UNLIMITED", "Partition_Limit", ""):
        return None
    days = 0
    if "-" in s:
        d, s = s.split("-")
        days = int(d)
        parts = [int(x) for x in s.split(":")] + [0, 0]
        return days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
    parts = [int(x) for x in s.split(":")]
    if len(parts) == 1:
        return parts[0] * 60
    if len(parts) == 2:
        return parts[0] * 60 + parts[1]
    return parts[0] * 3600 + parts[1] * 60 + parts[2]


def epoch(s: str, zone: ZoneInfo, not_before: int | None = None) -> int | None:
    if s in ("None", "Unknown", ""):
        return None
    naive = datetime.strptime(s, "%Y-%m-%dT%H:%M:%S")
    t = int(naive.replace(tzinfo=zone, fold=0).timestamp())
    if not_before is not None and t < not_before:
        t = int(naive.replace(tzinfo=zone, fold=1).timestamp())
    return t


def parse(path, tz: str = "UTC", size: str = "cpus", sep: str = "|", release: str = "eligible") -> dict[str, dict]:
    """slurm_id -> the job's fields, for top-level rows (steps skipped). ``sep``:
    the field separator (``sacct --delimiter``). No slurm.conf: a 365-day limit is none.
    ``release`` 'eligible': the wait counts from Eligible where the dump has one (not before Submit).
    A JobID seen again with a later Submit (``--duplicates``): the later row is the job."""
    zone = ZoneInfo(tz)
    lines = open(path).read().splitlines()
    cols = lines[0].split(sep)
    jobs = {}
    for line in lines[1:]:
        if not line:
            continue
        r = dict(zip(cols, line.split(sep)))
        if "." in r["JobID"]:
            continue
        # sacct's default fields have no times and no limit: those stay None
        submit = epoch(r.get("Submit", ""), zone)
        if r["JobID"] in jobs and submit is not None and submit <= jobs[r["JobID"]]["submit_epoch"]:
            continue  # an earlier attempt printed after the later one (sacct prints them in order)
        eligible = epoch(r.get("Eligible", ""), zone, submit)
        waits_from = max(submit, eligible) if release == "eligible" and eligible is not None else submit
        start = epoch(r.get("Start", ""), zone, submit)
        end = epoch(r.get("End", ""), zone, start if start is not None else submit)
        tres = dict(kv.split("=") for kv in r.get("AllocTRES", "").split(",") if "=" in kv)
        cpus = r["NCPUS"] if "NCPUS" in r else r["AllocCPUS"]
        procs = int(cpus) if size == "cpus" else int(r["NNodes"])
        limit = (int(r["TimelimitRaw"]) * 60 if r.get("TimelimitRaw", "UNLIMITED").isdigit()
                 else duration(r.get("Timelimit", "")))
        if limit == YEAR:
            limit = None
        m = re.match(r"^(\d+)(?:_(\d+|\[.*\]))?(?:\+(\d+))?$", r["JobID"])
        jobs[r["JobID"]] = {
            "submit_epoch": submit,
            "wait": None if start is None else start - waits_from,
            "run": None if start is None or end is None else end - start,  # (a live job's End is Unknown)
            "procs": procs, "req": limit, "status": STATUS[r["State"].split()[0]], "state": r["State"],
            "user": r.get("User"), "account": r["Account"], "partition": r["Partition"], "qos": r.get("QOS"),
            "job_name": r["JobName"], "group_name": r.get("Group"), "exit_code": r["ExitCode"],
            "array_job_id": int(m.group(1)) if m.group(2) is not None else None,
            "array_task_id": int(m.group(2)) if m.group(2) and m.group(2).isdigit() else None,
            "het_job_id": int(m.group(1)) if m.group(3) is not None else None,
            "gpus": int(tres["gres/gpu"]) if "gres/gpu" in tres else None,
        }
    return jobs



