#!/usr/bin/env bash
# Fixture: one uninterrupted 2-node bert_tiny run of 24 steps (reference_args), whose final loss
# the recovery tests compare theirs with (a checkpoint interval does not change the losses).
source "$(dirname "$0")/../lib.sh"
dir=$(reference_dir)
rm -rf "$dir"
mkdir -p "$dir"
chmod 0777 "$dir"
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$dir" trn-run "${reference_args[@]}" --output-root "$dir/runs")
wait_job "$job" >/dev/null || { cat "$dir/trn-run-$job.out"; fail "reference job $job failed"; }
final_loss "$dir/runs/bert_tiny-$job" >"$dir/final_loss"
echo "reference final loss $(cat "$dir/final_loss")"
