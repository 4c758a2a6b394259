#!/bin/sh
# Start a one-host Slurm 22.05 lab (Debian 12 packages) as root: munge, MariaDB,
# slurmdbd, slurmctld and four slurmd (node1..node4) over loopback.
# apt-get update && apt-get install -y slurm-wlm slurmdbd mariadb-server munge
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
cp "$HERE/${CONF:-slurm.conf}" /etc/slurm/slurm.conf
# CONF=slurm-attempts.conf GRES=gres.conf for the attempts lab (fake GPUs, QOS preemption)
if [ -n "$GRES" ]; then cp "$HERE/$GRES" /etc/slurm/gres.conf; for i in 0 1; do [ -e /dev/fakegpu$i ] || mknod /dev/fakegpu$i c 1 3; done; else rm -f /etc/slurm/gres.conf; fi
chown -R slurm:slurm /var/spool/slurmctld /var/log/slurm /run/slurm
pgrep -x slurmdbd >/dev/null || slurmdbd
sleep 4
sacctmgr -i add cluster lab >/dev/null 2>&1 || true
sacctmgr -i add account proj_a >/dev/null 2>&1 || true
for u in u1 u2; do id $u >/dev/null 2>&1 || useradd -m $u; sacctmgr -i add user $u account=proj_a >/dev/null 2>&1 || true; done
pgrep -x slurmctld >/dev/null || slurmctld
for n in 1 2 3 4; do slurmd -N node$n; done
sleep 5
sinfo
