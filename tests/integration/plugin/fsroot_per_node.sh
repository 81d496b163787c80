#!/usr/bin/env bash
# fsroot=DIR/%n: each node reads the tree named after it (node 1 a trn1.2xlarge, node 2 a
# trn1.32xlarge), so a test cluster can give one node a different or faulty tree.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
make_scratch
mkdir -p "$scratch/nodes"
cp -r "$fixtures/trn1.2xlarge" "$scratch/nodes/${pname}-1"
cp -r "$fixtures/trn1.32xlarge" "$scratch/nodes/${pname}-2"
plugin_cluster_up 2 2:32:2 "fsroot=$scratch/nodes/%n"
out=$(pslurm srun -N2 --ntasks-per-node=1 -l printenv TRN_INSTANCE_TYPE NEURON_RT_VISIBLE_CORES) ||
  fail "srun failed: $out"
grep -qx ' *0: trn1.2xlarge' <<<"$out" || fail "node 1 did not read its tree: $out"
grep -qx ' *1: trn1.32xlarge' <<<"$out" || fail "node 2 did not read its tree: $out"
grep -qx ' *0: 0-1' <<<"$out" || fail "node 1's NeuronCores: $out"
grep -qx ' *1: 0-31' <<<"$out" || fail "node 2's NeuronCores: $out"
echo "ok"
