#!/usr/bin/env bash
# Options given to sbatch reach the tasks of the job's srun steps; the batch script itself gets
# nothing (its environment would leak into every step as user-set values).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 2 2:32:2 "fsroot=$fixtures/trn1.32xlarge"

out=$scratch/out
psbatch_wait -N2 --ntasks-per-node=2 --neuron-cores-per-task=16 --neuron-efa=off -o "$out" \
  --wrap 'echo "batch: ${NEURON_RT_VISIBLE_CORES:-none} ${RANK:-none}"; srun -l env' >/dev/null
text=$(cat "$out")
expect_eq "$(grep '^batch:' <<<"$text")" "batch: none none" "the batch script's own environment"
for task in 0 1 2 3; do
  expected=$([[ $((task % 2)) -eq 0 ]] && echo 0-15 || echo 16-31)
  expect_eq "$(task_var "$text" $task NEURON_RT_VISIBLE_CORES)" "$expected" "task $task NEURON_RT_VISIBLE_CORES (sbatch --neuron-cores-per-task=16)"
  expect_eq "$(task_var "$text" $task FI_PROVIDER)" "" "task $task FI_PROVIDER (sbatch --neuron-efa=off)"
  expect_eq "$(task_var "$text" $task RANK)" "$task" "task $task RANK"
done
# srun's own option wins over the job's.
out2=$scratch/out2
psbatch_wait -N1 --ntasks-per-node=4 --neuron-cores-per-task=16 -o "$out2" \
  --wrap 'srun -l --neuron-cores-per-task=4 env' >/dev/null
expect_eq "$(task_var "$(cat "$out2")" 3 NEURON_RT_VISIBLE_CORES)" 12-15 "srun option inside an sbatch job"
echo "ok"
