#!/bin/bash
# Capture what a real pbs_sched decides in one cycle on a node that runs jobs: which pending
# jobs start, the estimated start of its top jobs (strict_ordering + backfill_depth) and the
# comment of every other job, with the snapshot taken just before the cycle.
#
# Usage (as root, on a host where OpenPBS runs and no one else uses it):
#   capture.sh [-o OUTDIR] [all | SCENARIO...]
#   capture.sh -l            # list the scenarios
#
# For each scenario: the site is reset to the base state of ../pbs_cycles/capture.sh, the node
# is given NCPUS cpus and MEM memory and put online, the scenario's settings are applied, its
# "running" jobs are submitted and one cycle starts them, then (scheduling False) its pending
# jobs are submitted, the snapshot is taken (before/), one cycle runs, and what pbs_sched
# decided is taken (after/). expected.json is derived by extract_forecast.py.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE
if [ "${1:-}" = "-o" ]; then OUT=$(cd "$2" && pwd); shift 2; fi
ARGS=("$@")
set --
CAPTURE_LIB=1
# shellcheck disable=SC1091
MYOUT=$OUT
MYHERE=$HERE
. "$HERE/../pbs_cycles/capture.sh"
OUT=$MYOUT
HERE=$MYHERE
set -- "${ARGS[@]}"
NCPUS=${NCPUS:-8}
MEM=${MEM:-32gb}

# forecast_base: the cycle capture's base state with the node online and sized.
forecast_base() {
	local r
	for r in $(pbs_rstat -f 2>/dev/null | awk '/^Resv ID:/{print $3}'); do pbs_rdel "$r"; done
	sleep 1
	base_state
	q "set node $NODE resources_available.ncpus = $NCPUS"
	q "set node $NODE resources_available.mem = $MEM"
	pbsnodes -r "$NODE" >/dev/null
}
# one_cycle: let exactly one cycle run (its log is not kept).
one_cycle() {
	local t0 n0 f i
	t0=$(date +%s)
	f=$(log_file "$t0")
	touch "$f"
	n0=$(wc -l <"$f")
	q 'set server scheduling = True'
	for i in $(seq 240); do
		sleep 0.5
		log_since "$t0" "$n0" | grep -q ';Leaving Scheduling Cycle$' && break
	done
	qmgr -c 'set server scheduling = False'
	sleep 1
}
# running NAME USER RESOURCES: a job that the next one_cycle starts
running() { job "$1" "$2" workq "$3"; }
# fjob NAME USER QUEUE RESOURCES [qsub options]: a pending job
fjob() {
	local name=$1 user=$2 queue=$3 res=$4
	shift 4
	job "$name" "$user" "$queue" "$res" 0 "$@"
}

forecast_capture() { # forecast_capture SCENARIO: after the scenario's pending jobs
	local name=$1 dir=$OUT/$1
	rm -rf "$dir"
	mkdir -p "$dir/before" "$dir/after"
	qstat -f -F json >"$dir/before/qstat.json"
	pbsnodes -av -F json >"$dir/before/pbsnodes.json"
	pbs_rstat -f >"$dir/before/pbs_rstat.txt" 2>/dev/null
	qmgr -c 'print server' >"$dir/print_server.txt"
	qmgr -c 'list sched' >"$dir/list_sched.txt"
	cp "$SP/sched_config" "$SP/resource_group" "$dir/"
	pbsfs >"$dir/pbsfs.txt" 2>/dev/null
	run_cycle "$dir"
	rm -f "$dir/.sched_state"
	qstat -f -F json >"$dir/after/qstat.json"
	pbsnodes -av -F json >"$dir/after/pbsnodes.json"
	python3 "$HERE/extract_forecast.py" "$dir" --scenario "$name" --pbs-version "$VERSION" ||
		say "extract failed for $name"
	say "captured $name"
}

# --- scenarios -----------------------------------------------------------------------------
# The running jobs of most scenarios: 8 cpus, 6 held until their walltimes end.
busy() {
	running r1 alice select=1:ncpus=4:mem=4gb,walltime=01:00:00
	running r2 bob select=1:ncpus=2:mem=4gb,walltime=02:00:00
	one_cycle
}
strict() { # strict DEPTH: strict_ordering with backfill_depth DEPTH
	sc_set strict_ordering 'true ALL'
	sched_start
	q "set server backfill_depth = $1"
}

