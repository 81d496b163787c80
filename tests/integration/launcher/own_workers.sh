#!/usr/bin/env bash
# trn-run where no Slurm job starts the workers (docs/launchers.md#own-workers): on one node; as
# every node of an AWS Batch multi-node parallel job and of a SageMaker training job starts it -
# one trn-run per node of the local cluster, in that node's network namespace, with Batch's
# variables or a SageMaker resourceconfig.json of its own; and from a real mpirun (Open MPI)
# across the nodes' namespaces. Each starts its node's workers with the environment spank_trn
# gives a Slurm task, and each run gives the loss curve of the Slurm job of the same plan.
# Slurm's client configuration and no launcher: refused.
source "$(dirname "$0")/../lib.sh"
make_scratch
args=(bert_tiny --data "$(test_data_dir)" --steps 8 --global-batch 48)
nodes=3
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=$nodes -D "$scratch" trn-run "${args[@]}" \
  --output-root "$scratch/slurm")
wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "the Slurm job failed"; }
slurm_run=$scratch/slurm/bert_tiny-$job

# One node, nothing but trn-run: it plans for this node and starts its worker itself.
on_node 1 trn-run "${args[@]}" --output-root "$scratch/local" >"$scratch/local.out" 2>&1 ||
  { cat "$scratch/local.out"; fail "the single-node run failed"; }
grep -qx "launcher          local (no launcher's variables are set)" "$scratch/local.out" ||
  fail "the single-node plan does not name the local launcher: $(grep launcher "$scratch/local.out")"
local_run=$(ls -d "$scratch"/local/bert_tiny-local-*)
grep -q "^step 8/8 " "$scratch/local.out" || fail "rank 0's progress is not on the single-node run's output"
expect_eq "$(json_field "$local_run/plan.json" "d['nodes']")" 1 "single-node plan's nodes"
expect_eq "$(json_field "$local_run/results.json" "d['plan']['grad_accum']")" 6 "single-node accumulation"

# AWS Batch: the main node (index 0) has no main-address variable; the others have its address.
# Each node has a compile cache tier of its own, and they share one tier.
main_address=$(address_of 1)
batch_node() {
  local i=$1 main=()
  ((i == 1)) || main=(AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS="$main_address")
  on_node "$i" env AWS_BATCH_JOB_ID="itest#$((i - 1))" AWS_BATCH_JOB_NUM_NODES=$nodes \
    AWS_BATCH_JOB_NODE_INDEX=$((i - 1)) AWS_BATCH_JOB_MAIN_NODE_INDEX=0 "${main[@]}" \
    PATH="$TRN_SOURCE_DIR/tests/doubles:$TRN_BUILD_DIR/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
    NEURON_COMPILE_CACHE_URL="$scratch/node-cache-$i" TRN_TEST_NPC_LOG="$scratch/npc.log" \
    trn-run "${args[@]}" --output-root "$scratch/batch" --cache-shared "$scratch/shared-cache"
}
every_node batch $nodes batch_node
batch_run=$scratch/batch/bert_tiny-itest
grep -qx "launcher          batch (AWS_BATCH_JOB_NODE_INDEX is set)" "$scratch/batch-2.out" ||
  fail "a Batch node's plan does not name the batch launcher"
expect_eq "$(json_field "$batch_run/plan.json" "d['nodes']")" $nodes "Batch plan's nodes"
grep -q "^step 8/8 " "$scratch/batch-1.out" || fail "rank 0's progress is not on the main node's output"
expect_eq "$(ls "$batch_run"/logs/train_*_$nodes.log | wc -l)" $nodes "per-node training logs of the Batch run"
# The nodes compiled together (the neuron_parallel_compile double, tests/doubles), as the srun
# step does, and pushed their graphs to the shared tier.
expect_eq "$(wc -l <"$scratch/npc.log")" $nodes "compiler runs, one per node"
expect_eq "$(json_field "$batch_run/compile.json" "d['outcome']")" compiled "the Batch run's compile outcome"
[[ $("$TRN_BUILD_DIR/bin/trn-cache" status --root "$scratch/shared-cache" --json | json_field /dev/stdin "d['done']['entries']") -ge 1 ]] ||
  fail "no compiled graphs in the shared tier"
# Each node's trn-run watched its own rank: node 3 runs rank 2.
[[ -f $batch_run/watch/attempt-0/node-2/rank2.beat ]] ||
  fail "node 3's heartbeat folder does not hold rank 2's: $(ls -R "$batch_run/watch")"

# SageMaker: each host's /opt/ml (private to its mount namespace) holds its resourceconfig.json,
# listing the hosts out of order; /opt/ml/checkpoints is one shared folder here.
mkdir -p "$scratch/sm-checkpoints"
hosts_json=$(printf '"%s",' "$(node 3)" "$(node 1)" "$(node 2)")
for i in $(seq 1 $nodes); do
  printf '{"current_host": "%s", "hosts": [%s], "network_interface_name": "eth0"}\n' \
    "$(node "$i")" "${hosts_json%,}" >"$scratch/resourceconfig-$i.json"
