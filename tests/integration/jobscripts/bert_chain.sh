#!/usr/bin/env bash
# jobscripts/bert_pretrain_chain.sh: phase 2 is submitted with --dependency=afterok on phase 1,
# starts only after phase 1 completed, and starts from phase 1's final model (weights only, step
# 0); when phase 1 fails, phase 2 never runs.
source "$(dirname "$0")/../lib.sh"
make_scratch
chain=$TRN_SOURCE_DIR/jobscripts/bert_pretrain_chain.sh
field() { slurm scontrol show job -o "$1" | grep -o " $2=[^ ]*" | cut -d= -f2-; }

out=$(slurm_with_tools "$chain" --nodes 2 --phase1 bert_tiny --phase2 bert_tiny \
  --output-root "$scratch/runs" --sbatch-arg --chdir="$scratch" \
  -- --data "$(test_data_dir)" --steps 4)
read -r _ job1 run1 <<<"$(grep '^phase1 ' <<<"$out")"
read -r _ job2 run2 <<<"$(grep '^phase2 ' <<<"$out")"
[[ -n $job1 && -n $job2 ]] || fail "the chain printed no job ids: $out"
expect_eq "$run1" "$scratch/runs/bert_tiny-$job1" "phase 1 run directory"
expect_eq "$(field "$job2" Dependency | cut -d'(' -f1)" "afterok:$job1" "phase 2's dependency while phase 1 runs"

wait_job "$job1" >/dev/null
expect_eq "$(job_end_state "$job2")" COMPLETED "phase 2 state"
[[ $(date -d "$(field "$job2" StartTime)" +%s) -ge $(date -d "$(field "$job1" EndTime)" +%s) ]] ||
  fail "phase 2 started before phase 1 ended"
[[ -f $run1/results.json && -f $run2/results.json ]] || fail "a phase left no results.json"
grep -q "initialized from $run1/ckpt_4.pt (its model weights; a fresh optimizer and schedule, step 0)" \
  "$scratch/bert-ph2-$job2.out" ||
  fail "phase 2 did not start from phase 1's final checkpoint: $(cat "$scratch/bert-ph2-$job2.out")"
"$python" - "$run1" "$run2" <<'PY'
import json, sys
run1, run2 = sys.argv[1:]
steps = [json.loads(line) for line in open(f"{run2}/metrics.jsonl")]
assert [r["step"] for r in steps] == [1, 2, 3, 4], [r["step"] for r in steps]
first1 = json.loads(open(f"{run1}/metrics.jsonl").readline())["loss"]
# The same seed gives phase 2 phase 1's first batch: the trained weights must do better on it.
assert steps[0]["loss"] < first1, (steps[0]["loss"], first1)
print(f"phase 2 starts from phase 1's weights: first loss {steps[0]['loss']:.4f} vs {first1:.4f}")
PY

# A mistyped profile is reported before anything is queued.
before=$(slurm squeue -h -o %i | wc -l)
status=0
err=$(slurm_with_tools "$chain" --nodes 1 --phase1 no_such_profile --phase2 bert_tiny \
  --output-root "$scratch/runs" -- --data "$(test_data_dir)" --steps 4 2>&1) || status=$?
expect_eq "$status" 2 "exit status of a chain with a mistyped profile"
grep -q "nothing submitted: phase 1 does not plan: .*unknown profile 'no_such_profile'" <<<"$err" ||
  fail "mistyped profile in a chain: $err"
expect_eq "$(slurm squeue -h -o %i | wc -l)" "$before" "jobs queued by a chain with a mistyped profile"

# A phase 1 that plans but fails when it runs: phase 2 is cancelled, never run.
# (The same exception on every rank: a user error, never requeued.)
cat >"$scratch/failing.yaml" <<'YAML'
command: [python3, -c, "raise ValueError('phase 1 fails on purpose')"]
micro_batch: 8
global_batch: 64
steps: 4
cpu_workers_per_node: 1
max_restarts: 0
YAML
out=$(slurm_with_tools "$chain" --nodes 1 --phase1 "$scratch/failing.yaml" --phase2 bert_tiny \
  --output-root "$scratch/runs" --sbatch-arg --chdir="$scratch" -- --data "$(test_data_dir)" --steps 4)
read -r _ job1 _ <<<"$(grep '^phase1 ' <<<"$out")"
read -r _ job2 run2 <<<"$(grep '^phase2 ' <<<"$out")"
expect_eq "$(job_end_state "$job1")" FAILED "state of the phase 1 that fails"
expect_eq "$(job_end_state "$job2")" CANCELLED "state of phase 2 after phase 1 failed"
[[ ! -e $run2 ]] || fail "phase 2 ran although phase 1 failed"
grep -q "phase 1 fails on purpose" "$scratch/bert-ph1-$job1.out" || fail "phase 1's error is not in its output"
echo "ok"
