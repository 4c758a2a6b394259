#!/bin/sh
# Start the one-host Slurm 22.05 "replay" lab (Debian 12 packages) as root: munge, MariaDB,
# slurmdbd, slurmctld and four slurmd over loopback, from this folder's slurm.conf / gres.conf.
# apt-get update && apt-get install -y slurm-wlm slurmdbd mariadb-server munge
# Nodes as ../slurm-trust: node1-2 4 CPUs = 2 cores x 2 threads; node3-4 8 CPUs = 4 cores x 2 threads, 2 fake GPUs.
# Accounts with different shares: proj_a 10 (u1 2 shares, u2 1), proj_b 30 (u3, u4), proj_c 60 (u5, u6).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p /etc/munge /run/munge /var/log/munge /etc/slurm /var/spool/slurmctld /var/log/slurm /run/slurm /run/mysqld
for n in 1 2 3 4; do mkdir -p /var/spool/slurmd.node$n; done
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
chown -R munge:munge /etc/munge /run/munge /var/log/munge; chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- munged
chown mysql:mysql /run/mysqld
pgrep -x mariadbd >/dev/null || (mysqld_safe >/dev/null 2>&1 &)
sleep 5
mysql -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmpw'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
cp "$HERE/slurmdbd.conf" /etc/slurm/slurmdbd.conf; chown slurm:slurm /etc/slurm/slurmdbd.conf; chmod 600 /etc/slurm/slurmdbd.conf
cp "$HERE/${CONF:-slurm.conf}" /etc/slurm/slurm.conf  # CONF=slurm-preempt.conf for W4
cp "$HERE/gres.conf" /etc/slurm/gres.conf
for i in 0 1; do [ -e /dev/fakegpu$i ] || mknod /dev/fakegpu$i c 1 3; done
# a StateSaveLocation another lab left (another ClusterName) is cleared: slurmctld refuses it
[ "$(cat /var/spool/slurmctld/clustername 2>/dev/null || echo replay)" = replay ] || rm -rf /var/spool/slurmctld/*
chown -R slurm:slurm /var/spool/slurmctld /var/log/slurm /run/slurm
pgrep -x slurmdbd >/dev/null || slurmdbd
sleep 4
sacctmgr -i add cluster replay >/dev/null 2>&1 || true
sacctmgr -i add account proj_a cluster=replay fairshare=10 >/dev/null 2>&1 || true
sacctmgr -i add account proj_b cluster=replay fairshare=30 >/dev/null 2>&1 || true
sacctmgr -i add account proj_c cluster=replay fairshare=60 >/dev/null 2>&1 || true
for u in u1 u2 u3 u4 u5 u6; do id $u >/dev/null 2>&1 || useradd -m $u; done
sacctmgr -i add user u1 account=proj_a cluster=replay fairshare=2 >/dev/null 2>&1 || true
sacctmgr -i add user u2 account=proj_a cluster=replay fairshare=1 >/dev/null 2>&1 || true
sacctmgr -i add user u3,u4 account=proj_b cluster=replay >/dev/null 2>&1 || true
sacctmgr -i add user u5,u6 account=proj_c cluster=replay >/dev/null 2>&1 || true
pgrep -x slurmctld >/dev/null || slurmctld
for n in 1 2 3 4; do slurmd -N node$n; done
sleep 5
sinfo
