#!/usr/bin/env bash
# A gloo all-reduce across two nodes using only the rendezvous spank_trn sets. Runs on the real
# root (CPU-only nodes, no fixture), so torch sees the machine as it is.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
cores=$(env -u OMP_NUM_THREADS nproc)  # the machine's (nproc answers lib.sh's OMP_NUM_THREADS)
plugin_cluster_up 2 "1:$cores:1"
cp "$(dirname "$0")/gloo_allreduce.py" "$scratch/"
chmod 0644 "$scratch/gloo_allreduce.py"

run() {  # run TASKS_PER_NODE: every rank must see the sum of 1..world
  local per_node=$1 world out expected
  world=$((2 * per_node))
  expected=$((world * (world + 1) / 2))
  out=$(pslurm srun -N2 --ntasks-per-node="$per_node" --chdir="$scratch" "$python" gloo_allreduce.py)
  echo "$out"
  expect_eq "$(grep -c "world=$world .* sum=$expected\$" <<<"$out")" "$world" "ranks that saw sum=$expected ($per_node per node)"
  expect_eq "$(grep -o 'host=[^ ]*' <<<"$out" | sort -u | wc -l)" 2 "distinct hosts of the ranks"
}
run 2
run 1
echo "ok"
