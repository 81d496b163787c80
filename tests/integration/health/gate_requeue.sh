#!/usr/bin/env bash
# trn-run's health gate when the healthy nodes cannot carry the plan: the job is requeued (the
# drained node is not scheduled again), never trained. (1) 3 nodes, node 2 unhealthy, a global
# batch of 3 sequences of micro-batch 1: 2 healthy nodes do not divide it. (2) a 1-node job
# whose only node is unhealthy: none is left.
source "$(dirname "$0")/../lib.sh"
make_scratch
mkdir -p "$scratch/nodes"
for i in $(seq 1 "$TRN_TEST_NODES"); do cp -r "$TRN_SOURCE_DIR/tests/fixtures/cpu-only" "$scratch/nodes/$(node "$i")"; done
hardware_error() {
  echo "3,9,91234567,-;neuron: NEURON_HW_ERR=DMA_ERROR instance-id=i-0test nd-id=0 nc-id=0 serial-num=test action=RESTART" \
    >>"$scratch/nodes/$(node "$1")/dev/kmsg"
}
for i in 2 3; do on_exit "slurm scontrol update NodeName=$(node "$i") State=RESUME >/dev/null 2>&1 || true"; done

# requeued_job NODELIST: a trn-run job on those nodes that the gate must requeue; sets $out to
# its output once it is back in the queue (Restarts=1), then cancels it. (Not in a $(...)
# subshell: its exit would run the test's exit hooks.)
requeued_job() {
  local nodes=$1 count job
  count=$(tr ',' '\n' <<<"$nodes" | wc -l)
  job=$(slurm_with_tools sbatch --parsable --exclusive --nodes="$count" --nodelist="$nodes" -D "$scratch" \
    trn-run bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --steps 2 --set warmup=2 \
    --micro-batch 1 --global-batch 3 --fsroot "$scratch/nodes/%n")
  on_exit "slurm scancel $job >/dev/null 2>&1 || true"
  restarted() { [[ $(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2) -ge 1 ]]; }
  wait_until 45 "job $job requeued by the gate" restarted
  slurm scancel "$job"
  out=$(cat "$scratch/trn-run-$job.out")
  grep -q 'trn-run: training:' <<<"$out" && fail "job $job trained: $out"
  compgen -G "$scratch/runs/bert_tiny-$job/logs/train_*" >/dev/null && fail "job $job has training logs"
  grep -q "trn-run: requeueing job $job (restart 1 of 3)" <<<"$out" || fail "job $job not requeued by trn-run: $out"
}

hardware_error 2
requeued_job "$(node 1),$(node 2),$(node 3)"
grep -q "trn-run: $(node 2) is unhealthy (trn-health: kernel-log: NEURON_HW_ERR=DMA_ERROR" <<<"$out" || fail "node 2 not judged: $out"
grep -q 'trn-run: cannot go on without the unhealthy node(s): .*global_batch 3' <<<"$out" || fail "no plan message: $out"
slurm scontrol show node -o "$(node 2)" | grep -q 'State=[A-Z+]*DRAIN' || fail "node 2 not drained"

hardware_error 3
requeued_job "$(node 3)"
grep -q "trn-run: $(node 3) is unhealthy" <<<"$out" || fail "node 3 not judged: $out"
grep -q 'going on with' <<<"$out" && fail "went on without any healthy node: $out"
echo "ok"
