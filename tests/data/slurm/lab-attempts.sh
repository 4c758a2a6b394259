#!/bin/sh
# The workload behind attempts-*.txt (run as root after
# `CONF=slurm-attempts.conf GRES=gres.conf sh lab-setup.sh`; jobs run as u1/u2).
# QOS `high` (u1 only) preempts `normal` by requeue:
#   sacctmgr -i add qos high; sacctmgr -i modify qos high set Preempt=normal PreemptMode=requeue Priority=100
#   sacctmgr -i modify user u1 set qos+=high
set -x
S="runuser -u u1 -- sbatch --parsable -D /tmp -o /dev/null"
T="runuser -u u2 -- sbatch --parsable -D /tmp -o /dev/null"
# requeue by hand while running
RQ=$($T -p long --time=00:10:00 -n2 -w node1 -J rq_manual --wrap "sleep 30")
# preemption: u2 fills node2 (normal QOS), u1 comes in with QOS high on node2
PV=$($T -p long --time=00:10:00 -n4 -w node2 -J victim --wrap "sleep 40")
# node failure: a job on node3, then node3 is set down while it runs
NF=$($T -p long --time=00:10:00 -n2 -w node3 -J on_node3 --wrap "sleep 40")
# GPUs (fake gres on node3/node4)
$S -p unlim --time=00:05:00 --gres=gpu:1 -J gpu1 --wrap "sleep 12"
$S -p unlim --time=00:05:00 --gpus=2 -w node4 -J gpu2 --wrap "sleep 15"
# eligible later than submit: hold, --begin, dependency
HO=$($S -p long --time=00:05:00 -n1 --hold -J held --wrap "sleep 5")
$T -p long --time=00:05:00 -n1 --begin=now+40 -J begin40 --wrap "sleep 5"
DP=$($S -p long --time=00:05:00 -n1 -J dep_parent --wrap "sleep 25")
$S -p long --time=00:05:00 -n1 --dependency=afterok:$DP -J dep_child --wrap "sleep 5"
$T -p short --time=1 -n1 -J fails --wrap "sleep 3; exit 2"
sleep 15
scontrol requeue "$RQ"
$S -p long --time=00:05:00 -n4 -w node2 --qos=high -J preemptor --wrap "sleep 15"
sleep 5
scontrol update nodename=node3 state=down reason=lab_failure
sleep 10
scontrol release "$HO"
scontrol update nodename=node3 state=resume
# a job requeued twice: by hand, then by preemption when it runs again
R2=$($T -p long --time=00:10:00 -n4 -w node1 -J rq_twice --wrap "sleep 30")
sleep 12
scontrol requeue "$R2"
