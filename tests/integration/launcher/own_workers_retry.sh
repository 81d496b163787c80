#!/usr/bin/env bash
# A rank lost in an AWS Batch-style job (one trn-run per node's namespace, no Slurm): the lost
# rank's trn-run and the main node's both exit 5, the status deploy/batch's retry strategy
# retries. The retry - the same command on every node, as Batch restarts the job - finds the
# job's run directory, resumes from its newest checkpoint and ends at the uninterrupted run's
# final loss (the trn_reference fixture).
source "$(dirname "$0")/../lib.sh"
make_scratch
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=4)
main_address=$(address_of 1)
batch_node() {
  local i=$1 main=()
  ((i == 1)) || main=(AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS="$main_address")
  on_node "$i" env AWS_BATCH_JOB_ID="retry#$((i - 1))" AWS_BATCH_JOB_NUM_NODES=2 \
    AWS_BATCH_JOB_NODE_INDEX=$((i - 1)) AWS_BATCH_JOB_MAIN_NODE_INDEX=0 "${main[@]}" trn-run "${args[@]}"
}
run=$scratch/runs/bert_tiny-retry
for i in 1 2; do batch_node "$i" >"$scratch/first-$i.out" 2>&1 & pids[i]=$!; done
wait_until 120 "checkpoint $run/ckpt_8 committed" test -f "$run/ckpt_8.json"
# Node 2's worker (rank 1) dies as on a failed instance.
victim=
for environ in /proc/[0-9]*/environ; do
  pid=${environ#/proc/}
  pid=${pid%/environ}
  if grep -qz '^RANK=1$' "$environ" 2>/dev/null && grep -qz "^TRN_WATCH_DIR=$run/" "$environ" 2>/dev/null &&
    grep -q trn_trainer "/proc/$pid/cmdline" 2>/dev/null; then
    victim=$pid
    break
  fi
done
[[ -n $victim ]] || fail "rank 1's worker was not found"
kill -9 "$victim"
for i in 1 2; do
  status=0
  wait "${pids[i]}" || status=$?
  expect_eq "$status" 5 "node $i's trn-run after losing rank 1 ($(tail -n 1 "$scratch/first-$i.out"))"
done
grep -q "exit 5: AWS Batch retries the job when its retry strategy retries exit 5" "$scratch/first-1.out" ||
  fail "the main node does not say how the job goes on: $(tail -n 2 "$scratch/first-1.out")"

# The retry.
every_node retry 2 batch_node
grep -q "run directory $run (resuming from its newest checkpoint)" "$scratch/retry-1.out" ||
  fail "the retried main node does not resume in $run: $(grep 'run directory' "$scratch/retry-1.out")"
resumed=$(grep -oE "^resumed from $run/ckpt_[0-9]+\.pt" "$scratch/retry-1.out") ||
  fail "the trainer did not resume from a checkpoint of $run"
ckpt_step=${resumed##*/ckpt_}
((${ckpt_step%.pt} >= 8)) || fail "resumed from $resumed, before the step-8 checkpoint"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after a retry vs uninterrupted"
echo "ok: resumed from ${resumed##*/}"
