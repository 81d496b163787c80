#!/usr/bin/env bash
# Every broken fixture tree fails the step with a spank_trn: message that the user sees, and
# neither slurmd nor the next step suffers: a following step runs normally.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 2 2:32:2 "fsroot=$fixtures/trn1.32xlarge"
run_root=${TRN_CLUSTER_RUN:-/run/trn-cluster}
slurmd_pids=$(cat "$run_root/$pname"/pids/slurmd-*.pid)

count=0
for tree in "$fixtures"/broken/*/; do
  tree=${tree%/}
  plugin_args "fsroot=$tree"
  out=$(pslurm srun -N2 --ntasks-per-node=2 true 2>&1) && fail "$(basename "$tree"): the step ran"
  # One message per node, from task 0 of the node.
  expect_eq "$(grep -c 'error: spank_trn: ' <<<"$out")" 2 "$(basename "$tree"): spank_trn messages"
  grep -q 'Exited with exit code 1' <<<"$out" || fail "$(basename "$tree"): tasks did not fail: $out"
  count=$((count + 1))
done
[[ $count -ge 10 ]] || fail "only $count broken fixtures found under $fixtures/broken"

for pid in $slurmd_pids; do
  [[ -d /proc/$pid && $(awk '{print $3}' "/proc/$pid/stat") != Z ]] || fail "slurmd $pid died"
done
expect_eq "$(pslurm sinfo -h -N -t idle -o %N | sort -u | wc -l)" 2 "idle nodes after the broken steps"
plugin_args "fsroot=$fixtures/trn1.32xlarge"
out=$(pslurm srun -N2 --ntasks-per-node=2 -l printenv NEURON_RT_VISIBLE_CORES)
expect_eq "$(sort <<<"$out" | tr '\n' ' ')" "0: 0-15 1: 16-31 2: 0-15 3: 16-31 " "a good step after the broken ones"
echo "ok: $count broken fixtures, slurmd alive"
