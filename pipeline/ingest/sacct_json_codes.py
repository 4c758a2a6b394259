"""The `sacct --json` scanner's codes and key table (the kernel: _sacct_json_jit.py; its driver:
sacct_json_fast.py). Apart from the kernel so the driver, which runs the kernel compiled ahead of time,
needs no Numba."""

from __future__ import annotations

import numpy as np

INFINITE = 0xFFFFFFFF  # Slurm's INFINITE (a time limit); NO_VAL is one below
NO_VAL = 0xFFFFFFFE

# ints[k, I_*]: MISSING where the key is absent or null
(I_JOB, I_SUBMIT, I_ELIG, I_START, I_END, I_ELAPSED, I_LIMIT, I_ANODES, I_REQCPUS, I_ACPU, I_ANODE, I_AGPU,
 I_RCPU, I_RNODE, I_RMEM, I_RGPU, I_AJOB, I_ATASK, I_HJOB, I_HOFF, I_STEPS, I_EXCODE, I_SIGID, I_SIGID2,
 I_RSTART, I_REND) = range(26)
NI = 26
# strs[k, S_*, 0:2]: byte offsets of a kept string's text (without quotes); -1 for null or absent
S_USER, S_GROUP, S_ACCOUNT, S_PART, S_QOS, S_NAME, S_STATE, S_CLUSTER = range(8)
NS = 8
# flags[k]
F_SLOW, F_EXIT, F_HAS_SIGID = 1, 2, 4
# statuses
DONE, CHUNK, FULL, LAYOUT, EOF = range(5)
MISSING = -(1 << 63)

# the containers read (the stack's codes); 0: none
C_REC, C_TIME, C_ARRAY, C_HET, C_REQ, C_STATE, C_EXIT, C_SIG, C_TRES, C_TALLOC, C_TREQ, C_TITEM = range(1, 13)
# what a key is, by container: an int column, a string column, a container, or (-1) nothing
K_INT, K_STR, K_BOX, K_STEPS, K_TYPE, K_NAME, K_COUNT = range(1, 8)


def _key_sig(word: str) -> int:
    b = word.encode()  # (as _sig_of in the kernel)
    return len(b) | b[0] << 16 | b[min(1, len(b) - 1)] << 24 | b[-1] << 32


# (container, key) -> (kind, target): the keys read; every other key's value is skipped
_KEYS = {
    C_REC: {"job_id": (K_INT, I_JOB), "allocation_nodes": (K_INT, I_ANODES), "user": (K_STR, S_USER),
            "group": (K_STR, S_GROUP), "account": (K_STR, S_ACCOUNT), "partition": (K_STR, S_PART),
            "qos": (K_STR, S_QOS), "name": (K_STR, S_NAME), "cluster": (K_STR, S_CLUSTER),
            "time": (K_BOX, C_TIME), "array": (K_BOX, C_ARRAY),
            "het": (K_BOX, C_HET), "required": (K_BOX, C_REQ), "state": (K_BOX, C_STATE),
            "exit_code": (K_BOX, C_EXIT), "tres": (K_BOX, C_TRES), "steps": (K_STEPS, 0)},
    C_TIME: {"submission": (K_INT, I_SUBMIT), "eligible": (K_INT, I_ELIG), "start": (K_INT, I_START),
             "end": (K_INT, I_END), "elapsed": (K_INT, I_ELAPSED), "limit": (K_INT, I_LIMIT)},
    C_ARRAY: {"job_id": (K_INT, I_AJOB), "task_id": (K_INT, I_ATASK)},
    C_HET: {"job_id": (K_INT, I_HJOB), "job_offset": (K_INT, I_HOFF)},
    C_REQ: {"CPUs": (K_INT, I_REQCPUS)},
    C_STATE: {"current": (K_STR, S_STATE)},
    C_EXIT: {"return_code": (K_INT, I_EXCODE), "signal": (K_BOX, C_SIG)},
    C_SIG: {"signal_id": (K_INT, I_SIGID), "id": (K_INT, I_SIGID2)},
    C_TRES: {"allocated": (K_BOX, C_TALLOC), "requested": (K_BOX, C_TREQ)},
    C_TITEM: {"type": (K_TYPE, 0), "name": (K_NAME, 0), "count": (K_COUNT, 0)},
}
KEY_TABLE = np.array([(c, _key_sig(k), kind, target) for c, keys in sorted(_KEYS.items())
                      for k, (kind, target) in keys.items()], np.int64)
KEY_TEXT = np.array([list(k.encode().ljust(24, b"\0")) for c, keys in sorted(_KEYS.items()) for k in keys], np.uint8)
KEY_FROM = np.searchsorted(KEY_TABLE[:, 0], np.arange(C_TITEM + 2)).astype(np.int64)  # container c: rows [c], [c + 1]
_W_CPU, _W_NODE, _W_MEM, _W_GRES, _W_GPU = (np.frombuffer(w, np.uint8) for w in (b"cpu", b"node", b"mem", b"gres",
                                                                                  b"gpu"))
SP, NL, QUOTE, COMMA, LBRACE, RBRACE, LBRACKET, RBRACKET, BSLASH, MINUS = 32, 10, 34, 44, 123, 125, 91, 93, 92, 45
