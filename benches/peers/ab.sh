#!/usr/bin/env bash
# Two fairsort commands — two builds, or one build on fewer cores — timed on the same inputs in
# one run, alternating run by run, with their outputs compared byte for byte (`same`; `same but
# sources` when only the header block naming each input's source differs). See README.md.
#
#   A=/path/to/old/fairsort B=target/release/fairsort benches/peers/ab.sh   # before and after
#   A="taskset -c 0 target/release/fairsort" B=target/release/fairsort benches/peers/ab.sh  # cores
#
# Environment: A, B (commands, split on spaces; B defaults to target/release/fairsort), DIR (the
# inputs of run.sh, generated here when missing; default /tmp/fairsort-peers), SIZE (full|small),
# CASES (order1m share usage home), ALGS, FORMATS, RUNS (timed runs per side, the median is
# reported; 3), PYTHON.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DIR=${DIR:-/tmp/fairsort-peers}
SIZE=${SIZE:-full}
CASES=${CASES:-order1m share usage home}
ALGS=${ALGS:-pbs classic depth-oblivious fair-tree ticket flux}
FORMATS=${FORMATS:-table json csv}
RUNS=${RUNS:-3}
PY=${PYTHON:-python3}
read -r -a CMD_A <<<"${A:?ab.sh: set A to the command to compare with (e.g. an older binary)}"
read -r -a CMD_B <<<"${B:-$ROOT/target/release/fairsort}"

if [[ ! -x /usr/bin/time ]]; then
    echo "ab.sh: /usr/bin/time is needed (apt-get install time)" >&2
    exit 2
fi
# shellcheck source=common.sh
. "$HERE/common.sh"

OUT=$DIR/ab
mkdir -p "$OUT"
FAILED=0
load() { cut -d' ' -f1-3 /proc/loadavg; }
note() { echo "ab.sh: $*" >&2; }

# The median of measure.py lines ("wall rss status cpu"), by wall time.
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

# compare NAME ARGS...: runs `A ARGS` and `B ARGS` in turn RUNS times, compares their last
# outputs and prints one row.
compare() {
    local name=$1
    shift
    local i ra=() rb=()
    for ((i = 0; i < RUNS; i++)); do
        ra+=("$("$PY" "$HERE/measure.py" "$OUT/a.out" "${CMD_A[@]}" "$@")")
        rb+=("$("$PY" "$HERE/measure.py" "$OUT/b.out" "${CMD_B[@]}" "$@")")
    done
    row "$name" "$(median "${ra[@]}")" "$(median "${rb[@]}")"
}

case_order1m() {
    gen pbs-tree --users "$ORDER_USERS" --groups "$ORDER_GROUPS"
    gen qstat --jobs "$ORDER_JOBS" --users "$ORDER_USERS" --groups "$ORDER_GROUPS"
    local j="$DIR/jobs_$ORDER_JOBS.json"
    cat "$j" >/dev/null
    compare "order ($ORDER_JOBS jobs, table)" order --jobs "$j" \
        --tree "$DIR/tree_$ORDER_USERS.resource_group" --usage "$DIR/tree_$ORDER_USERS.usage.txt" \
        "${ORDER_FLAGS[@]}"
    compare "order ($ORDER_JOBS jobs, csv)" order --jobs "$j" \
        --tree "$DIR/tree_$ORDER_USERS.resource_group" --usage "$DIR/tree_$ORDER_USERS.usage.txt" \
        "${ORDER_FLAGS[@]}" --csv
}

case_share() {
    gen pbs-tree --users "$SHARE_USERS" --groups "$SHARE_GROUPS"
    gen sshare --users "$SHARE_USERS" --top "$SHARE_TOP" --sub "$SHARE_SUB"
    local a f t flag
    for a in $ALGS; do
        if [[ $a == pbs ]]; then
            t=(--tree "$DIR/tree_$SHARE_USERS.resource_group" --usage "$DIR/tree_$SHARE_USERS.usage.txt")
        else
            t=(--tree "$DIR/sshare_$SHARE_USERS.psv")
        fi
        for f in $FORMATS; do
            flag=()
            [[ $f != table ]] && flag=("--$f")
            compare "share -a $a ($f, $SHARE_USERS users)" share "${t[@]}" -a "$a" "${flag[@]}"
        done
    done
}

