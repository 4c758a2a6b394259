#!/bin/sh
# Every workload five times, interleaved (W1, W2, W3, W1, ...), into runs/<W>-r<N>/ (about 2 h 10 min).
cd "$(dirname "$0")"
for r in 1 2 3 4 5; do for w in W1 W2 W3; do  # (a run whose folder has its sacct.txt is kept)
  [ -s runs/$w-r$r/sacct.txt ] || python3 workload.py run $w runs/$w-r$r
done; done
sacctmgr show assoc -P format=Cluster,ParentName,Account,User,Partition,Share,QOS,DefaultQOS cluster=replay > assoc.txt
