#!/usr/bin/env bash
# srun -N2 --ntasks-per-node=4 --neuron-cores-per-task=8 on two trn1.32xlarge fixture nodes: every
# task gets its NeuronCores, rank, rendezvous, EFA and compile cache from spank_trn.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/plugin_lib.sh"
plugin_cluster_up 2 2:32:2 "fsroot=$fixtures/trn1.32xlarge"

out=$(pslurm srun -N2 --ntasks-per-node=4 --neuron-cores-per-task=8 -l env)
first=$(pslurm scontrol show hostnames "$pname-[1-2]" | head -n 1)
first_ip=$(getent hosts "$first" 2>/dev/null | awk '{print $1}' || true)
[[ -n $first_ip ]] || first_ip=$(awk -v h="$first" '$2 == h {print $1}' "${TRN_CLUSTER_RUN:-/run/trn-cluster}/$pname/hosts")
cores=(0-7 8-15 16-23 24-31)
comm=$(task_var "$out" 0 NEURON_RT_ROOT_COMM_ID)
[[ $comm =~ ^$first_ip:[0-9]+$ ]] || fail "NEURON_RT_ROOT_COMM_ID '$comm' is not $first_ip:PORT"
port=$(task_var "$out" 0 MASTER_PORT)
[[ $port =~ ^[0-9]+$ ]] || fail "MASTER_PORT '$port' is not a port"
for task in 0 1 2 3 4 5 6 7; do
  local_rank=$((task % 4))
  expect_eq "$(task_var "$out" $task NEURON_RT_VISIBLE_CORES)" "${cores[$local_rank]}" "task $task NEURON_RT_VISIBLE_CORES"
  expect_eq "$(task_var "$out" $task RANK)" "$task" "task $task RANK"
  expect_eq "$(task_var "$out" $task LOCAL_RANK)" "$local_rank" "task $task LOCAL_RANK"
  expect_eq "$(task_var "$out" $task NODE_RANK)" "$((task / 4))" "task $task NODE_RANK"
  expect_eq "$(task_var "$out" $task WORLD_SIZE)" 8 "task $task WORLD_SIZE"
  expect_eq "$(task_var "$out" $task LOCAL_WORLD_SIZE)" 4 "task $task LOCAL_WORLD_SIZE"
  expect_eq "$(task_var "$out" $task MASTER_ADDR)" "$first" "task $task MASTER_ADDR"
  expect_eq "$(task_var "$out" $task MASTER_PORT)" "$port" "task $task MASTER_PORT"
  expect_eq "$(task_var "$out" $task NEURON_RT_ROOT_COMM_ID)" "$comm" "task $task NEURON_RT_ROOT_COMM_ID"
  expect_eq "$(task_var "$out" $task FI_PROVIDER)" efa "task $task FI_PROVIDER"
  expect_eq "$(task_var "$out" $task FI_EFA_USE_DEVICE_RDMA)" 1 "task $task FI_EFA_USE_DEVICE_RDMA"
  expect_eq "$(task_var "$out" $task TRN_INSTANCE_TYPE)" trn1.32xlarge "task $task TRN_INSTANCE_TYPE"
  expect_eq "$(task_var "$out" $task NEURON_COMPILE_CACHE_URL)" "$scratch/cache/root" "task $task NEURON_COMPILE_CACHE_URL"
  [[ $(task_var "$out" $task TRN_EFA_DEVICES) =~ ^rdmap[0-9a-z,]+$ ]] || fail "task $task TRN_EFA_DEVICES"
  [[ -n $(task_var "$out" $task TRN_CPUS) ]] || fail "task $task has no TRN_CPUS"
done
# Two tasks on a node never share EFA devices' NeuronCores; the compile cache was made for root.
[[ -d $scratch/cache/root && $(stat -c %U "$scratch/cache/root") == root ]] || fail "no per-user compile cache"
# srun -v shows the plugin's decisions for the step on the terminal; plain srun does not.
verbose=$(pslurm srun -v -N2 --ntasks-per-node=4 --neuron-cores-per-task=8 true 2>&1)
grep -q "spank_trn: step .*4 task(s), 8 NeuronCore(s) each, per-core launch" <<<"$verbose" ||
  fail "srun -v did not show the plugin's decisions: $verbose"
quiet=$(pslurm srun -N2 --ntasks-per-node=4 --neuron-cores-per-task=8 true 2>&1)
[[ $quiet != *"spank_trn: step"* ]] || fail "plain srun shows the plugin's decisions: $quiet"
echo "ok: 8 tasks, rendezvous $first:$port, NEURON_RT_ROOT_COMM_ID=$comm"
