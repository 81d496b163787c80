#!/usr/bin/env bash
# jobscripts/compile.sbatch with the neuron_parallel_compile test double (tests/doubles): the job
# compiles on every node (one agent per node), records compile.json, fills the shared tier and
# trains nothing; the same job again (profile from $TRN_COMPILE_PROFILE) skips the compiler.
source "$(dirname "$0")/../lib.sh"
make_scratch
export NEURON_COMPILE_CACHE_URL="$scratch/local" TRN_TEST_NPC_LOG="$scratch/npc.log"
args=(--data "$(test_data_dir)" --output-root "$scratch/runs" --cache-shared "$scratch/shared" --steps 2 --set warmup=2)

job=$(with_compiler_double sbatch --parsable --nodes=2 -D "$scratch" "$TRN_SOURCE_DIR/jobscripts/compile.sbatch" bert_tiny "${args[@]}")
state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$scratch/trn-compile-$job.out"; fail "the compile job ended $state"; }
run=$scratch/runs/bert_tiny-$job
expect_eq "$(json_field "$run/compile.json" "d['outcome']")" compiled "compile outcome"
expect_eq "$(compiles)" 2 "compiler invocations (one agent per node)"
expect_eq "$(ls "$run"/logs/compile_*_2.log | wc -l)" 2 "per-node compile logs"
[[ ! -e $run/metrics.jsonl ]] || fail "the compile-only job trained"
shared_done=$("$TRN_BUILD_DIR/bin/trn-cache" status --root "$scratch/shared" --json | json_field /dev/stdin "d['done']['entries']")
[[ $shared_done -ge 1 ]] || fail "no complete entries were pushed to the shared tier"

# The profile from the variable; the cache's manifest records this configuration now.
job=$(with_compiler_double sbatch --parsable --nodes=2 -D "$scratch" --export=ALL,TRN_COMPILE_PROFILE=bert_tiny \
  "$TRN_SOURCE_DIR/jobscripts/compile.sbatch" "${args[@]}")
state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$scratch/trn-compile-$job.out"; fail "the second compile job ended $state"; }
grep -q "compile skipped" "$scratch/trn-compile-$job.out" || { cat "$scratch/trn-compile-$job.out"; fail "the second compile job did not skip"; }
expect_eq "$(compiles)" 2 "compiler invocations after the second job"
echo "ok: $shared_done entries in the shared tier"
