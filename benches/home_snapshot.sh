#!/bin/sh
# Times a 1-job `fairsort order` from a home with USERS users (default 100 000) and the
# usage of each (docs/perf.md, "A small order from a large home").
#   benches/home_snapshot.sh [USERS] [RUNS]
# Uses target/release/fairsort (set FAIRSORT to another binary); keeps the home in
# ${WORK:-/tmp/fairsort-home-snapshot} so `perf record` can be run on it afterwards.
set -eu
USERS=${1:-100000}
RUNS=${2:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FS=${FAIRSORT:-$ROOT/target/release/fairsort}
WORK=${WORK:-/tmp/fairsort-home-snapshot}
HOME_DIR=$WORK/home
[ -x "$FS" ] || { echo "build first: cargo build --release" >&2; exit 1; }
if [ ! -f "$WORK/ready-$USERS" ]; then
    rm -rf "$WORK"
    mkdir -p "$WORK"
    python3 "$ROOT/benches/home_snapshot/gen.py" "$WORK" "$USERS" 100
    "$FS" --home "$HOME_DIR" init >/dev/null
    "$FS" --home "$HOME_DIR" qmgr -c 'set server job_sort_formula = "pow(2, -(fairshare_tree_usage/fairshare_perc))"' >/dev/null
    "$FS" --home "$HOME_DIR" qmgr -c 'set sched fair_share = True' >/dev/null
    "$FS" --home "$HOME_DIR" tree import "$WORK/resource_group" --tree-format pbs >/dev/null
    "$FS" --home "$HOME_DIR" usage record "$WORK/accounting.log" >/dev/null
    touch "$WORK/ready-$USERS"
fi
ls -l "$HOME_DIR"
echo "== order of 1 job, $USERS users ($RUNS runs; wall s, user s, sys s, max RSS KiB)"
"$FS" --home "$HOME_DIR" order --jobs "$WORK/one.json" >/dev/null
i=0
while [ $i -lt "$RUNS" ]; do
    /usr/bin/time -f "%e %U %S %M" "$FS" --home "$HOME_DIR" order --jobs "$WORK/one.json" 2>&1 >/dev/null
    i=$((i + 1))
done | sort -n | awk '{ w[NR] = $0 } END { print "best   " w[1]; print "median " w[int((NR + 1) / 2)]; print "worst  " w[NR] }'
echo "== eval (no tree read), for comparison"
/usr/bin/time -f "%e %U %S %M" "$FS" --home "$HOME_DIR" eval --jobs "$WORK/one.json" 2>&1 >/dev/null | tail -1
