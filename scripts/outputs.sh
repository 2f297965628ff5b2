#!/usr/bin/env bash
# scripts/outputs.sh BINARY OUTDIR
#
# Runs a fairsort binary over every subcommand and many inputs (examples/, tests/data/,
# tests/bad_inputs/ and inputs this script writes itself) and records, per invocation, the
# command line, the exit status, stdout, stderr and which files the home holds
# afterwards, in OUTDIR/cases/NNNN-NAME.txt (numbered in a fixed order). Run-dependent text
# (OUTDIR and repository paths, user and host names, the current time, pids) is normalised,
# so two runs of the same binary give byte-identical OUTDIR/cases. Used by
# scripts/compare-outputs.sh to show that a refactoring changes no behaviour.
#
# It only uses the binary's command line, never the library or its module paths. The inputs
# are this checkout's files, so two binaries compared with it see the same inputs.
#
# OUTDIR is emptied first. Besides cases/ it holds homes/ (a fresh home per case, or one
# per session of cases), inputs/ (generated inputs), scratch/ (files the binary writes) and
# tmp/; only cases/ is meant to be compared.

set -uo pipefail

die() { printf 'outputs.sh: %s\n' "$*" >&2; exit 2; }
[[ $# -eq 2 ]] || die "usage: scripts/outputs.sh BINARY OUTDIR"
[[ -f $1 && -x $1 ]] || die "not an executable file: $1"
BIN=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
[[ -d $ROOT/tests/data && -d $ROOT/examples ]] || die "cannot find tests/data and examples/ beside $0"
[[ -n $2 ]] || die "empty OUTDIR"
# Only an empty directory or an earlier output directory (with cases/) is emptied.
if [[ -e $2 ]]; then
  [[ -d $2 ]] || die "OUTDIR $2 is not a directory"
  if [[ ! -d $2/cases && -n $(ls -A -- "$2") ]]; then
    die "OUTDIR $2 is neither empty nor an earlier output directory (no cases/): not emptying it"
  fi
fi
rm -rf -- "$2" || die "cannot empty $2"
mkdir -p -- "$2" || die "cannot create $2"
OUT=$(cd "$2" && pwd -P)
mkdir -p "$OUT"/{cases,homes,inputs,scratch,tmp}
cd "$ROOT" || die "cannot enter $ROOT"

# ---- A fixed environment ------------------------------------------------------------------------
export TZ=UTC LC_ALL=C LANG=C
export RUST_BACKTRACE=0 COLUMNS=100 NO_COLOR=1
unset LANGUAGE LINES XDG_DATA_HOME FAIRSORT_HOME RUST_LIB_BACKTRACE CLICOLOR_FORCE
# Never the real ~/.local/share/fairsort (each case sets where its home is anyway).
export HOME=$OUT/homes/user-home

D=tests/data
BAD=tests/bad_inputs
IN=$OUT/inputs
SCR=$OUT/scratch

# ---- Normalisation ------------------------------------------------------------------------------
# Escape a literal string for a sed -E regular expression (delimiter #).
re() { printf '%s' "$1" | sed -e 's/[][\.*^$#/+?(){}|]/\\&/g'; }
ME=$(id -un 2>/dev/null || echo unknown)
HOST=$(cat /proc/sys/kernel/hostname 2>/dev/null || cat /etc/hostname 2>/dev/null || echo localhost)
HOST=${HOST//[[:space:]]/}
NOW=$(date +%s)
# Epoch seconds within about a day of now (10-digit numbers sharing their first five digits
# with now-100000 s, now or now+100000 s) are "now": the binary stamps usage stores with it.
P=${NOW:0:5}
NOW_RE="$((10#$P - 1))|$P|$((10#$P + 1))"
# ISO timestamps of yesterday, today and tomorrow (audit log lines).
DAYS_RE="$(date -u -d @$((NOW - 86400)) +%F)|$(date -u -d @"$NOW" +%F)|$(date -u -d @$((NOW + 86400)) +%F)"
SEDF=$OUT/tmp/normalise.sed
{
  # The longest path first: OUTDIR and the binary may lie inside the repository.
  printf '%s\t%s\t%s\n' "${#OUT}" "$OUT" '<OUT>' "${#BIN}" "$BIN" '<BIN>' "${#ROOT}" "$ROOT" '<ROOT>' |
    sort -t $'\t' -k1,1rn | while IFS=$'\t' read -r _ path token; do
      printf 's#%s#%s#g\n' "$(re "$path")" "$token"
    done
  printf 's#(^|[^[:alnum:]_.-])%s@#\\1<USER>@#g\n' "$(re "$ME")"
  printf 's#@%s($|[^[:alnum:]_.-])#@<HOST>\\1#g\n' "$(re "$HOST")"
  printf 's#^Server %s$#Server <HOST>#\n' "$(re "$HOST")"
  printf 's#"name": "%s"#"name": "<HOST>"#g\n' "$(re "$HOST")"
  printf 's#\\(or %s\\)#(or <HOST>)#g\n' "$(re "$HOST")"
  printf 's#(^|[^0-9])(%s)[0-9]{5}($|[^0-9])#\\1<NOW>\\3#g\n' "$NOW_RE"
  printf 's#(%s)T[0-9]{2}:[0-9]{2}:[0-9]{2}Z#<NOW-ISO>#g\n' "$DAYS_RE"
  # local date-times as usage and audit print them (`2026-11-25 20:54:48 UTC`): the run's date
  printf 's#(%s) [0-9]{2}:[0-9]{2}:[0-9]{2}( [A-Z+0-9-]+)?#<NOW-LOCAL>#g\n' "$DAYS_RE"
  printf 's#\\.record-[0-9]+#.record-<PID>#g\n'
} >"$SEDF"

# ---- Running and recording one case -------------------------------------------------------------
N=0
SESSION=""     # non-empty: the cases share the home homes/$SESSION (FAIRSORT_HOME)
STDIN=/dev/null
# Where a case without a session finds its (fresh, not yet created) home:
#   ""       XDG_DATA_HOME=homes/cNNNN, so the home is homes/cNNNN/fairsort. Not FAIRSORT_HOME:
#            an explicit home that does not exist is an error for eval, check and order.
#   env      FAIRSORT_HOME=homes/cNNNN (which does not exist)
#   homedir  HOME=homes/cNNNN, so the home is homes/cNNNN/.local/share/fairsort
#   none     no HOME, XDG_DATA_HOME nor FAIRSORT_HOME
HOMEMODE=""

section() {
  printf -- '--- %s\n' "$1"
  cat -- "$2"
  if [[ -s $2 && -n $(tail -c 1 -- "$2") ]]; then printf '\n[no newline at end]\n'; fi
}

listing() {
  if [[ -d $1 ]]; then
    printf -- '--- home files:'
    local f
    for f in "$1"/* "$1"/.[!.]*; do [[ -e $f ]] && printf ' %s' "${f##*/}"; done
    printf '\n'
  else
    printf -- '--- home: none\n'
  fi
}

next_case() {
  N=$((N + 1))
  printf -v ID '%04d' "$N"
  CASE=$OUT/cases/$ID-$1.txt
}

# run NAME ARG... : runs `fairsort ARG...` in the repository root and records it in
# cases/NNNN-NAME.txt (normalised at the end, all files at once).
run() {
  local name=$1
  shift
  next_case "$name"
  local home=$OUT/homes/c$ID where rc
  local -a envs
  if [[ -n $SESSION ]]; then
    where=$OUT/homes/$SESSION
    envs=(FAIRSORT_HOME="$where")
    # Only `fairsort init` creates a home; a session's first case finds it created (a binary
    # without `init` created it on first use, with the same files and audit record).
    if [[ ! -e $where/server.toml ]]; then
      env "${envs[@]}" "$BIN" init >/dev/null 2>&1 || true
    fi
  else
    case $HOMEMODE in
      "") envs=(XDG_DATA_HOME="$home"); where=$home/fairsort ;;
      env) envs=(FAIRSORT_HOME="$home"); where=$home ;;
      homedir) envs=(HOME="$home"); where=$home/.local/share/fairsort ;;
      none) envs=(-u HOME); where=$home ;;
      *) die "unknown HOMEMODE $HOMEMODE" ;;
    esac
  fi
  (exec env "${envs[@]}" timeout 60 "$BIN" "$@") <"$STDIN" >"$OUT/tmp/stdout" 2>"$OUT/tmp/stderr"
  rc=$?
  {
    printf '# case %s: %s\n$' "$ID" "$name"
    [[ -n $HOMEMODE ]] && printf ' [home from %s]' "$HOMEMODE"
    printf ' fairsort'
    printf ' %q' "$@"
    printf '\n'
    [[ $STDIN != /dev/null ]] && printf 'stdin: %s\n' "$STDIN"
    printf 'home: %s\nexit: %s\n' "$where" "$rc"
    section stdout "$OUT/tmp/stdout"
    section stderr "$OUT/tmp/stderr"
    listing "$where"
  } >"$CASE"
}

# show NAME FILE... : a case that records files the binary wrote (text as is, binary as hex).
show() {
  local name=$1 f
  shift
  next_case "$name"
  {
    printf '# case %s: %s\n' "$ID" "$name"
    for f in "$@"; do
      if [[ ! -e $f ]]; then
        printf '=== %s: missing\n' "$f"
      elif LC_ALL=C grep -qP '[^\x09\x0a\x0d\x20-\x7e]' -- "$f" 2>/dev/null; then
        printf '=== %s (binary)\n' "$f"
        od -An -tx1 -v -- "$f"
      else
        printf '=== %s\n' "$f"
        cat -- "$f"
      fi
    done
  } >"$CASE"
}

