#!/bin/bash
# Capture real pbs_sched scheduling cycles (and qmgr verdicts) as test fixtures.
#
# Usage (as root, on a host where OpenPBS runs and no one else uses it):
#   capture.sh [-o OUTDIR] [all | verdicts | SCENARIO...]
#   capture.sh -l            # list the scenarios
#
# For each scenario it restores a known base state (no jobs, the shipped sched_config,
# resource_group and holidays, no usage file, one queue workq, no formula), applies the
# scenario's settings, submits jobs as ordinary users while `scheduling` is False, keeps the
# node offline so that no job starts, lets exactly one cycle run, and writes OUTDIR/SCENARIO/
# (see README.md). expected.json is derived from the cycle's log by extract_expected.py.
# The PBS site is left in the base state at the end (node online, scheduling True).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE
if [ "${1:-}" = "-o" ]; then OUT=$(cd "$2" && pwd); shift 2; fi

[ "$(id -u)" = 0 ] || { echo "capture.sh: must run as root" >&2; exit 2; }
# shellcheck disable=SC1091
. /etc/pbs.conf
export PATH=$PBS_EXEC/bin:$PBS_EXEC/sbin:$PATH
SP=$PBS_HOME/sched_priv
NODE=${NODE:-$(pbsnodes -a | head -1)}
USERS="alice bob carol dave erin frank"
GAP=${GAP:-2} # seconds between submissions
VERSION=$(qstat -Bf | awk -F' = ' '/pbs_version/{print $2}')

say() { echo "[capture] $*" >&2; }
q() { # qmgr that must succeed
	qmgr -c "$1" || { say "qmgr failed: $1"; return 1; }
}

# --- users ---------------------------------------------------------------------------------
ensure_users() {
	local g
	for g in physics chem misc; do getent group $g >/dev/null || groupadd $g; done
	mkuser() { id "$1" >/dev/null 2>&1 || useradd -m -g "$2" -s /bin/bash "$1"; }
	mkuser alice physics
	mkuser bob physics
	mkuser carol physics
	mkuser dave chem
	mkuser erin chem
	mkuser frank misc
}