done
sagemaker_host() {
  on_node "$1" sh -c 'mount -t tmpfs tmpfs /opt && mkdir -p /opt/ml/input/config /opt/ml/checkpoints &&
    cp "$1" /opt/ml/input/config/resourceconfig.json && mount --bind "$2" /opt/ml/checkpoints &&
    shift 2 && exec env TRAINING_JOB_NAME=itest-sm "$@"' sh "$scratch/resourceconfig-$1.json" \
    "$scratch/sm-checkpoints" trn-run "${args[@]}"
}
every_node sagemaker $nodes sagemaker_host
sm_run=$scratch/sm-checkpoints/bert_tiny-itest-sm
grep -qx "launcher          sagemaker (/opt/ml/input/config/resourceconfig.json exists)" "$scratch/sagemaker-1.out" ||
  fail "a SageMaker host's plan does not name the sagemaker launcher"
[[ -f $sm_run/results.json ]] || fail "no results.json in /opt/ml/checkpoints/bert_tiny-itest-sm"

# The MPI Operator's launcher: `trn-run --launcher mpi` runs mpirun itself, one trn-run per host
# of the hostfile, the first one the main node; Open MPI's daemons reach the other nodes
# through the rsh agent.
for i in $(seq 1 $nodes); do echo "$(node "$i") slots=1"; done >"$scratch/hostfile"
on_node 1 env OMPI_MCA_orte_default_hostfile="$scratch/hostfile" \
  OMPI_MCA_plm_rsh_agent="$TRN_SOURCE_DIR/tests/integration/launcher/mpi_rsh_agent.sh" \
  trn-run "${args[@]}" --launcher mpi --output-root "$scratch/mpi" >"$scratch/mpi.out" 2>&1 ||
  { tail -n 30 "$scratch/mpi.out"; fail "the mpirun-started run failed"; }
grep -q "^trn-run: starting trn-run on the $nodes host(s) of $scratch/hostfile: mpirun -N 1 " "$scratch/mpi.out" ||
  fail "trn-run --launcher mpi did not start mpirun: $(head -n 3 "$scratch/mpi.out")"
mpi_run=$scratch/mpi/bert_tiny-mpi
expect_eq "$(json_field "$mpi_run/plan.json" "d['nodes']")" $nodes "the MPI run's nodes"

# One world of 3 ranks, not 3 hosts that each trained alone (whose losses would be the same:
# training is world-size invariant): each rank's own heartbeat names its rank and node, and the
# trainer's results.json its world size.
"$python" - "$batch_run" "$sm_run" "$mpi_run" <<'PY' || fail "the world each rank saw"
import glob, json, sys
for run in sys.argv[1:]:
    beats = [json.load(open(path)) for path in glob.glob(run + "/watch/attempt-0/**/rank*.beat", recursive=True)]
    ranks = sorted((b["rank"], b["node"]) for b in beats)
    world = json.load(open(run + "/results.json"))["results"]["parameters"]["world_size"]
    print("%s: world %d, ranks %s" % (run.rsplit("/", 1)[-1], world, ranks))
    assert world == 3 and [r for r, _ in ranks] == [0, 1, 2] and len({n for _, n in ranks}) == 3, (run, world, ranks)
PY
"$python" - "$slurm_run" "$batch_run" "$sm_run" "$mpi_run" "$local_run" <<'PY' || fail "loss curves"
import json, sys
curves = [[json.loads(line)["loss"] for line in open(run + "/metrics.jsonl")] for run in sys.argv[1:]]
assert all(len(c) == 8 for c in curves), [len(c) for c in curves]
same_plan = max(abs(a - b) for c in curves[1:4] for a, b in zip(curves[0], c))
one_node = max(abs(a - b) for a, b in zip(curves[0], curves[4]))
print("Slurm losses:", " ".join("%.5f" % x for x in curves[0]),
      "| Batch, SageMaker, MPI within %.1e; one node within %.1e" % (same_plan, one_node))
sys.exit(0 if same_plan < 1e-5 and one_node < 1e-4 else "the loss curves differ from the Slurm job's")
PY

# A machine with Slurm's client configuration and no launcher: refused, naming the way out.
set +e
refused=$(cluster on "$(node 1)" env PATH="$TRN_BUILD_DIR/bin:/usr/bin:/bin" trn-run "${args[@]}" 2>&1)
status=$?
set -e
expect_eq "$status" 2 "exit status of trn-run on a Slurm login node"
grep -q "with a Slurm configuration.*--launcher local" <<<"$refused" || fail "the refusal says: $refused"
echo ok
