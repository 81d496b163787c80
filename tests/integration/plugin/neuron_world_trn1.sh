#!/usr/bin/env bash
# Two trn1.32xlarge fixture nodes: the workers form one torch-neuronx world (checked by the
# torch_neuronx_world double) in both launch modes - 32 Slurm tasks per node (per-core: spank_trn
# sets NEURON_PJRT_*), and one task per node running torchrun with 32 workers (torch-neuronx
# derives the world from torchrun's variables).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 2 2:32:2 "fsroot=$fixtures/trn1.32xlarge"

per_core=$(expect_neuron_world 32 -N2 --ntasks-per-node=32 --) || exit 1
expect_neuron_world 32 -N2 --ntasks-per-node=16 -- >/dev/null || exit 1
torchrun=$(expect_neuron_world 32 -N2 --ntasks-per-node=1 -- torchrun --nproc_per_node=32 -r 1 -t 1 --no_python) || exit 1
# trn-run's compile step (one agent per node running neuron_parallel_compile over torchrun's
# workers; the compiler double on PATH) traces the graphs of the same world as training.
compile=$(expect_neuron_world 32 -N2 --ntasks-per-node=1 -- "$TRN_BUILD_DIR/bin/trn-launcher" compile-agent -- torchrun --nproc_per_node=32 -r 1 -t 1 --no_python) || exit 1
compile=$(tail -n 1 <<<"$compile")
expect_eq "$torchrun" "$per_core" "the torchrun world"
expect_eq "$compile" "$per_core" "the compile step's world"

# The double catches a world nobody described: per-core tasks told they run under torchrun
# get no NEURON_PJRT_* from spank_trn, and torch-neuronx would see 64 worlds of one.
world=$(mktemp -d "$scratch/world.XXXXXX")
if pslurm srun -N2 --ntasks-per-node=32 --neuron-launch=torchrun "$neuron_world_double" record "$world" 2>/dev/null &&
  "$neuron_world_double" check "$world" --cores-per-node 32 2>/dev/null; then
  fail "64 per-core workers without NEURON_PJRT_* were taken for one world"
fi
# ... and torchrun workers that would each get two of the node's 32 visible cores: torch-xla's
# Neuron hook refuses them (one visible core per local worker), and so does the double.
world=$(mktemp -d "$scratch/world.XXXXXX")
if pslurm srun -N1 --ntasks-per-node=1 torchrun --nproc_per_node=16 -r 1 -t 1 --no_python \
  "$neuron_world_double" record "$world" 2>"$scratch/torchrun16.err"; then
  fail "16 torchrun workers on 32 visible cores joined a world"
fi
grep -q "value of 16 is not equal to count 32 from NEURON_RT_VISIBLE_CORES" "$scratch/torchrun16.err" ||
  fail "16 torchrun workers on 32 cores: $(tail -n 3 "$scratch/torchrun16.err")"
# trn-run in a job plans from the tree the plugin reads (fsroot=, exported as TRN_FSROOT) without
# being told --fsroot: 32 workers per trn1.32xlarge node, not this machine's CPUs.
plan=$(pslurm salloc -N2 --exclusive "$TRN_BUILD_DIR/bin/trn-run" bert_pretrain --plan --json 2>"$scratch/salloc.err") ||
  fail "trn-run --plan in a job: $(cat "$scratch/salloc.err")"
expect_eq "$("$python" -c 'import json,sys; p=json.load(sys.stdin); print(p["instance_type"], p["workers_per_node"])' <<<"$plan")" \
  "trn1.32xlarge 32" "the plan in a job of the plugin's recorded nodes"

# Without the plugin, trn-run's tasks start through trn-launcher slurm-task: the same environment.
same=$(expect_same_task_env "$fixtures/trn1.32xlarge" -N2 --ntasks-per-node=32) || exit 1
expect_same_task_env "$fixtures/trn1.32xlarge" -N2 --ntasks-per-node=1 >/dev/null || exit 1
echo "ok: $same; $per_core, per-core (32 and 16 tasks per node), under torchrun and in the compile step"
