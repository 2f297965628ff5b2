#!/usr/bin/env bash
# End-to-end figures: fairsort (release build) against the Python peers, on the
# same generated inputs, in one run. See benches/peers/README.md.
#
#   benches/peers/run.sh                         # every default case at full size
#   SIZE=small benches/peers/run.sh              # the same at small sizes (a CI-sized run)
#   CASES="check share" benches/peers/run.sh     # only some cases
#   CASES=order10m benches/peers/run.sh          # opt-in: 10M jobs (~17 GB of input)
#
# Environment: DIR (inputs and outputs, default /tmp/fairsort-peers), SIZE (full|small),
# CASES (check order1m share usage home; order10m opt-in), ALGS (share algorithms), FORMATS
# (share outputs: table json csv), FAIRSORT (the binary, default target/release/fairsort),
# PYTHON (python3), HOME_RUNS (timed runs of the 1-job case, 7), KEEP_OUTPUTS=1 (keep every
# share output; by default each is deleted once measured, ~6 GB at full size).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DIR=${DIR:-/tmp/fairsort-peers}
SIZE=${SIZE:-full}
CASES=${CASES:-check order1m share usage home}
ALGS=${ALGS:-pbs classic depth-oblivious fair-tree ticket flux}
FORMATS=${FORMATS:-table json csv}
FAIRSORT=${FAIRSORT:-$ROOT/target/release/fairsort}
PY=${PYTHON:-python3}
HOME_RUNS=${HOME_RUNS:-7}
RERECORD_RUNS=${RERECORD_RUNS:-5}

if [[ ! -x $FAIRSORT ]]; then
    echo "run.sh: $FAIRSORT not found: run \`cargo build --release\` first" >&2
    exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
    echo "run.sh: /usr/bin/time is needed (apt-get install time)" >&2
    exit 2
fi

# shellcheck source=common.sh
. "$HERE/common.sh"

mkdir -p "$DIR/out"
OUT=$DIR/out
RESULTS=$OUT/results.tsv
: >"$RESULTS"
FAILED=0

