#!/bin/bash
# Captures what a real fluxion decides about pending jobs, as fixtures for the forecast
# (README.md here). One single-broker flux instance per scenario, its 8 cores faked with
# resource.config; running load is `sleep` jobs; the pending jobs are submitted with the queue
# stopped, captured (before/), the queue started, and captured again once fluxion has run its
# loop (after/). Usage: capture.sh [SCENARIO...]  (default: all).
set -euo pipefail

FLUX=${FLUX:-/opt/flux/bin/flux}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/flux_forecast_capture}
export PATH=$(dirname "$FLUX"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Each scenario: its queue policy, then `run CORES MINUTES` and `pend CORES MINUTES URGENCY`
# lines, in submission order.
scenario() {
    case $1 in
    easy_plain_backfill) echo "easy
run 4 60
run 2 120
pend 8 30 16
pend 2 30 16
pend 2 20 16" ;;
    easy_reservation_blocks) echo "easy
run 2 60
run 2 120
pend 6 30 16
pend 2 180 16
pend 2 50 16" ;;
    easy_urgency_order) echo "easy
run 4 30
pend 4 60 16
pend 6 60 24
pend 4 10 8" ;;
    easy_too_big) echo "easy
run 4 60
pend 16 10 16
pend 6 30 16
pend 2 120 16" ;;
    easy_queue_chain) echo "easy
run 8 30
pend 8 60 16
pend 4 10 16
pend 4 90 16" ;;
    fcfs_plain) echo "fcfs
run 4 60
run 2 120
pend 8 30 16
pend 2 30 16
pend 2 20 16" ;;
    fcfs_head_fits) echo "fcfs
run 4 60
pend 2 30 16
pend 4 30 16
pend 2 10 16" ;;
    fcfs_too_big) echo "fcfs
run 4 60
pend 16 10 16
pend 2 30 16" ;;
    conservative_chain) echo "conservative
run 8 30
pend 8 60 16
pend 4 10 16
pend 4 90 16" ;;
    *) echo "unknown scenario $1" >&2; return 1 ;;
    esac
}
ALL="easy_plain_backfill easy_reservation_blocks easy_urgency_order easy_too_big easy_queue_chain fcfs_plain fcfs_head_fits fcfs_too_big conservative_chain"

# One snapshot of the instance into $1.
snap() {
    mkdir -p "$1"
    date +%s.%N > "$1/capture_time"
    flux jobs -a --json > "$1/jobs.json"
    flux resource R > "$1/R.json"
    flux resource list > "$1/resource_list.txt"
    flux jobs -a -o '{id.f58} {state} {priority} {urgency} {ncores} {duration} {annotations.sched.t_estimate} {annotations.sched.selection_type} {annotations.sched.resource_summary}' > "$1/flux_jobs.txt"
    flux queue status > "$1/queue_status.txt" 2>&1 || true
}

# Inside the instance: the scenario's load, then before/, the release, after/.
inside() {
    local name=$1 out=$2
    flux module list > "$out/modules.txt"
    grep -q sched-fluxion-qmanager "$out/modules.txt"
    flux module stats sched-fluxion-qmanager > "$out/qmanager_stats_start.json" 2>&1 || true
    local first=1
    while read -r kind cores mins urg; do
        if [ "$first" = 1 ]; then first=0; continue; fi
        case $kind in
        run)
            id=$(flux submit -n "$cores" -t "${mins}m" sleep 10000)
            flux job wait-event -t 30 "$id" start
            ;;
        pend)
            if [ ! -e "$out/queue_stopped" ]; then
                flux queue stop
                touch "$out/queue_stopped"
            fi
            id=$(flux submit -n "$cores" -t "${mins}m" --urgency="$urg" sleep 10000)
            flux job wait-event -t 30 "$id" priority
            ;;
        esac
        echo "$kind $cores $mins ${urg:-} $id" >> "$out/submitted.txt"
    done < <(scenario "$name")
    rm -f "$out/queue_stopped"
    sleep 1
    snap "$out/before"
    date +%s.%N > "$out/release_time"
    flux queue start
    # fluxion answers the alloc requests in its next loop: wait until no job is still
    # between states (every pending job is SCHED, every started one RUN), then one more second
    sleep 3
    snap "$out/after"
    flux module stats sched-fluxion-qmanager > "$out/after/qmanager_stats.json" 2>&1 || true
    flux dmesg > "$out/dmesg.txt" 2>&1 || true
    flux cancel --all >/dev/null 2>&1 || true
}

if [ "${1:-}" = "--inside" ]; then
    inside "$2" "$3"
    exit 0
fi

names=${*:-$ALL}
mkdir -p "$WORK"
{
    $FLUX version
    # flux-sched prints no version of its own: its library's file name carries it
    echo "flux-sched: $(basename "$(ls "$(dirname "$FLUX")"/../lib/libfluxion-data.so.*.*.* | head -1)" | sed 's/libfluxion-data.so.//')"
} > "$HERE/flux_version.txt"
for name in $names; do
    policy=$(scenario "$name" | head -1)
    conf=$WORK/$name/conf
    rm -rf "${WORK:?}/$name" "${HERE:?}/$name"
    mkdir -p "$conf" "$HERE/$name"
    cat > "$conf/resource.toml" <<TOML
[resource]
noverify = true
[[resource.config]]
hosts = "$(hostname)"
cores = "0-7"
TOML
    cat > "$conf/sched.toml" <<TOML
[sched-fluxion-qmanager]
queue-policy = "$policy"
TOML
    cp "$conf"/*.toml "$HERE/$name/"
    scenario "$name" > "$HERE/$name/scenario.txt"
    $FLUX start -o,--config-path="$conf" bash "$HERE/capture.sh" --inside "$name" "$HERE/$name"
    python3 "$HERE/extract_forecast.py" "$HERE/$name" > "$HERE/$name/expected.json"
    echo "captured $name"
done
