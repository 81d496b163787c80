#!/usr/bin/env bash
# A cluster whose plugstack.conf has no spank_trn (a shared cluster whose slurmd the user cannot
# change): `sbatch --exclusive --nodes=2 trn-run bert_tiny` still trains as one 2-rank world,
# each task set up by trn-launcher slurm-task, to the loss of the same run with the plugin (the
# trn_run_reference fixture); the plan says which way the tasks were set up.
source "$(dirname "$0")/../lib.sh"
make_scratch
cd "$scratch"
# srun and slurmstepd read plugstack.conf for every step: emptied for this test, put back after.
plugstack=$TRN_BUILD_DIR/tests/integration/plugstack.conf
cp "$plugstack" "$scratch/plugstack.saved"
on_exit "cp '$scratch/plugstack.saved' '$plugstack'"
: >"$plugstack"

job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${reference_args[@]}" \
  --output-root "$scratch/runs")
wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "job $job failed without the plugin"; }
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
expect_eq "$(json_field "$run/plan.json" "d['task_environment']")" "trn-launcher slurm-task" "plan.json's task environment"
grep -q "^task env  *trn-launcher slurm-task (spank_trn is not in the nodes' plugstack.conf)" "$out" ||
  fail "the plan does not say how the tasks were set up: $(grep -i 'task env' "$out")"
# One world of two ranks, not two worlds of one: the trainer's own record of the world it formed.
expect_eq "$(json_field "$run/results.json" "d['results']['parameters']['world_size']")" 2 "the world rank 0 trained in"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss against the run with spank_trn"
echo "ok: without spank_trn, final loss $(final_loss "$run") as with it"
