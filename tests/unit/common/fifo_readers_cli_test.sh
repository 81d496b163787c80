#!/usr/bin/env bash
# Readers of outside files never hang and never read without bound: a FIFO (or a /dev/zero link)
# where a profile, a --calibrate results.json, a --resume plan.json or a node's sysfs counter
# should be is one error naming it, at once - not a wait for a writer that never comes.
# usage: fifo_readers_cli_test.sh BIN_DIR FIXTURES_DIR
set -u
bin=$1
fixtures=$2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clean=(env -u SLURM_JOB_ID -u SLURM_CONF)

# expect_refused WHAT PATTERN COMMAND...: ends within 5 s, exit 1 or 2 (ALLOWED: these), saying
# PATTERN.
expect_refused() {
  local what=$1 pattern=$2 status=0
  shift 2
  timeout 5 "$@" >"$work/out" 2>&1 || status=$?
  if [[ $status == 124 ]]; then fail "$what: still reading after 5 s"; return; fi
  [[ " ${ALLOWED:-1 2} " == *" $status "* ]] || fail "$what: exit $status ($(tail -n 2 "$work/out"))"
  grep -qE -e "$pattern" "$work/out" || fail "$what: said '$(tail -n 2 "$work/out")', expected /$pattern/"
}

mkfifo "$work/profile.yaml"
expect_refused "a FIFO profile" "profile.yaml.*not a regular file" "${clean[@]}" "$bin/trn-run" "$work/profile.yaml" --plan --nodes 1
mkdir "$work/calibration"
mkfifo "$work/calibration/results.json"
expect_refused "a FIFO results.json" "results.json.*not a regular file" "${clean[@]}" "$bin/trn-run" bert_pretrain --plan --nodes 1 \
  --calibrate "$work/calibration"
mkdir "$work/run"
mkfifo "$work/run/plan.json"
expect_refused "a FIFO plan.json" "plan.json.*not a regular file" "${clean[@]}" "$bin/trn-run" bert_tiny --plan --nodes 1 --resume "$work/run"
ln -s /dev/zero "$work/zero.yaml"
expect_refused "a /dev/zero profile" "zero.yaml.*not a regular file" "${clean[@]}" "$bin/trn-run" "$work/zero.yaml" --plan --nodes 1

# A node tree whose error counter is a FIFO: trn-topo and trn-health end at once, naming it.
cp -a "$fixtures/trn1.32xlarge" "$work/node"
counter=$work/node/sys/devices/virtual/neuron_device/neuron0/stats/hardware/mem_ecc_uncorrected/total
rm "$counter"
mkfifo "$counter"
# An unreadable counter is a warning of the check (exit 0), as a counter holding no number.
ALLOWED=0 expect_refused "trn-health over a FIFO counter" "error-counters warning .*total unreadable \(it is not a regular file" \
  "$bin/trn-health" --node n1 --fsroot "$work/node"
core_count=$work/node/sys/devices/virtual/neuron_device/neuron0/core_count
rm "$core_count"
mkfifo "$core_count"
expect_refused "trn-topo over a FIFO core_count" "core_count.*not a regular file" "$bin/trn-topo" --fsroot "$work/node" --no-fabric

[[ $failures == 0 ]] || exit 1
echo "ok: every reader refused a FIFO or a device at once"
