#!/usr/bin/env bash
# A node lost during training of a trn-run job (which asks for --requeue): its slurmd and every
# process on it die. The job is requeued, resumes from the last checkpoint, and ends at the same
# final loss as an uninterrupted run. (Killing slurmd alone leaves the node's rank training,
# and a fast machine finishes before Slurm notices: tests/integration/cluster covers that.)
source "$(dirname "$0")/../lib.sh"
make_scratch
args=(bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --steps 24 --set checkpoint_every=4)
reference=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${args[@]}")
wait_job "$reference" >/dev/null

job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${args[@]}")
run="$scratch/runs/bert_tiny-$job"
until [[ -f $run/ckpt_4.pt ]]; do sleep 0.2; done
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
until [[ $(job_field Reason) == BeginTime || $(job_field JobState) == RUNNING ]]; do sleep 0.2; done
[[ $(job_field Reason) == BeginTime ]] && slurm scontrol update JobId="$job" StartTime=now
wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "resumed job failed"; }
grep -q "restart 1: resuming" "$scratch/trn-run-$job.out" || fail "the job did not say it resumed"
final() { json_field "$1/results.json" "[m['MeasuredValue'] for m in d['results']['metrics'] if m['MetricName'] == 'Final loss'][0]"; }
expect_eq "$(final "$run")" "$(final "$scratch/runs/bert_tiny-$reference")" "final loss after requeue vs uninterrupted"
echo "ok: resumed after requeue to final loss $(final "$run")"
