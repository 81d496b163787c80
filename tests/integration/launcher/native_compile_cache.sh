#!/usr/bin/env bash
# The native path's compile cache (docs/hardware.md#torchneuron-cache) with the TorchNeuron worker
# double (tests/doubles/torchneuron_compile), on 2 nodes: the first run warms up - compile_steps
# steps on every node, TRN_COMPILE_WARMUP=1 - compiling every graph into the NEFF cache, and pushes
# the NEFFs to the shared tier, so the training step compiles nothing; a second run, its node-local
# tier gone, skips the warm-up, pulls the NEFFs and every node's step hits the cache; another
# micro-batch is other graphs: it warms up again, and a failed compile stops before training.
# Evidence is what the workers, the cache tiers and the reports show; trn-run's own lines are
# checked as its user-facing messages, beside those.
source "$(dirname "$0")/../lib.sh"
make_scratch
double=$TRN_SOURCE_DIR/tests/doubles/torchneuron_compile
log=$scratch/torchneuron.log
printf '%s\n' 'description: a native-path worker whose torch.compile(backend="neuron") is the TorchNeuron double' \
  "command: $double --native --device neuron --steps {steps_this_run} --micro-batch {micro_batch}" \
  'micro_batch: 1' 'global_batch: 4' 'steps: 3' 'compile_steps: 1' 'cpu_workers_per_node: 1' \
  'max_restarts: 0' >"$scratch/native.yaml"
run_job() {  # run_job [VAR=VALUE...] -- trn-run args: prints the job id, waits for its end
  local env_args=() job
  while [[ $1 != -- ]]; do env_args+=("$1"); shift; done
  shift
  job=$(slurm_with_tools env TORCH_NEURONX_NEFF_CACHE_DIR="$scratch/local" \
    TORCH_NEURONX_NEFF_LOCAL_CACHE_DIR="$scratch/locks" TRN_TEST_TN_LOG="$log" "${env_args[@]}" \
    sbatch --parsable --exclusive --nodes=2 -D "$scratch" \
    trn-run "$scratch/native.yaml" --output-root "$scratch/runs" --cache-shared "$scratch/shared" "$@")
  job_end_state "$job" >/dev/null
  echo "$job"
}
exit_code() { slurm scontrol show job -o "$1" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2; }
# records FILTER: the double's records (one per worker process) the Python expression keeps (`r`).
records() { "$python" -c "import json,sys; rs=[json.loads(l) for l in open(sys.argv[1])]; print($1)" "$log"; }
neffs() { (cd "$1" && find . -name '*.neff' -type f | sort); }

first=$(run_job -- --steps 3)
expect_eq "$(exit_code "$first")" "0:0" "exit of the first run"
expect_eq "$(records "sorted(r['node'] for r in rs if r['warmup'] and r['steps'] == 1)" | tr -d "[]' ,")" \
  "$(slurm scontrol show hostnames "$(slurm scontrol show job -o "$first" | grep -o ' NodeList=[^ ]*' | cut -d= -f2)" | tr -d '\n')" \
  "nodes that ran the warm-up (one step each)"
grep -q "warming up the compile cache: 1 steps on 2 nodes" "$scratch/trn-run-$first.out" ||
  fail "the first run's warm-up message: $(grep 'trn-run:' "$scratch/trn-run-$first.out")"
graphs=$(records "len({k for r in rs if r['warmup'] for k in r['compiled'] + r['hit']})")
expect_eq "$graphs" 3 "graphs the warm-up ran"
expect_eq "$(records "len({k for r in rs if r['warmup'] for k in r['compiled']})")" 3 "graphs the warm-up compiled"
expect_eq "$(records "[(r['steps'], len(r['compiled']), len(r['hit'])) for r in rs if not r['warmup']]")" \
  "[(3, 0, 3), (3, 0, 3)]" "the first run's training step (steps, compiled, hits) on each node"
