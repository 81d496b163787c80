#!/usr/bin/env bash
# A node lost during training of a trn-run job without spares: its slurmd and every process on
# it die. trn-run finds the node (it no longer answers), drains it and requeues the job, which
# resumes from the last checkpoint and ends at the same final loss as an uninterrupted run (the
# trn_reference fixture). (Killing slurmd alone leaves the node's rank training, and a fast
# machine finishes before Slurm notices: tests/integration/cluster covers that.)
source "$(dirname "$0")/../lib.sh"
make_scratch
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=4)

job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${args[@]}")
run="$scratch/runs/bert_tiny-$job"
wait_until 300 "checkpoint $run/ckpt_4 committed" test -f "$run/ckpt_4.json"
victim=$(slurm scontrol show hostnames "$(slurm squeue -h -j "$job" -o %N)" | tail -n 1)
kill_node_until_exit "$victim"
killed_at=$SECONDS
echo "lost node $victim after the step-4 checkpoint"
job_field() { slurm scontrol show job -o "$job" | grep -o " $1=[^ ]*" | cut -d= -f2; }
until [[ $(job_field Restarts) -ge 1 ]]; do
  ((SECONDS - killed_at < 120)) || fail "job $job was not requeued"
  sleep 1
done
# Slurm holds a requeued job for about two minutes (Reason=BeginTime); release it at once.
held_or_running() { [[ $(job_field Reason) == BeginTime || $(job_field JobState) == RUNNING ]]; }
wait_until 60 "requeued job $job held or running" held_or_running
[[ $(job_field Reason) == BeginTime ]] && slurm scontrol update JobId="$job" StartTime=now
out=$scratch/trn-run-$job.out
wait_job "$job" >/dev/null || { cat "$out"; fail "resumed job failed"; }
# The trainer itself (not only trn-run) resumed: it names the checkpoint it loaded, and the first
# step it trains after that is the one after the checkpoint's.
ckpt_step=$(trainer_resumed_step "$out" "$run" 4) || exit 1
# trn-run found the lost node itself (it did not answer a one-task step) and drained it.
slurm scontrol show node -o "$victim" | grep -q 'Reason=trn-health: runtime: lost' ||
  fail "$victim not drained as lost: $(slurm scontrol show node -o "$victim" | grep -o 'Reason=.*')"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after requeue vs uninterrupted"
echo "ok: resumed after requeue to final loss $(final_loss "$run")"
