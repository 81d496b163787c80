#!/bin/bash
# trn-health's time bounds end to end, without waiting out the node's 10 s (the budget's
# decisions are NodeBudget.* and CollectivesBudget.*, on a clock the tests move; the real 10 s
# is tests/integration/health/budget_wall_clock.sh): a neuron-ls that answers is compared, and
# --time-limit's watchdog ends a run that would go on (exit 3, nothing decided) while neuron-ls
# and scontrol both hang. No assertion on elapsed time: a loaded machine cannot fail it.
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

expect() {  # expect WANT_CODE PATTERN COMMAND...: the exit code and a line matching PATTERN
  local want=$1 pattern=$2 out code
  shift 2
  out=$(env -u SLURM_JOB_ID -u SLURM_STEP_NODELIST "$@" 2>&1)
  code=$?
  [[ $code -eq $want ]] || fail "$*: exit $code, expected $want: $out"
  grep -qE -- "$pattern" <<<"$out" || fail "$*: no line matching '$pattern' in: $out"
}

# The double answers: it is compared.
expect 0 '^n1 neuron-devices ok .*neuron-ls -j agrees' "$bin/trn-health" "${trn2[@]}"

# The watchdog: with neuron-ls and scontrol hanging, a run still going at --time-limit 1 ends
# there with exit 3 and nothing drained. Without the watchdog it would end after the node's 10 s
# and scontrol's 10 s with exit 0 ("the node is left as it is").
export TRN_DOUBLE_DELAY_S=60
mkdir -p "$scratch/slow-slurm"
printf '#!/bin/sh\nexec sleep 60\n' >"$scratch/slow-slurm/scontrol"
chmod +x "$scratch/slow-slurm/scontrol"
expect 3 'stopped at its time limit of 1 s' env PATH="$scratch/slow-slurm:$PATH" \
  "$bin/trn-health" --slurm --time-limit 1 "${trn2[@]}"

[[ $failures -eq 0 ]] && echo "ok" || { echo "$failures failure(s)"; exit 1; }