run=$scratch/runs/native-$first
expect_eq "$(json_field "$run/compile.json" "(d['mode'], d['outcome'])")" "('warm-up', 'compiled')" "the warm-up's report"
# The shared tier holds the NEFFs in TorchNeuron's layout, byte for byte, and the manifest.
expect_eq "$(neffs "$scratch/shared/torchneuron-neff" | wc -l)" 3 "NEFFs pushed to the shared tier"
expect_eq "$(neffs "$scratch/shared/torchneuron-neff")" "$(neffs "$scratch/local")" "the shared tier's NEFFs against the local tier's"
for neff in $(neffs "$scratch/local"); do
  cmp -s "$scratch/local/$neff" "$scratch/shared/torchneuron-neff/$neff" || fail "$neff differs between the tiers"
  [[ $neff =~ ^\./([0-9a-f]{2})/([0-9a-f]{2})/([0-9a-f]{32})\.neff$ && ${BASH_REMATCH[3]} == "${BASH_REMATCH[1]}${BASH_REMATCH[2]}"* ]] ||
    fail "$neff is not at its key's sharded path"
done
[[ -f $scratch/shared/trn-manifests/$(json_field "$run/compile.json" "d['manifest']").json ]] || fail "no manifest for the warm-up"

# A node whose local tier is gone (a replaced instance): no warm-up, the NEFFs come from the shared
# tier and every node's training step hits the cache.
rm -rf "$scratch/local"
before=$(records "len(rs)")
second=$(run_job -- --steps 3)
expect_eq "$(exit_code "$second")" "0:0" "exit of the second run"
results=$scratch/runs/native-$second/results.json
expect_eq "$(json_field "$results" "(d['phases']['compile']['skipped'], d['phases']['cache_pull']['layout'], d['phases']['cache_pull']['spread'])")" \
  "('manifest', 'torchneuron', False)" "the second run's compile and pull phases"
(($(json_field "$results" "d['phases']['cache_pull']['entries_copied']") >= 3)) || fail "the second run pulled no NEFF"
expect_eq "$(neffs "$scratch/local")" "$(neffs "$scratch/shared/torchneuron-neff")" "the refilled local tier"
# No warm-up process ran: the only workers are the two training ranks, which compiled nothing.
expect_eq "$(records "[(r['warmup'], len(r['compiled']), len(r['hit'])) for r in rs[$before:]]")" \
  "[(False, 0, 3), (False, 0, 3)]" "the second run's workers (warm-up, compiled, hits)"
grep -q "warm-up skipped" "$scratch/trn-run-$second.out" ||
  fail "the second run's warm-up-skipped message: $(grep 'trn-run:' "$scratch/trn-run-$second.out")"

# Another micro-batch is other graphs: warmed up again; here they fail to compile, so no training.
# The double fails in the warm-up only (TRN_TEST_TN_FAIL=warmup): a training step run after the
# failed warm-up would compile, train and leave a record with warmup false.
before=$(records "len(rs)")
local_before=$(neffs "$scratch/local")
shared_before=$(neffs "$scratch/shared/torchneuron-neff")
failed=$(run_job TRN_TEST_TN_FAIL=warmup -- --steps 3 --micro-batch 2)
expect_eq "$(records "sorted({(r['warmup'], r['steps'], r['failed'] is not None, len(r['compiled'])) for r in rs[$before:]})")" \
  "[(True, 1, True, 0)]" "the failed run's workers (warm-up, steps, failed, compiled): failed warm-ups, no training step"
expect_eq "$(exit_code "$failed")" "3:0" "exit of the run whose warm-up fails"
report=$scratch/runs/native-$failed/compile.json
expect_eq "$(json_field "$report" "(d['mode'], d['outcome'], d['ok'], d['exit_status'] != 0)")" \
  "('warm-up', 'failed', False, True)" "the failed warm-up's report"
[[ ! -e $scratch/shared/trn-manifests/$(json_field "$report" "d['manifest']").json ]] ||
  fail "a manifest records the configuration whose warm-up failed"
expect_eq "$(neffs "$scratch/local")" "$local_before" "the local tier's NEFFs after the failed warm-up"
expect_eq "$(neffs "$scratch/shared/torchneuron-neff")" "$shared_before" "the shared tier's NEFFs after the failed warm-up"
grep -q "compilation failed: the warm-up run of 1 steps exited" "$scratch/trn-run-$failed.out" ||
  fail "no clear warm-up failure: $(grep 'trn-run' "$scratch/trn-run-$failed.out")"
echo ok