# measure OUT CMD... -> "wall_s rss_kb status cpu_s"
measure() { "$PY" "$HERE/measure.py" "$@"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# warm FILE...: read the inputs once, so that fairsort (run first) and the peer both find them in
# the page cache; otherwise the first run pays the disk (1.7 GB of qstat JSON: ~1.3 s here).
warm() { cat "$@" >/dev/null; }
note() { echo "run.sh: $*" >&2; }

# result NAME FS_LINE PEER_LINE GOAL : one row (FS_LINE/PEER_LINE are measure's output, or -).
result() {
    local name=$1 fs=$2 peer=$3 goal=$4
    local fs_s fs_kb fs_rc fs_cpu peer_s=- peer_kb=- peer_rc=0 peer_cpu=-
    read -r fs_s fs_kb fs_rc fs_cpu <<<"$fs"
    if [[ $peer != - ]]; then read -r peer_s peer_kb peer_rc peer_cpu <<<"$peer"; fi
    if [[ $fs_rc != 0 || $peer_rc != 0 ]]; then
        note "$name: exit status fairsort $fs_rc, peer $peer_rc"
        FAILED=1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$fs_s" "$fs_kb" "$peer_s" "$peer_kb" \
        "$goal" "$(load)" "$fs_cpu" "$peer_cpu" >>"$RESULTS"
    note "$name: fairsort $fs_s s (CPU $fs_cpu) ${fs_kb} KB; peer $peer_s s (CPU $peer_cpu) ${peer_kb} KB (load $(load))"
}

# The job id column of a table (fairsort's or the peer's): the 2nd field of each row after the rule.
job_ids() { awk 'f { print $2 } /^-+ +-+/ { f = 1 }' "$1"; }

# ---------------------------------------------------------------------------------------------
# check: both sides give the same answers (CSV, on small inputs)
case_check() {
    local d=$DIR/check
    mkdir -p "$d"
    local g=("$PY" "$HERE/gen.py" --dir "$d")
    "${g[@]}" pbs-tree --users 1000 --groups 10 --name tree
    "${g[@]}" qstat --jobs 10000 --users 1000 --groups 10 --name jobs
    "${g[@]}" sshare --users 10000 --top 5 --sub 10 --name sshare
    "${g[@]}" acctlog --bytes 5000000 --users 500 --name acct
    local ok=1 compat a t
    for compat in "" --pbs-compat; do
        "$FAIRSORT" order --jobs "$d/jobs.json" --tree "$d/tree.resource_group" \
            --usage "$d/tree.usage.txt" "${ORDER_FLAGS[@]}" $compat --csv >"$d/order.fs.csv"
        "$PY" "$HERE/peer_order.py" --jobs "$d/jobs.json" --tree "$d/tree.resource_group" \
            --usage "$d/tree.usage.txt" "${ORDER_FLAGS[@]}" $compat --csv >"$d/order.peer.csv"
        echo -n "check order ${compat:-(exact)}: "
        "$PY" "$HERE/check_csv.py" "$d/order.fs.csv" "$d/order.peer.csv" --key job_id --rel 0 || ok=0
    done
    for a in $ALGS; do
        if [[ $a == pbs ]]; then
            t=(--tree "$d/tree.resource_group" --usage "$d/tree.usage.txt")
        else
            t=(--tree "$d/sshare.psv")
        fi
        "$FAIRSORT" share "${t[@]}" -a "$a" --csv >"$d/share.fs.csv"
        "$PY" "$HERE/peer_share.py" "${t[@]}" -a "$a" --csv >"$d/share.peer.csv"
        echo -n "check share $a: "
        "$PY" "$HERE/check_csv.py" "$d/share.fs.csv" "$d/share.peer.csv" --key account,user \
            --rel 1e-12 || ok=0
    done
    rm -rf "$d/home" "$d/store"
    "$FAIRSORT" init --home "$d/home" >/dev/null
    "$FAIRSORT" usage record --home "$d/home" "$d/acct.log" >/dev/null
    "$PY" "$HERE/peer_usage.py" --store "$d/store" "$d/acct.log" >/dev/null
    "$FAIRSORT" usage show --home "$d/home" --csv | cut -d, -f2,3 | sed '1s/.*/entity,usage/' \
        >"$d/usage.fs.csv"
    "$PY" "$HERE/peer_usage.py" --store "$d/store" --show >"$d/usage.peer.csv"
    echo -n "check usage record: "
    "$PY" "$HERE/check_csv.py" "$d/usage.fs.csv" "$d/usage.peer.csv" --key entity --rel 0 || ok=0
    if [[ $ok != 1 ]]; then
        FAILED=1
    fi
}

# ---------------------------------------------------------------------------------------------
# order: N jobs, full table out
order_case() {
    local jobs=$1 users=$2 groups=$3 name=$4 goal=$5 peer=$6
    gen pbs-tree --users "$users" --groups "$groups"
    gen qstat --jobs "$jobs" --users "$users" --groups "$groups"
    local t=(--tree "$DIR/tree_$users.resource_group" --usage "$DIR/tree_$users.usage.txt")
    local j="$DIR/jobs_$jobs.json"
    local fs p=-
    warm "$j" "$DIR/tree_$users.resource_group" "$DIR/tree_$users.usage.txt"
    fs=$(measure "$OUT/$name.fs.txt" "$FAIRSORT" order --jobs "$j" "${t[@]}" "${ORDER_FLAGS[@]}")
    if [[ $peer == yes ]]; then
        p=$(measure "$OUT/$name.peer.txt" "$PY" "$HERE/peer_order.py" --jobs "$j" "${t[@]}" \
            "${ORDER_FLAGS[@]}")
        if cmp -s <(job_ids "$OUT/$name.fs.txt") <(job_ids "$OUT/$name.peer.txt"); then
            note "$name: the job id columns of fairsort and the peer agree ($jobs jobs)"
        else
            note "$name: the job id columns of fairsort and the peer DIFFER"
            FAILED=1
        fi
    fi
    result "$name ($jobs jobs, $users users, table)" "$fs" "$p" "$goal"
}

case_order1m() {
    order_case "$ORDER_JOBS" "$ORDER_USERS" "$ORDER_GROUPS" order "ratio>=25 rss<=600" yes
}

case_order10m() {
    local n=10000000
    [[ $SIZE == small ]] && n=$((ORDER_JOBS * 10))
    order_case "$n" "$ORDER_USERS" "$ORDER_GROUPS" order10m "s<=12 rss<=4096" no
}

# ---------------------------------------------------------------------------------------------
# share: every algorithm, every output
case_share() {
    gen pbs-tree --users "$SHARE_USERS" --groups "$SHARE_GROUPS"
    gen sshare --users "$SHARE_USERS" --top "$SHARE_TOP" --sub "$SHARE_SUB"
    local a f t flag fs p
    for a in $ALGS; do
        if [[ $a == pbs ]]; then
            t=(--tree "$DIR/tree_$SHARE_USERS.resource_group" --usage "$DIR/tree_$SHARE_USERS.usage.txt")
        else
            t=(--tree "$DIR/sshare_$SHARE_USERS.psv")
        fi
        warm "${t[1]}" "${t[3]:-${t[1]}}"
        for f in $FORMATS; do
            flag=()
            [[ $f != table ]] && flag=("--$f")
            fs=$(measure "$OUT/share.$a.$f.fs" "$FAIRSORT" share "${t[@]}" -a "$a" "${flag[@]}")
            p=$(measure "$OUT/share.$a.$f.peer" "$PY" "$HERE/peer_share.py" "${t[@]}" -a "$a" \
                "${flag[@]}")
            result "share -a $a ($f, $SHARE_USERS users)" "$fs" "$p" "s<=1.2 ratio>=8 rss<=400"
            # A million rows in JSON is ~400 MB per side: keep only the last pair unless asked.
            [[ ${KEEP_OUTPUTS:-0} == 1 ]] || rm -f "$OUT/share.$a.$f.fs" "$OUT/share.$a.$f.peer"
        done
    done
}

# ---------------------------------------------------------------------------------------------
# usage record: a PBS accounting log, then the same log again
case_usage() {
    gen acctlog --bytes "$LOG_BYTES" --users "$LOG_USERS"
    local log="$DIR/acct_$LOG_BYTES.log" mb fs1 fs2 p1 p2
    mb=$(($(stat -c %s "$log") / 1000000))
    rm -rf "$OUT/usage-home" "$OUT/usage-store"
    "$FAIRSORT" init --home "$OUT/usage-home" >/dev/null
    warm "$log"
    fs1=$(measure "$OUT/usage.fs.txt" "$FAIRSORT" usage record --home "$OUT/usage-home" "$log")
    p1=$(measure "$OUT/usage.peer.txt" "$PY" "$HERE/peer_usage.py" --store "$OUT/usage-store" "$log")
    result "usage record ($mb MB log)" "$fs1" "$p1" "ratio>=8"
    # A re-record charges nothing and changes nothing, so it can be repeated: a 10-40 ms run is
    # timed as the median of RERECORD_RUNS, as the home's small order is.
    local runs=() i
    for ((i = 0; i < RERECORD_RUNS; i++)); do
        runs+=("$(measure "$OUT/usage2.fs.txt" "$FAIRSORT" usage record --home "$OUT/usage-home" "$log")")
    done
    note "usage record again: runs (s KB status cpu): $(printf '%s; ' "${runs[@]}")"
    fs2=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((RERECORD_RUNS + 1) / 2))p")
    p2=$(measure "$OUT/usage2.peer.txt" "$PY" "$HERE/peer_usage.py" --store "$OUT/usage-store" "$log")
    result "usage record again (all charged, median of $RERECORD_RUNS)" "$fs2" "$p2" "first<=0.10:${fs1%% *}"
    "$FAIRSORT" usage show --home "$OUT/usage-home" --csv | cut -d, -f2,3 \
        | sed '1s/.*/entity,usage/' >"$OUT/usage.fs.csv"
    "$PY" "$HERE/peer_usage.py" --store "$OUT/usage-store" --show >"$OUT/usage.peer.csv"
    "$PY" "$HERE/check_csv.py" "$OUT/usage.fs.csv" "$OUT/usage.peer.csv" --key entity --rel 0 >&2 \
        || FAILED=1
}

