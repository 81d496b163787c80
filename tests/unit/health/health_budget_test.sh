#!/bin/bash
# trn-health's time bounds with slow tools (issue 9): the node's checks take at most 10 s (a
# neuron-ls that does not answer is a warning at the budget, never a drain); --slurm stays far
# below Slurm's 60 s even when neuron-ls and scontrol both hang; --time-limit's watchdog ends a
# run that would go on (exit 3, nothing decided).
# usage: health_budget_test.sh BIN_DIR SOURCE_DIR
set -u
bin=$1
source_dir=$2
fixtures=$source_dir/tests/fixtures
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export TRN_DOUBLE_NEURON_LS_JSON=$fixtures/trn2.48xlarge/neuron-ls-lnc1.json
trn2=(--node n1 --fsroot "$fixtures/trn2.48xlarge" --neuron-tools "$source_dir/tests/doubles"
  --state-dir "$scratch/state")

timed() {  # timed MIN MAX WANT_CODE PATTERN COMMAND...: exit code, a line, seconds in [MIN, MAX]
  local min=$1 max=$2 want=$3 pattern=$4 start out code seconds
  shift 4
  start=$EPOCHREALTIME
  out=$(env -u SLURM_JOB_ID -u SLURM_STEP_NODELIST "$@" 2>&1)
  code=$?
  seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  [[ $code -eq $want ]] || fail "$*: exit $code, expected $want: $out"
  grep -qE -- "$pattern" <<<"$out" || fail "$*: no line matching '$pattern' in: $out"
  awk -v s="$seconds" -v lo="$min" -v hi="$max" 'BEGIN { exit !(s >= lo && s <= hi) }' ||
    fail "$*: took $seconds s, expected $min-$max s: $out"
}

# The double answers: it is compared.
timed 0 5 0 '^n1 neuron-devices ok .*neuron-ls -j agrees' "$bin/trn-health" "${trn2[@]}"

# neuron-ls hangs: a warning when the node's 10 s are spent, and the node stays healthy.
export TRN_DOUBLE_DELAY_S=60
timed 9 12.5 0 '^n1 neuron-devices warning .*did not finish within' "$bin/trn-health" "${trn2[@]}"

# --slurm with neuron-ls and scontrol both hanging: 10 s of checks, 10 s for scontrol, no more.
mkdir -p "$scratch/slow-slurm"
printf '#!/bin/sh\nexec sleep 60\n' >"$scratch/slow-slurm/scontrol"
chmod +x "$scratch/slow-slurm/scontrol"
timed 9 25 0 'the node is left as it is' env PATH="$scratch/slow-slurm:$PATH" \
  "$bin/trn-health" --slurm "${trn2[@]}"

# The watchdog: a run still going at --time-limit ends there, exit 3, nothing drained.
timed 2.5 5 3 'stopped at its time limit of 3 s' env PATH="$scratch/slow-slurm:$PATH" \
  "$bin/trn-health" --slurm --time-limit 3 "${trn2[@]}"

[[ $failures -eq 0 ]] && echo "ok" || { echo "$failures failure(s)"; exit 1; }
