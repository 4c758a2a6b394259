"""Naive twin of pipeline/ingest/sacct_json.py: ``json.load`` the whole dump, then
one plain loop over its records.

Written from the dump itself (tests/data/slurm/json-lab-sacct.json: Slurm
22.05.8's openapi/dbv0.0.38 output) and docs/ingest.md's table, not from the
fast reader: no windows, no Polars. Returns the jobs as the warehouse stores
them (times relative to the first submission), keyed by Slurm id.
"""

from __future__ import annotations

import json

STATUS = {"COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "DEADLINE": 0, "CANCELLED": 5, "NODE_FAIL": 0,
          "OUT_OF_MEMORY": 0, "PREEMPTED": 0, "BOOT_FAIL": 0, "REQUEUED": 0,
          "RUNNING": None, "SUSPENDED": None, "PENDING": None}
YEAR = 365 * 86400


def jobs(path, size: str = "cpus", release: str = "eligible") -> dict[str, dict]:
    """``release`` 'eligible': the wait counts from time.eligible where it is set (never before submission)."""
    doc = json.load(open(path))
    last: dict[str, dict] = {}
    for rec in doc["jobs"]:
        arr, het = rec["array"], rec["het"]
        if arr["job_id"] and arr["task_id"] is not None:
            sid = f"{arr['job_id']}_{arr['task_id']}"
        elif arr["job_id"]:
            bits = int(arr["task"], 16)
            tasks = [i for i in range(64) if bits >> i & 1]
            sid = f"{arr['job_id']}_[{tasks[0]}-{tasks[-1]}]"  # (the lab's pending arrays are one run)
        elif het["job_id"]:
            sid = f"{het['job_id']}+{het['job_offset']}"
        else:
            sid = str(rec["job_id"])
        old = last.get(sid)
        if old is None or rec["time"]["submission"] >= old["time"]["submission"]:
            last[sid] = rec  # every attempt is a record; the last one is the job
    first = min(r["time"]["submission"] for r in last.values())
    out = {}
    for sid, r in last.items():
        t = r["time"]
        eligible = t.get("eligible") or None  # 0: never eligible
        waits_from = max(t["submission"], eligible) if release == "eligible" and eligible else t["submission"]
        start = t["start"] or None
        end = t["end"] or None
        alloc = {a["type"]: a["count"] for a in r["tres"]["allocated"]}
        req = {a["type"]: a["count"] for a in r["tres"]["requested"]}
        state = r["state"]["current"]
        live = start is not None and STATUS[state] is None
        if size == "cpus":
            procs = alloc.get("cpu") or r["required"]["CPUs"]
        else:
            procs = alloc.get("node") or r["allocation_nodes"] or req.get("node")
        limit = t["limit"]
        req_s = None if limit is None or limit * 60 == YEAR else limit * 60
        out[sid] = {
            "submit": t["submission"] - first,
            "wait": None if start is None else start - waits_from,
            "eligible": None if eligible is None else max(t["submission"], eligible) - first,
            "cores": alloc.get("cpu") or r["required"]["CPUs"],
            "node_count": alloc.get("node") or r["allocation_nodes"] or req.get("node"),
            "run": None if start is None or live else (end - start if end else t["elapsed"]),
            "procs": procs,
            "req": req_s,
            "status": STATUS[state],
            "state": state,
            "user": r["user"],
            "partition": r["partition"],
            "job_name": r["name"],
            "req_mem": req["mem"] * 1024 / procs if size == "cpus" and "mem" in req else None,
        }
    return out
