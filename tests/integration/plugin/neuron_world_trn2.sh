#!/usr/bin/env bash
# Two trn2.48xlarge fixture nodes at logical NeuronCore config 1 (128 cores per node, 4 per task)
# and 2 (64 per node, 2 per task): 32 tasks per node form one torch-neuronx world (per-core:
# NEURON_PJRT_PROCESSES_NUM_DEVICES), and so do torchrun's workers.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 2 2:48:2 "fsroot=$fixtures/trn2.48xlarge"

expect_neuron_world 128 -N2 --ntasks-per-node=32 --neuron-lnc=1 --
expect_neuron_world 64 -N2 --ntasks-per-node=32 --neuron-lnc=2 --
expect_neuron_world 64 -N2 --ntasks-per-node=1 --neuron-lnc=2 -- torchrun --nproc_per_node=64 -r 1 -t 1 --no_python
# Without the plugin, trn-run's tasks start through trn-launcher slurm-task: the same environment
# at either logical NeuronCore config.
lnc1=$(KEEP=NEURON_LOGICAL_NC_CONFIG expect_same_task_env "$fixtures/trn2.48xlarge" -N2 --ntasks-per-node=32 --export=ALL,NEURON_LOGICAL_NC_CONFIG=1) || exit 1
lnc2=$(KEEP=NEURON_LOGICAL_NC_CONFIG expect_same_task_env "$fixtures/trn2.48xlarge" -N2 --ntasks-per-node=64 --export=ALL,NEURON_LOGICAL_NC_CONFIG=2) || exit 1
echo "ok: one world at LNC 1 and 2, per-core and under torchrun; LNC 1: $lnc1, LNC 2: $lnc2"
