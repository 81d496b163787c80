#!/usr/bin/env bash
# A run stopped by scancel continues in a new job with --resume RUN_DIR: the first job prints
# how, the second trains in the first's run directory (on another node count: strong scaling
# keeps the global batch) and the trainer resumes from the first job's checkpoint.
source "$(dirname "$0")/../lib.sh"
make_scratch
base=(bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --set checkpoint_every=4)
args=("${base[@]}" --steps 24)
first=$(slurm_with_tools sbatch --parsable --exclusive --nodes=1 -D "$scratch" trn-run "${args[@]}")
run="$scratch/runs/bert_tiny-$first"
wait_until 300 "checkpoint $run/ckpt_4 committed" test -f "$run/ckpt_4.json"
slurm scancel "$first"
state=$(job_end_state "$first")
expect_eq "$state" CANCELLED "state of the cancelled job"
grep -qF "continue it with: sbatch --nodes=1 trn-run bert_tiny --resume $run" "$scratch/trn-run-$first.out" ||
  { cat "$scratch/trn-run-$first.out"; fail "the first job did not say how to continue its run"; }
newest=$(newest_checkpoint "$run")
echo "cancelled job $first after its step-$newest checkpoint"

second=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${args[@]}" --resume "$run")
out=$scratch/trn-run-$second.out
wait_job "$second" >/dev/null || { cat "$out"; fail "the resuming job failed"; }
grep -qE "^resumed from $run/ckpt_${newest}\.pt" "$out" ||
  { cat "$out"; fail "the trainer did not say it resumed from $run/ckpt_$newest.pt"; }
[[ ! -e $scratch/runs/bert_tiny-$second ]] || fail "the resuming job made a run directory of its own"
expect_eq "$(json_field "$run/plan.json" "d['job_id']")" "$second" "job of the run directory's plan"
test -f "$run/ckpt_24.pt" || fail "the resumed run did not finish in $run"

# A third job on the second's node count continues the finished run for 4 more steps. Its logs
# have the second job's names: what it prints before the trainer resumes is its own, never the
# earlier job's log replayed (its steps, its "done:" line) (issue 33.8).
third=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${base[@]}" \
  --steps 28 --resume "$run")
out=$scratch/trn-run-$third.out
wait_job "$third" >/dev/null || { cat "$out"; fail "the third job failed"; }
grep -qE "^resumed from $run/ckpt_24\.pt" "$out" || { cat "$out"; fail "the third job did not resume from ckpt_24.pt"; }
expect_eq "$(grep -c '^resumed from' "$out")" 1 "'resumed from' lines in the third job's output"
replayed=$(awk '/^step [0-9]+\// { split($2, n, "/"); if (n[1] <= 24) old++ } END { print old + 0 }' "$out")
expect_eq "$replayed" 0 "steps of the earlier job (1-24) in the third job's output"
ls "$run"/logs/train_*_2.log.before-* >/dev/null || fail "the second job's logs were not kept: $(ls "$run/logs")"

# A plan that does not fit the run directory is refused before anything runs.
bad=$(slurm_with_tools sbatch --parsable --nodes=1 -D "$scratch" trn-run "${args[@]}" --global-batch 128 --resume "$run")
job_end_state "$bad" >/dev/null
expect_eq "$(slurm scontrol show job -o "$bad" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2)" "2:0" "exit code of the misfit resume"
grep -qF "the run there has global_batch 64 but this plan 128" "$scratch/trn-run-$bad.out" ||
  fail "misfit resume message: $(cat "$scratch/trn-run-$bad.out")"
echo "ok: job $second resumed job $first's run from ckpt_$newest.pt"
