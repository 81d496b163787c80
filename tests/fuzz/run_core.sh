#!/usr/bin/env bash
# Usage: tests/fuzz/run_core.sh BUILD_DIR SECONDS [HARNESS...]
#
# The libFuzzer harnesses over trn_core (tests/fuzz/core/, built into BUILD_DIR by the fuzz
# preset, -O1, or by the asan preset, -O0): each one first replays its seeds (corpus/<harness>/)
# and every input that once crashed it (regressions/<harness>/), which must pass, then fuzzes
# for SECONDS seconds under ASan/UBSan with leak detection, into a temporary corpus (the repository is never written).
# One line per harness: executions, coverage, result. Exit 1 when any harness crashed, hung
# (FUZZ_HANG_SECONDS on one input), ran out of memory (2 GiB) or leaked; its input is kept and
# its path printed: copy it into regressions/<harness>/ once fixed.
set -euo pipefail

if [[ $# -lt 2 || ! $2 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 BUILD_DIR SECONDS [HARNESS...]  (BUILD_DIR: the fuzz preset's build/fuzz, or the asan preset's build/asan)" >&2
  exit 2
fi
build=$1
# FUZZ_HANG_SECONDS: how long one input may take before it counts as a hang (default 10). libFuzzer
# measures it on the wall clock: on a machine busy with other work, a harness at low priority can
# be starved that long on an input that takes milliseconds, so long runs there use more.
hang_seconds=${FUZZ_HANG_SECONDS:-10}
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if [[ $# -gt 0 ]]; then
  harnesses=("$@")
else
  harnesses=()
  for source in "$here"/core/fuzz_*.cpp; do harnesses+=("$(basename "$source" .cpp)"); done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/trn-fuzz-core.XXXXXX")
failed=0
# A failure's inputs and logs are kept for the report; a clean run leaves nothing behind.
trap '[[ $failed -ne 0 ]] || rm -rf "$work"' EXIT

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# "stat::name: value" from libFuzzer's final statistics in LOG.
final_stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -n 1; }

for harness in "${harnesses[@]}"; do
  binary=$build/tests/fuzz/$harness
  if [[ ! -x $binary ]]; then
    echo "$harness: FAILED: $binary is not built (cmake --preset fuzz && cmake --build --preset fuzz)"
    failed=1
    continue
  fi
  seeds=()
  for dir in "$here/corpus/$harness" "$here/regressions/$harness"; do
    [[ -d $dir ]] && seeds+=("$dir")
  done
  if [[ ! -d $here/corpus/$harness ]]; then
    echo "$harness: FAILED: no seed corpus in $here/corpus/$harness"
    failed=1
    continue
  fi
  mkdir -p "$work/$harness/corpus" "$work/$harness/artifacts" "$work/$harness/tmp"
  log=$work/$harness/fuzz.log
  # Scratch files of the harnesses go below the work folder, even after a crash.
  export TMPDIR=$work/$harness/tmp

  if ! "$binary" -runs=0 -timeout="$hang_seconds" -rss_limit_mb=2048 \
      -artifact_prefix="$work/$harness/artifacts/" "${seeds[@]}" >"$work/$harness/replay.log" 2>&1; then
    echo "$harness: FAILED replaying ${seeds[*]} (log: $work/$harness/replay.log)"
    grep -m 3 -E '^SUMMARY|ERROR: |Test unit written|Running: ' "$work/$harness/replay.log" || true
    failed=1
    continue
  fi

  status=0
  # -report_slow_units: libFuzzer keeps an input that took over 10 s as slow-unit-*, a report,
  # not a failure; an input counts as hung only past the hang limit, so slow reports start there.
  "$binary" -max_total_time="$seconds" -timeout="$hang_seconds" -report_slow_units="$hang_seconds" \
    -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$work/$harness/artifacts/" \
    "$work/$harness/corpus" "${seeds[@]}" >"$log" 2>&1 || status=$?
  runs=$(final_stat "$log" number_of_executed_units)
  per_second=$(final_stat "$log" average_exec_per_sec)
  coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
  corpus=$(find "$work/$harness/corpus" -type f 2>/dev/null | wc -l)
  artifact=$(find "$work/$harness/artifacts" -type f ! -name 'slow-unit-*' 2>/dev/null | head -n 1)
  if [[ $status -eq 0 && -z $artifact ]]; then
    printf '%s: ok: %s runs (%s/s), %s, %s new inputs\n' \
      "$harness" "${runs:-?}" "${per_second:-?}" "${coverage:-cov: ?}" "$corpus"
    continue
  fi
  failed=1
  case $(basename "${artifact:-none}") in
    crash-*) what=crash ;;
    leak-*) what=leak ;;
    timeout-*) what="hang (over $hang_seconds s on one input)" ;;
    oom-*) what="out of memory (over 2048 MB)" ;;
    *) what="exit status $status" ;;
  esac
  printf '%s: FAILED: %s after %s runs, %s; input: %s; log: %s\n' \
    "$harness" "$what" "${runs:-?}" "${coverage:-cov: ?}" "${artifact:-none}" "$log"
  grep -m 1 -E '^SUMMARY' "$log" || true
done
exit "$failed"