# A fresh home for each side's run of `usage record` (the first record of the log).
fresh_home() {
    rm -rf "$OUT/home-$1"
    "${CMD_B[@]}" init --home "$OUT/home-$1" >/dev/null
}

# `usage record` writes into the home named on its command line: each side records into its own
# fresh home, then again into the same one (everything already charged); the usage compared.
case_usage() {
    gen acctlog --bytes "$LOG_BYTES" --users "$LOG_USERS"
    local log="$DIR/acct_$LOG_BYTES.log" i ra=() rb=()
    cat "$log" >/dev/null
    for ((i = 0; i < RUNS; i++)); do
        fresh_home a
        ra+=("$("$PY" "$HERE/measure.py" - "${CMD_A[@]}" usage record --home "$OUT/home-a" "$log")")
        fresh_home b
        rb+=("$("$PY" "$HERE/measure.py" - "${CMD_B[@]}" usage record --home "$OUT/home-b" "$log")")
    done
    "${CMD_A[@]}" usage show --home "$OUT/home-a" --csv >"$OUT/a.out"
    "${CMD_B[@]}" usage show --home "$OUT/home-b" --csv >"$OUT/b.out"
    row "usage record ($((LOG_BYTES / 1000000)) MB log)" "$(median "${ra[@]}")" "$(median "${rb[@]}")"
    ra=() rb=()
    for ((i = 0; i < RUNS; i++)); do
        ra+=("$("$PY" "$HERE/measure.py" - "${CMD_A[@]}" usage record --home "$OUT/home-a" "$log")")
        rb+=("$("$PY" "$HERE/measure.py" - "${CMD_B[@]}" usage record --home "$OUT/home-b" "$log")")
    done
    "${CMD_A[@]}" usage show --home "$OUT/home-a" --csv >"$OUT/a.out"
    "${CMD_B[@]}" usage show --home "$OUT/home-b" --csv >"$OUT/b.out"
    row "usage record again (all charged)" "$(median "${ra[@]}")" "$(median "${rb[@]}")"
}

case_home() {
    home_case_setup "$OUT/home" "${CMD_B[@]}"
    RUNS=$((RUNS * 3)) compare "order 1 job from a home of $HOME_USERS users" order --home "$OUT/home" \
        --jobs "$DIR/jobs_1.json"
}

# row NAME A_LINE B_LINE: one table row from two measure.py lines (outputs in a.out, b.out).
row() {
    local name=$1 as akb arc acpu bs bkb brc bcpu same=same
    read -r as akb arc acpu <<<"$2"
    read -r bs bkb brc bcpu <<<"$3"
    same=$("$PY" "$HERE/same_output.py" "$OUT/a.out" "$OUT/b.out") || FAILED=1
    [[ $arc == 0 && $brc == 0 ]] || { note "$name: exit status A $arc, B $brc"; FAILED=1; }
    printf '| %s | %.3f | %.2f | %.0f | %.3f | %.2f | %.0f | %.2fx | %s | %s |\n' "$name" \
        "$as" "$acpu" "$((akb / 1024))" "$bs" "$bcpu" "$((bkb / 1024))" \
        "$(echo "$as / $bs" | bc -l)" "$same" "$(load)"
    rm -f "$OUT/a.out" "$OUT/b.out"
}

note "A: ${CMD_A[*]}; B: ${CMD_B[*]}; $(nproc) cores; load $(load); SIZE=$SIZE; RUNS=$RUNS"
echo "| command | A s | A CPU s | A MB | B s | B CPU s | B MB | A/B | outputs | load |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in $CASES; do
    case $c in
    order1m | share | usage | home) "case_$c" ;;
    *)
        echo "ab.sh: unknown case $c (order1m share usage home)" >&2
        exit 2
        ;;
    esac
done
if [[ $FAILED != 0 ]]; then
    echo "ab.sh: some output or exit status differs (see above)" >&2
    exit 1
fi
