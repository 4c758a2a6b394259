#!/bin/sh
# W4 (QOS preemption) three times into runs/W4-r<N>/, after `sh lab-preempt.sh` (about 30 minutes).
cd "$(dirname "$0")"
for r in 1 2 3; do  # (a run whose folder has its sacct.txt is kept)
  [ -s runs/W4-r$r/sacct.txt ] || python3 workload.py run W4 runs/W4-r$r
done
