#!/usr/bin/env bash
# trn-cluster check from the command line: exit 0 on the bundled configs, 1 on a broken one
# with FILE:LINE:COLUMN: error: lines, 2 on usage and I/O errors.
# usage: trn_cluster_cli_test.sh TRN_CLUSTER_BINARY SOURCE_DIR
set -euo pipefail
tool=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

status() { set +e; "$@" >"$out/stdout" 2>"$out/stderr"; echo $?; set -e; }

[[ $(status "$tool" check "$src"/pcluster-configs/*.yaml) == 0 ]] || fail "bundled configs: $(cat "$out/stdout" "$out/stderr")"
grep -q ': error: ' "$out/stdout" && fail "bundled configs printed errors"
grep -q 'checked 4 file(s): 0 error(s)' "$out/stderr" || fail "no summary: $(cat "$out/stderr")"

[[ $(status "$tool" check --strict "$src"/pcluster-configs/trn1-16.yaml) == 1 ]] || fail "--strict must turn placeholders into errors"
grep -q "trn1-16.yaml:[0-9]*:[0-9]*: error: placeholder 'subnet-REPLACE_ME_PUBLIC'" "$out/stdout" || fail "--strict output: $(cat "$out/stdout")"

# trn2-16.yaml with its placeholders filled in passes --strict: Ubuntu 24.04, trn2.48xlarge with
# EFA from a Capacity Block (static nodes: MinCount = MaxCount), the TorchNeuron stack. Each of
# these is shown by what the checker does with a copy that lacks it: the copy fails --strict with
# exactly the rule's error(s), so the fact is there and the rule that keeps it holds.
trn2=$src/pcluster-configs/trn2-16.yaml
sed -e 's/REPLACE_ME_REGION/us-east-2/' -e 's/subnet-REPLACE_ME_PUBLIC/subnet-0123456789abcdef0/' \
  -e 's/subnet-REPLACE_ME_PRIVATE/subnet-0123456789abcdef1/' -e 's/REPLACE_ME_KEY/key/' \
  -e 's/REPLACE_ME_BUCKET/bucket/g' -e 's/cr-REPLACE_ME_CAPACITY_BLOCK/cr-0123456789abcdef0/' \
  "$trn2" >"$out/trn2-filled.yaml"
[[ $(status "$tool" check --strict "$out/trn2-filled.yaml") == 0 ]] || fail "trn2-16.yaml filled in, --strict: $(cat "$out/stdout" "$out/stderr")"
# rejected NAME SED_SCRIPT MESSAGE...: the filled-in trn2-16.yaml edited by SED_SCRIPT (which must
# change it) fails --strict with one error per MESSAGE (a fixed string), and no other.
rejected() {
  local name=$1 script=$2 message
  shift 2
  sed "$script" "$out/trn2-filled.yaml" >"$out/$name.yaml"
  ! cmp -s "$out/trn2-filled.yaml" "$out/$name.yaml" || fail "$name: trn2-16.yaml has no line for '$script' to change"
  [[ $(status "$tool" check --strict "$out/$name.yaml") == 1 ]] || fail "$name: --strict must exit 1: $(cat "$out/stdout" "$out/stderr")"
  [[ $(grep -c ': error: ' "$out/stdout") == $# ]] || fail "$name: expected $# error(s): $(cat "$out/stdout")"
  for message in "$@"; do
    grep -F -- ": error: $message" "$out/stdout" | grep -q "^$out/$name.yaml:[0-9]*:[0-9]*: error: " ||
      fail "$name: no error '$message': $(cat "$out/stdout")"
  done
}
# A Capacity Block's queue (the rule checks CAPACITY_BLOCK queues only) of 16 static nodes.
rejected min-count-0 's/^          MinCount: 16$/          MinCount: 0/' \
  "compute resource 'trn2-48xl' of Capacity Block queue 'trn2' has MinCount 0 and MaxCount 16: a block's instances are static nodes"
rejected max-count-15 's/^          MaxCount: 16$/          MaxCount: 15/' \
  "compute resource 'trn2-48xl' has MinCount 16 greater than MaxCount 15" \
  "compute resource 'trn2-48xl' of Capacity Block queue 'trn2' has MinCount 16 and MaxCount 15: a block's instances are static nodes"
rejected no-reservation '/^          CapacityReservationTarget:$/,/^            CapacityReservationId: cr-0123456789abcdef0$/d' \
  "compute resource 'trn2-48xl' of Capacity Block queue 'trn2' names no block"
# The block's reservation id is a placeholder to fill in.
[[ $(status "$tool" check --strict "$trn2") == 1 ]] || fail "trn2-16.yaml as shipped must fail --strict"
grep -q "trn2-16.yaml:[0-9]*:[0-9]*: error: placeholder 'cr-REPLACE_ME_CAPACITY_BLOCK' at Scheduling.SlurmQueues\[0\].ComputeResources\[0\].CapacityReservationTarget.CapacityReservationId:" "$out/stdout" ||
  fail "trn2-16.yaml's Capacity Block placeholder: $(cat "$out/stdout")"
# trn2.48xlarge with EFA enabled.
rejected efa-off '/^          Efa:$/,/Enabled/s/^            Enabled: true$/            Enabled: false/' \
  "compute resource 'trn2-48xl' (trn2.48xlarge) has 16 EFA devices but Efa.Enabled is not true"
# Ubuntu 24.04, which the TorchNeuron stack needs, and --stack torchneuron (not auto) in the
# queue's install action.
rejected ubuntu-22.04 's/^  Os: ubuntu2404$/  Os: ubuntu2204/' \
  "Image.Os is ubuntu2204, but queue 'trn2' (trn2.48xlarge) gets Neuron 2.33's TorchNeuron stack"
rejected on-trn1 's/^          InstanceType: trn2.48xlarge$/          InstanceType: trn1.32xlarge/' \
  "queue 'trn2' installs the TorchNeuron stack (--stack torchneuron) on trn1.32xlarge, but TorchNeuron supports trn2 and trn3 only"

sed 's/InstanceType: trn1.32xlarge/InstanceType: trn1.32xlarg/' "$src"/pcluster-configs/trn1-16.yaml >"$out/typo.yaml"
[[ $(status "$tool" check --strict "$out/typo.yaml") == 1 ]] || fail "--strict with a mistyped instance type must exit 1"
grep -q "typo.yaml:[0-9]*:[0-9]*: error: instance type 'trn1.32xlarg'" "$out/stdout" || fail "--strict instance type: $(cat "$out/stdout")"

broken=$src/tests/pcluster-broken/efa-without-placement-group.yaml
[[ $(status "$tool" check "$broken") == 1 ]] || fail "broken config must exit 1"
expected=$(sed -n 's/^# expect: //p' "$broken" | sed "s|^|$broken:|")
actual=$(grep ': error: ' "$out/stdout")
[[ "$actual" == "$expected" ]] || fail "broken config output: $actual (expected $expected)"

[[ $(status "$tool" check "$src"/pcluster-configs/trn1-16.yaml "$broken") == 1 ]] || fail "one broken file among good ones must exit 1"
# An I/O error is counted in the summary, never "0 error(s)" alone.
[[ $(status "$tool" check "$src"/pcluster-configs/trn1-16.yaml /nonexistent.yaml) == 2 ]] || fail "an unreadable file must exit 2"
grep -q 'checked 2 file(s): 0 error(s), [0-9]* warning(s); 1 file(s) could not be read' "$out/stderr" ||
  fail "the summary hides the unreadable file: $(cat "$out/stderr")"
# YAML 1.1 integers as pcluster reads them (0x10, 1_6: 16); a second YAML document pcluster refuses.
sed 's/MaxCount: 16/MaxCount: 0x10/; s/MinCount: 16/MinCount: 1_6/' "$src"/pcluster-configs/trn1-16.yaml >"$out/yaml11.yaml"
grep -q '0x10' "$out/yaml11.yaml" || fail "the test config has no MaxCount: 16 to rewrite"
[[ $(status "$tool" check "$out/yaml11.yaml") == 0 ]] || fail "0x10 and 1_6: $(cat "$out/stdout")"
{ cat "$src"/pcluster-configs/trn1-16.yaml; printf -- '---\nRegion: us-east-1\n'; } >"$out/two.yaml"
[[ $(status "$tool" check "$out/two.yaml") == 1 ]] || fail "a second YAML document must be an error"
grep -q "two.yaml:[0-9]*:[0-9]*: error: .*2 YAML documents" "$out/stdout" || fail "second document: $(cat "$out/stdout")"
[[ $(status "$tool" check /nonexistent.yaml) == 2 ]] || fail "missing file must exit 2"
grep -q "cannot read cluster configuration '/nonexistent.yaml'" "$out/stderr" || fail "missing file message: $(cat "$out/stderr")"
# Only regular files of at most 1 MiB are read: a device or FIFO must neither exhaust memory nor
# block (timeout turns a hang into status 124).
[[ $(status timeout 10 "$tool" check /dev/zero) == 2 ]] || fail "/dev/zero must exit 2"
grep -q "cannot read cluster configuration '/dev/zero': not a regular file" "$out/stderr" || fail "/dev/zero message: $(cat "$out/stderr")"
mkfifo "$out/fifo"
[[ $(status timeout 10 "$tool" check "$out/fifo") == 2 ]] || fail "a FIFO must exit 2 without blocking"
grep -q "not a regular file" "$out/stderr" || fail "FIFO message: $(cat "$out/stderr")"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$out/big.yaml"
[[ $(status "$tool" check "$out/big.yaml") == 2 ]] || fail "a file over 1 MiB must exit 2"
grep -q "larger than 1 MiB" "$out/stderr" || fail "big file message: $(cat "$out/stderr")"
[[ $(status "$tool" check) == 2 ]] || fail "no FILE must exit 2"
[[ $(status "$tool" lint x.yaml) == 2 ]] || fail "unknown command must exit 2"
grep -q "unknown command 'lint'" "$out/stderr" || fail "unknown command message"
[[ $(status "$tool" check --bogus x.yaml) == 2 ]] || fail "unknown option must exit 2"
[[ $(status "$tool" --help) == 0 ]] || fail "--help must exit 0"
grep -q 'usage: trn-cluster check' "$out/stdout" || fail "--help text"
echo "trn-cluster CLI: all checks passed"