scn_depth1() {
	forecast_base
	strict 1
	busy
	fjob p1 carol workq select=1:ncpus=8,walltime=01:00:00
	fjob p2 dave workq select=1:ncpus=1,walltime=00:30:00
	fjob p3 erin workq select=1:ncpus=4,walltime=00:30:00
	fjob p4 frank workq select=1:ncpus=1,walltime=03:00:00
	fjob p5 alice workq select=1:ncpus=2,walltime=00:20:00
	forecast_capture depth1
}
scn_depth2() {
	forecast_base
	strict 2
	busy
	fjob p1 carol workq select=1:ncpus=6,walltime=01:00:00
	fjob p2 dave workq select=1:ncpus=8,walltime=02:00:00
	fjob p3 erin workq select=1:ncpus=4,walltime=04:00:00
	fjob p4 frank workq select=1:ncpus=1,walltime=00:40:00
	fjob p5 alice workq select=1:ncpus=1,walltime=05:00:00
	forecast_capture depth2
}
scn_depth0() {
	forecast_base
	strict 0
	busy
	fjob p1 carol workq select=1:ncpus=1,walltime=00:10:00
	fjob p2 dave workq select=1:ncpus=4,walltime=01:00:00
	fjob p3 erin workq select=1:ncpus=1,walltime=00:10:00
	forecast_capture depth0
}
scn_no_strict() {
	forecast_base
	sched_start
	busy
	fjob p1 carol workq select=1:ncpus=8,walltime=01:00:00
	fjob p2 dave workq select=1:ncpus=1,walltime=03:00:00
	fjob p3 erin workq select=1:ncpus=4,walltime=00:30:00
	fjob p4 frank workq select=1:ncpus=1,walltime=00:10:00
	forecast_capture no_strict
}
scn_memory() {
	forecast_base
	strict 1
	busy
	fjob p1 carol workq select=1:ncpus=1:mem=30gb,walltime=01:00:00
	fjob p2 dave workq select=1:ncpus=1:mem=2gb,walltime=00:30:00
	fjob p3 erin workq select=1:ncpus=1:mem=20gb,walltime=00:30:00
	fjob p4 frank workq select=1:ncpus=1:mem=1gb,walltime=05:00:00
	forecast_capture memory
}
scn_depth3_chain() {
	# three top jobs, each calendared after the one before it
	forecast_base
	strict 3
	busy
	fjob p1 carol workq select=1:ncpus=8,walltime=01:00:00
	fjob p2 dave workq select=1:ncpus=8,walltime=00:30:00
	fjob p3 erin workq select=1:ncpus=5,walltime=02:00:00
	fjob p4 frank workq select=1:ncpus=2,walltime=00:15:00
	fjob p5 alice workq select=1:ncpus=3,walltime=10:00:00
	forecast_capture depth3_chain
}
scn_never_run() {
	forecast_base
	strict 1
	busy
	fjob p1 carol workq select=1:ncpus=16,walltime=01:00:00
	fjob p2 dave workq select=1:ncpus=4,walltime=01:00:00
	fjob p3 erin workq select=1:ncpus=2,walltime=00:10:00
	forecast_capture never_run
}
scn_formula_order() {
	# the order comes from the formula: larger jobs first
	forecast_base
	strict 1
	formula 'ncpus'
	busy
	fjob p1 carol workq select=1:ncpus=1,walltime=05:00:00
	fjob p2 dave workq select=1:ncpus=2,walltime=00:30:00
	fjob p3 erin workq select=1:ncpus=6,walltime=01:00:00
	fjob p4 frank workq select=1:ncpus=1,walltime=00:20:00
	forecast_capture formula_order
}
scn_reservation() {
	# an advance reservation of 4 cpus starting in 90 minutes for 2 hours
	forecast_base
	strict 1
	busy
	local s
	s=$(date -d "@$(($(date +%s) + 5400))" +%H%M)
	# pbs_rsub refuses root: an ordinary user asks for it
	su - alice -c "$PBS_EXEC/bin/pbs_rsub -R $s -D 02:00:00 -l select=1:ncpus=4" >&2 || say "pbs_rsub failed"
	one_cycle # pbs_sched confirms it
	fjob p1 carol workq select=1:ncpus=2,walltime=03:00:00
	fjob p2 dave workq select=1:ncpus=2,walltime=01:00:00
	fjob p3 erin workq select=1:ncpus=6,walltime=00:30:00
	fjob p4 frank workq select=1:ncpus=1,walltime=00:20:00
	forecast_capture reservation
}
scn_queues() {
	# two queues of different Priority (by_queue): the high queue's jobs first
	forecast_base
	strict 1
	queue high 100
	busy
	fjob p1 carol workq select=1:ncpus=4,walltime=01:00:00
	fjob p2 dave high select=1:ncpus=6,walltime=01:00:00
	fjob p3 erin workq select=1:ncpus=2,walltime=00:30:00
	fjob p4 frank high select=1:ncpus=1,walltime=00:30:00
	forecast_capture queues
}
scn_no_walltime() {
	# a running job and pending jobs without a walltime
	forecast_base
	strict 1
	running r1 alice select=1:ncpus=6
	one_cycle
	fjob p1 carol workq select=1:ncpus=4,walltime=01:00:00
	fjob p2 dave workq select=1:ncpus=1
	fjob p3 erin workq select=1:ncpus=1,walltime=00:30:00
	forecast_capture no_walltime
}