# show_home NAME : every file of the session's home but the lock.
show_home() {
  local h=$OUT/homes/$SESSION f
  local -a files=()
  for f in "$h"/* "$h"/.[!.]*; do [[ -f $f && ${f##*/} != lock ]] && files+=("$f"); done
  show "$1" "${files[@]}"
}

# sql DB : runs the SQL on stdin against an SQLite database (sqlite3, else python3).
if command -v sqlite3 >/dev/null; then
  sql() { sqlite3 -batch "$1"; }
elif command -v python3 >/dev/null && python3 -c 'import sqlite3' 2>/dev/null; then
  sql() {
    python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); sql = sys.stdin.read()
c.create_function("readfile", 1, lambda p: open(p, "rb").read())
if sql.lstrip().upper().startswith("SELECT"):
    for row in c.execute(sql): print("|".join("" if v is None else str(v) for v in row))
else: c.executescript(sql); c.commit()' "$1"
  }
else
  sql() { cat >/dev/null; echo "(no sqlite3 or python3 sqlite3 on this machine)"; }
fi

# ---- Generated inputs ---------------------------------------------------------------------------
printf '### PBS INTERNAL FILE DO NOT MODIFY ###\nfairshare_factor + ncpus/4\n' >"$IN/sched_formula"
printf 'ncpus * 2\r\n' >"$IN/crlf_formula.txt"
printf 'ncpus +\n  walltime/3600\n' >"$IN/two_line_formula.txt"
printf 'ncpus \xff\n' >"$IN/non_utf8_formula.txt"
printf '' >"$IN/empty_formula.txt"
printf 'ncpus*2\n' >"$IN/stdin_formula.txt"

cat >"$IN/jobs.csv" <<'EOF'
id,user,group,account,queue,state,priority,qtime,eligible_time,accrue_type,ncpus,mem,walltime,foo
1.srv,pbsuser,group1,proj1,workq,Q,0,1767261600,00:10:00,2,4,4gb,01:00:00,1.5
2.srv,pbsuser1,group1,proj1,workq,Q,5,1767261601,00:20:00,2,8,1025b,02:00:00,
3.srv,pbsuser2,group2,proj2,express,Q,0,1767261602,600,2,1,300kb,00:30:00,2
4.srv,pbsuser3,group2,proj2,workq,R,0,1767261603,0,3,16,2mb,10:00,0
5.srv,stranger,nogroup,proj3,workq,Q,-3,1767261604,00:00:00,2,2,1w,60,-1
6.srv,pbsuser,group1,proj1,workq,H,0,1767261605,00:00:01,1,2,1t,01:00:00,3
EOF
cat >"$IN/jobs_list.json" <<'EOF'
{"jobs": [
  {"id": "1", "user": "bob", "group": "group1", "account": "proj1", "queue": "workq",
   "state": "Q", "priority": 0, "qtime": 1767261600, "eligible_time": "00:10:00",
   "accrue_type": 2, "resources": {"ncpus": 4, "mem": "4gb", "walltime": "01:00:00"}},
  {"id": "2", "user": "cathy", "queue": "express", "qtime": 1767261500,
   "resources": {"ncpus": 2, "mem": "1gb", "walltime": "00:10:00", "arch": "linux"}},
  {"id": "3", "user": "suzy", "queue": "workq", "qtime": 1767261500,
   "resources": {"ncpus": 2, "walltime": "00:10:00"}}
]}
EOF
cat >"$IN/jobs_array.json" <<'EOF'
[{"id": "7", "user": "alice"}, {"id": "8", "user": "bob", "resources": {"ncpus": 3}}]
EOF
cat >"$IN/setup.qmgr" <<'EOF'
# a whole server set-up, as `print server` writes it, with comments and a continued line
create resource foo type = float
create resource licenses type=long, flag=q
create resource scratch type=size
create resource runtime type=time
create resource gpu_model type=string
create queue workq queue_type = Execution, enabled = True, started = True
create queue express queue_type=e
set queue express Priority = 50
create queue route queue_type = Route
set server job_sort_formula = "fairshare_factor + queue_priority/100 + \
  foo/10 + eligible_time/86400"
set sched default fair_share = True
set sched fairshare_entity = euser
set sched job_sort_formula_threshold = 0.1
set sched fairshare_usage_res = "ncpus*walltime"
set sched fairshare_decay_time = 12:00:00
set sched fairshare_decay_factor = 0.75
set sched unknown_shares = 10
set server managers += alice@*.example.org
set server job_sort_formula_tests = examples/formula-tests.toml
S Q workq priority=5
EOF
cat >"$IN/errors.qmgr" <<'EOF'
set server job_sort_formula = fair_share_factor
set server job_sort_formula = "ncpus +"
set server job_sort_formula = gpu_model
set sched fairshare_decay_factor = 1.5
set sched fairshare_decay_time = 86400
set sched fairshare_entity = user
set sched job_sort_formula_threshold = nan
set sched unknown_shares = -1
set sched fairshare_algorithm = best
set sched other job_sort_formula_threshold = 1
set queue nosuch Priority = 1
set queue workq Priority = 2000
set queue workq Priority = high
create queue workq
create queue 9bad
create resource foo type=float
create resource ncpus type=long
create resource bad type=colour
delete resource foo
delete resource mem
delete queue nosuch
set server bogus = 1
set node n1 a=1
frobnicate server
set server job_sort_formula = ncpus two
set server job_sort_formula = "unterminated
set server elsewhere job_sort_formula_tests = x
create server
unset sched fairshare_decay_factor
unset sched fair_share
help
list queue workq Priority
list resource foo
print queue express
quit
set server job_sort_formula = never_reached
EOF
cat >"$IN/ftest_record.toml" <<'EOF'
# cases without `expect`: `fairsort test --record` fills them in
[formulas]
f6 = "fairshare_factor + (walltime/ncpus)"

[trees.t]
source = "pbs"
accounts = [ { name = "g1", shares = 40, users = [ { name = "u1", shares = 50, usage = 100 }, { name = "u2", shares = 50, usage = 1 } ] },
             { name = "g2", shares = 60, users = [ { name = "u3", shares = 10, usage = 1000 } ] } ]

[[eval]]
name = "twice ncpus"
formula = "ncpus*2"
with = { ncpus = 3 }

[[eval]]
name = "division by zero"
formula = "1/ncpus"

[[eval]]
name = "already expected"
formula = "ncpus"
with = { ncpus = 1 }
expect = 1

[[share]]
name = "pbs factors"
tree = "@t"
algorithm = "pbs"

[[order]]
name = "order by f6"
formula = "@f6"
tree = "@t"
jobs = [ { id = "1", user = "u1", resources = { walltime = 3600, ncpus = 2 } },
         { id = "2", user = "u3", resources = { walltime = 60, ncpus = 1 } } ]
EOF
printf 'x%.0s' $(seq 1 70000) >"$IN/long_formula.txt"
head -c 1100000 /dev/zero | tr '\0' 'x' >"$IN/overlong_line.qmgr"
printf '\nlist server\n' >>"$IN/overlong_line.qmgr"
printf 'list sched\nprint server\n' >"$IN/print.qmgr"

# A flux-accounting database (flux.md V2 small_tie, an inactive association, a jobs table).
FLUXDB=$IN/FluxAccounting.db
cat <<'EOF' | sql "$FLUXDB" >/dev/null
CREATE TABLE association_table (
    creation_time bigint(20) NOT NULL, mod_time bigint(20) DEFAULT 0 NOT NULL,
    active int(11) DEFAULT 1 NOT NULL, username tinytext NOT NULL, userid int(11) DEFAULT 65534 NOT NULL,
    bank tinytext NOT NULL, default_bank tinytext NOT NULL, shares int(11) DEFAULT 1 NOT NULL,
    job_usage real DEFAULT 0.0 NOT NULL, fairshare real DEFAULT 0.5 NOT NULL,
    max_running_jobs int(11) DEFAULT 5 NOT NULL, max_active_jobs int(11) DEFAULT 7 NOT NULL,
    queues tinytext DEFAULT '' NOT NULL, projects tinytext DEFAULT '*' NOT NULL,
    PRIMARY KEY (username, bank));
CREATE TABLE bank_table (
    bank_id integer PRIMARY KEY AUTOINCREMENT, bank text NOT NULL, active int(11) DEFAULT 1 NOT NULL,
    parent_bank text DEFAULT '', shares int NOT NULL, job_usage real DEFAULT 0.0 NOT NULL,
    priority real DEFAULT 0.0, ignore_older_than bigint DEFAULT 0 NOT NULL);
CREATE TABLE config_table (key text PRIMARY KEY, value);
CREATE TABLE jobs (id INT, userid INT, t_submit REAL, t_run REAL, t_inactive REAL, ranks TEXT,
    R TEXT, jobspec TEXT, project TEXT, bank TEXT);
INSERT INTO bank_table (bank, parent_bank, shares, active) VALUES
    ('root', '', 1000, 1), ('account1', 'root', 1000, 1), ('account2', 'root', 100, 1),
    ('account3', 'root', 10, 1), ('closed', 'root', 5, 0);
INSERT INTO association_table (creation_time, username, userid, bank, default_bank, shares, job_usage, active) VALUES
    (0, 'leaf.1.1', 1011, 'account1', 'account1', 10000, 100.0, 1),
    (0, 'leaf.1.2', 1012, 'account1', 'account1', 1000, 10.0, 1),
    (0, 'leaf.1.3', 1013, 'account1', 'account1', 100000, 10.5, 1),
    (0, 'leaf.2.1', 1021, 'account2', 'account2', 10000, 10.0, 1),
    (0, 'leaf.2.2', 1022, 'account2', 'account2', 1000, 1.0, 1),
    (0, 'leaf.2.3', 1023, 'account2', 'account2', 100000, 1.0, 1),
    (0, 'leaf.3.1', 1031, 'account3', 'account3', 100, 0.0, 1),
    (0, 'leaf.3.2', 1032, 'account3', 'account3', 10, 1.0, 1),
    (0, 'gone', 1099, 'account3', 'account3', 10, 5.0, 0);
