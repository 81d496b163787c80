#!/usr/bin/env bash
# trn-health's real 10 s, waited out (moved here from the unit suite, where it waited 33 s and
# failed under load beside other work; the budget's decisions are unit-tested on a clock the
# tests move, NodeBudget.* and CollectivesBudget.*). No cluster: trn-health with its tool
# doubles, whose hang is real.
#  1. neuron-ls hangs: a warning when the node's 10 s are spent, and the node stays healthy;
#  2. --slurm with neuron-ls and scontrol both hanging: 10 s of checks and 10 s for scontrol,
#     far below Slurm's 60 s.
# Lower bounds are exact (the budget is waited out); upper bounds leave room for a loaded machine.
source "$(dirname "$0")/../lib.sh"
bin=$TRN_BUILD_DIR/bin
fixtures=$TRN_SOURCE_DIR/tests/fixtures
make_scratch
export TRN_DOUBLE_NEURON_LS_JSON=$fixtures/trn2.48xlarge/neuron-ls-lnc1.json
trn2=(--node n1 --fsroot "$fixtures/trn2.48xlarge" --neuron-tools "$TRN_SOURCE_DIR/tests/doubles"
  --state-dir "$scratch/state")

timed() {  # timed MIN MAX WANT_CODE PATTERN COMMAND...: exit code, a line, seconds in [MIN, MAX]
  local min=$1 max=$2 want=$3 pattern=$4 start out code seconds
  shift 4
  start=$EPOCHREALTIME
  code=0
  out=$(env -u SLURM_JOB_ID -u SLURM_STEP_NODELIST "$@" 2>&1) || code=$?
  seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  [[ $code -eq $want ]] || fail "$*: exit $code, expected $want: $out"
  grep -qE -- "$pattern" <<<"$out" || fail "$*: no line matching '$pattern' in: $out"
  awk -v s="$seconds" -v lo="$min" -v hi="$max" 'BEGIN { exit !(s >= lo && s <= hi) }' ||
    fail "$*: took $seconds s, expected $min-$max s: $out"
}

export TRN_DOUBLE_DELAY_S=60
timed 9 30 0 '^n1 neuron-devices warning .*did not finish within' "$bin/trn-health" "${trn2[@]}"

mkdir -p "$scratch/slow-slurm"
printf '#!/bin/sh\nexec sleep 60\n' >"$scratch/slow-slurm/scontrol"
chmod +x "$scratch/slow-slurm/scontrol"
timed 9 45 0 'the node is left as it is' env PATH="$scratch/slow-slurm:$PATH" \
  "$bin/trn-health" --slurm "${trn2[@]}"
echo "ok"
