#!/usr/bin/env bash
# Byte-identical check of two `fairsort` binaries' `order` outputs: stdout, stderr and exit
# status of each case must agree. Inputs as run.sh makes
# them (gen.py, seeded); a 20k-job qstat file by default, the 1M-job file with FULL=1.
#
#   BASE=/tmp/old-fairsort benches/peers/same_order.sh               # NEW defaults to target/release
#   FULL=1 BASE=... NEW=... DIR=/tmp/x benches/peers/same_order.sh
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BASE=${BASE:?BASE=the reference fairsort binary}
NEW=${NEW:-$ROOT/target/release/fairsort}
DIR=${DIR:-/tmp/fairsort-same-order}
PY=${PYTHON:-python3}
mkdir -p "$DIR/out"
O=$DIR/out
"$PY" "$HERE/gen.py" --dir "$DIR" pbs-tree --users 100000 --groups 1000 >&2
"$PY" "$HERE/gen.py" --dir "$DIR" qstat --jobs 20000 --users 100000 --groups 1000 >&2
J=$DIR/jobs_20000.json
T=$DIR/tree_100000.resource_group
U=$DIR/tree_100000.usage.txt
F='fairshare_factor + 0.01*pow(ncpus, 0.5) + queue_priority/10 + eligible_time/3600 - walltime/360000 + (0.5 if mem > 67108864 else 0)'
STD=(--formula "$F" --threshold 0.05 --fair-share --queue-priority express=100 --queue-priority long=-10)
# Evaluation errors (ncpus = 1), and NaN, ±inf, -0.0, huge values, values at a 4-decimal tie.
ERR='1/(ncpus-1) + fairshare_factor'
ODD='(nan if ncpus == 2 else (inf if ncpus == 4 else (-inf if ncpus == 8 else (-0.0 if ncpus == 16 else (1e20*walltime if ncpus == 32 else (walltime/7e9 - 0.0000499999 if ncpus == 1 else -walltime/1e12 + 123456789.00005))))))'
failed=0
run() {
    local name=$1
    shift
    "$BASE" order "$@" >"$O/$name.base" 2>"$O/$name.base.err"
    local a=$?
    "$NEW" order "$@" >"$O/$name.new" 2>"$O/$name.new.err"
    local b=$?
    if [[ $a != "$b" ]] || ! cmp -s "$O/$name.base" "$O/$name.new" ||
        ! cmp -s "$O/$name.base.err" "$O/$name.new.err"; then
        echo "DIFFER $name (exit $a / $b)"
        failed=1
    else
        echo "same   $name ($(wc -c <"$O/$name.base") bytes, exit $a)"
        rm -f "$O/$name.base" "$O/$name.new" "$O/$name.base.err" "$O/$name.new.err"
    fi
}
C=(--jobs "$J" --tree "$T" --usage "$U")
run table "${C[@]}" "${STD[@]}"
run csv "${C[@]}" "${STD[@]}" --csv
run json "${C[@]}" "${STD[@]}" --json
run top10 "${C[@]}" "${STD[@]}" --top 10
run top10-csv "${C[@]}" "${STD[@]}" --top 10 --csv
run top10-json "${C[@]}" "${STD[@]}" --top 10 --json
run top0 "${C[@]}" "${STD[@]}" --top 0
run explain "${C[@]}" "${STD[@]}" --explain 1001.pbs
run explain-other "${C[@]}" "${STD[@]}" --explain 15000.pbs
run explain-json "${C[@]}" "${STD[@]}" --explain 1001.pbs --json
run against "${C[@]}" "${STD[@]}" --against 'fairshare_factor'
run against-csv "${C[@]}" "${STD[@]}" --against 'fairshare_factor' --csv
run against-json "${C[@]}" "${STD[@]}" --against 'fairshare_factor' --json
run against-top "${C[@]}" "${STD[@]}" --against 'walltime' --top 25 --movers 5
run errors "${C[@]}" --formula "$ERR" --threshold 0.5 --fair-share
run errors-csv "${C[@]}" --formula "$ERR" --threshold 0.5 --csv
run errors-json "${C[@]}" --formula "$ERR" --threshold 0.5 --json
run odd "${C[@]}" --formula "$ODD" --fair-share
run odd-csv "${C[@]}" --formula "$ODD" --csv
run odd-json "${C[@]}" --formula "$ODD" --json
run odd-compat "${C[@]}" --formula "$ODD" --pbs-compat
run compat "${C[@]}" "${STD[@]}" --pbs-compat
run no-fair-share "${C[@]}" --formula "$F" --no-fair-share
run no-threshold "${C[@]}" --formula 'walltime - 200000' --no-fair-share
run no-tree --jobs "$J" --formula 'walltime/ncpus'
run example --example
run example-csv --example --csv
if [[ ${FULL:-0} == 1 ]]; then
    "$PY" "$HERE/gen.py" --dir "$DIR" qstat --jobs 1000000 --users 100000 --groups 1000 >&2
    run table-1m --jobs "$DIR/jobs_1000000.json" --tree "$T" --usage "$U" "${STD[@]}"
    run csv-1m --jobs "$DIR/jobs_1000000.json" --tree "$T" --usage "$U" "${STD[@]}" --csv
fi
exit $failed
