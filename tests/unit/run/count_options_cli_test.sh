#!/bin/bash
# Count options of trn-run, trn-compile and trn-topo outside their range: one line naming the
# option and the range, exit status 2, nothing allocated for a wrapped count (the memory limit
# turns an attempt into a failure of this test).
# usage: count_options_cli_test.sh BIN_DIR FIXTURES_DIR
set -u
bin=$1
fixture=$2/trn1.2xlarge
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# AddressSanitizer reserves terabytes of address space for its shadow memory, so a sanitized
# build cannot run under a virtual-memory cap; ASan's own allocator reports a wrapped count's
# huge allocation there instead. The runtime is linked statically by clang, dynamically by gcc:
# either way the binary exports its entry point.
if ! nm -D "$bin/trn-launcher" 2>/dev/null | grep -qw __asan_init; then ulimit -v 4000000; fi

expect_range_error() {  # PATTERN COMMAND...
  local pattern=$1
  shift
  local err code
  err=$(env -u SLURM_JOB_ID "$@" 2>&1 >/dev/null)
  code=$?
  [ "$code" -eq 2 ] || fail "'$*' exited $code, not 2: $err"
  [ "$(wc -l <<<"$err")" -eq 1 ] || fail "'$*' printed more than one line: $err"
  grep -q -- "$pattern" <<<"$err" || fail "'$*' message: $err"
}

range="is out of range: give a whole number from"
for tool in trn-run trn-compile; do
  expect_range_error "--nodes '-16' $range 1 to 65536" "$bin/$tool" bert_tiny --plan --nodes -16 --fsroot "$fixture"
  expect_range_error "--nodes '0' $range 1 to 65536" "$bin/$tool" bert_tiny --plan --nodes 0 --fsroot "$fixture"
  expect_range_error "micro_batch.*from 1 to 1048576" "$bin/$tool" bert_tiny --plan --nodes 2 --fsroot "$fixture" --set micro_batch=9223372036854775807
  expect_range_error "max_restarts.*from 0 to 2147483647" "$bin/$tool" bert_tiny --plan --nodes 2 --fsroot "$fixture" --set max_restarts=99999999999
done
# (--max-restarts itself is trn-run's option: trn-compile restarts nothing.)
expect_range_error "max_restarts.*from 0 to 2147483647" "$bin/trn-run" bert_tiny --plan --nodes 2 --fsroot "$fixture" --max-restarts 99999999999
"$bin/trn-run" bert_tiny --plan --nodes 2 --fsroot "$fixture" >/dev/null || fail "--nodes 2 must plan"

topo=("$bin/trn-topo" --fsroot "$fixture" --no-fabric)
expect_range_error "--tasks '-1' $range 1 to 1024" "${topo[@]}" --tasks -1
expect_range_error "--nodes '-1' $range 1 to 65536" "${topo[@]}" --nodes -1
expect_range_error "--cores-per-task '0' $range 1 to 1024" "${topo[@]}" --cores-per-task 0
expect_range_error "--lnc '3' $range 1 to 2" "${topo[@]}" --lnc 3
expect_range_error "--node-id '4' $range 0 to 3" "${topo[@]}" --nodes 4 --node-id 4
expect_range_error "--job-id '4294967296' $range 0 to 4294967295" "${topo[@]}" --job-id 4294967296
expect_range_error "--step-id '-1' $range 0 to 4294967295" "${topo[@]}" --step-id -1
"${topo[@]}" --nodes 4 --node-id 3 --tasks 2 | grep -q "WORLD_SIZE=8" || fail "trn-topo --nodes 4 --tasks 2"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "count options: all checks passed"
