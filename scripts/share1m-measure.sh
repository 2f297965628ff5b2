#!/bin/sh
# scripts/share1m-measure.sh BIN LABEL (inputs from scripts/share1m-gen.py in $D, default /tmp/share1m): wall, user CPU, sys CPU, peak RSS of `share` over the 1M-user trees; output sha256.
BIN=$1; LABEL=$2; D=${D:-/tmp/share1m}
for alg in pbs classic depth-oblivious fair-tree ticket flux; do
  case $alg in
    pbs) T="--tree $D/resource_group --usage $D/usage.txt";;
    flux) T="--tree $D/flux.db";;
    *) T="--tree $D/sshare.psv";;
  esac
  for fmt in table --json --csv; do
    f=; [ $fmt != table ] && f=$fmt
    /usr/bin/time -f "%e %U %S %M" -o $D/t.out $BIN share $T -a $alg $f >/dev/null 2>$D/err.out; r=$(tail -1 $D/t.out)
    s=$($BIN share $T -a $alg $f | sha256sum | cut -c1-16)
    echo "$LABEL $alg $fmt $r $s load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
