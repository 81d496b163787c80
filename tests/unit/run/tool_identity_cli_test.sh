#!/bin/bash
# Every tool answers --version with one line naming itself and the release, exit 0 (also
# before a "--", and not after one: that belongs to the trainer), and trn-compile's --help is
# its own, not trn-run's.
# usage: tool_identity_cli_test.sh BIN_DIR VERSION
set -u
bin=$(cd "$1" && pwd)
version=$2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

for tool in trn-run trn-compile trn-topo trn-cache trn-cluster trn-health; do
  out=$("$bin/$tool" --version 2>&1)
  code=$?
  [ "$code" = 0 ] || fail "$tool --version exited $code: $out"
  [ "$out" = "$tool (trn-slurm) $version" ] || fail "$tool --version printed '$out'"
done
out=$("$bin/trn-run" bert_tiny --nodes 1 --plan --version 2>&1)
[ "$out" = "trn-run (trn-slurm) $version" ] || fail "trn-run PROFILE --version printed '$out'"
out=$(env -u SLURM_JOB_ID "$bin/trn-run" bert_tiny --nodes 1 --plan -- --version 2>&1)
case $out in *"trn-slurm) $version"*) fail "--version after -- was taken by trn-run: $out" ;; esac

for tool in trn-run trn-compile trn-topo trn-cache trn-cluster trn-health; do
  "$bin/$tool" --help 2>&1 | grep -q -- "--version" || fail "$tool --help does not name --version"
done
help=$("$bin/trn-compile" --help 2>&1) || fail "trn-compile --help exited $?"
case $help in "usage: srun trn-compile PROFILE"*) ;; *) fail "trn-compile --help: $(head -n 2 <<<"$help")" ;; esac
case $help in *"usage: trn-run"*) fail "trn-compile --help prints trn-run's usage" ;; esac
err=$("$bin/trn-compile" --bogus 2>&1)
case $err in *"see trn-compile --help"*) ;; *) fail "trn-compile's option error points elsewhere: $err" ;; esac
# trn-compile's help and options are its own: none of trn-run's training, recovery or forecast
# options, and giving one is an error.
for option in --sweep --calibrate --resume --run-dir --spare-nodes --max-restarts --png; do
  grep -q -- "$option" <<<"$help" && fail "trn-compile --help lists trn-run's $option"
done
err=$(env -u SLURM_JOB_ID "$bin/trn-compile" bert_tiny --plan --nodes 1 --sweep 1,2 2>&1) &&
  fail "trn-compile took --sweep: $err"
case $err in *"unrecognised option '--sweep'"*"see trn-compile --help"*) ;; *) fail "trn-compile --sweep: $err" ;; esac
# Nothing to compile (no neuron_parallel_compile, CPU nodes) leaves nothing behind and speaks as
# trn-compile.
scratch=$(mktemp -d)
out=$(cd "$scratch" && env -u SLURM_JOB_ID -u SLURM_CONF PATH=/usr/bin:/bin "$bin/trn-compile" bert_tiny --launcher local \
  --output-root "$scratch/runs" 2>&1) || fail "trn-compile with nothing to compile exited $?: $out"
case $out in *"trn-compile: neuron_parallel_compile is not installed: nothing to compile"*) ;; *) fail "trn-compile: $out" ;; esac
grep -q "^trn-run:" <<<"$out" && fail "trn-compile printed trn-run's lines: $out"
[[ ! -e $scratch/runs ]] || fail "trn-compile left a run directory with nothing compiled: $(ls -R "$scratch/runs")"
rm -rf "$scratch"
help=$("$bin/trn-run" --help 2>&1)
case $help in "usage: trn-run PROFILE"*) ;; *) fail "trn-run --help: $(head -n 1 <<<"$help")" ;; esac

[ "$failures" = 0 ] && echo "ok"
exit "$failures"
