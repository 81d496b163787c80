#!/usr/bin/env bash
# A node lost before the first step (docs/recovery.md#fault-matrix): a 3-node job with
# --spare-nodes 1 trains on 2 nodes; the node of rank 1 dies once its rank has started (its
# heartbeat exists) but before it finished any step. No checkpoint exists: trn-run puts the spare in
# its place and the new step trains from step 0 (what the ranks report in their heartbeats and
# results.json), to the uninterrupted run's final loss, in the same job.
source "$(dirname "$0")/../lib.sh"
make_scratch
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=4)
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=3 --nodelist="$(node 1),$(node 2),$(node 3)" \
  -D "$scratch" trn-run "${args[@]}" --spare-nodes 1)
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
beat=$run/watch/attempt-0/rank1.beat
starting() { [[ -s $beat && $(json_field "$beat" "d['step']" 2>/dev/null) == 0 ]]; }
wait_until 300 "rank 1 started, before its first step" starting
victim=$(json_field "$beat" "d['node']")
kill_node_until_exit "$victim"
[[ -f $run/metrics.jsonl ]] && grep -q '"step"' "$run/metrics.jsonl" &&
  echo "note: a step was logged as $victim was killed"
echo "lost $victim (rank 1) before the first step"

state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$out"; fail "job $job ended $state"; }
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)" 0 "Slurm requeues of job $job"
json_field "$run/results.json" "d['phases']['recoveries']" | sed 's/^/recoveries: /'
expect_eq "$(json_field "$run/results.json" "' '.join(','.join(r['nodes']) for r in d['phases']['recoveries'])")" \
  "$victim" "nodes taken out"
# The restarted step's rank 1 ran on the spare, and every rank started from step 0.
expect_eq "$(json_field "$run/watch/attempt-1/rank1.beat" "d['node']")" "$(node 3)" "node of rank 1 after the recovery"
expect_eq "$(json_field "$run/results.json" "d['phases']['recoveries'][0]['resumed_from_step']")" 0 "step the restart resumed from"
grep -q "^resumed from" "$out" && { cat "$out"; fail "the trainer resumed from a checkpoint, but none was committed"; }
slurm scontrol show node -o "$victim" | grep -q 'Reason=trn-health: runtime: lost' ||
  fail "$victim not drained as lost: $(slurm scontrol show node -o "$victim" | grep -o 'Reason=.*')"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after losing a node before the first step"
echo "ok: lost $victim before the first step; the spare took over from step 0, final loss $(final_loss "$run")"
