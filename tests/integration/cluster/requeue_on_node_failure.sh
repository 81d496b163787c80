#!/usr/bin/env bash
# The fault auto-resume builds on: a node's slurmd dies under a --requeue batch job; Slurm marks
# the node DOWN, requeues the job, and the job runs again with SLURM_RESTART_COUNT=1.
source "$(dirname "$0")/../lib.sh"
make_scratch
dir=$scratch
job=$(slurm sbatch --parsable --requeue -N 2 -o "$dir/out-%j" \
  --wrap 'echo "run ${SLURM_RESTART_COUNT:-0}"; [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] || sleep 300')
job_field() { slurm scontrol show job -o "$job" | grep -o " $1=[^ ]*" | cut -d= -f2; }
job_running() { [[ $(job_field JobState) == RUNNING ]]; }
wait_until 60 "job $job running" job_running
victim=$(slurm scontrol show hostnames "$(job_field NodeList)" | head -n 1)
kill_slurmd_until_exit "$victim"
echo "killed slurmd on $victim"

deadline=$((SECONDS + 90))
until [[ $(job_field Restarts) == 1 ]]; do
  ((SECONDS < deadline)) || fail "job $job was not requeued within 90s of losing $victim"
  sleep 1
done
echo "requeued after $((SECONDS + 90 - deadline))s; node state: $(slurm sinfo -h -n "$victim" -o %T)"
# Once requeued, Slurm holds the job back for about two minutes (Reason=BeginTime); release it.
until [[ $(job_field Reason) == BeginTime ]]; do
  ((SECONDS < deadline + 30)) || fail "requeued job $job never became pending (state $(job_field JobState))"
  sleep 0.2
done
slurm scontrol update JobId="$job" StartTime=now
until [[ $(job_field JobState) == COMPLETED ]]; do
  ((SECONDS < deadline + 60)) || fail "requeued job $job did not complete (state $(job_field JobState))"
  sleep 0.5
done
expect_eq "$(cat "$dir/out-$job")" "run 1" "output of the requeued run"

echo "ok: requeued job ran again after losing $victim"