# --- the scheduler process -----------------------------------------------------------------
sched_pid() { cat "$SP/sched.lock" 2>/dev/null; }
sched_alive() {
	local p
	p=$(sched_pid)
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null && grep -q pbs_sched "/proc/$p/cmdline" 2>/dev/null
}
sched_stop() {
	local p i
	sched_alive || return 0
	p=$(sched_pid)
	kill -TERM "$p"
	for i in $(seq 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done
	say "pbs_sched $p did not stop"
	return 1
}
sched_start() {
	local i
	sched_alive && return 0
	(ulimit -c unlimited; cd "$SP" && "$PBS_EXEC/sbin/pbs_sched")
	for i in $(seq 50); do sched_alive && break; sleep 0.2; done
	sleep 2 # let it connect to the server
	sched_alive || { say "pbs_sched did not start"; return 1; }
}

# --- sched_config editing (only while pbs_sched is stopped) -------------------------------
# sc_set KEY VALUE...: drop every active KEY line, append one "KEY: VALUE" line per VALUE.
sc_set() {
	local key=$1
	shift
	sed -i -E "/^[[:space:]]*${key}:/d" "$SP/sched_config"
	local v
	for v in "$@"; do printf '%s: %s\n' "$key" "$v" >>"$SP/sched_config"; done
}

# --- base state ----------------------------------------------------------------------------
base_state() {
	local i qn
	qmgr -c 'set server scheduling = False'
	if [ -n "$(qselect)" ]; then
		qdel -W force $(qselect) 2>/dev/null
		for i in $(seq 60); do [ -z "$(qselect)" ] && break; sleep 0.5; done
	fi
	for qn in $(qstat -Q | awk 'NR>2{print $1}'); do q "delete queue $qn"; done
	q 'create queue workq queue_type = execution, enabled = true, started = true'
	q 'set server default_queue = workq'
	qmgr -c 'unset server job_sort_formula'
	qmgr -c 'unset sched job_sort_formula'
	qmgr -c 'unset sched job_sort_formula_threshold'
	q 'set sched preempt_queue_prio = 150'
	q 'set sched preempt_prio = "express_queue, normal_jobs"'
	q 'set server eligible_time_enable = False'
	q 'set sched log_events = 4095'
	q 'set server log_events = 2047'
	q "set node $NODE resources_available.ncpus = 64"
	q "set node $NODE resources_available.mem = 256gb"
	pbsnodes -o "$NODE" >/dev/null
	sched_stop
	cp "$PBS_EXEC/etc/pbs_sched_config" "$SP/sched_config"
	cp "$PBS_EXEC/etc/pbs_resource_group" "$SP/resource_group"
	cp "$PBS_EXEC/etc/pbs_holidays" "$SP/holidays"
	cp "$PBS_EXEC/etc/pbs_dedicated" "$SP/dedicated_time"
	rm -f "$SP/usage" "$SP/usage.bak" "$SP/usage.touch" "$SP/sched_formula" "$SP"/core*
	chmod 644 "$SP/sched_config" "$SP/resource_group" "$SP/holidays" "$SP/dedicated_time"
}

# The fair-share tree used by the fair-share scenarios (name id parent shares).
FS_TREE='physics 10 root 60
chem    20 root 40
alice   11 physics 40
bob     12 physics 40
carol   13 physics 20
dave    21 chem 50
erin    22 chem 50'
fs_tree() { printf '%s\n' "$FS_TREE" >>"$SP/resource_group"; }
# usage with pbsfs (pbs_sched stopped); ties in shares, different usage
fs_usage() {
	pbsfs -s alice 400 && pbsfs -s bob 100 && pbsfs -s carol 50 &&
		pbsfs -s dave 800 && pbsfs -s erin 200
}

# formula F: set the server's job_sort_formula (quoted the way qmgr wants it)
formula() {
	case $1 in
	*\"*) q "set server job_sort_formula = '$1'" ;;
	*) q "set server job_sort_formula = \"$1\"" ;;
	esac
}
queue() { # queue NAME [PRIORITY] [extra attrs]
	local name=$1 prio=${2:-} extra=${3:-}
	qstat -Q "$name" >/dev/null 2>&1 || q "create queue $name queue_type = execution"
	q "set queue $name enabled = true"
	q "set queue $name started = true"
	[ -n "$prio" ] && q "set queue $name Priority = $prio"
	[ -n "$extra" ] && q "set queue $name $extra"
	return 0
}
# job NAME USER QUEUE RESOURCES [PRIORITY] [more qsub options]
job() {
	local name=$1 user=$2 queue=$3 res=$4 prio=${5:-0}
	shift 4
	[ $# -gt 0 ] && shift
	local id
	id=$(su - "$user" -c "cd /tmp && $PBS_EXEC/bin/qsub -N $name -q $queue -l $res -p $prio $* -- /bin/sleep 1000") ||
		{ say "qsub failed for $name"; return 1; }
	say "submitted $id $name $user $queue $res p=$prio $*"
	sleep "$GAP"
}

# --- one cycle and its capture -------------------------------------------------------------
log_file() { echo "$PBS_HOME/sched_logs/$(date -d "@$1" +%Y%m%d)"; }
# lines of the scheduler log written since (file, line count) at epoch T0
log_since() {
	local t0=$1 n0=$2 f0 f1
	f0=$(log_file "$t0")
	f1=$(log_file "$(date +%s)")
	tail -n +$((n0 + 1)) "$f0" 2>/dev/null
	[ "$f1" != "$f0" ] && cat "$f1" 2>/dev/null
	return 0
}
run_cycle() { # run_cycle DIR
	local dir=$1 t0 n0 i f
	t0=$(date +%s)
	f=$(log_file "$t0")
	touch "$f"
	n0=$(wc -l <"$f")
	q 'set server scheduling = True'
	for i in $(seq $((${CYCLE_WAIT:-120} * 2))); do
		sleep 0.5
		log_since "$t0" "$n0" | grep -q ';Leaving Scheduling Cycle$' && break
		sched_alive || { sleep 2; break; }
	done
	qmgr -c 'set server scheduling = False'
	sleep 1
	log_since "$t0" "$n0" | awk '/;Starting Scheduling Cycle$/{s=1} s{print} s&&/;Leaving Scheduling Cycle$/{exit}' >"$dir/sched_log.txt"
	if sched_alive; then echo alive >"$dir/.sched_state"; else echo dead >"$dir/.sched_state"; fi
}
snapshot() { # snapshot DIR: the site's files and state right after the cycle
	local dir=$1 u
	qstat -f -F json >"$dir/qstat.json"
	qstat -Qf -F json >"$dir/qstat_Q.json"
	pbsnodes -av -F json >"$dir/pbsnodes.json"
	qmgr -c 'print server' >"$dir/print_server.txt"
	qmgr -c 'list sched' >"$dir/list_sched.txt"
	qmgr -c 'print sched' >"$dir/print_sched.txt"
	cp "$SP/sched_config" "$SP/resource_group" "$dir/"
	pbsfs >"$dir/pbsfs.txt" 2>/dev/null
	# the users, and every entity of resource_group (groups too)
	for u in $(printf '%s\n' $USERS $(awk '!/^[[:space:]]*([#*]|$)/{print $1}' "$SP/resource_group") | awk '!seen[$0]++'); do
		pbsfs -g "$u" >"$dir/pbsfs_g_$u.txt" 2>&1
	done
	[ -f "$SP/usage" ] && cp "$SP/usage" "$dir/usage"
	[ -f "$SP/sched_formula" ] && cp "$SP/sched_formula" "$dir/sched_formula"
	cmp -s "$SP/holidays" "$PBS_EXEC/etc/pbs_holidays" || cp "$SP/holidays" "$dir/holidays"
	return 0
}
capture() { # capture SCENARIO: after the scenario's setup
	local name=$1 dir=$OUT/$1 state
	rm -rf "$dir"
	mkdir -p "$dir"
	run_cycle "$dir"
	state=$(cat "$dir/.sched_state")
	rm -f "$dir/.sched_state"
	snapshot "$dir"
	python3 "$HERE/extract_expected.py" "$dir" --scenario "$name" --pbs-version "$VERSION" \
		--sched "$state" || say "extract failed for $name"
	if [ "$state" = dead ]; then
		say "$name: pbs_sched died"
		crash_note "$dir"
	fi
	say "captured $name ($(grep -c 'Considering job to run' "$dir/sched_log.txt") considered)"
}
crash_note() { # what killed pbs_sched, from its core file when there is one
	local dir=$1 core
	core=$(ls -t "$SP"/core* 2>/dev/null | head -1)
	{
		echo "pbs_sched was not running after the cycle."
		if [ -n "$core" ] && command -v gdb >/dev/null; then
			gdb -batch -ex 'info signal' -ex bt "$PBS_EXEC/sbin/pbs_sched" "$core" 2>/dev/null |
				grep -E '^(Program terminated|#[0-9]+ )' | awk '!seen[$0]++' | head -12
		elif [ -n "$core" ]; then
			echo "core file: $(file -b "$core")"
		fi
	} >"$dir/crash.txt"
	rm -f "$SP"/core*
}

# --- scenarios -----------------------------------------------------------------------------
# Queues for the by_queue / round_robin scenarios: workq has no Priority (the default),
# high and batch share 100 (high created first), low is -10.
mix_queues() {
	queue high 100
	queue batch 100
	queue low -10
}
MIX_FORMULA='10*ncpus + walltime/3600 + mem/10485760 + job_priority/100 + queue_priority/10'
mix_jobs() {
	job j01 alice workq select=1:ncpus=2:mem=4gb,walltime=01:00:00
	job j02 bob high select=1:ncpus=1:mem=1gb,walltime=00:30:00
	job j03 dave low select=1:ncpus=8:mem=32gb,walltime=12:00:00
	job j04 carol workq select=1:ncpus=4:mem=8gb,walltime=02:00:00 100
	job j05 erin batch select=1:ncpus=2:mem=2gb,walltime=00:10:00
	job j06 alice low select=1:ncpus=1:mem=512mb,walltime=00:05:00 500
	job j07 frank workq select=1:ncpus=16:mem=64gb,walltime=48:00:00 -100
	job j08 bob batch select=1:ncpus=4:mem=16gb,walltime=04:00:00 10
	job j09 dave high select=1:ncpus=2:mem=4gb,walltime=01:00:00
	job j10 erin workq select=1:ncpus=2:mem=4gb,walltime=01:00:00
	job j11 carol high select=1:ncpus=1:mem=1gb,walltime=00:30:00
	job j12 alice workq select=1:ncpus=1,walltime=00:20:00 0 -h
}

scn_by_queue_default() {
	base_state
	sched_start
	mix_queues
	formula "$MIX_FORMULA"
	mix_jobs
	capture by_queue_default
}
scn_by_queue_off() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	mix_queues
	formula "$MIX_FORMULA"
	mix_jobs
	capture by_queue_off
}
scn_by_queue_equal_prio() {
	# queues of equal Priority: workq (unset), zq (0), aq (0), created in that order; hq 5
	base_state
	sched_start
	queue zq 0
	queue aq 0
	queue hq 5
	formula 'ncpus'
	job p01 alice aq select=1:ncpus=1
	job p02 bob zq select=1:ncpus=2
	job p03 carol workq select=1:ncpus=3
	job p04 dave hq select=1:ncpus=1
	job p05 erin aq select=1:ncpus=8
	job p06 alice zq select=1:ncpus=4
	job p07 bob workq select=1:ncpus=16
	job p08 carol hq select=1:ncpus=2
	capture by_queue_equal_prio
}
scn_by_queue_no_formula() {
	base_state
	sched_start
	mix_queues
	mix_jobs
	capture by_queue_no_formula
}
scn_round_robin() {
	base_state
	sc_set round_robin 'True ALL'
	sched_start
	queue high 100
	queue batch 100
	queue mid 0
	queue low -10
	formula 'ncpus + walltime/3600'
	job r01 alice workq select=1:ncpus=1,walltime=01:00:00
	job r02 bob workq select=1:ncpus=4,walltime=01:00:00
	job r03 carol high select=1:ncpus=1,walltime=02:00:00
	job r04 dave high select=1:ncpus=8,walltime=01:00:00
	job r05 erin high select=1:ncpus=2,walltime=01:00:00
	job r06 alice batch select=1:ncpus=2,walltime=03:00:00
	job r07 bob batch select=1:ncpus=16,walltime=01:00:00
	job r08 carol mid select=1:ncpus=1,walltime=05:00:00
	job r09 dave mid select=1:ncpus=6,walltime=01:00:00
	job r10 erin workq select=1:ncpus=2,walltime=10:00:00
	job r11 frank low select=1:ncpus=32,walltime=01:00:00
	job r12 alice low select=1:ncpus=1,walltime=01:00:00
	job r13 bob high select=1:ncpus=4,walltime=00:30:00
	capture round_robin
}
express_setup() {
	queue express 200
	queue high 100
	formula 'ncpus + walltime/36000'
	job x01 alice workq select=1:ncpus=8,walltime=01:00:00
	job x02 bob express select=1:ncpus=1,walltime=01:00:00
	job x03 carol high select=1:ncpus=16,walltime=02:00:00
	job x04 dave workq select=1:ncpus=2,walltime=10:00:00
	job x05 erin express select=1:ncpus=4,walltime=00:10:00
	job x06 alice high select=1:ncpus=1,walltime=00:30:00
	job x07 frank workq select=1:ncpus=32,walltime=01:00:00
	job x08 bob express select=1:ncpus=2,walltime=04:00:00
	job x09 dave workq select=1:ncpus=4,walltime=01:00:00 500
	job x10 carol high select=1:ncpus=2,walltime=01:00:00
}
scn_express_preempt_on() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	express_setup
	capture express_preempt_on
}
scn_express_preempt_off() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sc_set preemptive_sched 'false ALL'
	sched_start
	express_setup
	capture express_preempt_off
}
scn_express_preempt_by_queue() {
	base_state
	sched_start
	express_setup
	capture express_preempt_by_queue
}
scn_express_prio_90() {
	# preempt_queue_prio lowered to 90: high (100) becomes an express queue too
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	q 'set sched preempt_queue_prio = 90'
	express_setup
	capture express_prio_90
}
scn_threshold() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula '10*ncpus + walltime/3600 - 5'
	q 'set sched job_sort_formula_threshold = 20.5'
	job t01 alice workq select=1:ncpus=1,walltime=01:00:00        # 6
	job t02 bob workq select=1:ncpus=2,walltime=05:30:00          # 20.5 (equal)
	job t03 carol workq select=1:ncpus=2,walltime=05:31:12        # 20.52
	job t04 dave workq select=1:ncpus=4,walltime=01:00:00         # 36
	job t05 erin workq select=1:ncpus=1,walltime=00:30:00         # 5.5
	job t06 alice workq select=1:ncpus=3,walltime=00:00:01        # 25.0003
	job t07 bob workq select=1:ncpus=2,walltime=05:29:59          # 20.4997
	job t08 frank workq select=1:ncpus=8,walltime=10:00:00        # 85
	capture threshold
}
scn_threshold_negative() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'job_priority'
	q 'set sched job_sort_formula_threshold = -1.5'
	job n01 alice workq select=1:ncpus=1 -2
	job n02 bob workq select=1:ncpus=1 -1
	job n03 carol workq select=1:ncpus=1 0
	job n04 dave workq select=1:ncpus=1 -1024
	job n05 erin workq select=1:ncpus=1 1023
	job n06 alice workq select=1:ncpus=1 -1
	capture threshold_negative
}
sortkey_jobs() {
	job k01 alice workq select=1:ncpus=2:mem=2gb,walltime=02:00:00
	job k02 bob workq select=1:ncpus=4:mem=1gb,walltime=01:00:00
	job k03 carol workq select=1:ncpus=2:mem=8gb,walltime=01:00:00
	job k04 dave workq select=1:ncpus=8:mem=4gb,walltime=12:00:00
	job k05 erin workq select=1:ncpus=2:mem=2gb,walltime=01:00:00 100
	job k06 alice workq select=1:ncpus=4:mem=16gb,walltime=01:00:00
	job k07 frank workq select=1:ncpus=1:mem=1gb,walltime=00:10:00
	job k08 bob workq select=1:ncpus=2:mem=8gb,walltime=02:00:00
	job k09 carol workq select=1:ncpus=8:mem=1gb,walltime=01:00:00
	job k10 dave workq select=1:ncpus=2:mem=2gb,walltime=01:00:00 -100
}
scn_sort_key_no_formula() {
	base_state
	sc_set job_sort_key '"ncpus HIGH" ALL' '"walltime LOW" ALL'
	sched_start
	sortkey_jobs
	capture sort_key_no_formula
}
scn_sort_key_priority() {
	base_state
	sc_set job_sort_key '"job_priority HIGH" ALL' '"mem LOW" ALL'
	sched_start
	sortkey_jobs
	capture sort_key_priority
}
scn_sort_key_with_formula() {
	base_state
	sc_set job_sort_key '"walltime LOW" ALL' '"mem HIGH" ALL'
	sched_start
	formula 'ncpus'
	sortkey_jobs
	capture sort_key_with_formula
}
fs_jobs() {
	job f01 dave workq select=1:ncpus=1,walltime=01:00:00
	job f02 alice workq select=1:ncpus=2,walltime=01:00:00
	job f03 erin workq select=1:ncpus=1,walltime=02:00:00
	job f04 bob workq select=1:ncpus=4,walltime=01:00:00
	job f05 carol workq select=1:ncpus=1,walltime=01:00:00
	job f06 dave workq select=1:ncpus=8,walltime=01:00:00
	job f07 alice workq select=1:ncpus=1,walltime=03:00:00
	job f08 bob workq select=1:ncpus=2,walltime=01:00:00
	job f09 erin workq select=1:ncpus=2,walltime=01:00:00
	job f10 carol workq select=1:ncpus=4,walltime=00:30:00
}
fs_setup() { # fs_setup [sched_config edits...] — tree and usage, sched stopped
	fs_tree
	sc_set fair_share 'true ALL'
	fs_usage
}
scn_fairshare_no_formula() {
	base_state
	fs_setup
	sched_start
	fs_jobs
	capture fairshare_no_formula
}
scn_fairshare_with_formula() {
	base_state
	fs_setup
	sched_start
	formula 'fairshare_perc'
	fs_jobs
	capture fairshare_with_formula
}
scn_fairshare_factor_formula() {
	base_state
	fs_setup
	sched_start
	formula 'pow(2, -(fairshare_tree_usage/fairshare_perc))'
	fs_jobs
	capture fairshare_factor_formula
}
scn_fairshare_formula_no_fair_share() {
	# fair_share off, formula uses the fair-share keywords (the tree is still loaded)
	base_state
	fs_tree
	fs_usage
	sched_start
	formula 'fairshare_factor + ncpus/100'
	fs_jobs
	capture fairshare_formula_no_fair_share
}
scn_preempt_fairshare() {
	# the fairshare preemption class: entities over their share (alice, dave) come after
	# normal jobs when preempt_prio lists fairshare after normal_jobs
	base_state
	fs_setup
	sched_start
	q 'set sched preempt_prio = "express_queue, normal_jobs, fairshare"'
	formula 'ncpus'
	fs_jobs
	capture preempt_fairshare
}
scn_fairshare_egroup() {
	base_state
	printf '%s\n' 'physics 10 root 30' 'chem 20 root 70' >>"$SP/resource_group"
	sc_set fair_share 'true ALL'
	sc_set fairshare_entity 'egroup'
	pbsfs -s physics 100 && pbsfs -s chem 900
	sched_start
	fs_jobs
	capture fairshare_egroup
}
unknown_jobs() {
	# frank is not in resource_group; his first job is not the first one submitted
	job u01 alice workq select=1:ncpus=1,walltime=01:00:00
	job u02 frank workq select=1:ncpus=4,walltime=01:00:00
	job u03 dave workq select=1:ncpus=2,walltime=01:00:00
	job u04 frank workq select=1:ncpus=1,walltime=02:00:00
	job u05 bob workq select=1:ncpus=1,walltime=01:00:00
	job u06 erin workq select=1:ncpus=2,walltime=01:00:00
	job u07 carol workq select=1:ncpus=1,walltime=01:00:00
}
scn_unknown_shares_0() {
	base_state
	fs_setup
	sched_start
	unknown_jobs
	capture unknown_shares_0
}
scn_unknown_shares_10() {
	base_state
	fs_setup
	sc_set unknown_shares '10'
	sched_start
	unknown_jobs
	capture unknown_shares_10
}
scn_unknown_shares_0_formula() {
	# zero shares with a formula dividing by fairshare_perc: a formula error, never considered.
	# A first cycle with a harmless formula, so that the error is not the first evaluation
	# after pbs_sched started (see crash_unknown_shares_formula).
	base_state
	fs_setup
	sched_start
	formula 'ncpus'
	unknown_jobs
	run_cycle "$(mktemp -d)"
	formula 'ncpus + 1/fairshare_perc'
	capture unknown_shares_0_formula
}
scn_crash_unknown_shares_formula() {
	# the same right after pbs_sched started: frank's job is evaluated first, raises, and
	# pbs_sched crashes on the next job
	base_state
	fs_setup
	sched_start
	formula 'ncpus + 1/fairshare_perc'
	unknown_jobs
	capture crash_unknown_shares_formula
}
scn_job_arrays() {
	# job arrays (qsub -J) queued beside plain jobs: the array is one job of the queue
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'ncpus + walltime/36000'
	job j01 alice workq select=1:ncpus=2,walltime=01:00:00 0 -J 1-3
	job j02 bob workq select=1:ncpus=4,walltime=01:00:00
	job j03 carol workq select=1:ncpus=2,walltime=02:00:00 0 -J 1-2
	job j04 dave workq select=1:ncpus=1,walltime=01:00:00
	capture job_arrays
}
scn_formula_errors() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	# first job evaluated must not raise (pbs_sched 23.06 would crash, see crash_first_error)
	formula 'ncpus + 10/(ncpus-1) + sqrt(walltime/60 - 10) + log10(mem) + exp(walltime/1000)/1e30'
	job e01 alice workq select=1:ncpus=2:mem=1gb,walltime=01:00:00   # ok
	job e02 bob workq select=1:ncpus=1:mem=1gb,walltime=01:00:00     # division by zero
	job e03 carol workq select=1:ncpus=4:mem=2gb,walltime=00:05:00   # sqrt domain error
	job e04 dave workq select=1:ncpus=4,walltime=01:00:00            # log10(0): domain error
	job e05 erin workq select=1:ncpus=3:mem=4gb,walltime=100:00:00   # 2.2e126: inf as a float32
	job e06 alice workq select=1:ncpus=8:mem=8gb,walltime=02:00:00   # ok
	job e07 bob workq select=1:ncpus=1:mem=8gb,walltime=00:01:00     # first error wins
	job e08 frank workq select=1:ncpus=2:mem=512mb,walltime=00:30:00 # ok
	job e09 carol workq select=1:ncpus=2:mem=1gb,walltime=200:00:00  # exp(720): math range error
	capture formula_errors
}
scn_float_division_error() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'ncpus + walltime/(mem - 1048576.0)'
	job d01 alice workq select=1:ncpus=2:mem=2gb,walltime=01:00:00
	job d02 bob workq select=1:ncpus=4:mem=1gb,walltime=01:00:00 # float division by zero
	job d03 carol workq select=1:ncpus=1:mem=3gb,walltime=01:00:00
	capture float_division_error
}
scn_nan_inf() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'inf if ncpus == 3 else (nan if ncpus == 2 else (-inf if ncpus == 5 else ncpus))'
	job i01 alice workq select=1:ncpus=1
	job i02 bob workq select=1:ncpus=2
	job i03 carol workq select=1:ncpus=4
	job i04 dave workq select=1:ncpus=3
	job i05 erin workq select=1:ncpus=5
	job i06 alice workq select=1:ncpus=8
	job i07 bob workq select=1:ncpus=2
	job i08 carol workq select=1:ncpus=6
	job i09 dave workq select=1:ncpus=1
	job i10 erin workq select=1:ncpus=3
	capture nan_inf
}
scn_nan_threshold() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'nan if ncpus == 2 else ncpus'
	q 'set sched job_sort_formula_threshold = 3'
	job h01 alice workq select=1:ncpus=1
	job h02 bob workq select=1:ncpus=2
	job h03 carol workq select=1:ncpus=4
	job h04 dave workq select=1:ncpus=3
	capture nan_threshold
}
scn_float32_ties() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	# 2**24 + ncpus: float32 cannot tell 16777219 from 16777220; 1e6 + x/1000 likewise
	formula '16777216 + ncpus if walltime < 3600 else 1000000 + ncpus/1000'
	job s01 alice workq select=1:ncpus=4,walltime=00:10:00 # 16777220
	job s02 bob workq select=1:ncpus=3,walltime=00:10:00   # 16777219 -> 16777220
	job s03 carol workq select=1:ncpus=1,walltime=00:10:00 # 16777217 -> 16777216
	job s04 dave workq select=1:ncpus=2,walltime=00:10:00  # 16777218
	job s05 erin workq select=1:ncpus=1,walltime=01:00:00  # 1000000.001
	job s06 alice workq select=1:ncpus=3,walltime=01:00:00 # 1000000.003
	job s07 bob workq select=1:ncpus=2,walltime=01:00:00   # 1000000.002
	job s08 carol workq select=1:ncpus=64,walltime=01:00:00 # 1000000.064
	capture float32_ties
}
scn_eligible_time() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	q 'set server eligible_time_enable = True'
	formula 'eligible_time + accrue_type/10 + ncpus/1000'
	job g01 alice workq select=1:ncpus=1
	job g02 bob workq select=1:ncpus=2
	job g03 carol workq select=1:ncpus=4 0 -h
	job g04 dave workq select=1:ncpus=1
	job g05 erin workq select=1:ncpus=8
	GAP=5 job g06 alice workq select=1:ncpus=2
	job g07 bob workq select=1:ncpus=1
	capture eligible_time
}
scn_job_states() {
	# held, waiting (-a), array, a stopped queue, a queue at Priority 0 set explicitly
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	queue stopped 50
	queue zero 0
	formula 'ncpus + queue_priority/1000'
	job a01 alice workq select=1:ncpus=2
	job a02 bob workq select=1:ncpus=4 0 -h
	job a03 carol workq select=1:ncpus=8 0 "-a $(date -d '+2 hours' +%Y%m%d%H%M)"
	job a04 dave workq select=1:ncpus=3 0 -J 1-3
	job a05 erin stopped select=1:ncpus=16
	job a06 alice zero select=1:ncpus=2
	job a07 bob workq select=1:ncpus=1
	q 'set queue stopped started = false'
	capture job_states
}
prime_setup() { # prime_setup all|none: holidays making now prime (all) or non-prime (none)
	local p=$1 n
	if [ "$p" = all ]; then n=none; else n=all; fi
	{
		echo "YEAR $(date +%Y)"
		echo "weekday $p $n"
		echo "saturday $p $n"
		echo "sunday $p $n"
	} >"$SP/holidays"
	sc_set by_queue 'True prime' 'False non_prime'
}
scn_prime_non_prime() {
	base_state
	prime_setup none
	sched_start
	mix_queues
	formula "$MIX_FORMULA"
	mix_jobs
	capture prime_non_prime
}
scn_prime_non_prime_in_prime() {
	base_state
	prime_setup all
	sched_start
	mix_queues
	formula "$MIX_FORMULA"
	mix_jobs
	capture prime_non_prime_in_prime
}
scn_crash_complex() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula '(ncpus - 3)**0.5'
	job c01 alice workq select=1:ncpus=4 # 1
	job c02 bob workq select=1:ncpus=1   # complex
	job c03 carol workq select=1:ncpus=7 # 2
	job c04 dave workq select=1:ncpus=12 # 3
	capture crash_complex
}
scn_crash_complex_after_5min() {
	# as crash_complex, but pbs_sched has been up for more than 5 minutes when it crashes:
	# it logs "received segv and restarting", re-executes itself, and the new process crashes
	# on its first cycle (within 5 minutes of its start) and aborts
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula '(ncpus - 3)**0.5'
	job c01 alice workq select=1:ncpus=4 # 1
	job c02 bob workq select=1:ncpus=1   # complex
	job c03 carol workq select=1:ncpus=7 # 2
	say "waiting ${CRASH_WAIT:-310}s so that pbs_sched has been up for 5 minutes"
	sleep "${CRASH_WAIT:-310}"
	# watch for 10 minutes whether the restarted pbs_sched ever gets to a cycle
	CYCLE_WAIT=${CRASH_OBSERVE:-600} capture crash_complex_after_5min
}
scn_crash_bigint() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula '10**(100*ncpus)'
	job b01 alice workq select=1:ncpus=1 # 1e100
	job b02 bob workq select=1:ncpus=4   # 10**400: too large for a double
	job b03 carol workq select=1:ncpus=2 # 1e200
	job b04 dave workq select=1:ncpus=3  # 1e300
	capture crash_bigint
}
scn_crash_unknown_last() {
	# as crash_unknown_shares_formula with frank's job submitted last: still evaluated first
	base_state
	fs_setup
	sched_start
	formula 'ncpus + 1/fairshare_perc'
	job u01 alice workq select=1:ncpus=1,walltime=01:00:00
	job u03 dave workq select=1:ncpus=2,walltime=01:00:00
	job u05 bob workq select=1:ncpus=1,walltime=01:00:00
	job u02 frank workq select=1:ncpus=4,walltime=01:00:00
	capture crash_unknown_last
}
scn_unknown_shares_0_formula_no_touch() {
	# no pbsfs -s (so no usage.touch, no re-sort before the evaluation): jobs are evaluated
	# in submission order, frank's error is not the first evaluation, no crash
	base_state
	fs_tree
	sc_set fair_share 'true ALL'
	sched_start
	formula 'ncpus + 1/fairshare_perc'
	job u01 alice workq select=1:ncpus=1,walltime=01:00:00
	job u02 frank workq select=1:ncpus=4,walltime=01:00:00
	job u03 dave workq select=1:ncpus=2,walltime=01:00:00
	capture unknown_shares_0_formula_no_touch
}
scn_crash_none() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'None if ncpus == 2 else ncpus'
	job y01 alice workq select=1:ncpus=4 # 4
	job y02 bob workq select=1:ncpus=2   # None: not a number
	job y03 carol workq select=1:ncpus=1
	capture crash_none
}
scn_crash_first_error() {
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'ncpus + 1/(ncpus-1)'
	job z01 alice workq select=1:ncpus=1 # division by zero, first job evaluated
	job z02 bob workq select=1:ncpus=2
	job z03 carol workq select=1:ncpus=3
	capture crash_first_error
}
scn_formula_dquote() {
	# a '"' in the formula: qmgr and the server accept it, the scheduler's quoting breaks
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'ncpus + (1 if "a" else 0)'
	job q01 alice workq select=1:ncpus=1
	job q02 bob workq select=1:ncpus=4
	job q03 carol workq select=1:ncpus=2
	capture formula_dquote
}
scn_formula_dquote_after() {
	# same, after a cycle with a good formula (the scheduler kept running)
	base_state
	sc_set by_queue 'False prime' 'False non_prime'
	sched_start
	formula 'ncpus*7'
	job q01 alice workq select=1:ncpus=1
	job q02 bob workq select=1:ncpus=4
	job q03 carol workq select=1:ncpus=2
	run_cycle "$(mktemp -d)"
	formula 'ncpus + (1 if "a" else 0)'
	job q04 dave workq select=1:ncpus=3
	capture formula_dquote_after
}

