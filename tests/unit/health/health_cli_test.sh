#!/bin/bash
# trn-health's command line: exit 0 on a clean tree, 1 on a faulty one (the failed check on its
# line), 2 with one clear line for bad input; %n in --fsroot is the node's name; --json parses;
# --accept records a baseline that then makes the same counters healthy.
# usage: health_cli_test.sh BIN_DIR FIXTURES_DIR
set -u
bin=$1
fixtures=$2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

expect() {  # CODE PATTERN COMMAND...: exit code and a line matching PATTERN (stdout+stderr)
  local want=$1 pattern=$2 out code
  shift 2
  out=$(env -u SLURM_JOB_ID -u SLURM_STEP_NODELIST "$@" 2>&1)
  code=$?
  [[ $code -eq $want ]] || fail "$*: exit $code, expected $want: $out"
  grep -qE -- "$pattern" <<<"$out" || fail "$*: no line matching '$pattern' in: $out"
}

expect 0 '^n1 neuron-devices ok .* 16 devices x 2 NeuronCores' "$bin/trn-health" --node n1 --fsroot "$fixtures/trn1.32xlarge"
expect 1 '^n1 kernel-log FAILED .*NEURON_HW_ERR=HBM_UNCORRECTABLE_ERROR' "$bin/trn-health" --node n1 --fsroot "$fixtures/faulty/hardware-error-line"
expect 1 '^n1 efa FAILED .*7 of 8 EFA devices' "$bin/trn-health" --node n1 --fsroot "$fixtures/faulty/missing-efa"

# %n: one tree per node.
mkdir -p "$scratch/nodes"
cp -r "$fixtures/trn1.2xlarge" "$scratch/nodes/good"
cp -r "$fixtures/faulty/ecc-uncorrected" "$scratch/nodes/bad"
expect 0 '^good error-counters ok' "$bin/trn-health" --node good --fsroot "$scratch/nodes/%n"
expect 1 '^bad error-counters FAILED .*neuron0 mem_ecc_uncorrected 2' "$bin/trn-health" --node bad --fsroot "$scratch/nodes/%n"

# --json: one object naming the failed check.
json=$(env -u SLURM_JOB_ID "$bin/trn-health" --node bad --fsroot "$scratch/nodes/%n" --json)
/usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["node"] == "bad" and d["healthy"] is False, d
failed = [c["check"] for c in d["checks"] if c["status"] == "FAILED"]
assert failed == ["error-counters"], failed
' "$json" || fail "--json output: $json"

# --accept records the counters as clean (after a repair); a later rise fails again.
expect 0 'recorded .*baseline.json as the clean baseline of bad' "$bin/trn-health" --node bad --fsroot "$scratch/nodes/%n" --accept
expect 0 '^bad error-counters ok' "$bin/trn-health" --node bad --fsroot "$scratch/nodes/%n"
echo 3 >"$scratch/nodes/bad/sys/devices/virtual/neuron_device/neuron0/stats/hardware/mem_ecc_uncorrected/total"
expect 1 'mem_ecc_uncorrected 3 \(2 at the last clean check\)' "$bin/trn-health" --node bad --fsroot "$scratch/nodes/%n"

# A baseline tied to no boot, or one that cannot be used, is said so - never silently ignored.
state=$scratch/state
mkdir -p "$state"
cp -r "$fixtures/faulty/ecc-uncorrected" "$scratch/nodes/noboot"
rm -f "$scratch/nodes/noboot/proc/sys/kernel/random/boot_id"
expect 2 'trn-health: --accept: .*boot_id cannot be read' "$bin/trn-health" --node noboot --fsroot "$scratch/nodes/noboot" \
  --state-dir "$state" --accept
echo '{"boot_id": ' >"$state/baseline.json"
expect 1 'mem_ecc_uncorrected 3 \(no usable baseline: .*baseline.json is not valid JSON' "$bin/trn-health" --node bad \
  --fsroot "$scratch/nodes/%n" --state-dir "$state"
boot=$(cat "$scratch/nodes/bad/proc/sys/kernel/random/boot_id")
printf '{"boot_id": "%s", "counters": {"neuron0/stats/hardware/mem_ecc_uncorrected": 1e30}, "kernel_log_sequence": 0}\n' \
  "$boot" >"$state/baseline.json"
expect 1 'no usable baseline: .*mem_ecc_uncorrected = 1e\+30, which is not a whole number' "$bin/trn-health" \
  --node bad --fsroot "$scratch/nodes/%n" --state-dir "$state"

# A read-only cache tier fails, for root too: a read-only bind mount in a private mount
# namespace (EROFS, which no permission bypass lifts).
mkdir -p "$scratch/ro-cache"
expect 1 "^n1 cache-tier FAILED .*cannot write to $scratch/ro-cache: Read-only file system" \
  unshare --mount --map-root-user sh -c \
  'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" --node n1 --fsroot "$3" --cache-dir "$1" --min-free-gib 0' \
  sh "$scratch/ro-cache" "$bin/trn-health" "$fixtures/cpu-only"

# Bad input: exit 2, one line naming the input and the fix.
expect 2 '^trn-health: --fsroot /nonexistent/n1 is not a directory' "$bin/trn-health" --node n1 --fsroot /nonexistent/%n
expect 2 '^trn-health: .*--min-free-gib' "$bin/trn-health" --fsroot "$fixtures/cpu-only" --min-free-gib -1
expect 2 '^trn-health: .*--reach-deadline-ms' "$bin/trn-health" --fsroot "$fixtures/cpu-only" --reach-deadline-ms 99999999
expect 2 '^trn-health: --step runs in a Slurm step' "$bin/trn-health" --fsroot "$fixtures/cpu-only" --step
expect 2 '^trn-health: --step, --slurm and --accept are different modes' "$bin/trn-health" --step --slurm
expect 2 '^trn-health: .*unrecognised|unrecognized' "$bin/trn-health" --frobnicate
expect 2 "^trn-health: .*neuron-ls.*" "$bin/trn-health" --fsroot "$fixtures/cpu-only" --neuron-ls /nonexistent.json
expect 2 '^trn-health: --neuron-tools /nonexistent is not a directory' "$bin/trn-health" --fsroot "$fixtures/cpu-only" --neuron-tools /nonexistent
expect 2 '^trn-health: .*--time-limit' "$bin/trn-health" --fsroot "$fixtures/cpu-only" --time-limit 60
expect 2 '^trn-health: .*--min-busbw' "$bin/trn-health" --fsroot "$fixtures/cpu-only" --min-busbw 2.5

[[ $failures -eq 0 ]] && echo "ok" || { echo "$failures failure(s)"; exit 1; }
