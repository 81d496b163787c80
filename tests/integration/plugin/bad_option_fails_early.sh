#!/usr/bin/env bash
# A bad option value stops srun/sbatch before anything is submitted, with a spank_trn: message.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 1 2:32:2 "fsroot=$fixtures/trn1.32xlarge"

jobs_before=$(pslurm squeue -h -a -o %i | wc -l)
expect_refused() {
  local out status=0
  out=$("$@" 2>&1) || status=$?
  [[ $status -ne 0 ]] || fail "'$*' succeeded"
  grep -q "spank_trn: $expected" <<<"$out" || fail "'$*' did not say 'spank_trn: $expected': $out"
  if grep -q "launch\|Granted job allocation\|Submitted batch job" <<<"$out"; then fail "'$*' got as far as the cluster: $out"; fi
}
expected="--neuron-bind=bogus is not a CPU binding mode" expect_refused pslurm srun --neuron-bind=bogus true
expected="--neuron-cores-per-task=0 is not a count" expect_refused pslurm srun --neuron-cores-per-task=0 true
expected="--neuron-efa=maybe is not an EFA mode" expect_refused pslurm sbatch --neuron-efa=maybe --wrap true
expected="--neuron-lnc=3 is not a logical NeuronCore config" expect_refused pslurm salloc --neuron-lnc=3 true
expect_eq "$(pslurm squeue -h -a -o %i | wc -l)" "$jobs_before" "jobs in the queue after refused commands"

# A placement that cannot be made fails the step with the reason, once per node.
out=$(pslurm srun -N1 --ntasks-per-node=4 --neuron-cores-per-task=16 true 2>&1) && fail "an impossible placement ran"
expect_eq "$(grep -c 'spank_trn: 4 tasks x 16 NeuronCores need 64' <<<"$out")" 1 "messages about the impossible placement"
echo "ok"
