#!/usr/bin/env bash
# scripts/python runs the project's environment only when it is the one requirements.txt pins: a
# missing environment, or one made for another requirements.txt (no stamp, a stale stamp), is one
# line naming scripts/bootstrap, exit 2; the current one runs the command.
# usage: python_env_test.sh SOURCE_DIR
set -u
python=$1/scripts/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_refused() {  # WHAT: scripts/python with TRN_PYTHON_ENV=$work/env refuses in one line
  local out status
  out=$(TRN_PYTHON_ENV=$work/env "$python" -c 'print("ran")' 2>&1)
  status=$?
  [[ $status -eq 2 && $(wc -l <<<"$out") -eq 1 && $out == *"$work/env"*"run scripts/bootstrap"* ]] ||
    fail "$1: expected one line naming scripts/bootstrap and exit 2, got $status: $out"
}
expect_refused "no environment"
mkdir -p "$work/env/bin"
ln -s "$(command -v python3)" "$work/env/bin/python"
expect_refused "no stamp (an install that did not finish)"
echo "0000  -" >"$work/env/trn-requirements.sha256"
expect_refused "a stamp of another requirements.txt"
sha256sum <"$1/requirements.txt" >"$work/env/trn-requirements.sha256"
out=$(TRN_PYTHON_ENV=$work/env "$python" -c 'print("ran")' 2>&1)
[[ $out == ran ]] || fail "the current environment did not run the command: $out"
[[ $failures -eq 0 ]] && echo ok
exit $((failures > 0))