SCENARIOS="by_queue_default by_queue_off by_queue_no_formula by_queue_equal_prio round_robin
express_preempt_on express_preempt_off express_preempt_by_queue express_prio_90
threshold threshold_negative sort_key_no_formula sort_key_priority sort_key_with_formula
fairshare_no_formula fairshare_with_formula fairshare_factor_formula
fairshare_formula_no_fair_share fairshare_egroup preempt_fairshare
unknown_shares_0 unknown_shares_10 unknown_shares_0_formula unknown_shares_0_formula_no_touch
formula_errors float_division_error nan_inf nan_threshold float32_ties eligible_time job_states
prime_non_prime prime_non_prime_in_prime
crash_complex crash_complex_after_5min crash_bigint crash_none crash_first_error crash_unknown_shares_formula crash_unknown_last
formula_dquote formula_dquote_after"

# --- qmgr verdicts -------------------------------------------------------------------------
esc() { # one line: backslash, tab, newline, CR escaped
	python3 -c 'import sys; s=sys.stdin.read(); print(s.replace("\\","\\\\").replace("\t","\\t").replace("\n","\\n").replace("\r","\\r"), end="")'
}
verdict() { # verdict COMMAND: run `qmgr -c COMMAND`, append one TSV row
	local cmd=$1 rc o e
	o=$(mktemp)
	e=$(mktemp)
	qmgr -c "$cmd" >"$o" 2>"$e"
	rc=$?
	printf '%s\t%s\t%s\t%s\n' "$(printf '%s' "$cmd" | esc)" "$rc" "$(esc <"$o")" "$(esc <"$e")" >>"$VFILE"
	rm -f "$o" "$e"
}
run_verdicts() {
	VFILE=$OUT/qmgr_verdicts.tsv
	base_state
	sched_start
	printf 'command\texit\tstdout\tstderr\n' >"$VFILE"
	local f
	for f in 'ncpus' 'ncpus*2 + walltime/3600' 'pow(2, -(fairshare_tree_usage/fairshare_perc))' \
		'fairshare_factor' 'fair_share_factor' 'fair_share_perc' 'eligible_time + accrue_type' \
		'queue_priority + job_priority' 'ncpus +' '(ncpus' 'ncpus ** ' 'foo + ncpus' 'arch' \
		'ncpus + arch' 'host' 'vnode' 'ncpus + vnode' 'ans + ncpus' 'errnum + ncpus' 'ans' \
		'globals1' 'x' '""' "''" 'ncpus if ncpus > 2 else 0' 'math.log(ncpus)' 'log(ncpus)' \
		'sqrt(-1)' '1/0' '1/(ncpus-1)' 'abs(-ncpus)' 'min(ncpus, 4)' 'inf' 'nan' 'e + pi' \
		'10**400' '(-1)**0.5' 'ncpus + (1 if "a" else 0)' 'len("ab")' 'True' 'None' \
		'lambda: 1' '[ncpus][0]' 'ncpus; 1' '__import__("os")' 'mem/1048576' 'cput + walltime' \
		'ncpus,mem' 'mpiprocs' 'naccelerators + accelerator_memory' 'nodect' 'select' 'place'; do
		case $f in
		*\"*) verdict "set server job_sort_formula = '$f'" ;;
		*) verdict "set server job_sort_formula = \"$f\"" ;;
		esac
	done
	verdict 'set server job_sort_formula = ""'
	verdict 'list server job_sort_formula'
	verdict "set server job_sort_formula = ''"
	verdict 'list server job_sort_formula'
	verdict "set server job_sort_formula = '\"\"'"
	verdict 'list server job_sort_formula'
	verdict 'print server job_sort_formula'
	verdict 'set server job_sort_formula = ncpus'
	verdict 'set server job_sort_formula = ncpus + mem'
	verdict 'set server job_sort_formula = '
	verdict 'set server job_sort_formula'
	verdict 'list server job_sort_formula'
	verdict 'print server job_sort_formula'
	# the server/sched compatibility rule (15226)
	verdict 'set server job_sort_formula = "ncpus"'
	verdict 'set sched job_sort_formula = "2*ncpus"'
	verdict 'set sched job_sort_formula = "ncpus"'
	verdict 'list sched job_sort_formula'
	verdict 'set server job_sort_formula = "3*ncpus"'
	verdict 'unset server job_sort_formula'
	verdict 'set sched job_sort_formula = "2*ncpus"'
	verdict 'set server job_sort_formula = "3*ncpus"'
	verdict 'set server job_sort_formula = "2*ncpus"'
	verdict 'unset sched job_sort_formula'
	verdict 'unset server job_sort_formula'
	verdict 'set sched job_sort_formula = "foo"'
	verdict 'set sched job_sort_formula = "arch"'
	verdict 'set sched job_sort_formula = "ncpus +"'
	verdict 'unset sched job_sort_formula'
	# threshold and other sched attributes
	verdict 'set sched job_sort_formula_threshold = 10'
	verdict 'set sched job_sort_formula_threshold = -2.5'
	verdict 'set sched job_sort_formula_threshold = abc'
	verdict 'set sched job_sort_formula_threshold = 1e3'
	verdict 'set sched job_sort_formula_threshold = inf'
	verdict 'set sched job_sort_formula_threshold = nan'
	verdict 'unset sched job_sort_formula_threshold'
	verdict 'set sched preempt_queue_prio = abc'
	verdict 'set sched preempt_queue_prio = 120'
	verdict 'set sched preempt_queue_prio = -5'
	verdict 'set sched preempt_queue_prio = 150'
	verdict 'set sched preempt_prio = "express_queue, normal_jobs, fairshare"'
	verdict 'set sched preempt_prio = "bogus_class"'
	verdict 'set sched preempt_prio = "starving_jobs, normal_jobs"'
	verdict 'set sched preempt_prio = "express_queue, queue_softlimits, server_softlimits, normal_jobs"'
	verdict 'set sched preempt_prio = "normal_jobs, express_queue"'
	verdict 'set sched preempt_prio = "express_queue+fairshare, normal_jobs"'
	verdict 'set sched preempt_prio = "express_queue, normal_jobs"'
	verdict 'set sched preempt_order = "SCR"'
	verdict 'set sched preempt_order = "XYZ"'
	verdict 'set sched preempt_sort = bogus'
	verdict 'set sched no_such_attribute = 1'
	verdict 'set sched log_events = abc'
	verdict 'set sched log_events = 4095'
	# other server/queue attributes and syntax
	verdict 'set server no_such_attribute = 1'
	verdict 'set server scheduler_iteration = abc'
	verdict 'set server eligible_time_enable = maybe'
	verdict 'set server eligible_time_enable = False'
	verdict 'set server scheduling = 3'
	verdict 'set server scheduling = False'
	verdict 'set server resources_default.ncpus = abc'
	verdict 'set server resources_default.nosuchres = 1'
	verdict 'set queue workq Priority = abc'
	verdict 'set queue workq Priority = 2000'
	verdict 'set queue workq Priority = -1025'
	verdict 'set queue workq Priority = 1024'
	verdict 'set queue workq Priority = -1024'
	verdict 'set queue workq Priority = 1.5'
	verdict 'unset queue workq Priority'
	verdict 'set queue nosuchq Priority = 10'
	verdict 'create queue workq'
	verdict 'create queue vq queue_type = bogus'
	verdict 'set server'
	verdict 'bogus command'
	verdict 'set server job_sort_formula = ncpus mem'
	verdict 'print sched'
	verdict 'list sched'
	verdict 'print server job_sort_formula_threshold'
	verdict 'list sched nosuch'
	say "wrote $VFILE ($(($(wc -l <"$VFILE") - 1)) commands)"
}

finish() {
	base_state
	sched_start
	pbsnodes -r "$NODE" >/dev/null
	qmgr -c "unset node $NODE resources_available.ncpus"
	qmgr -c "unset node $NODE resources_available.mem"
	q 'set server scheduling = True'
}

# Sourced by another capture script for its functions only.
[ "${CAPTURE_LIB:-0}" = 1 ] && return 0

if [ "${1:-}" = -l ]; then
	printf '%s\n' $SCENARIOS
	exit 0
fi
ensure_users
todo=${*:-all}
[ "$todo" = all ] && todo="$SCENARIOS verdicts"
for s in $todo; do
	if [ "$s" = verdicts ]; then
		run_verdicts
	elif declare -F "scn_$s" >/dev/null; then
		say "=== $s"
		"scn_$s"
	else
		say "unknown scenario: $s"
		exit 2
	fi
done
finish
