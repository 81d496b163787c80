#!/bin/bash
# Runs every trainer fuzz harness (tests/fuzz/trainer/fuzz_*.py): first its seed corpus
# (tests/fuzz/corpus/<harness>/) and the crash inputs kept as regressions
# (tests/fuzz/regressions/<harness>/), which must all pass, then SECONDS seconds of fuzzing into a
# temporary work corpus (nothing is written into the repository). One summary line per harness;
# exit status 1 when a harness crashed, hung or leaked, with the input's path printed (copy it
# into tests/fuzz/regressions/<harness>/ once fixed), 2 when atheris is not installed.
#
#   tests/fuzz/run_trainer.sh SECONDS [HARNESS...]     (HARNESS: fuzz_metrics, ...)
# ATHERIS_PYTHON: the interpreter with atheris (default: the project's, scripts/python, whose
# requirements.txt pins atheris). FUZZ_WORK: where corpora and crash inputs go (default:
# a new temporary folder, kept when something failed).
set -u
seconds=${1:?usage: run_trainer.sh SECONDS [HARNESS...]}
shift
# FUZZ_HANG_SECONDS: how long one input may take before it counts as a hang (default 10). libFuzzer
# measures it on the wall clock: on a machine busy with other work, a harness at low priority can
# be starved that long on an input that takes milliseconds, so long runs there use more.
hang_seconds=${FUZZ_HANG_SECONDS:-10}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
python=${ATHERIS_PYTHON:-$repo/scripts/python}
if ! "$python" -c "import atheris" 2>/dev/null; then
  echo "fuzz: $python cannot import atheris: run scripts/bootstrap (requirements.txt pins it)," \
       "or set ATHERIS_PYTHON to an interpreter that has it" >&2
  exit 2
fi
work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/trn-fuzz.XXXXXX")}
export PYTHONPATH="$repo/trainer${PYTHONPATH:+:$PYTHONPATH}"
# libFuzzer ends the process with exit(), before Python's atexit removes a harness's scratch
# folder: they go under the work folder, which goes at the end.
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"

if [ $# -eq 0 ]; then
  set -- $(cd "$here/trainer" && ls fuzz_*.py | sed 's/\.py$//')
fi
failed=0
for harness in "$@"; do
  script="$here/trainer/$harness.py"
  log="$work/$harness.log"
  mkdir -p "$work/$harness/corpus" "$work/$harness/artifacts"
  inputs=()
  for folder in "$here/corpus/$harness" "$here/regressions/$harness"; do
    [ -d "$folder" ] && inputs+=("$folder"/*)
  done
  # Replay: each given file runs once; a crash exits non-zero.
  if ! "$python" "$script" -timeout="$hang_seconds" -rss_limit_mb=2048 "${inputs[@]}" >"$log.replay" 2>&1; then
    echo "$harness: FAIL replaying the corpus and regressions:"
    grep -E "Running: |Error|error|Traceback|AssertionError" "$log.replay" | tail -n 8
    failed=1
    continue
  fi
  # New inputs go to the first folder only: the temporary one.
  # A slow-unit-* input (over -report_slow_units) is libFuzzer's report, not a failure: only the
  # hang limit fails a run, so slow reports start there.
  "$python" "$script" -max_total_time="$seconds" -timeout="$hang_seconds" -report_slow_units="$hang_seconds" \
    -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/$harness/artifacts/" "$work/$harness/corpus" \
    "$here/corpus/$harness" $([ -d "$here/regressions/$harness" ] && echo "$here/regressions/$harness") \
    >"$log" 2>&1
  status=$?
  last=$(grep -E "^#[0-9]+" "$log" | tail -n 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(echo "$last" | grep -oE "cov: [0-9]+" | cut -d' ' -f2)
  ft=$(echo "$last" | grep -oE "ft: [0-9]+" | cut -d' ' -f2)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  artifact=$(ls "$work/$harness/artifacts/" 2>/dev/null | grep -v '^slow-unit-' | head -n 1)
  if [ $status -ne 0 ] || [ -n "$artifact" ]; then
    echo "$harness: FAIL (exit $status) after ${runs:-?} runs; input: $work/$harness/artifacts/${artifact:-?}"
    grep -E "Uncaught Python exception|Error|timeout|out-of-memory" "$log" | head -n 4
    echo "  log: $log"
    failed=1
  else
    echo "$harness: ok, ${seconds}s, ${runs:-?} runs, ${rate:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}," \
         "corpus $(ls "$work/$harness/corpus" | wc -l) new inputs"
  fi
done
if [ $failed -eq 0 ] && [ -z "${FUZZ_WORK:-}" ]; then
  rm -rf "$work"
elif [ $failed -ne 0 ]; then
  echo "fuzz: logs and inputs kept in $work"
fi
exit $failed