scn_held_array() {
	# a held job and a job array among the pending jobs
	forecast_base
	strict 1
	busy
	fjob p1 carol workq select=1:ncpus=1,walltime=00:30:00 -h
	fjob p2 dave workq select=1:ncpus=1,walltime=00:30:00 -J 1-3
	fjob p3 erin workq select=1:ncpus=4,walltime=01:00:00
	fjob p4 frank workq select=1:ncpus=1,walltime=02:00:00
	forecast_capture held_array
}
scn_excl() {
	# a job asking for the whole node (place=excl)
	forecast_base
	strict 1
	busy
	fjob p1 carol workq select=1:ncpus=1,walltime=01:00:00,place=excl
	fjob p2 dave workq select=1:ncpus=1,walltime=00:30:00
	fjob p3 erin workq select=1:ncpus=1,walltime=05:00:00
	forecast_capture excl
}
scn_fairshare() {
	# fair share orders the queue; the usage of jobs started in the cycle counts at once
	forecast_base
	sc_set fair_share 'true ALL'
	sc_set strict_ordering 'true ALL'
	fs_tree
	fs_usage
	sched_start
	q 'set server backfill_depth = 2'
	busy
	fjob p1 alice workq select=1:ncpus=1,walltime=00:30:00
	fjob p2 alice workq select=1:ncpus=1,walltime=00:30:00
	fjob p3 dave workq select=1:ncpus=1,walltime=00:30:00
	fjob p4 bob workq select=1:ncpus=6,walltime=01:00:00
	fjob p5 erin workq select=1:ncpus=1,walltime=00:30:00
	fjob p6 carol workq select=1:ncpus=2,walltime=03:00:00
	forecast_capture fairshare
}
scn_mixed30() {
	# thirty jobs of mixed sizes, four top jobs
	forecast_base
	strict 4
	busy
	local i c w users=(alice bob carol dave erin frank)
	for i in $(seq 1 30); do
		c=$((1 + (i * 7) % 8))
		w=$(printf '%02d:%02d:00' $(((i * 5) % 6)) $(((i * 17) % 60)))
		[ "$w" = 00:00:00 ] && w=00:10:00
		fjob "m$i" "${users[$((i % 6))]}" workq "select=1:ncpus=$c,walltime=$w"
	done
	forecast_capture mixed30
}

FSCENARIOS="depth1 depth2 depth0 no_strict memory depth3_chain never_run formula_order reservation
queues no_walltime held_array excl fairshare mixed30"

if [ "${1:-}" = -l ]; then
	printf '%s\n' $FSCENARIOS
	exit 0
fi
ensure_users
todo=${*:-all}
[ "$todo" = all ] && todo="$FSCENARIOS"
for s in $todo; do
	if declare -F "scn_$s" >/dev/null; then
		say "=== $s"
		"scn_$s"
	else
		say "unknown scenario: $s"
		exit 2
	fi
done
finish
