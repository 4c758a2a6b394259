#!/bin/sh
# The "replay" lab with QOS preemption (workload W4): lab-setup.sh with slurm-preempt.conf (PreemptType=preempt/qos,
# PreemptMode=REQUEUE), then three QOS: `normal` (the cluster's mode: REQUEUE), `low` (PreemptMode=cancel) and
# `high` (Priority 100, preempts normal and low); every user may use low, u1 and u4 also high.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
CONF=slurm-preempt.conf sh "$HERE/lab-setup.sh"
sacctmgr -i add qos low >/dev/null 2>&1 || true
sacctmgr -i add qos high >/dev/null 2>&1 || true
sacctmgr -i modify qos normal set PreemptMode=cluster Preempt= >/dev/null 2>&1 || true
sacctmgr -i modify qos low set PreemptMode=cancel Priority=0 >/dev/null 2>&1 || true
# (Preempt=normal,low in one go is refused as a "preemption loop" by 22.05's sacctmgr; += one at a time is not)
sacctmgr -i modify qos high set Preempt+=normal Priority=100 >/dev/null 2>&1 || true
sacctmgr -i modify qos high set Preempt+=low >/dev/null 2>&1 || true
sacctmgr -i modify user u1,u2,u3,u4,u5,u6 set qos+=low >/dev/null 2>&1 || true
sacctmgr -i modify user u1,u4 set qos+=high >/dev/null 2>&1 || true
scontrol reconfigure
sacctmgr show qos -P format=Name,Priority,Preempt,PreemptMode
