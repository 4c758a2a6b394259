#!/bin/sh
# The workload behind this folder's dumps (run as root after `sh lab-setup.sh`; jobs run as u1-u4).
# Every job only sleeps. What each case is for: README.md.
set -x
sb() { u=$1; shift; runuser -u "$u" -- sbatch --parsable -D /tmp -o /dev/null "$@"; }
# finished jobs that over-estimate (the bulk): batch and small, 1-4 CPUs
for i in 1 2 3 4; do sb u1 -p batch --time=00:05:00 -n1 -J over_$i --wrap "sleep $((5 + i))"; done
for i in 1 2 3; do sb u3 -p small --time=00:03:00 -n2 -J small_$i --wrap "sleep $((8 + i))"; done
sb u2 -p batch,small --time=00:02:00 -n1 -J either --wrap "sleep 6"
# a 1-CPU job on a 2-thread core: NCPUS 2
sb u4 -p small --time=00:01:00 -n1 -J one_cpu --wrap "sleep 12"
# GPUs that finish: 1 and 2 GPUs, with limits
sb u1 -p gpu --time=00:02:00 --gres=gpu:1 -n1 -J gpu_done1 --wrap "sleep 20"
sb u3 -p gpu --time=00:04:00 --gpus=2 -n2 -w node4 -J gpu_done2 --wrap "sleep 25"
# an exclusive job in the GPU partition that asks for no GPU (allocated the node's GPUs)
sb u2 -p gpu --time=00:02:00 --exclusive -N1 -w node3 -J excl_nogpu --wrap "sleep 15"
# no time limit: the gpu partition has no DefaultTime and MaxTime UNLIMITED
sb u4 -p gpu -n1 -J no_limit --wrap "sleep 9"
sb u4 -p gpu -n1 -J no_limit2 --wrap "sleep 11"
# cancelled while running (by its owner, after 10 s)
CR=$(sb u3 -p batch --time=00:10:00 -n2 -J cancel_run --wrap "sleep 300")
# node failure: a job alone on node2, then node2 set down while it runs; --no-requeue: it ends NODE_FAIL
NF=$(sb u2 -p small --time=00:10:00 -n2 -w node2 --no-requeue -J node_fail --wrap "sleep 300")
# preemption by QOS high (PreemptMode=cancel): u2 fills node1, u1 comes with --qos=high
PV=$(sb u2 -p small --time=00:10:00 -n4 -w node1 -J victim --wrap "sleep 300")
sleep 20
scancel "$CR"
scontrol update nodename=node2 state=down reason=lab_failure
sb u1 -p small --time=00:02:00 -n4 -w node1 --qos=high -J preemptor --wrap "sleep 10"
sleep 15
scontrol update nodename=node2 state=resume
# a burst that queues: 8 x 4 CPUs on batch for 20-30 s each
for i in 1 2 3 4 5 6 7 8; do sb u$(( (i % 4) + 1 )) -p batch --time=00:01:00 -n4 -J burst_$i --wrap "sleep $((20 + i))"; done
# GPU jobs that queue behind each other: an array of 4 x 2 GPUs
sb u1 -p gpu --time=00:03:00 --gpus=2 -n1 --array=0-3 -J gpu_arr --wrap "sleep 15"
sleep 90
# still running at the dump: 3 jobs holding CPUs and a GPU
sb u3 -p batch --time=00:30:00 -n4 -J live_cpu --wrap "sleep 1200"
sb u4 -p batch --time=00:30:00 -n2 -J live_cpu2 --wrap "sleep 1200"
sb u1 -p gpu --time=00:30:00 --gres=gpu:1 -n1 -J live_gpu --wrap "sleep 1200"
# pending at the dump: held
sb u2 -p batch --time=00:05:00 -n1 --hold -J pend_hold --wrap "sleep 5"
sleep 20
