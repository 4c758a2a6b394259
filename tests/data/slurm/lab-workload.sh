#!/bin/sh
# The workload behind live-sacct.txt (run as root after lab-setup.sh; jobs run as u1/u2).
set -x
cp "$(dirname "$0")/slurm.conf" /etc/slurm/slurm.conf; scontrol reconfigure; sleep 3
S="runuser -u u1 -- sbatch --parsable -D /tmp -o /dev/null"
T="runuser -u u2 -- sbatch --parsable -D /tmp -o /dev/null"
# phase 1: the main scheduler starts jobs at submit time (SchedulerParameters=bf_interval=2,sched_interval=10)
$S -p unlim -J unlim_main --wrap "sleep 20"              # no --time in MaxTime=UNLIMITED: Timelimit UNLIMITED
$S -p short --time=1 -J done_short --wrap "sleep 5"
$T -p long --time=00:10:00 -J 'a|b' --wrap "sleep 8"      # a '|' in the job name
$S -p long --time=02:00:00 -J live_run --wrap "sleep 7200" # still RUNNING at the dump
J=$($T -p long --time=01:00:00 -J live_susp --wrap "sleep 3600")  # SUSPENDED at the dump
sleep 25
scontrol suspend "$J"
# phase 2: only the backfill scheduler starts jobs (main loop off, nothing at submit time)
sed -i 's/^SchedulerParameters=.*/SchedulerParameters=bf_interval=2,sched_interval=-1,defer/' /etc/slurm/slurm.conf
scontrol reconfigure
sleep 3
$S -p unlim -J unlim_bf --wrap "sleep 15"                # started by backfill: Timelimit 365-00:00:00
$T -p unlim -J unlim_bf_live --wrap "sleep 7200"         # started by backfill, still RUNNING at the dump
$S -p long --time=00:05:00 -J bf_long --wrap "sleep 10"
$S -p long -N4 --exclusive --time=00:05:00 -J pend_wide --wrap "sleep 10"  # PENDING at the dump (nodes busy)
sleep 45
# pend_wide (higher priority, all 4 nodes) kept backfill from starting the unlim jobs: cancel it
scancel "$(squeue -h -n pend_wide -o %i)"
sleep 6
$S -p long --time=00:05:00 --begin=now+3600 -J pend_begin --wrap "sleep 10"   # PENDING (BeginTime) at the dump
$T -p long --time=00:05:00 --hold -J pend_hold --wrap "sleep 10"             # PENDING (JobHeldUser) at the dump
sleep 20