# ---------------------------------------------------------------------------------------------
# home: order 1 job from a home with a 100k-user tree and their usage
case_home() {
    local users=$HOME_USERS h="$OUT/home"
    home_case_setup "$h" "$FAIRSORT"
    local i lines=()
    for ((i = 0; i < HOME_RUNS; i++)); do
        lines+=("$(measure "$OUT/home.fs.txt" "$FAIRSORT" order --home "$h" --jobs "$DIR/jobs_1.json")")
    done
    # The median run.
    local med
    med=$(printf '%s\n' "${lines[@]}" | sort -n | sed -n "$(((HOME_RUNS + 1) / 2))p")
    note "home: runs (s KB status): $(printf '%s; ' "${lines[@]}")"
    result "order 1 job, home of $users users + usage (median of $HOME_RUNS)" "$med" - "s<=0.025"
}

# ---------------------------------------------------------------------------------------------
note "fairsort: $FAIRSORT ($("$FAIRSORT" --version)); $(nproc) cores; load $(load); SIZE=$SIZE"
for c in $CASES; do
    case $c in
    check | order1m | order10m | share | usage | home) "case_$c" ;;
    *)
        echo "run.sh: unknown case $c (check order1m order10m share usage home)" >&2
        exit 2
        ;;
    esac
done

