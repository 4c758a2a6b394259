"""The codes of the sacct scan: what each output of its kernels means (the
kind of a field, the status of a value read, the JobID flags, the Slurm
states), shared by the kernels (_sacct_jit.py) and their drivers
(sacct_scan.py, which hands them on to sacct.py).

Why a module of its own: the kernels compile from these constants and the
drivers pass arrays coded with them, so both import them from here, below
both (the kernels once took them from the drivers' module, which calls them).
"""

from __future__ import annotations

import numpy as np

NL, CR, BAR, DOT = 10, 13, 124, 46
# what split does with a field (``kind`` per output column): PLAIN only its string view;
# JOBID, MEM, GPUS + g, TIME + t (the t-th time) and INT + i (the i-th count) read values too
PLAIN, JOBID = 0, 2
TIME, INT = 10, 20
# time status per field: read, missing (empty, None, Unknown), other (left to Polars)
T_READ, T_MISSING, T_OTHER = 0, 1, 2
# JobID flags: bit 0 a valid id, 1 has an array task, 2 the task is a number, 3 has a het offset
ID_OK, ID_TASK, ID_TASK_NUM, ID_HET = 1, 2, 4, 8
MAX_DIGITS = 18  # an id with more digits does not fit 64 bits: not read (a bad id)
MEM, GPUS = 3, 4  # kind of ReqMem; kind GPUS + g: the g-th TRES column's gres/gpu count (g < 2)
STATE = 8  # kind of State: the index in STATES of its first word (-1: not a known state)
# SWF status of each Slurm state (first word of State): 1 completed, 0 failed,
# 5 cancelled; None for jobs that have not ended.
STATUS = {
    "COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "NODE_FAIL": 0, "PREEMPTED": 0,
    "OUT_OF_MEMORY": 0, "BOOT_FAIL": 0, "DEADLINE": 0, "REQUEUED": 0, "REVOKED": 5,
    "CANCELLED": 5, "RUNNING": None, "PENDING": None, "SUSPENDED": None,
    "REQUEUE_HOLD": None, "REQUEUE_FED": None, "RESIZING": None, "SPECIAL_EXIT": 0,
}
STATES = tuple(STATUS)
STATE_BYTES = np.frombuffer("".join(STATES).encode(), np.uint8)  # the names one after another
STATE_ENDS = np.cumsum([len(w) for w in STATES]).astype(np.int64)
# ReqMem status: read (job total, or per node: 'n'), read per CPU ('c'), empty, other (left to Polars)
M_READ, M_PER_CPU, M_EMPTY, M_OTHER = 0, 1, 2, 3
# count status (NCPUS, ElapsedRaw, ...): read, empty, other (left to Polars' cast), and
# no limit (TimelimitRaw's UNLIMITED, Partition_Limit or INFINITE: slurmtime.NO_LIMIT)
N_READ, N_EMPTY, N_OTHER, N_NO_LIMIT = 0, 1, 2, 3
NO_LIMIT_WORDS = tuple(np.frombuffer(w, np.uint8) for w in (b"UNLIMITED", b"Partition_Limit", b"INFINITE"))
