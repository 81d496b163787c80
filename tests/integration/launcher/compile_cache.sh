#!/usr/bin/env bash
# Compile-then-train with the neuron_parallel_compile test double (tests/doubles): the first run
# compiles and fills the shared tier, a second run does not invoke the compiler at all (counted),
# a changed micro-batch compiles again and a failed compilation stops before training; trn-compile
# works both as `srun trn-compile` (per-node agents) and from a batch script (starts the step).
source "$(dirname "$0")/../lib.sh"
make_scratch
export NEURON_COMPILE_CACHE_URL="$scratch/local" TRN_TEST_NPC_LOG="$scratch/npc.log"
args=(bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --cache-shared "$scratch/shared" --steps 2 --set warmup=2)
run_job() {  # run_job [sbatch args] -- trn-run args: prints the job id, waits for the end
  local sbatch_args=() job
  while [[ $1 != -- ]]; do sbatch_args+=("$1"); shift; done
  shift
  job=$(with_compiler_double sbatch --parsable --nodes=1 -D "$scratch" "${sbatch_args[@]}" trn-run "$@")
  job_end_state "$job" >/dev/null
  echo "$job"
}
exit_code() { slurm scontrol show job -o "$1" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2; }

first=$(run_job -- "${args[@]}")
expect_eq "$(exit_code "$first")" "0:0" "exit of the first run"
expect_eq "$(compiles)" 1 "compiler invocations after the first run"
expect_eq "$(json_field "$scratch/runs/bert_tiny-$first/compile.json" "d['outcome']")" compiled "first compile outcome"
shared_done=$("$TRN_BUILD_DIR/bin/trn-cache" status --root "$scratch/shared" --json | "$python" -c "import json,sys; print(json.load(sys.stdin)['done']['entries'])")
[[ $shared_done -ge 1 ]] || fail "no complete entries were pushed to the shared tier"

# A node whose local tier is empty (a replaced instance) gets the entries back from the shared one.
rm -rf "$NEURON_COMPILE_CACHE_URL"
second=$(run_job -- "${args[@]}")
expect_eq "$(exit_code "$second")" "0:0" "exit of the second run"
expect_eq "$(compiles)" 1 "compiler invocations after an identical second run"
grep -q "compile skipped" "$scratch/trn-run-$second.out" || fail "the second run did not say it skipped compiling"
grep -qE "cache pull from .*: $shared_done entries, [1-9][0-9]* bytes copied over 1 nodes" "$scratch/trn-run-$second.out" ||
  fail "the second run did not pull the $shared_done shared entries: $(grep 'cache pull' "$scratch/trn-run-$second.out")"
expect_eq "$("$TRN_BUILD_DIR/bin/trn-cache" status --root "$NEURON_COMPILE_CACHE_URL" --json | json_field /dev/stdin "d['done']['entries']")" \
  "$shared_done" "complete entries in the refilled local tier"

# Another micro-batch is another graph: the compiler runs again (and here fails).
failed=$(run_job --export=ALL,TRN_TEST_NPC_FAIL=1 -- "${args[@]}" --micro-batch 2)
expect_eq "$(exit_code "$failed")" "3:0" "exit of the run whose compilation fails"
expect_eq "$(compiles)" 2 "compiler invocations after changing the micro-batch"
grep -q "compilation failed" "$scratch/trn-run-$failed.out" || fail "no clear compile failure message"
[[ ! -f $scratch/runs/bert_tiny-$failed/metrics.jsonl ]] || fail "training ran after a failed compilation"

# trn-compile as per-node agents under srun, then as a batch script that starts its own step.
with_compiler_double sbatch --parsable --wait --nodes=1 -D "$scratch" -o "$scratch/agent.out" \
  --wrap "srun trn-compile ${args[*]} --micro-batch 1" >/dev/null || { cat "$scratch/agent.out"; fail "srun trn-compile failed"; }
expect_eq "$(compiles)" 3 "compiler invocations after srun trn-compile"
with_compiler_double sbatch --parsable --wait --nodes=1 -D "$scratch" -o "$scratch/starter.out" \
  --wrap "trn-compile ${args[*]} --micro-batch 1 --force-compile" >/dev/null || { cat "$scratch/starter.out"; fail "trn-compile in a batch script failed"; }
expect_eq "$(compiles)" 4 "compiler invocations after trn-compile --force-compile"
echo "ok"