# The table.
"$PY" - "$RESULTS" <<'EOF'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
def mb(kb):
    return "-" if kb == "-" else "%.0f" % (int(kb) / 1024)
def met(fs_s, fs_kb, peer_s, goal):
    ok = True
    for g in goal.split():
        if g.startswith("ratio>="):
            ok &= peer_s != "-" and float(peer_s) / float(fs_s) >= float(g[7:])
        elif g.startswith("rss<="):
            ok &= int(fs_kb) / 1024 <= float(g[5:])
        elif g.startswith("s<="):
            ok &= float(fs_s) <= float(g[3:])
        elif g.startswith("first<="):
            lim, first = g[7:].split(":")
            ok &= float(fs_s) <= float(lim) * float(first)
    return "yes" if ok else "NO"
def goal_text(g):
    parts = []
    for x in g.split():
        if x.startswith("ratio>="): parts.append(">= %sx peer" % x[7:])
        elif x.startswith("rss<="): parts.append("<= %s MB" % x[5:])
        elif x.startswith("s<="):
            s = float(x[3:]); parts.append("<= %s" % ("%g ms" % (s * 1000) if s < 1 else "%g s" % s))
        elif x.startswith("first<="):
            parts.append("<= %d %% of first" % round(float(x[7:].split(":")[0]) * 100))
    return ", ".join(parts)
head = ["command", "fairsort s", "fairsort MB", "peer s", "peer MB", "ratio", "goal", "met?",
        "load", "CPU s fairsort / peer"]
out = []
for name, fs_s, fs_kb, peer_s, peer_kb, goal, load, fs_cpu, peer_cpu in rows:
    ratio = "-" if peer_s == "-" else "%.1fx" % (float(peer_s) / float(fs_s))
    if goal.startswith("first<="):
        ratio = "%.0f %% of first" % (100 * float(fs_s) / float(goal.split(":")[1]))
    out.append([name, "%.3f" % float(fs_s), mb(fs_kb),
                "-" if peer_s == "-" else "%.2f" % float(peer_s), mb(peer_kb), ratio,
                goal_text(goal), met(fs_s, fs_kb, peer_s, goal), load,
                "%s / %s" % (fs_cpu, peer_cpu)])
print("| " + " | ".join(head) + " |")
print("|" + "|".join("---" for _ in head) + "|")
for r in out:
    print("| " + " | ".join(r) + " |")
EOF
if [[ $FAILED != 0 ]]; then
    echo "run.sh: some check failed (see above)" >&2
    exit 1
fi
