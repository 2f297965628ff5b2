#!/usr/bin/env bash
# scripts/compare-outputs.sh [BASE_REV]
#
# Proves that the working tree behaves like BASE_REV (default 8ba4ce8, main before the module
# redesign): builds both release binaries, runs scripts/outputs.sh (this tree's, so both see the
# same inputs) with each, and prints `diff -r -a` of the two normalised output directories.
# Exit status: 0 if every case is identical, 1 if any differs, 2 if something could not be run.
#
# BASE_REV's binary is built once from `git archive BASE_REV` under target/compare-base/<commit>/
# with its own CARGO_TARGET_DIR (a full release build: several minutes), then only the binary is
# kept there and reused on later runs (delete that directory to rebuild).
# Outputs go to target/compare-outputs/{base,current}/ (kept for inspection), the diff to
# target/compare-outputs/diff.txt. Only the binaries' command lines are used, never library paths,
# so the script keeps working whatever the modules are called.
#
# Environment: CARGO (default cargo); CARGO_TARGET_DIR is honoured for the current tree's build.

set -uo pipefail

die() { printf 'compare-outputs: %s\n' "$*" >&2; exit 2; }
[[ $# -le 1 ]] || die "usage: scripts/compare-outputs.sh [BASE_REV]"
BASE_REV=${1:-8ba4ce8}
CARGO=${CARGO:-cargo}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT" || die "cannot enter $ROOT"
command -v "$CARGO" >/dev/null || die "$CARGO not found"

REV=$(git rev-parse --verify --quiet "$BASE_REV^{commit}") || die "unknown revision $BASE_REV"
HEAD_DESC=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
[[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]] && HEAD_DESC="$HEAD_DESC + uncommitted changes"
CUR_TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
[[ $CUR_TARGET == /* ]] || CUR_TARGET=$ROOT/$CUR_TARGET
WORK=$ROOT/target/compare-outputs
START=$(date +%s)

# ---- The base binary (cached) -------------------------------------------------------------------
CACHE=$ROOT/target/compare-base/$REV
BASE_BIN=$CACHE/fairsort
if [[ -x $BASE_BIN ]]; then
  echo "compare-outputs: base ${REV:0:12}: reusing $BASE_BIN"
else
  echo "compare-outputs: base ${REV:0:12}: building in $CACHE (once)"
  rm -rf "$CACHE/src"
  mkdir -p "$CACHE/src" "$CACHE/target/release" || die "cannot create $CACHE"
  git archive --format=tar "$REV" | tar -x -C "$CACHE/src" || die "git archive $REV failed"
  (cd "$CACHE/src" && CARGO_TARGET_DIR=$CACHE/target "$CARGO" build --release --bin fairsort) ||
    die "building ${REV:0:12} failed"
  { cp "$CACHE/target/release/fairsort" "$BASE_BIN.tmp" && mv "$BASE_BIN.tmp" "$BASE_BIN"; } ||
    die "cannot copy the base binary"
  rm -rf "$CACHE/src" "$CACHE/target" # only the binary is kept
fi

# ---- The current tree's binary ------------------------------------------------------------------
echo "compare-outputs: current tree ($HEAD_DESC): cargo build --release"
"$CARGO" build --release --bin fairsort || die "building the current tree failed"
CUR_BIN=$CUR_TARGET/release/fairsort
[[ -x $CUR_BIN ]] || die "no binary at $CUR_BIN"

# ---- Outputs of both, side by side --------------------------------------------------------------
mkdir -p "$WORK" || die "cannot create $WORK"
echo "compare-outputs: running scripts/outputs.sh with both binaries"
"$ROOT/scripts/outputs.sh" "$BASE_BIN" "$WORK/base" >"$WORK/base.log" 2>&1 &
base_pid=$!
"$ROOT/scripts/outputs.sh" "$CUR_BIN" "$WORK/current" >"$WORK/current.log" 2>&1
cur_rc=$?
wait "$base_pid"
base_rc=$?
((base_rc == 0)) || { cat "$WORK/base.log" >&2; die "outputs.sh failed for the base binary"; }
((cur_rc == 0)) || { cat "$WORK/current.log" >&2; die "outputs.sh failed for the current binary"; }

(cd "$WORK" && diff -r -a base/cases current/cases) >"$WORK/diff.txt"
diff_rc=$?
((diff_rc <= 1)) || die "diff failed"
cat "$WORK/diff.txt"

total=$( (ls "$WORK/base/cases"; ls "$WORK/current/cases") | sort -u | wc -l)
differ=$(cd "$WORK" && diff -rq base/cases current/cases | wc -l)
secs=$(($(date +%s) - START))
printf 'compare-outputs: %d cases, %d differ (base %s, current %s; %ds; outputs in %s)\n' \
  "$total" "$differ" "${REV:0:12}" "$HEAD_DESC" "$secs" "${WORK#"$ROOT"/}"
((differ == 0))
