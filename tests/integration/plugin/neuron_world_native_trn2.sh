#!/usr/bin/env bash
# The native path's world (TorchNeuron) on two trn2.48xlarge fixture nodes at logical NeuronCore
# config 2 (docs/hardware.md#torchneuron-world): trn-run starts one torchrun per node with 64
# workers, each through trn-launcher neuron-worker (worker_cores: per-worker), and every worker
# reaches TorchNeuron's init_process_group (the torchneuron_world double) with exactly its own
# logical NeuronCore: one world of 128, every core of each node used once, in the compile step
# (the native path's warm-up, its torchrun started as training's) and in training. Left per-task,
# each worker inherits its task's 0-63 and fails TorchNeuron's one-core-per-process assertion.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 2 2:48:2 "fsroot=$fixtures/trn2.48xlarge"
double=$TRN_SOURCE_DIR/tests/doubles/torchneuron_world

# {steps_this_run} is compile_steps (1) in the compile step and steps (2) in training: each
# step's workers record into their own folder.
profile() {  # profile WORKER_CORES: a native-path profile whose workers are the double
  printf '%s\n' 'description: TorchNeuron workers (the torchneuron_world double)' \
    "command: $double record $scratch/world-$1-{steps_this_run}" \
    'micro_batch: 1' 'global_batch: 128' 'steps: 2' 'compile_steps: 1' 'max_restarts: 0' \
    'launch: torchrun' "worker_cores: $1" 'env:' '  NEURON_LOGICAL_NC_CONFIG: "2"' \
    >"$scratch/native-$1.yaml"
  mkdir -p "$scratch/world-$1-1" "$scratch/world-$1-2"
}
# trn_run PROFILE: `sbatch --wait trn-run PROFILE` in a 2-node job of this test's cluster, the
# doubles first on PATH; prints trn-run's output, fails as the job does.
trn_run() {
  local name
  name=$(basename "$1" .yaml)
  pslurm env PATH="$TRN_SOURCE_DIR/tests/doubles:$TRN_BUILD_DIR/bin:$PATH" \
    NEURON_COMPILE_CACHE_URL="$scratch/npc-cache" sbatch --wait --exclusive -N2 -D "$scratch" \
    --output="$scratch/$name.out" trn-run "$1" --fsroot "$fixtures/trn2.48xlarge" \
    --no-health-check --output-root "$scratch/runs" >/dev/null
  local status=$?
  cat "$scratch/$name.out"
  return $status
}

profile per-worker
out=$(trn_run "$scratch/native-per-worker.yaml" 2>&1) || fail "trn-run per-worker: $(tail -n 20 <<<"$out")"
grep -q "trn-run: training: torchrun --nproc_per_node=64 --no_python $TRN_BUILD_DIR/bin/trn-launcher neuron-worker -- $double record" <<<"$out" ||
  fail "the training step's task command: $(grep 'trn-run: training' <<<"$out")"
compile=$("$double" check "$scratch/world-per-worker-1" --cores-per-node 64) || fail "the compile step's workers did not form one world"
train=$("$double" check "$scratch/world-per-worker-2" --cores-per-node 64) || fail "the training step's workers did not form one world"
expect_eq "$train" "one world: 128 workers on 2 nodes, one logical NeuronCore each" "the training world"
expect_eq "$compile" "$train" "the compile step's world"

# The same workers given the task's whole range (per-task, as the trn1 path's torch-xla wants):
# TorchNeuron keeps the range it finds set and refuses 64 cores per process.
profile per-task
if out=$(trn_run "$scratch/native-per-task.yaml" 2>&1); then
  fail "TorchNeuron workers that each see their node's 64 cores were not refused"
fi
grep -q "Attempted to have more than one device per process in distributed setup" "$scratch"/runs/native-per-task-*/logs/* ||
  fail "per-task workers failed otherwise: $(tail -n 20 <<<"$out")"
echo "ok: $train (compile step and training)"
