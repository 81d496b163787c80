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
# EFA from a Capacity Block (static nodes: MinCount = MaxCount), the TorchNeuron stack.
trn2=$src/pcluster-configs/trn2-16.yaml
sed -e 's/REPLACE_ME_REGION/us-east-2/' -e 's/subnet-REPLACE_ME_PUBLIC/subnet-0123456789abcdef0/' \
  -e 's/subnet-REPLACE_ME_PRIVATE/subnet-0123456789abcdef1/' -e 's/REPLACE_ME_KEY/key/' \
  -e 's/REPLACE_ME_BUCKET/bucket/g' -e 's/cr-REPLACE_ME_CAPACITY_BLOCK/cr-0123456789abcdef0/' \
  "$trn2" >"$out/trn2-filled.yaml"
[[ $(status "$tool" check --strict "$out/trn2-filled.yaml") == 0 ]] || fail "trn2-16.yaml filled in, --strict: $(cat "$out/stdout" "$out/stderr")"
for line in '  Os: ubuntu2404' '      CapacityType: CAPACITY_BLOCK' '          InstanceType: trn2.48xlarge' \
  '          MinCount: 16' '          MaxCount: 16' '            CapacityReservationId: cr-REPLACE_ME_CAPACITY_BLOCK' \
  '            Enabled: true' '            - torchneuron'; do
  grep -qxF -- "$line" "$trn2" || fail "trn2-16.yaml lacks '$line'"
done

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
