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

broken=$src/tests/pcluster-broken/efa-without-placement-group.yaml
[[ $(status "$tool" check "$broken") == 1 ]] || fail "broken config must exit 1"
expected=$(sed -n 's/^# expect: //p' "$broken" | sed "s|^|$broken:|")
actual=$(grep ': error: ' "$out/stdout")
[[ "$actual" == "$expected" ]] || fail "broken config output: $actual (expected $expected)"

[[ $(status "$tool" check "$src"/pcluster-configs/trn1-16.yaml "$broken") == 1 ]] || fail "one broken file among good ones must exit 1"
[[ $(status "$tool" check /nonexistent.yaml) == 2 ]] || fail "missing file must exit 2"
grep -q "cannot read cluster configuration '/nonexistent.yaml'" "$out/stderr" || fail "missing file message: $(cat "$out/stderr")"
[[ $(status "$tool" check) == 2 ]] || fail "no FILE must exit 2"
[[ $(status "$tool" lint x.yaml) == 2 ]] || fail "unknown command must exit 2"
grep -q "unknown command 'lint'" "$out/stderr" || fail "unknown command message"
[[ $(status "$tool" check --bogus x.yaml) == 2 ]] || fail "unknown option must exit 2"
[[ $(status "$tool" --help) == 0 ]] || fail "--help must exit 0"
grep -q 'usage: trn-cluster check' "$out/stdout" || fail "--help text"
echo "trn-cluster CLI: all checks passed"
