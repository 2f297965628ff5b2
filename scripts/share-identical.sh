#!/bin/sh
# Byte-identity of `fairsort share` between two binaries: every algorithm x {table, --json,
# --csv} (and --compare) over tests/data/share, tests/data/slurm and any extra tree files given.
#   scripts/share-identical.sh OLD_BINARY NEW_BINARY [TREE[:USAGE] ...]
# Prints one line per difference and exits 1 if there was any.
set -u
old=$1 new=$2
shift 2
d=tests/data
trees="$d/share/resource_group:$d/share/usage.txt $d/share/resource_group $d/share/several_banks.json $d/share/small_tie.toml"
for f in "$d"/slurm/*.psv; do trees="$trees $f"; done
trees="$trees $*"
fail=0 runs=0
for spec in $trees; do
  tree=${spec%%:*}
  usage=
  [ "$spec" != "$tree" ] && usage="--usage ${spec#*:}"
  for alg in pbs classic depth-oblivious fair-tree ticket flux compare; do
    a="-a $alg"
    [ $alg = compare ] && a=--compare
    for fmt in "" --json --csv; do
      # shellcheck disable=SC2086
      o=$( { "$old" share --tree "$tree" $usage $a $fmt 2>&1; echo "status $?"; } | sha256sum)
      # shellcheck disable=SC2086
      n=$( { "$new" share --tree "$tree" $usage $a $fmt 2>&1; echo "status $?"; } | sha256sum)
      runs=$((runs + 1))
      if [ "$o" != "$n" ]; then
        echo "DIFFERS: share --tree $tree $usage $a $fmt"
        fail=1
      fi
    done
  done
done
echo "$runs runs compared"
exit $fail
