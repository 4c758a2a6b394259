"""Reproducible per-job random numbers for the `uniform` and `model` schemes.

Why a hash and not a generator stream: a job's draw depends only on (seed,
job_id, stream), never on which other jobs are in the trace or their order,
so deleting or changing other jobs cannot change a job's estimate.
SplitMix64 finaliser on a mixed 64-bit word; the top 53 bits give [0, 1).
"""

from __future__ import annotations

import numpy as np

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SEED_MUL = np.uint64(0xD1B54A32D192ED03)
_STREAM_MUL = np.uint64(0x8CB92BA72F3D8DD7)


def uniform01(seed: int, job_id: np.ndarray, stream: int) -> np.ndarray:
    """U[0, 1) per job id, as float64."""
    with np.errstate(over="ignore"):
        x = job_id.astype(np.int64).view(np.uint64)
        x = x * _GOLDEN + np.uint64(seed) * _SEED_MUL + np.uint64(stream) * _STREAM_MUL
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) / float(1 << 53)
