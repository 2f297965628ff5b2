#!/bin/bash
# Captures what a real Slurm (Debian 12: slurm-wlm 22.05.8) decides about pending jobs: for each
# scenario, the queue before the decision, the queue and Slurm's start estimates after backfill
# passes, and expected.json (extract_forecast.py). Run as root on a host where slurmctld, slurmd,
# slurm-client and munge are installed (README.md). Idempotent: it starts munged, slurmctld and
# slurmd only when they are not running, cancels every job of the scenario users between
# scenarios, and rewrites a scenario's directory.
#
#   tests/data/slurm_forecast/capture.sh            # every scenario
#   tests/data/slurm_forecast/capture.sh memory_bound partition_tier
#   tests/data/slurm_forecast/capture.sh --measure  # the squeue --start / sdiag figures
set -euo pipefail
export TZ=UTC
HERE=$(cd "$(dirname "$0")" && pwd)
HOST=$(hostname)
USERS=(alice bob carol)

log() { echo "[$(date +%T)] $*" >&2; }

setup() {
    mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
    sed "s/NODE/$HOST/g" "$HERE/slurm.conf" > /tmp/slurm.conf.want
    local restart=0
    if ! cmp -s /tmp/slurm.conf.want /etc/slurm/slurm.conf; then
        cp /tmp/slurm.conf.want /etc/slurm/slurm.conf
        restart=1
    fi
    [ -s /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
    chown munge:munge /run/munge
    pgrep -x munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged
    for u in "${USERS[@]}"; do id "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u"; done
    if [ $restart = 1 ] && pgrep -x slurmctld >/dev/null; then
        scontrol reconfigure
        sleep 2
    fi
    pgrep -x slurmctld >/dev/null || { slurmctld; sleep 2; }
    pgrep -x slurmd >/dev/null || { slurmd; sleep 3; }
    scontrol update nodename="$HOST" state=resume 2>/dev/null || true
}

# Cancels every job and waits until the node is idle again.
reset_cluster() {
    for u in "${USERS[@]}"; do scancel --user="$u" 2>/dev/null || true; done
    for _ in $(seq 300); do
        # squeue --json lists finished jobs too until slurmctld purges them (MinJobAge).
        if [ "$(squeue --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))')" = 0 ] &&
            scontrol show node "$HOST" -o | grep -q " State=IDLE "; then
            return 0
        fi
        sleep 1
    done
    log "the node did not become idle"; sinfo; squeue; return 1
}

# sub USER ARGS... : submits `sleep 10000` as USER, prints the job id.
sub() {
    local u=$1; shift
    su - "$u" -c "sbatch --parsable --wrap 'sleep 10000' $*" | cut -d';' -f1
}

wait_running() {
    local id
    for id in "$@"; do
        for _ in $(seq 120); do
            [ "$(squeue -h -j "$id" -o %T)" = RUNNING ] && break
            sleep 1
        done
        [ "$(squeue -h -j "$id" -o %T)" = RUNNING ] || { log "job $id did not start"; squeue; return 1; }
    done
}

# The epoch of sdiag's last backfill cycle (0 before the first).
bf_last() {
    sdiag | awk '/^Backfilling stats/{b=1} b && /Last cycle when:/{gsub(/[()]/,"",$NF); print $NF; exit}'
}

# Waits until two backfill cycles have started after now (the second sees the first's starts).
wait_backfill() {
    local t0 n=0 last prev
    t0=$(date +%s)
    prev=$(bf_last)
    for _ in $(seq 120); do
        last=$(bf_last)
        if [ -n "$last" ] && [ "$last" != "$prev" ] && [ "$last" -gt "$t0" ]; then
            n=$((n + 1)); prev=$last
            [ $n -ge 2 ] && return 0
        fi
        sleep 1
    done
    log "no backfill cycle"; return 1
}

snapshot() {
    local dir=$1
    mkdir -p "$dir"
    date +%s > "$dir/capture_time"
    squeue --json > "$dir/squeue.json"
    sinfo --json > "$dir/sinfo.json"
    scontrol show nodes -o > "$dir/scontrol_show_nodes.txt"
    scontrol show job -o > "$dir/scontrol_show_job.txt" 2>/dev/null || true
}

# run_scenario NAME : the scenario function sc_NAME submits the running jobs (and waits for them),
# then the pending ones held (`sbatch -H`); the queue is captured (before/), every pending job is
# released with one `scontrol release`, and after two backfill cycles the decision is captured
# (after/).
run_scenario() {
    local name=$1 out="$HERE/$1"
    log "scenario $name"
    reset_cluster
    rm -rf "$out"; mkdir -p "$out"
    PENDING=()
    "sc_$name"
    snapshot "$out/before"
    cp /etc/slurm/slurm.conf "$out/before/slurm.conf"
    scontrol show config > "$out/before/scontrol_show_config.txt"
    scontrol show partition -o > "$out/before/scontrol_show_partition.txt"
    date +%s > "$out/release_time"
    # A job Slurm cannot ever run (too_big) is not held (its reason is PartitionConfig): release
    # says so and goes on with the others.
    scontrol release "$(IFS=,; echo "${PENDING[*]}")" || true
    wait_backfill
    snapshot "$out/after"
    squeue --start > "$out/after/squeue_start.txt"
    sdiag > "$out/after/sdiag.txt"
    echo "$SUMMARY" > "$out/scenario.txt"
    python3 "$HERE/extract_forecast.py" "$out" > "$out/expected.json"
    log "$name: $(squeue -h -o '%i %T %r %S' | tr '\n' ';')"
}

held() { local id; id=$(sub "$@" -H); PENDING+=("$id"); }

# 8 CPUs: 4 + 2 running (2 free). A whole-node job gets the reservation at the 120-minute job's
# end; a short 2-CPU job backfills now; a 2-CPU 20-minute job finds no CPU left.
sc_plain_backfill() {
    SUMMARY="running: alice 4 CPUs 60 min, bob 2 CPUs 120 min; pending (in submit order): carol 8 CPUs 30 min, alice 2 CPUs 30 min, bob 2 CPUs 20 min"
    local r1 r2
    r1=$(sub alice -n 4 -t 60 --mem=4000)
    r2=$(sub bob -n 2 -t 120 --mem=2000)
    wait_running "$r1" "$r2"
    held carol -n 8 -t 30 --mem=8000
    held alice -n 2 -t 30 --mem=2000
    held bob -n 2 -t 20 --mem=2000
}

# 2 + 2 running (4 free). A 6-CPU job can start when the 60-minute job ends; a 2-CPU 180-minute job
# fits now but would delay it; a 2-CPU 50-minute job (submitted after it) fits before it.
sc_delay_reservation() {
    SUMMARY="running: alice 2 CPUs 60 min, bob 2 CPUs 120 min; pending: carol 6 CPUs 30 min, alice 2 CPUs 180 min, bob 2 CPUs 50 min"
    local r1 r2
    r1=$(sub alice -n 2 -t 60 --mem=2000)
    r2=$(sub bob -n 2 -t 120 --mem=2000)
    wait_running "$r1" "$r2"
    held carol -n 6 -t 30 --mem=6000
    held alice -n 2 -t 180 --mem=2000
    held bob -n 2 -t 50 --mem=2000
}

# Memory, not CPUs: 12000 of 16000 MB taken by a 2-CPU job. A 4-CPU 8000 MB job waits for it; a
# 2-CPU 4000 MB 20-minute job fits now; a 1-CPU 1000 MB 120-minute job then finds no memory.
sc_memory_bound() {
    SUMMARY="running: alice 2 CPUs 12000 MB 60 min; pending: carol 4 CPUs 8000 MB 30 min, bob 2 CPUs 4000 MB 20 min, alice 1 CPU 1000 MB 120 min"
    local r1
    r1=$(sub alice -n 2 -t 60 --mem=12000)
    wait_running "$r1"
    held carol -n 4 -t 30 --mem=8000
    held bob -n 2 -t 20 --mem=4000
    held alice -n 1 -t 120 --mem=1000
}

# Two partitions on the node, `urgent` with PriorityTier=2: its 4-CPU job is considered before the
# debug partition's 8-CPU job of higher priority.
sc_partition_tier() {
    SUMMARY="running: alice 4 CPUs 60 min, bob 2 CPUs 120 min (debug); pending: alice 8 CPUs 30 min (debug), bob 4 CPUs 30 min (urgent, PriorityTier=2), carol 2 CPUs 30 min (debug)"
    local r1 r2
    r1=$(sub alice -n 4 -t 60 --mem=4000)
    r2=$(sub bob -n 2 -t 120 --mem=2000)
    wait_running "$r1" "$r2"
    held alice -n 8 -t 30 --mem=8000
    held bob -p urgent -n 4 -t 30 --mem=4000
    held carol -n 2 -t 30 --mem=2000
}

# A 16-CPU job on an 8-CPU node never runs (reason); a 6-CPU job waits for the 60-minute job; a
# 2-CPU 120-minute job does not delay it (6 CPUs are free when it would start) and starts now.
sc_too_big() {
    SUMMARY="running: alice 4 CPUs 60 min; pending: bob 16 CPUs 30 min, carol 6 CPUs 30 min, alice 2 CPUs 120 min"
    local r1
    r1=$(sub alice -n 4 -t 60 --mem=4000)
    wait_running "$r1"
    held bob -n 16 -t 30 --mem-per-cpu=500
    held carol -n 6 -t 30 --mem=6000
    held alice -n 2 -t 120 --mem=2000
}

# A full node, then a queue of short one-CPU jobs behind a whole-node job: the reservation and the
# estimates of a queue deeper than one job (each waits for the one before).
sc_queue_chain() {
    SUMMARY="running: alice 8 CPUs 30 min; pending: bob 8 CPUs 60 min, carol 4 CPUs 10 min, alice 4 CPUs 90 min, bob 1 CPU 15 min (nice 100)"
    local r1
    r1=$(sub alice -n 8 -t 30 --mem=8000)
    wait_running "$r1"
    held bob -n 8 -t 60 --mem=8000
    held carol -n 4 -t 10 --mem=4000
    held alice -n 4 -t 90 --mem=4000
    held bob -n 1 -t 15 --mem=1000 --nice=100
}

# Two half-node jobs that both fit on the node once the running whole-node job ends: does the
# second get the same start as the first?
sc_two_fit_later() {
    SUMMARY="running: alice 8 CPUs 30 min; pending: bob 4 CPUs 60 min, carol 4 CPUs 60 min"
    local r1
    r1=$(sub alice -n 8 -t 30 --mem=8000)
    wait_running "$r1"
    held bob -n 4 -t 60 --mem=4000
    held carol -n 4 -t 60 --mem=4000
}

# No time limit (-t not given: the partition's MaxTime=INFINITE): a running job that never ends
# in the plan, and a pending job behind it.
sc_unlimited() {
    SUMMARY="running: alice 6 CPUs no time limit; pending: bob 4 CPUs 30 min, carol 2 CPUs no time limit"
    local r1
    r1=$(sub alice -n 6 --mem=6000)
    wait_running "$r1"
    held bob -n 4 -t 30 --mem=4000
    held carol -n 2 --mem=2000
}

# A job pending in two partitions (-p debug,urgent) beside one in urgent only.
sc_multi_partition() {
    SUMMARY="running: alice 4 CPUs 60 min (debug); pending: bob 8 CPUs 30 min (-p debug,urgent), carol 2 CPUs 20 min (debug), alice 4 CPUs 30 min (urgent)"
    local r1
    r1=$(sub alice -n 4 -t 60 --mem=4000)
    wait_running "$r1"
    held bob -p debug,urgent -n 8 -t 30 --mem=8000
    held carol -n 2 -t 20 --mem=2000
    held alice -p urgent -n 4 -t 30 --mem=4000
}

SCENARIOS=(plain_backfill delay_reservation memory_bound partition_tier too_big queue_chain
    two_fit_later unlimited multi_partition)

# The cost of Slurm's own estimate: 2,000 pending jobs (an array, then plain jobs) behind a full
# node; `squeue --start` timed, sdiag's backfill cycle times.
measure() {
    local out="$HERE/measure"
    mkdir -p "$out"
    reset_cluster
    local r1
    r1=$(sub alice -n 8 -t 60 --mem=8000)
    wait_running "$r1"
    {
        echo "# $(slurmctld -V); $(date -u +%FT%TZ); $(nproc) cores"
        sdiag --reset >/dev/null 2>&1 || true
        su - bob -c "sbatch --parsable --array=1-2000 -n 1 -t 10 --mem=100 --wrap 'sleep 10000'" >/dev/null
        wait_backfill; wait_backfill
        echo "## one array of 2000 tasks (1 CPU, 10 min) pending behind a full node"
        for i in 1 2 3; do
            /usr/bin/time -f "squeue --start: %e s wall, %U s user" squeue --start > /dev/null
        done 2>&1
        echo "rows: $(squeue --start -h | wc -l)"
        sdiag | sed -n '/^Backfilling stats/,/^$/p'
        for u in bob; do scancel --user=$u; done
        sleep 5
        sdiag --reset >/dev/null 2>&1 || true
        local t0
        t0=$(date +%s)
        for i in $(seq 2000); do
            echo "sbatch -n 1 -t $((10 + i % 50)) --mem=100 --wrap 'sleep 10000' >/dev/null"
        done > /tmp/submit2000.sh
        su - carol -c "bash /tmp/submit2000.sh"
        echo "## 2000 plain jobs (1 CPU, 10-59 min) pending behind a full node; submitted in $(( $(date +%s) - t0 )) s"
        wait_backfill; wait_backfill
        for i in 1 2 3; do
            /usr/bin/time -f "squeue --start: %e s wall, %U s user" squeue --start > /dev/null
        done 2>&1
        /usr/bin/time -f "squeue --json: %e s wall, %U s user" -o /tmp/sq2000.time squeue --json > /tmp/sq2000.json; cat /tmp/sq2000.time
        echo "squeue --json bytes: $(wc -c < /tmp/sq2000.json)"
        echo "rows: $(squeue --start -h | wc -l); with an estimate: $(squeue --start -h -o %S | grep -vc N/A)"
        sdiag | sed -n '/^Backfilling stats/,/^$/p'
    } | tee "$out/measure.txt"
    reset_cluster
}

setup
if [ "${1:-}" = --measure ]; then
    measure
    exit 0
fi
[ $# -gt 0 ] && SCENARIOS=("$@")
{ slurmctld -V; dpkg-query -W slurmctld slurmd slurm-client munge 2>/dev/null || true; } > "$HERE/slurm_version.txt"
for s in "${SCENARIOS[@]}"; do run_scenario "$s"; done
reset_cluster
