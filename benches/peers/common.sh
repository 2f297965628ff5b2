# What run.sh and ab.sh share (sourced, not run): the input sizes of each SIZE, the order's
# formula and flags, and the home of the `home` case. Needs SIZE, PY, HERE and DIR set.

case $SIZE in
full)
    ORDER_JOBS=1000000 ORDER_USERS=100000 ORDER_GROUPS=1000
    SHARE_USERS=1000000 SHARE_TOP=10 SHARE_SUB=100 SHARE_GROUPS=1000
    LOG_BYTES=525000000 LOG_USERS=50000
    HOME_USERS=100000 HOME_GROUPS=1000
    ;;
small)
    ORDER_JOBS=20000 ORDER_USERS=2000 ORDER_GROUPS=20
    SHARE_USERS=20000 SHARE_TOP=5 SHARE_SUB=20 SHARE_GROUPS=20
    LOG_BYTES=10000000 LOG_USERS=1000
    HOME_USERS=2000 HOME_GROUPS=20
    ;;
*)
    echo "$(basename "$0"): SIZE is full or small" >&2
    exit 2
    ;;
esac

FORMULA='fairshare_factor + 0.01*pow(ncpus, 0.5) + queue_priority/10 + eligible_time/3600 - walltime/360000 + (0.5 if mem > 67108864 else 0)'
ORDER_FLAGS=(--formula "$FORMULA" --threshold 0.05 --fair-share
    --queue-priority express=100 --queue-priority long=-10)

gen() { "$PY" "$HERE/gen.py" --dir "$DIR" "$@"; }

# home_case_setup HOME FAIRSORT...: the inputs of the `home` case (a HOME_USERS-user tree, one E
# record per user, one job) and a fresh home at HOME holding the tree, the usage, the formula,
# the threshold and two queues, made with the fairsort command given.
home_case_setup() {
    local h=$1
    shift
    gen pbs-tree --users "$HOME_USERS" --groups "$HOME_GROUPS"
    gen home-log --users "$HOME_USERS" --groups "$HOME_GROUPS"
    gen qstat --jobs 1 --users "$HOME_USERS" --groups "$HOME_GROUPS"
    rm -rf "$h"
    "$@" init --home "$h" >/dev/null
    "$@" tree import --home "$h" "$DIR/tree_$HOME_USERS.resource_group" >/dev/null
    "$@" usage record --home "$h" "$DIR/homelog_$HOME_USERS.log" >/dev/null
    "$@" qmgr --home "$h" >/dev/null <<QMGR
set server job_sort_formula = "$FORMULA"
set sched default fair_share = True
set sched default job_sort_formula_threshold = 0.05
create queue express
set queue express Priority = 100
create queue long
set queue long Priority = -10
QMGR
}