INSERT INTO config_table VALUES ('node_weight', 1.0), ('core_weight', '0.5'), ('gpu_weight', 2);
INSERT INTO jobs VALUES (1, 1011, 0, 1713000000, 1713003600, '0',
    '{"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-3","gpu":"0"}}]}}', '', '', 'account1');
INSERT INTO jobs VALUES (2, 1021, 0, 1713000000, 1713001800, '0',
    '{"execution":{"R_lite":[{"rank":"0","children":{"core":"0-7"}}]}}', '', '', NULL);
INSERT INTO jobs VALUES (3, 1031, 0, 1713000000, 1713000060, '0', 'not json', '', '', 'account3');
INSERT INTO jobs VALUES (4, 1032, 0, 1713000100, 0, '0',
    '{"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}]}}', '', '', 'account3');
INSERT INTO jobs VALUES (5, 4242, 0, 1713000000, 1713000500, '0',
    '{"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}]}}', '', '', 'account1');
INSERT INTO jobs VALUES (6, 1012, 0, 1713000000, 1713000010, '0',
    '{"execution":{"R_lite":[{"rank":"0","children":{"core":"0-18446744073709551615"}}]}}', '', '', 'account1');
INSERT INTO jobs VALUES (7, 1013, 0, 1713000000, 1713000010, '0',
    '{"execution":{"R_lite":[{"rank":"0","children":{"core":"9-3"}}]}}', '', '', 'account1');
EOF
# The fuzz-found idset of tests/data/regressions as a job's core set (not a valid idset).
printf "INSERT INTO jobs VALUES (8, 1022, 0, 1713000000, 1713000020, '0', json_object('execution', json_object('R_lite', json_array(json_object('rank', '0', 'children', json_object('core', CAST(readfile('%s') AS TEXT)))))), '', '', 'account2');\n" \
  "$ROOT/$D/regressions/flux_idset_full_u64_range.txt" | sql "$FLUXDB" >/dev/null 2>&1
printf 'not a database' >"$IN/not_a_database.db"
dump_flux() {
  {
    echo 'SELECT username, bank, job_usage FROM association_table ORDER BY bank, username;' | sql "$1"
    echo 'SELECT bank, job_usage FROM bank_table ORDER BY bank;' | sql "$1"
  } >"$2" 2>&1
}

# ==== 1. The command line itself =================================================================
run version --version
run version-short -V
run help --help
run help-short -h
run no-arguments
run unknown-subcommand frobnicate
run unknown-flag --frobnicate
run help-subcommand help share
for s in eval check share tree qmgr order demo test usage; do run "help-$s" "$s" --help; done
for s in "tree import" "tree show" "usage record" "usage decay" "usage set" "usage reset" \
  "usage show" "usage export"; do
  # shellcheck disable=SC2086
  run "help-${s// /-}" $s --help
done
run help-short-share share -h
run eval-version eval --version
run tree-no-action tree
run usage-no-action usage

# ==== 2. eval ====================================================================================
# Every formula of the golden file (generated from PBS's Python evaluation), with its bindings.
if command -v jq >/dev/null; then
  i=0
  args=()
  while IFS= read -r line; do
    i=$((i + 1))
    eval "args=($line)"
    printf -v g '%03d' "$i"
    run "eval-golden-$g" eval "${args[@]}"
    run "eval-golden-$g-json" eval --json "${args[@]}"
    run "check-golden-$g" check "${args[0]}"
  done < <(jq -r '[.f] + ([.b | to_entries[] | ("-D", "\(.key)=\(.value)")]) | @sh' "$ROOT/$D/formula/golden.jsonl")
else
  next_case eval-golden-skipped
  echo "jq is not installed: the golden formula cases were skipped" >"$CASE"
fi

run eval-bindings eval 'ncpus*2 + mem/1024' -D ncpus=3 -D mem=2048
run eval-unused-binding eval 'ncpus*2' -D ncpus=3 -D mem=5
run eval-binding-spaces eval 'ncpus' -D ' ncpus = 7 '
run eval-binding-no-equals eval ncpus -D ncpus
run eval-binding-not-number eval ncpus -D ncpus=three
run eval-binding-typo eval ncpus -D ncpu=3
run eval-binding-math-name eval ncpus -D pow=3
run eval-binding-inf eval 'ncpus' -D ncpus=inf
run eval-binding-nan eval 'ncpus + 1' -D ncpus=NaN
run eval-custom-float eval 'foo_weight * 2 + licenses' -R foo_weight=float -R licenses=long -D foo_weight=1.25 -D licenses=3
run eval-custom-json eval --json 'foo_weight * 2 + licenses' -R foo_weight=float -R licenses=long
run eval-custom-types eval 'a + b + c + d' -R a=long -R b=float -R c=size -R d=time -D a=1 -D b=2 -D c=3 -D d=4
run eval-custom-string eval 'arch2 + 1' -R arch2=string
run eval-custom-boolean eval 'flag + 1' -R flag=boolean
run eval-custom-bad-type eval 'x + 1' -R x=colour
run eval-custom-no-type eval 'x + 1' -R x
run eval-custom-builtin eval 'ncpus' -R ncpus=float
run eval-undeclared eval 'gpu_hours / 2' -D gpu_hours=3
run eval-div-zero eval 1/0
run eval-div-zero-float eval 1.0/0
run eval-div-zero-json eval --json 1/0
run eval-typo-keyword eval fair_share_factor
run eval-typo-keyword-json eval --json fair_share_factor
run eval-fairshare eval 'fairshare_factor + (walltime/ncpus)' -D fairshare_factor=0.5 -D walltime=3600 -D ncpus=4
run eval-pbs-formula eval 'pow(2, -(fairshare_tree_usage/fairshare_perc))' -D fairshare_tree_usage=0.125312 -D fairshare_perc=0.2
run eval-fairsort-keywords eval 'fairtree_factor + level_fs + classic_factor + depth_oblivious_factor + ticket_factor + flux_fairshare' -D fairtree_factor=0.5
run eval-leading-minus eval -ncpus -D ncpus=2
run eval-no-formula eval
run eval-empty-formula eval ''
run eval-file eval -f "$BAD/formula/wrong_arity.txt"
run eval-file-pbs-header eval -f "$IN/sched_formula" -D fairshare_factor=0.25 -D ncpus=8
run eval-file-crlf eval -f "$IN/crlf_formula.txt" -D ncpus=4
run eval-file-two-lines eval --json -f "$IN/two_line_formula.txt" -D ncpus=4 -D walltime=7200
run eval-file-non-utf8 eval -f "$IN/non_utf8_formula.txt"
run eval-file-empty eval -f "$IN/empty_formula.txt"
run eval-file-missing eval -f no/such/formula.txt
run eval-file-no-value eval --file
run eval-file-and-formula eval ncpus -f "$IN/crlf_formula.txt"
STDIN=$IN/stdin_formula.txt run eval-file-stdin eval -f - -D ncpus=21
run eval-too-long eval -f "$IN/long_formula.txt"
run eval-deep-parens eval "$(printf '(%.0s' $(seq 1 3000))"
run eval-regression-deep-print eval -f "$D/regressions/formula_print_deeper_than_limit.bin"
run eval-regression-deep-print-json eval --json -f "$D/regressions/formula_print_deeper_than_limit.bin"
run eval-home-not-a-home eval --home "$IN" ncpus
run eval-home-flag-after eval ncpus --home "$OUT/homes/nonexistent-home"
run check-home-not-a-home check --home "$IN" ncpus

# ==== 3. check ===================================================================================
run check-basic check 'ncpus*2'
run check-constant check '1 + 2'
run check-json check --json 'fairshare_factor + walltime/ncpus'
run check-custom check 'project + 1' -R project=long
run check-custom-json check --json 'project + 1' -R project=long
run check-string-resource check --json 'walltime/arch'
run check-unknown check 'scratch + 1'
run check-unknown-json check --json 'project + 1'
run check-every-keyword check --json 'fairshare_perc + fair_share_perc + fairshare_tree_usage + fairshare_factor + queue_priority + job_priority + eligible_time + accrue_type + fairtree_factor + level_fs + classic_factor + depth_oblivious_factor + ticket_factor + flux_fairshare + mem + walltime + cput + ncpus + nodect'
run check-file check -f "$IN/sched_formula"
run check-file-json check --json -f "$IN/two_line_formula.txt"
run check-no-formula check
STDIN=$IN/stdin_formula.txt run check-stdin check -f -

