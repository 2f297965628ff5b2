#!/bin/sh
# scripts/share1m-compare.sh OLD_BIN NEW_BIN (inputs from scripts/share1m-gen.py in $D, default /tmp/share1m): `share` over the
# 1M-user trees, old then new binary per algorithm x output (both under the same load); per run:
# wall, user, sys, peak RSS (KiB) from /usr/bin/time, the output's sha256 and the load average.
OLD=$1; NEW=$2; D=${D:-/tmp/share1m}
for alg in pbs classic depth-oblivious fair-tree ticket flux; do
  case $alg in
    pbs) T="--tree $D/resource_group --usage $D/usage.txt";;
    flux) T="--tree $D/flux.db";;
    *) T="--tree $D/sshare.psv";;
  esac
  for fmt in table --json --csv; do
    f=; [ $fmt != table ] && f=$fmt
    for b in before after; do
      BIN=$OLD; [ $b = after ] && BIN=$NEW
      s=$( { /usr/bin/time -f "%e %U %S %M" -o $D/t.$b $BIN share $T -a $alg $f 2>/dev/null; } | sha256sum | cut -c1-16)
      echo "$b $alg $fmt $(tail -1 $D/t.$b) $s load $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
