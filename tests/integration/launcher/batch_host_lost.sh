#!/usr/bin/env bash
# The node of rank 0 lost (docs/recovery.md#fault-matrix): that node is also the job's batch host,
# where trn-run itself runs, so trn-run dies with it. Under trn-run's --no-kill Slurm only
# excises the node and keeps the job RUNNING, every other node idle until the time limit; the
# batch host's watcher on another node (docs/recovery.md#batch-host) sees the job lose its
# batch host and requeues it. The requeued job runs on the nodes left; its trainer resumes
# from the newest committed checkpoint of the same run directory (same job id) and ends at the
# uninterrupted run's loss. Before that, in another job, the watcher's own node is lost and
# trn-run starts the watcher again on another node.
source "$(dirname "$0")/../lib.sh"
make_scratch
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=4)

# First the watcher's own node is lost (a long job, cancelled once seen): the job goes on, and
# trn-run starts the watcher again on another node the job holds.
long=$(slurm_with_tools sbatch --parsable --exclusive --nodes=3 --nodelist="$(node 1),$(node 2),$(node 3)" \
  -D "$scratch" trn-run bert_tiny --data "$(test_data_dir)" --steps 100000 --output-root "$scratch/runs" --spare-nodes 1)
long_out="$scratch/trn-run-$long.out"
on_exit "slurm scancel $long 2>/dev/null || true"
wait_until 120 "job $long's watcher started" grep -qs "watching the batch host" "$long_out"
watcher=$(sed -n 's/^trn-run: watching the batch host [^ ]* from //p' "$long_out")
expect_eq "$watcher" "$(node 3)" "the first watcher's node (the job's last)"
kill_node_until_exit "$watcher"
watcher_lost_at=$SECONDS
wait_until 90 "job $long's watcher started again on $(node 2)" grep -q "watching again from $(node 2)" "$long_out"
echo "the watcher started again $((SECONDS - watcher_lost_at)) s after its node was lost"
wait_until 30 "a watcher running on $(node 2)" on_node 2 pgrep -f "watch-batch-host --job $long"
slurm scancel "$long"
job_end_state "$long" >/dev/null
cluster start-slurmd "$watcher" >/dev/null
wait_nodes_idle 60 >/dev/null

job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${args[@]}")
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
on_exit "slurm scancel $job 2>/dev/null || true"  # a failure here leaves no job holding the nodes of the next test
job_field() { slurm scontrol show job -o "$job" | grep -o " $1=[^ ]*" | cut -d= -f2; }
wait_until 300 "checkpoint $run/ckpt_4 committed" test -f "$run/ckpt_4.json"
batch_host=$(job_field BatchHost)
rank0_node=$(json_field "$run/watch/attempt-0/rank0.beat" "d['node']")
expect_eq "$rank0_node" "$batch_host" "node of rank 0"
kill_node_until_exit "$batch_host"
killed_at=$SECONDS
echo "lost $batch_host (batch host, rank 0) after checkpoint $(newest_checkpoint "$run")"

until [[ $(job_field Restarts) -ge 1 ]]; do
  ((SECONDS - killed_at < 120)) || fail "job $job was not requeued ($(job_field JobState), nodes $(job_field NodeList)); the watcher's log: $(cat "$run/logs/batch_host_watch.log" "$run/logs/batch_host_watch.srun.log" 2>&1)"
  sleep 1
done
echo "requeued $((SECONDS - killed_at)) s after the loss; $batch_host is $(slurm sinfo -h -n "$batch_host" -o %T)"
grep -q "requeueing job $job" "$run/logs/batch_host_watch.log" ||
  fail "the watcher did not requeue the job: $(cat "$run/logs/batch_host_watch.log")"
# Slurm holds a requeued job for about two minutes (Reason=BeginTime); release it at once.
held_or_running() { [[ $(job_field Reason) == BeginTime || $(job_field JobState) == RUNNING ]]; }
wait_until 60 "requeued job $job held or running" held_or_running
[[ $(job_field Reason) == BeginTime ]] && slurm scontrol update JobId="$job" StartTime=now
wait_job "$job" >/dev/null || { cat "$out"; fail "the requeued job failed"; }
slurm scontrol show hostnames "$(job_field NodeList)" | grep -qx "$batch_host" &&
  fail "the requeued job ran on the lost node $batch_host"

# The trainer of the requeued job says what it loaded, and trains the step after it next.
ckpt_step=$(trainer_resumed_step "$out" "$run" 4) || exit 1
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after losing the batch host vs uninterrupted"
echo "ok: batch host lost, its watcher requeued job $job, resumed from step $ckpt_step to final loss $(final_loss "$run")"