# The formula corpus of tests/bad_inputs through eval, check and check --json.
for f in "$BAD"/formula/*.txt; do
  b=$(basename "$f" .txt)
  run "bad-formula-$b-eval" eval -f "$f"
  run "bad-formula-$b-check-json" check --json -f "$f"
done

# ==== 4. share ===================================================================================
# name|path|explain user (empty: none; "!": a tree that does not load, run twice only)
TREES=(
  "ex-pbs|examples/pbs_cluster/tree.toml|!"
  "ex-slurm|examples/slurm_cluster/tree.toml|!"
  "formats-rg|$D/formats/resource_group|pbsuser"
  "formats-t1|$D/formats/t1_classic.psv|User1"
  "formats-t1p|$D/formats/t1_classic_p.txt|AccountC/User3"
  "formats-t2|$D/formats/t2_fair_tree.psv|uAA1"
  "formats-t2p|$D/formats/t2_fair_tree_p.txt|u2"
  "formats-t2sacctmgr|$D/formats/t2_sacctmgr.psv|uAB1"
  "ftest-pbs41|$D/ftest/pbs41.resource_group|pbsuser2"
  "order-rg|$D/order/resource_group|pbsuser3"
  "reg-nan1|$D/regressions/pbs_factor_nan_huge_group_usage.sshare|uG1"
  "reg-nan2|$D/regressions/pbs_factor_nan_huge_group_usage_2.sshare|uAA1"
  "reg-ticket|$D/regressions/ticket_parent_user_factor_above_one.psv|u1"
  "server-psv|$D/server/cluster.psv|alice"
  "server-rg|$D/server/resource_group|pbsuser1"
  "server-unknown-parent|$D/server/unknown_parent.rg|!"
  "share-rg|$D/share/resource_group|pbsuser"
  "share-banks|$D/share/several_banks.json|A/alice"
  "share-tie|$D/share/small_tie.toml|leaf.2.3"
  "slurm-d1|$D/slurm/t1_classic_d1.psv|User4"
  "slurm-d2|$D/slurm/t1_classic_d2.psv|User2"
  "slurm-do|$D/slurm/t1_depth_oblivious.psv|User3"
  "slurm-parent|$D/slurm/t1h_classic_parent.psv|User1"
  "slurm-t2|$D/slurm/t2_fair_tree.psv|uAB1"
  "flux-db|$FLUXDB|leaf.1.3"
)
ALGS=(pbs classic depth-oblivious fair-tree ticket flux)
for t in "${TREES[@]}"; do
  IFS='|' read -r tn tp tu <<<"$t"
  if [[ $tu == '!' ]]; then
    run "share-$tn-pbs" share --tree "$tp" -a pbs
    run "share-$tn-compare-json" share --tree "$tp" --compare --json
    continue
  fi
  for a in "${ALGS[@]}"; do
    run "share-$tn-$a" share --tree "$tp" -a "$a"
    run "share-$tn-$a-json" share --tree "$tp" --algorithm "$a" --json
    run "share-$tn-$a-csv" share --tree "$tp" --algorithm "$a" --csv
  done
  run "share-$tn-compare" share --tree "$tp" --compare
  run "share-$tn-compare-json" share --tree "$tp" --compare --json
  run "share-$tn-compare-csv" share --tree "$tp" --compare --csv
  if [[ -n $tu ]]; then
    for a in "${ALGS[@]}"; do
      run "share-$tn-explain-$a" share --tree "$tp" -a "$a" --explain "$tu"
    done
    run "share-$tn-explain-json" share --tree "$tp" -a fair-tree --explain "$tu" --json
  fi
done
# Formats named explicitly, and the wrong one.
run share-format-pbs share --tree "$D/share/resource_group" --tree-format pbs -a pbs
run share-format-sshare share --tree "$D/formats/t1_classic.psv" --tree-format sshare -a classic
run share-format-sshare-p share --tree "$D/formats/t1_classic_p.txt" --tree-format sshare -a classic
run share-format-sacctmgr share --tree "$D/formats/t2_sacctmgr.psv" --tree-format sacctmgr -a fair-tree
run share-format-toml share --tree "$D/share/small_tie.toml" --tree-format toml -a flux
run share-format-json share --tree "$D/share/several_banks.json" --tree-format json -a flux
run share-format-flux-db share --tree "$FLUXDB" --tree-format flux-db -a flux --json
run share-format-wrong-pbs share --tree "$D/formats/t1_classic.psv" --tree-format pbs -a pbs
run share-format-wrong-toml share --tree "$D/share/several_banks.json" --tree-format toml -a pbs
run share-format-wrong-json share --tree "$D/share/small_tie.toml" --tree-format json -a pbs
run share-format-wrong-sacctmgr share --tree "$D/formats/t2_fair_tree.psv" --tree-format sacctmgr -a pbs
run share-format-wrong-flux-db share --tree "$D/share/resource_group" --tree-format flux-db -a pbs
run share-format-not-a-db share --tree "$IN/not_a_database.db" -a flux
run share-format-unknown share --tree "$D/share/resource_group" --tree-format xml -a pbs
# Usage files over PBS trees.
for u in "$D/share/usage.txt" "$D/formats/usage.txt" "$D/order/usage.txt"; do
  b=$(basename "$(dirname "$u")")
  run "share-usage-$b" share --tree "$D/share/resource_group" --usage "$u" -a pbs
  run "share-usage-$b-json" share --tree "$D/share/resource_group" --usage "$u" -a pbs --json
  run "share-usage-$b-compare" share --tree "$D/share/resource_group" --usage "$u" --compare
done
run share-usage-explain share --tree "$D/share/resource_group" --usage "$D/share/usage.txt" -a pbs --explain pbsuser3
run share-usage-explain-json share --tree "$D/share/resource_group" --usage "$D/share/usage.txt" -a pbs --explain group1/pbsuser --json
run share-usage-regression-control-char share --tree "$D/share/resource_group" --usage "$D/regressions/usage_pbs_control_char_name.bin" -a pbs
run share-usage-missing share --tree "$D/share/resource_group" --usage no/such/usage -a pbs
run share-usage-on-slurm share --tree "$D/formats/t1_classic.psv" --usage "$D/share/usage.txt" -a classic
run share-usage-not-usage share --tree "$D/share/resource_group" --usage "$D/share/small_tie.toml" -a pbs
# Options.
for d in 0.5 1 2 10; do
  run "share-dampening-$d" share --tree "$D/slurm/t1_classic_d2.psv" -a classic --dampening "$d"
done
run share-dampening-zero share --tree "$D/slurm/t1_classic_d2.psv" -a classic --dampening 0
run share-dampening-negative share --tree "$D/slurm/t1_classic_d2.psv" -a classic --dampening -1
run share-dampening-nan share --tree "$D/slurm/t1_classic_d2.psv" -a classic --dampening nan
run share-dampening-word share --tree "$D/slurm/t1_classic_d2.psv" -a classic --dampening two
run share-merge-ties share --tree "$D/slurm/t2_fair_tree.psv" -a fair-tree --merge-ties
run share-merge-ties-json share --tree "$D/share/small_tie.toml" -a fair-tree --merge-ties --json
run share-merge-ties-compare share --tree "$D/slurm/t2_fair_tree.psv" --compare --merge-ties
run share-flux-compat share --tree "$FLUXDB" -a flux --flux-compat
run share-flux-compat-json share --tree "$D/share/small_tie.toml" -a flux --flux-compat --json
run share-active share --tree "$D/formats/t1_classic.psv" -a ticket --active User1,User3
run share-active-spaces share --tree "$D/formats/t1_classic.psv" -a ticket --active 'User1, User4' --json
run share-active-unknown share --tree "$D/formats/t1_classic.psv" -a ticket --active nobody
run share-active-explain share --tree "$D/formats/t1_classic.psv" -a ticket --active User2 --explain User2
run share-active-other-alg share --tree "$D/formats/t1_classic.psv" -a pbs --active User1
# Errors.
run share-no-algorithm share --tree "$D/share/resource_group"
run share-bad-algorithm share --tree "$D/share/resource_group" -a best
run share-missing-tree share --tree no/such/tree -a pbs
run share-explain-unknown share --tree "$D/share/resource_group" -a pbs --explain nobody
run share-explain-several share --tree "$D/share/several_banks.json" -a flux --explain alice
run share-explain-account-user share --tree "$D/share/several_banks.json" -a flux --explain B/alice
run share-explain-wrong-account share --tree "$D/share/several_banks.json" -a flux --explain S/alice
run share-explain-csv share --tree "$D/share/resource_group" -a pbs --explain pbsuser --csv
run share-explain-compare share --tree "$D/share/resource_group" --compare --explain pbsuser
run share-json-csv share --tree "$D/share/resource_group" -a pbs --json --csv
run share-tree-no-value share --tree
run share-no-tree-no-home share -a pbs
# The bad tree corpus of tests/bad_inputs, with the format named and detected.
for dir in tree-pbs tree-sshare tree-sacctmgr tree-toml tree-json; do
  fmt=${dir#tree-}
  case $fmt in pbs) alg=pbs ;; sshare | sacctmgr) alg=fair-tree ;; *) alg=classic ;; esac
  for f in "$BAD/$dir"/*; do
    [[ $f == *.expected ]] && continue
    b=$(basename "$f")
    run "bad-$dir-${b%.*}" share --tree "$f" --tree-format "$fmt" -a "$alg"
    run "bad-$dir-${b%.*}-detected" share --tree "$f" -a "$alg" --json
  done
done
for f in "$BAD"/pbs-usage/*.bin; do
  b=$(basename "$f" .bin)
  run "bad-pbs-usage-$b" share --tree "$D/share/resource_group" --usage "$f" -a pbs
  run "bad-pbs-usage-$b-order" order --jobs "$D/order/formula3_qstat.json" --tree "$D/order/resource_group" --usage "$f" --formula fairshare_factor
done

# ==== 5. order (and demo) ========================================================================
run order-example order --example
run order-example-pbs order --example pbs
run order-example-slurm order --example slurm-tree
run order-example-pbs-json order --example pbs --json
run order-example-slurm-json order --example slurm-tree --json
run order-example-pbs-csv order --example pbs --csv
run order-example-slurm-csv order --example slurm-tree --csv
run order-example-bogus order --example bogus
run order-example-top order --example --top 3
run order-example-top-zero order --example --top 0
run order-example-top-json order --example --top 2 --json
run order-example-top-bad order --example --top x
run demo demo
run demo-json demo --json
run demo-csv demo --csv
run demo-slurm demo --example slurm-tree
run demo-home-before --home "$OUT/homes/not-read" demo
run demo-explain demo --explain 104
run order-no-jobs order
run order-json-csv order --example --json --csv
for j in 101 102 103 104 105 106 107 108 109 110 101.pbs nosuch; do
  run "order-example-explain-$j" order --example --explain "$j"
done
run order-example-explain-json order --example --explain 103 --json
for j in 5001 5002 5003 5004 5005 5006; do
  run "order-example-slurm-explain-$j" order --example slurm-tree --explain "$j"
done
run order-example-slurm-explain-json order --example slurm-tree --explain 5003 --json
for a in "${ALGS[@]}"; do
  run "order-example-explain-alg-$a" order --example --explain 102 --algorithm "$a"
  run "order-example-slurm-explain-alg-$a" order --example slurm-tree --explain 5002 --algorithm "$a"
done
run order-example-bad-alg order --example --algorithm best
AGAINST=(
  'fairshare_factor'
  'ncpus'
  '0.5*fairshare_factor + 0.01*ncpus + queue_priority/100'
  'fairshare_factor + queue_priority/100 + eligible_time/86400'
  '-walltime'
  'fairtree_factor + classic_factor + flux_fairshare'
)
i=0
for f in "${AGAINST[@]}"; do
  i=$((i + 1))
  run "order-example-against-$i" order --example --against "$f"
  run "order-example-against-$i-json" order --example --against "$f" --json
  run "order-example-against-$i-csv" order --example --against "$f" --csv
  run "order-example-slurm-against-$i" order --example slurm-tree --against "$f"
done
run order-example-against-movers order --example --against ncpus --movers 2
run order-example-against-movers-zero order --example --against ncpus --movers 0
run order-example-against-top order --example --against ncpus --top 3
run order-example-against-bad order --example --against 'ncpus +'
run order-example-against-explain order --example --against ncpus --explain 101
run order-example-formula order --example --formula 'ncpus + walltime/3600'
run order-example-formula-bad order --example --formula fair_share_factor
run order-example-formula-error order --example --formula '1/(ncpus-4)'
run order-example-formula-error-json order --example --formula '1/(ncpus-4)' --json
run order-example-formula-error-csv order --example --formula '1/(ncpus-4)' --csv
run order-example-threshold order --example --threshold 0.5
run order-example-threshold-negative order --example --threshold -1
run order-example-threshold-nan order --example --threshold nan
run order-example-threshold-inf order --example --threshold inf
run order-example-threshold-word order --example --threshold high
run order-example-no-threshold order --example --no-threshold
run order-example-threshold-conflict order --example --threshold 1 --no-threshold
run order-example-pbs-compat order --example --pbs-compat
run order-example-pbs-compat-json order --example --pbs-compat --json
run order-example-fair-share order --example --formula ncpus --fair-share
run order-example-no-fair-share order --example --formula ncpus --no-fair-share
run order-example-fair-share-both order --example --formula ncpus --fair-share --no-fair-share
for e in euser egroup Account_Name queue egroup:euser bogus; do
  run "order-example-entity-$e" order --example --entity "$e"
done
run order-example-queue-priority order --example --queue-priority express=100 --queue-priority workq=-5
run order-example-queue-priority-new order --example --queue-priority debug=1000
run order-example-queue-priority-bad order --example --queue-priority express
run order-example-queue-priority-word order --example --queue-priority express=high
run order-example-resource order --example --formula 'ncpus + foo' --resource foo=float
run order-example-resource-bad-type order --example --resource foo=colour
run order-example-resource-bad order --example --resource foo
run order-example-unknown-shares order --example --unknown-shares 50
run order-example-tree order --example --tree "$D/share/resource_group"
run order-example-tree-usage order --example --tree "$D/share/resource_group" --usage "$D/share/usage.txt"
run order-example-usage order --example --usage "$D/share/usage.txt"
run order-example-slurm-tree order --example slurm-tree --tree "$D/server/cluster.psv"
run order-example-slurm-flux order --example slurm-tree --tree "$FLUXDB" --formula 'flux_fairshare'
run order-example-jobs-csv order --example --jobs "$IN/jobs.csv"
# The test data: §4.1 tree and usage, the openpbs test formulas.
O=(--tree "$D/order/resource_group" --usage "$D/order/usage.txt")
FORMULAS=(
  'fairshare_factor'
  'fairshare_tree_usage'
  'fairshare_perc'
  'fairshare_factor + (walltime/ncpus)'
  'ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))'
  '1/(ncpus-1)'
  'pow(2, -(fairshare_tree_usage/fairshare_perc))'
  'fairtree_factor + level_fs + classic_factor + depth_oblivious_factor + ticket_factor + flux_fairshare'
)
for q in formula3 formula6 threshold negative; do
  i=0
  for f in "${FORMULAS[@]}"; do
    i=$((i + 1))
    run "order-$q-f$i" order --jobs "$D/order/${q}_qstat.json" "${O[@]}" --formula "$f"
    run "order-$q-f$i-json" order --json --jobs "$D/order/${q}_qstat.json" "${O[@]}" --formula "$f"
  done
  run "order-$q-csv" order --csv --jobs "$D/order/${q}_qstat.json" "${O[@]}" --formula 'fairshare_factor + (walltime/ncpus)'
  run "order-$q-no-tree" order --jobs "$D/order/${q}_qstat.json" --formula 'ncpus + walltime'
  run "order-$q-fairshare-no-tree" order --jobs "$D/order/${q}_qstat.json" --formula 'fairshare_factor'
  run "order-$q-format-qstat" order --jobs "$D/order/${q}_qstat.json" --jobs-format qstat --formula ncpus
  run "order-$q-format-json" order --jobs "$D/order/${q}_qstat.json" --jobs-format json --formula ncpus
  run "order-$q-format-csv" order --jobs "$D/order/${q}_qstat.json" --jobs-format csv --formula ncpus
done
for extra in --fair-share --pbs-compat --no-fair-share; do
  run "order-formula3${extra}" order --json --jobs "$D/order/formula3_qstat.json" "${O[@]}" --formula fairshare_factor "$extra"
done
run order-threshold-7 order --json --jobs "$D/order/threshold_qstat.json" "${O[@]}" --formula 'ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))' --threshold 7
run order-threshold-7-csv order --csv --jobs "$D/order/threshold_qstat.json" --formula 'ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))' --threshold 7
run order-negative-foo order --json --jobs "$D/order/negative_qstat.json" "${O[@]}" --formula foo --resource foo=float
run order-negative-foo-long order --jobs "$D/order/negative_qstat.json" --formula foo --resource foo=long
run order-negative-foo-undefined order --jobs "$D/order/negative_qstat.json" --formula 'foo * 2'
run order-formula6-top order --jobs "$D/order/formula6_qstat.json" "${O[@]}" --formula 'fairshare_factor + (walltime/ncpus)' --top 2
for j in 11 12 13 14 11.pbs 99; do
  run "order-formula6-explain-$j" order --jobs "$D/order/formula6_qstat.json" "${O[@]}" --formula 'fairshare_factor + (walltime/ncpus)' --explain "$j"
done
run order-formula6-explain-json order --json --jobs "$D/order/formula6_qstat.json" "${O[@]}" --formula 'fairshare_factor + (walltime/ncpus)' --explain 13
for j in 41 42 43 44; do
  run "order-formula3-explain-$j" order --jobs "$D/order/formula3_qstat.json" "${O[@]}" --formula fairshare_factor --explain "$j"
done
run order-formula3-explain-fair-share order --jobs "$D/order/formula3_qstat.json" "${O[@]}" --formula fairshare_perc --fair-share --explain 41
run order-threshold-explain order --jobs "$D/order/threshold_qstat.json" --formula 'ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))' --threshold 7 --explain 21
run order-formula3-explain-error order --jobs "$D/order/formula3_qstat.json" --formula '1/(ncpus-1)' --explain 42
run order-formula6-against order --jobs "$D/order/formula6_qstat.json" "${O[@]}" --formula 'fairshare_factor + (walltime/ncpus)' --against fairshare_factor
run order-formula6-against-json order --json --jobs "$D/order/formula6_qstat.json" "${O[@]}" --formula 'fairshare_factor + (walltime/ncpus)' --against fairshare_factor
run order-formula6-against-csv order --csv --jobs "$D/order/formula6_qstat.json" "${O[@]}" --formula 'fairshare_factor + (walltime/ncpus)' --against 'walltime'
run order-formula6-against-same order --jobs "$D/order/formula6_qstat.json" "${O[@]}" --formula ncpus --against ncpus
for e in euser egroup Account_Name queue egroup:euser; do
  run "order-formula3-entity-$e" order --jobs "$D/order/formula3_qstat.json" "${O[@]}" --formula fairshare_factor --entity "$e"
done
run order-formula3-unknown-shares order --jobs "$D/order/formula3_qstat.json" --tree "$D/order/resource_group" --formula fairshare_factor --entity egroup --unknown-shares 10
run order-formula3-tree-slurm order --jobs "$D/order/formula3_qstat.json" --tree "$D/slurm/t2_fair_tree.psv" --formula 'fairtree_factor + classic_factor'
run order-formula3-tree-format order --jobs "$D/order/formula3_qstat.json" --tree "$D/order/resource_group" --tree-format pbs --formula fairshare_factor
run order-formula3-tree-format-wrong order --jobs "$D/order/formula3_qstat.json" --tree "$D/order/resource_group" --tree-format sshare --formula fairshare_factor
run order-formula3-tree-missing order --jobs "$D/order/formula3_qstat.json" --tree no/such/tree --formula fairshare_factor
run order-formula3-usage-without-tree order --jobs "$D/order/formula3_qstat.json" --usage "$D/order/usage.txt" --formula fairshare_factor
run order-formula3-no-formula order --jobs "$D/order/formula3_qstat.json"
run order-formula3-bad-formula order --jobs "$D/order/formula3_qstat.json" --formula 'ncpus +'
run order-jobs-missing order --jobs no/such/jobs.json --formula ncpus
run order-jobs-format-bad order --jobs "$D/order/formula3_qstat.json" --jobs-format yaml --formula ncpus
STDIN=$ROOT/$D/order/formula6_qstat.json run order-jobs-stdin order --jobs - --formula ncpus --csv
STDIN=$IN/jobs.csv run order-jobs-stdin-csv order --jobs - --jobs-format csv --formula 'ncpus + foo'
# Job lists in fairsort's JSON and CSV.
for j in jobs.csv jobs_list.json jobs_array.json; do
  run "order-$j" order --jobs "$IN/$j" --formula 'ncpus + mem/1048576 + walltime/3600 + job_priority + queue_priority + eligible_time + accrue_type'
  run "order-$j-json" order --jobs "$IN/$j" --formula 'ncpus*2' --json
  run "order-$j-tree" order --jobs "$IN/$j" "${O[@]}" --formula fairshare_factor --entity egroup:euser
  run "order-$j-explain" order --jobs "$IN/$j" "${O[@]}" --formula 'fairshare_factor + ncpus' --explain 2
done
run order-csv-resource-string order --jobs "$IN/jobs_list.json" --formula 'arch + 1'
run order-csv-queue-priority order --jobs "$IN/jobs.csv" --formula 'queue_priority' --queue-priority express=7
run order-csv-text-resource order --jobs "$IN/jobs.csv" --formula 'foo' --resource foo=string
run order-csv-explain-error order --jobs "$IN/jobs.csv" --formula '1/foo' --explain 2
run order-csv-pbs-compat order --jobs "$IN/jobs.csv" --formula 'mem/3' --pbs-compat --json
run order-csv-format-json order --jobs "$IN/jobs.csv" --jobs-format json --formula ncpus
# The bad job corpus of tests/bad_inputs.
for dir in jobs-qstat jobs-json jobs-csv; do
  fmt=${dir#jobs-}
  for f in "$BAD/$dir"/*; do
    [[ $f == *.expected ]] && continue
    b=$(basename "$f")
    run "bad-$dir-${b%.*}" order --jobs "$f" --jobs-format "$fmt" --formula 'ncpus + mem'
    run "bad-$dir-${b%.*}-detected" order --jobs "$f" --formula job_priority --json
  done
done

# ==== 6. test ====================================================================================
run test-examples test examples/formula-tests.toml
run test-examples-formula test examples/formula-tests.toml --formula 'fairshare_factor + walltime/ncpus/3600'
run test-examples-formula-json test examples/formula-tests.toml --formula 'fairshare_factor + walltime/ncpus/3600' --json
run test-examples-json-no-home test --json examples/formula-tests.toml
run test-examples-formula-ncpus test examples/formula-tests.toml --formula ncpus
run test-examples-formula-minus test examples/formula-tests.toml --formula -ncpus
run test-examples-formula-bad test examples/formula-tests.toml --formula -paws
run test-examples-formula-typo test examples/formula-tests.toml --formula fair_share_factor
run test-vectors test "$D/ftest/pbs_vectors.toml"
run test-vectors-json test --json "$D/ftest/pbs_vectors.toml"
run test-vectors-formula test "$D/ftest/pbs_vectors.toml" --formula 'fairshare_factor + 2*ncpus'
run test-two-files test "$D/ftest/pbs_vectors.toml" examples/formula-tests.toml --formula ncpus
run test-two-files-json test --json examples/formula-tests.toml "$D/ftest/pbs_vectors.toml" --formula ncpus
run test-missing-file test no/such/tests.toml
run test-missing-and-good test no/such/tests.toml "$D/ftest/pbs_vectors.toml"
run test-no-file test
run test-not-toml test "$D/share/resource_group"
run test-generated test "$IN/ftest_record.toml"
run test-home-not-a-home test --home "$IN" examples/formula-tests.toml
for f in "$BAD"/test-file/*.toml; do
  b=$(basename "$f" .toml)
  run "bad-test-file-$b" test "$f" --formula ncpus
  run "bad-test-file-$b-json" test --json "$f" --formula ncpus
done
# --record on copies (it rewrites the files in place).
mkdir -p "$SCR/record"
cp "$IN/ftest_record.toml" "$SCR/record/generated.toml"
cp examples/formula-tests.toml "$SCR/record/examples.toml"
cp "$ROOT/$D/ftest/pbs_vectors.toml" "$ROOT/$D/ftest/pbs41.resource_group" "$SCR/record/"
sed -e '/^expect = /d' "$ROOT/$D/ftest/pbs_vectors.toml" >"$SCR/record/vectors_no_expect.toml"
run test-record-generated test --record "$SCR/record/generated.toml" --formula ncpus
show test-record-generated-file "$SCR/record/generated.toml"
run test-record-generated-again test "$SCR/record/generated.toml" --formula ncpus
run test-record-examples test --record "$SCR/record/examples.toml" --formula ncpus
show test-record-examples-file "$SCR/record/examples.toml"
run test-record-vectors test --record --json "$SCR/record/vectors_no_expect.toml" --formula ncpus
show test-record-vectors-file "$SCR/record/vectors_no_expect.toml"
run test-record-vectors-again test "$SCR/record/vectors_no_expect.toml" --formula ncpus
run test-record-missing test --record "$SCR/record/none.toml" --formula ncpus

# ==== 7. qmgr ====================================================================================
SESSION=qmgr
run qmgr-print-fresh qmgr -c 'print server'
show_home qmgr-fresh-home
run qmgr-list-server qmgr -c 'list server'
run qmgr-list-sched qmgr -c 'list sched'
run qmgr-list-sched-default qmgr -c 'list sched default'
run qmgr-list-queue-none qmgr -c 'list queue'
run qmgr-list-resource qmgr -c 'list resource'
run qmgr-list-server-json qmgr --json -c 'list server'
STDIN=$IN/setup.qmgr run qmgr-setup qmgr
run qmgr-print-server qmgr -c 'print server'
run qmgr-print-server-json qmgr --json -c 'print server'
run qmgr-print-server-managers-json qmgr --json -c 'print server managers'
run qmgr-print-sched qmgr -c 'print sched'
run qmgr-print-queue qmgr -c 'print queue'
run qmgr-print-queue-workq qmgr -c 'print queue workq'
run qmgr-print-resource qmgr -c 'print resource'
run qmgr-list-server-2 qmgr -c 'list server'
run qmgr-list-sched-2 qmgr -c 'l sched'
run qmgr-list-queue qmgr -c 'list queue'
run qmgr-list-queue-json qmgr --json -c 'list queue'
run qmgr-list-queue-filter qmgr -c 'list queue workq Priority'
run qmgr-list-queue-two qmgr -c 'list queue workq,express'
run qmgr-list-queue-unknown qmgr -c 'list queue nosuch'
run qmgr-list-resource-2 qmgr -c 'list resource'
run qmgr-list-resource-json qmgr --json -c 'list resource foo,mem'
run qmgr-list-resource-custom qmgr -c 'list resource foo'
show_home qmgr-after-setup
STDIN=$IN/errors.qmgr run qmgr-errors qmgr
STDIN=$IN/errors.qmgr run qmgr-errors-echo qmgr -e
STDIN=$IN/errors.qmgr run qmgr-errors-abort qmgr -a
STDIN=$IN/errors.qmgr run qmgr-errors-abort-echo qmgr -a -e
run qmgr-print-after-errors qmgr -c 'print server'
show_home qmgr-after-errors
for c in \
  'set server job_sort_formula = "pow(2, -(fairshare_tree_usage/fairshare_perc))"' \
  "set server job_sort_formula = 'fairshare_factor + \"x\"'" \
  'set server job_sort_formula = fair_share_factor' \
  'set server job_sort_formula = "ncpus*"' \
  'set server job_sort_formula = foo*2' \
  'set server job_sort_formula = gpu_model' \
  'delete resource foo' \
  'set resource foo type = string' \
  'set resource licenses type = float' \
  'unset server job_sort_formula' \
  'delete resource foo' \
  'set sched fairshare_usage_res = "ncpus*(walltime"' \
  'set sched fairshare_usage_res = cput' \
  'set sched fairshare_entity = Account_Name' \
  'set sched fairshare_entity = egroup:euser' \
  'set sched fairshare_decay_time = 00:00:10' \
  'set sched fairshare_decay_time = 10:00' \
  'set sched fairshare_decay_time = 25:61:61' \
  'set sched fairshare_decay_factor = 0' \
  'set sched fairshare_decay_factor = 0.9' \
  'set sched fair_share = t' \
  'set sched fair_share = maybe' \
  'set sched unknown_shares = 5' \
  'set sched job_sort_formula_threshold = -3.5' \
  'set sched job_sort_formula_threshold = 1e400' \
  'unset sched job_sort_formula_threshold' \
  'set sched fairshare_algorithm = fair-tree' \
  'set sched fairshare_algorithm = classic' \
  'set queue workq Priority = 1023' \
  'set queue workq Priority = 1024' \
  'set queue workq Priority = -1024' \
  'set queue workq queue_type = r' \
  'set queue workq enabled = n, started = 0' \
  'unset queue workq Priority' \
  'create queue q1 Priority = 1' \
  'create queue q2,q3 Priority = 3' \
  'delete queue q1' \
  'delete queue q2,q3' \
  'set queue q2 Priority = 3' \
  'create resource newres type = boolean' \
  'create resource newres2' \
  'delete resource newres,newres2' \
  's q express priority = 7' \
  'S Q EXPRESS priority = 7' \
  'set server managers -= alice@*.example.org' \
  'set server managers -= nobody@*' \
  'set server managers += bob@host.example.org' \
  'set server managers = root@*, bob@*' \
  'set server job_sort_formula_tests = "a path with spaces.toml"' \
  'unset server job_sort_formula_tests' \
  'set server job_sort_formula = ncpus two' \
  'set server job_sort_formula = "ncpus + 1' \
  'set server' \
  'set' \
  '' \
  '   ' \
  '# just a comment' \
  'help' \
  'help set' \
  '?' \
  'quit' \
  'exit' \
  'list node' \
  'delete server' \
  'create sched other' \
  'list sched other' \
  'unset sched bogus' \
  'print server bogus' \
  'list queue express,nosuch'; do
  slug=$(printf '%s' "$c" | tr -c '[:alnum:]' '-' | tr -s '-' | cut -c1-40)
  run "qmgr-c-${slug:-empty}" qmgr -c "$c"
done
run qmgr-print-final qmgr -c 'print server'
run qmgr-list-final-json qmgr --json -c 'list sched'
show_home qmgr-final
STDIN=$IN/print.qmgr run qmgr-script-print qmgr
STDIN=$IN/overlong_line.qmgr run qmgr-overlong-line qmgr
run qmgr-no-command-value qmgr -c
run qmgr-bad-flag qmgr --frobnicate
# Replaying `print server` into a new home gives the same server.
"$BIN" qmgr -c 'print server' --home "$OUT/homes/qmgr" >"$IN/replay.qmgr" 2>/dev/null
SESSION=qmgr-replay
STDIN=$IN/replay.qmgr run qmgr-replay qmgr -e
run qmgr-replay-print qmgr -c 'print server'
# Not a manager any more: every change is refused, reading still works.
SESSION=qmgr-locked
run qmgr-locked-lock qmgr -c 'set server managers = nobody@nowhere'
run qmgr-locked-create qmgr -c 'create queue q'
run qmgr-locked-formula qmgr -c 'set server job_sort_formula = ncpus'
run qmgr-locked-print qmgr -c 'print server'
run qmgr-locked-usage-set usage set alice 1
run qmgr-locked-usage-record usage record "$D/usage/pbs_logs"
run qmgr-locked-usage-show usage show
run qmgr-locked-tree-import tree import "$D/server/resource_group"
show_home qmgr-locked-home
SESSION=qmgr-wildcard
run qmgr-wildcard-user qmgr -c 'set server managers = *@nowhere.example'
run qmgr-wildcard-refused qmgr -c 'create queue q'
SESSION=qmgr-anyone
run qmgr-anyone qmgr -c 'set server managers = *@*'
run qmgr-anyone-create qmgr -c 'create queue q'
SESSION=
# The qmgr corpus of tests/bad_inputs (each in a fresh home).
for f in "$BAD"/qmgr/*.txt; do
  b=$(basename "$f" .txt)
  STDIN=$ROOT/$f run "bad-qmgr-$b" qmgr
  STDIN=$ROOT/$f run "bad-qmgr-$b-abort-echo" qmgr -a -e
done
# Where the home is: --home before and after the subcommand, XDG_DATA_HOME, HOME, none.
run home-flag-before --home "$OUT/homes/flag-before" qmgr -c 'create queue viaflag'
run home-flag-after qmgr -c 'create queue viaflag' --home "$OUT/homes/flag-after"
run home-flag-before-list qmgr -c 'list queue' --home "$OUT/homes/flag-before"
run home-flag-after-list --home "$OUT/homes/flag-after" qmgr -c 'list queue'
run home-xdg qmgr -c 'create queue viaxdg'
HOMEMODE='env' run home-env-create qmgr -c 'create queue viaenv'
HOMEMODE='env' run home-env-eval eval ncpus
HOMEMODE='env' run home-env-check check ncpus
HOMEMODE='env' run home-env-order order --jobs "$D/order/formula3_qstat.json" --formula ncpus
HOMEMODE='env' run home-env-order-example order --example
HOMEMODE='env' run home-env-test test examples/formula-tests.toml
HOMEMODE='env' run home-env-share share -a pbs
HOMEMODE='env' run home-env-tree-show tree show
HOMEMODE='env' run home-env-usage-show usage show
HOMEMODE=homedir run home-homedir qmgr -c 'create queue viahome'
HOMEMODE=none run home-none qmgr -c 'list server'
HOMEMODE=none run home-none-eval eval 1+1
HOMEMODE=none run home-none-order order --jobs "$D/order/formula3_qstat.json" --formula ncpus
run home-is-a-file qmgr --home "$IN/jobs.csv" -c 'list server'
mkdir -p "$OUT/homes/bad-state"
printf '[server]\nmanagers = "not a list"\n' >"$OUT/homes/bad-state/server.toml"
run home-bad-state qmgr --home "$OUT/homes/bad-state" -c 'list server'
run home-bad-state-order order --home "$OUT/homes/bad-state" --jobs "$D/order/formula3_qstat.json"
run home-bad-state-eval eval --home "$OUT/homes/bad-state" ncpus
run home-bad-state-test test --home "$OUT/homes/bad-state" examples/formula-tests.toml

# ==== 8. tree ====================================================================================
SESSION=tree
run tree-show-none tree show
run tree-show-json-none tree show --json
run tree-import-rg tree import "$D/server/resource_group"
run tree-show tree show
run tree-show-json tree show --json
show_home tree-home-rg
cp "$ROOT/$D/server/usage.toml" "$OUT/homes/tree/usage.toml"
run tree-show-json-usage tree show --json
for a in "${ALGS[@]}"; do
  run "tree-home-share-$a" share -a "$a"
done
run tree-home-share-compare share --compare --json
run tree-home-share-usage share -a pbs --usage "$D/share/usage.txt"
run tree-home-share-explain share -a pbs --explain pbsuser3
run tree-home-order-no-formula order --jobs "$D/order/formula3_qstat.json"
run tree-home-order-formula order --jobs "$D/order/formula3_qstat.json" --formula fairshare_factor
run tree-home-order-no-jobs order
run tree-home-set-formula qmgr -c 'set server job_sort_formula = "fairshare_factor + (walltime/ncpus)"'
run tree-home-set-threshold qmgr -c 'set sched job_sort_formula_threshold = 30'
run tree-home-create-queue qmgr -c 'create queue workq Priority = 10'
run tree-home-order qmgr -c 'print server'
run tree-home-order-home order --jobs "$D/order/formula6_qstat.json"
run tree-home-order-home-json order --jobs "$D/order/formula6_qstat.json" --json
run tree-home-order-home-explain order --jobs "$D/order/formula6_qstat.json" --explain 12
run tree-home-order-home-against order --jobs "$D/order/formula6_qstat.json" --against fairshare_factor
run tree-home-order-home-example order --example
run tree-home-order-home-tree order --jobs "$D/order/formula6_qstat.json" --tree "$D/share/resource_group"
run tree-home-fair-share qmgr -c 'set sched fair_share = True, fairshare_entity = egroup'
run tree-home-order-egroup order --jobs "$D/order/formula3_qstat.json" --formula fairshare_perc
run tree-home-algorithm qmgr -c 'set sched fairshare_algorithm = flux'
run tree-home-order-explain-alg order --jobs "$D/order/formula3_qstat.json" --explain 43
run tree-home-resource qmgr -c 'create resource foo type=float'
run tree-home-order-resource order --jobs "$D/order/negative_qstat.json" --formula foo
run tree-home-eval-resource eval 'foo * 2' -D foo=1.5
run tree-home-check-resource check --json 'foo * 2'
run tree-home-test test examples/formula-tests.toml
run tree-home-test-formula test examples/formula-tests.toml --formula ncpus
run tree-home-test-vectors test "$D/ftest/pbs_vectors.toml"
for f in "$D/server/cluster.psv" "$D/formats/t1_classic.psv" "$D/formats/t2_sacctmgr.psv" \
  "$D/share/small_tie.toml" "$D/share/several_banks.json" "$D/slurm/t1h_classic_parent.psv" \
  "$FLUXDB" "$D/server/unknown_parent.rg" "$D/share/resource_group" no/such/tree; do
  b=$(basename "$f")
  run "tree-import-$b" tree import "$f"
  run "tree-import-$b-show" tree show
done
run tree-import-format tree import "$D/formats/t2_fair_tree.psv" --tree-format sshare
run tree-import-format-wrong tree import "$D/formats/t2_fair_tree.psv" --tree-format toml
run tree-import-format-unknown tree import "$D/formats/t2_fair_tree.psv" --tree-format xml
run tree-import-no-file tree import
show_home tree-home-final
SESSION=

# ==== 8b. site ===================================================================================
# The site record: a Slurm site stored, then PBS and flux orders from the same home, `site show`,
# `site remove` (its times and user@host differ from run to run: compare the rest).
SESSION=site
run site-show-none site show
run site-show-json-none site show --json
run site-remove-none site remove
run site-tree-import tree import "$D/slurm_priority/sshare.psv"
run site-slurm-import slurm import --conf "$D/slurm_priority/slurm.conf" --qos "$D/slurm_priority/qos.psv"
run site-show site show
run site-show-json site show --json
run site-order-pbs order --jobs examples/pbs_cluster/jobs.json --formula ncpus --tree "$D/share/resource_group"
run site-order-slurm order --jobs "$D/slurm_priority/squeue.json" --at 1764000000
run site-order-flux order --jobs examples/flux_priority/flux-jobs.json --tree "$FLUXDB"
run site-share share
run site-share-json share --json
run site-remove site remove
run site-show-removed site show
run site-remove-again site remove
SESSION=
for dir in tree-pbs tree-sshare tree-sacctmgr tree-toml tree-json; do
  for f in "$BAD/$dir"/*; do
    [[ $f == *.expected ]] && continue
    b=$(basename "$f")
    run "bad-$dir-${b%.*}-import" tree import "$f"
  done
done

# ==== 9. usage ===================================================================================
# PBS accounting logs, the PBS decay model.
SESSION=usage-pbs
run usage-pbs-show-empty usage show
run usage-pbs-show-empty-json usage show --json
run usage-pbs-show-empty-csv usage show --csv
run usage-pbs-record-strict usage record "$D/usage/corrupt.log" --strict
run usage-pbs-record usage record "$D/usage/pbs_logs" --json
run usage-pbs-record-again usage record "$D/usage/pbs_logs"
run usage-pbs-record-file usage record "$D/usage/pbs_logs/20240413"
run usage-pbs-record-corrupt usage record "$D/usage/corrupt.log"
run usage-pbs-show usage show
run usage-pbs-decay-backwards usage decay --at 2024-04-13
run usage-pbs-reset-at usage reset --at 2024-04-13T00:00:00
run usage-pbs-show-2 usage show
run usage-pbs-decay usage decay --at 2024-04-15
run usage-pbs-decay-json usage decay --at 2024-04-17T12:00 --json
run usage-pbs-decay-epoch usage decay --at 1713400000
run usage-pbs-decay-backwards-epoch usage decay --at 1000
run usage-pbs-decay-bad-time usage decay --at tomorrow
run usage-pbs-decay-no-time usage decay --at
run usage-pbs-decay-factor-bad usage decay --at 1713500000 --decay-factor 1.5
run usage-pbs-decay-time-bad usage decay --at 1713500000 --decay-time 86400
run usage-pbs-decay-time usage decay --at 1713600000 --decay-time 06:00:00 --decay-factor 0.9
run usage-pbs-decay-model-bad usage decay --at 1713600000 --model bogus
run usage-pbs-show-3 usage show --json
run usage-pbs-set usage set alice 5
run usage-pbs-set-new usage set carol 12.5
run usage-pbs-set-negative usage set alice -5
run usage-pbs-set-account usage set physics/alice 3
run usage-pbs-set-bad-entity usage set /alice 3
run usage-pbs-set-bad-entity-2 usage set physics/ 3
run usage-pbs-set-nan usage set alice nan
run usage-pbs-set-word usage set alice lots
run usage-pbs-show-4 usage show --csv
mkdir -p "$SCR/usage-pbs"
run usage-pbs-export usage export --pbs "$SCR/usage-pbs/usage"
run usage-pbs-export-touch usage export --pbs "$SCR/usage-pbs/usage" --touch
show usage-pbs-export-files "$SCR/usage-pbs/usage" "$SCR/usage-pbs/usage.bak" "$SCR/usage-pbs/usage.touch"
run usage-pbs-export-read share --tree "$D/share/resource_group" --usage "$SCR/usage-pbs/usage" -a pbs
run usage-pbs-export-no-target usage export
run usage-pbs-export-touch-only usage export --touch
run usage-pbs-export-bad-dir usage export --pbs "$SCR/no/such/dir/usage"
run usage-pbs-reset usage reset --at 1713000000
run usage-pbs-record-after-reset usage record "$D/usage/pbs_logs"
run usage-pbs-reset-forget usage reset --forget-jobs --at 1713000000
run usage-pbs-record-after-forget usage record "$D/usage/pbs_logs" --usage-res 'ncpus*walltime' --entity egroup --json
run usage-pbs-record-res-bad usage record "$D/usage/pbs_logs" --usage-res 'ncpus*(walltime'
run usage-pbs-record-entity-bad usage record "$D/usage/pbs_logs" --entity user
run usage-pbs-record-missing usage record no/such/log
run usage-pbs-record-none usage record
run usage-pbs-record-format-slurm usage record "$D/usage/pbs_logs/20240413" --format slurm
run usage-pbs-record-format-bad usage record "$D/usage/pbs_logs" --format lsf
run usage-pbs-qmgr-sched qmgr -c 'set sched fairshare_usage_res = "ncpus*walltime", fairshare_entity = Account_Name, fairshare_decay_time = 01:00:00'
run usage-pbs-reset-forget-2 usage reset --forget-jobs --at 1713000000
run usage-pbs-record-sched usage record "$D/usage/pbs_logs"
run usage-pbs-decay-sched usage decay --at 1713100000 --json
run usage-pbs-show-5 usage show
show_home usage-pbs-home
# Slurm sacct, the Slurm decay model.
SESSION=usage-slurm
run usage-slurm-reset usage reset --model slurm --at 2024-04-13 --half-life 604800 --calc-period 5 --reset-period weekly
run usage-slurm-record usage record "$D/usage/sacct.txt" --json
run usage-slurm-record-weights usage record "$D/usage/sacct.txt" --billing-weights CPU=1.0,Mem=0.25G
run usage-slurm-reset-forget usage reset --forget-jobs --at 2024-04-13
run usage-slurm-record-weights-2 usage record "$D/usage/sacct.txt" --format slurm --billing-weights CPU=1.0,Mem=0.25G
run usage-slurm-record-weights-bad usage record "$D/usage/sacct.txt" --billing-weights CPU=lots
run usage-slurm-show usage show
run usage-slurm-show-json usage show --json
run usage-slurm-decay usage decay --at 2024-04-20 --json
run usage-slurm-decay-reset usage decay --at 2024-05-01
run usage-slurm-set-assoc usage set physics/alice 100
run usage-slurm-show-csv usage show --csv
run usage-slurm-reset-period-bad usage reset --reset-period fortnightly --at 0
run usage-slurm-half-life-bad usage reset --half-life -5 --at 0
run usage-slurm-record-regression usage record "$D/regressions/sacct_huge_year_overflow.bin" --format slurm
run usage-slurm-record-regression-strict usage record "$D/regressions/sacct_huge_year_overflow.bin" --format slurm --strict
show_home usage-slurm-home
# A flux-accounting database, the flux decay model, export into a copy of the database.
SESSION=usage-flux
run usage-flux-reset usage reset --model flux --at 0 --half-life 604800 --usage-reset-period 2419200
run usage-flux-record usage record "$FLUXDB" --json
run usage-flux-record-again usage record "$FLUXDB" --format flux
run usage-flux-show usage show
run usage-flux-show-json usage show --json
run usage-flux-show-csv usage show --csv
run usage-flux-decay usage decay --at 1714000000 --json
run usage-flux-decay-factor usage decay --at 1715000000 --decay-factor 0.25
run usage-flux-show-2 usage show
mkdir -p "$SCR/usage-flux"
cp "$FLUXDB" "$SCR/usage-flux/flux.db"
run usage-flux-export usage export --flux "$SCR/usage-flux/flux.db"
dump_flux "$SCR/usage-flux/flux.db" "$SCR/usage-flux/flux.dump"
show usage-flux-export-db "$SCR/usage-flux/flux.dump"
run usage-flux-export-read share --tree "$SCR/usage-flux/flux.db" -a flux
run usage-flux-export-both usage export --flux "$SCR/usage-flux/flux.db" --pbs "$SCR/usage-flux/usage"
run usage-flux-export-not-db usage export --flux "$IN/not_a_database.db"
run usage-flux-export-missing usage export --flux "$SCR/usage-flux/none.db"
run usage-flux-record-not-db usage record "$IN/not_a_database.db" --format flux
run usage-flux-record-pbs-format usage record "$FLUXDB" --format pbs
show_home usage-flux-home
# The half-life model.
SESSION=usage-half-life
run usage-half-life-reset usage reset --model half-life --half-life 3600 --at 1713000000
run usage-half-life-set usage set alice 1000
run usage-half-life-decay usage decay --at 1713003600 --json
run usage-half-life-decay-2 usage decay --at 1713010800
run usage-half-life-show usage show
run usage-half-life-model-pbs usage decay --model pbs --at 1713100000
run usage-half-life-show-2 usage show --json
show_home usage-half-life-home
# "now": a fresh home records with last_decay = now and decays to now.
SESSION=usage-now
run usage-now-record usage record "$D/usage/pbs_logs"
run usage-now-decay usage decay
run usage-now-show usage show
run usage-now-reset usage reset
run usage-now-show-json usage show --json
SESSION=
# A usage store that does not parse.
mkdir -p "$OUT/homes/bad-usage"
"$BIN" --home "$OUT/homes/bad-usage" qmgr -c 'list server' >/dev/null 2>&1
printf 'version = 99\n' >"$OUT/homes/bad-usage/usage.toml"
run usage-bad-store-show usage show --home "$OUT/homes/bad-usage"
run usage-bad-store-set usage set alice 1 --home "$OUT/homes/bad-usage"
run usage-bad-store-order order --home "$OUT/homes/bad-usage" --jobs "$D/order/formula3_qstat.json" --formula ncpus
# The accounting corpus of tests/bad_inputs (each in a fresh home).
for f in "$BAD"/acct-pbs/*.log; do
  b=$(basename "$f" .log)
  run "bad-acct-pbs-$b" usage record "$f" --format pbs --usage-res 'ncpus*walltime'
  run "bad-acct-pbs-$b-strict" usage record "$f" --strict --json
done
for f in "$BAD"/acct-sacct/*.txt; do
  b=$(basename "$f" .txt)
  run "bad-acct-sacct-$b" usage record "$f" --format slurm
  run "bad-acct-sacct-$b-strict" usage record "$f" --format slurm --strict --json
done

# ==== Normalise and summarise ====================================================================
rm -f "$OUT/tmp/stdout" "$OUT/tmp/stderr"
find "$OUT/cases" -type f -name '*.txt' -exec sed -i -E -f "$SEDF" {} +
printf '%s cases in %s/cases\n' "$N" "$OUT"
