"""The published set-up: Gaussier et al.'s (pyss) input rules, applied to an SWF file.

Gaussier, Glesser, Reis & Trystram (SC 2015) replayed each log after
predictsim's ``strong_filter_all_swf`` (predictsim,
experiments/data_manipulation/) on a machine of the header's ``MaxProcs``
(pyss reads it when the configuration gives no ``num_processors``, and theirs
give ``None``). Their rules, per job line, in order:

1. left out when the allocated or the requested processors exceed MaxProcs;
2. a missing (<= 0) allocated or requested processor count takes the other;
   both missing: left out;
3. left out when the runtime is <= 0, or the requested time is <= 0, or the
   submit time is < 0;
4. a runtime above the requested time is cut to it (the job is killed at its
   limit).

What this moves (docs/evaluate.md, "Set-up"): CTC-SP2 is 338 processors
(its header; the whole machine was 512), and on SDSC-SP2 the 4,134 jobs that
ran past their request end at it. Their committed metrics
(experiments/data/*/sim_analysis/metrics) then agree with ours: CTC-SP2
77,199 jobs, AVEbsld EASY with the requests 49.57 (ours 48.84), EASY++ exact
17.57 (ours 17.57); SDSC-SP2 54,006 jobs (ours 53,999), 87.87 (ours 87.76)
and 56.84 (ours 56.77).

Written here rather than taken from predictsim: their script is awk over a
whole file (GPL, Python 2 tooling around it); these are seven comparisons on
whitespace-split fields.
"""

from __future__ import annotations

import re

SETUPS = ("paper", "log")  # paper: the rules below and the header's MaxProcs; log: the file as it is
SUFFIX = "-paper"  # warehouse name of a trace in the published set-up: NAME-paper


_MAXPROCS = re.compile(r"^;\s*MaxProcs:\s*(\d+)")


def max_procs(header: list[str]) -> int | None:
    """The header's ``; MaxProcs: N`` (pyss reads the same line), else None. Spacing varies between
    archive files (LPC-EGEE: ``;        MaxProcs: 140``) and a split machine adds its parts after the
    total (SDSC-DS: ``; MaxProcs: 1664 (72, 1368, 224)``): the first whole number is the total."""
    for line in header:
        m = _MAXPROCS.match(line.strip())
        if m:
            return int(m.group(1))
    return None


def paper_line(line: str, maxprocs: int | None) -> str | None:
    """One SWF job line under the published input rules (module docstring): the
    line to keep (fields rewritten where a rule changes them) or None."""
    f = line.split()
    if len(f) < 9:
        return None
    try:
        v = [int(float(x)) for x in f[:9]]
    except ValueError:
        return None
    submit, run, alloc, req_procs, req_time = v[1], v[3], v[4], v[7], v[8]
    if maxprocs is not None and (alloc > maxprocs or req_procs > maxprocs):
        return None
    if alloc <= 0 and req_procs <= 0:
        return None
    if alloc <= 0:
        f[4] = f[7]
    elif req_procs <= 0:
        f[7] = f[4]
    if run <= 0 or req_time <= 0 or submit < 0:
        return None
    if run > req_time:
        f[3] = f[8]
    return " ".join(f) + "\n"
