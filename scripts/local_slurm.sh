#!/bin/bash
# Starts a one-node Slurm on this host for the live tests (`fairsort tune --submit slurm`,
# tests/it/tune.rs `live_slurm_submit_and_collect`): Debian's slurmctld, slurmd, slurm-client
# and munge (installed when missing, as root), the slurm.conf of tests/data/slurm_forecast
# (one node, 8 CPUs through SlurmdParameters=config_overrides) with this host's name. Idempotent:
# it starts munged, slurmctld and slurmd only when they are not running. Then
# `FAIRSORT_LIVE_SLURM=1 cargo test --test it tune::live` must pass.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
HOST=$(hostname)
if ! command -v slurmctld >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurm-client munge
fi
mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /etc/slurm
sed "s/NODE/$HOST/g" "$HERE/tests/data/slurm_forecast/slurm.conf" > /tmp/slurm.conf.want
restart=0
if ! cmp -s /tmp/slurm.conf.want /etc/slurm/slurm.conf; then
    cp /tmp/slurm.conf.want /etc/slurm/slurm.conf
    restart=1
fi
[ -s /etc/munge/munge.key ] || {
    mungekey --create 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128 2>/dev/null
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
}
chown munge:munge /run/munge
pgrep -x munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged
if [ $restart = 1 ] && pgrep -x slurmctld >/dev/null; then
    scontrol reconfigure
    sleep 2
fi
pgrep -x slurmctld >/dev/null || { slurmctld; sleep 2; }
pgrep -x slurmd >/dev/null || { slurmd; sleep 3; }
scontrol update nodename="$HOST" state=resume 2>/dev/null || true
for _ in $(seq 30); do
    sinfo -h -o %T | grep -qE 'idle|mixed|allocated' && exit 0
    sleep 1
done
echo "local_slurm.sh: the node did not come up" >&2
sinfo >&2
exit 1
