#!/bin/sh
# Every workload three times, interleaved (W1, W2, W3, W1, ...), into runs/<W>-r<N>/ (about 80 minutes).
cd "$(dirname "$0")"
for r in 1 2 3; do for w in W1 W2 W3; do  # (a run whose folder has its sacct.txt is kept)
  [ -s runs/$w-r$r/sacct.txt ] || python3 workload.py run $w runs/$w-r$r
done; done
sacctmgr show assoc -P format=Cluster,ParentName,Account,User,Partition,Share,QOS,DefaultQOS cluster=replay > assoc.txt
