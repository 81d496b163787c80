#!/usr/bin/env bash
# A failure while a recovery is under way (docs/recovery.md#restart): a 4-node job with
# --spare-nodes 2 loses its second node; the moment trn-run has put the first spare in its place,
# that spare is lost too, as the new training step starts. The new step fails or never gets all
# its ranks started (the start-up limit of a restarted step), trn-run finds the lost spare and
# puts the second spare in its place. The job is never requeued and the final loss equals an
# uninterrupted 2-node run's.
source "$(dirname "$0")/../lib.sh"
make_scratch
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=2)
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=4 --nodelist="$(node 1),$(node 2),$(node 3),$(node 4)" \
  -D "$scratch" trn-run "${args[@]}" --spare-nodes 2 --hang-timeout 4)
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
says() { file_says "$out" "$1"; }

wait_until 300 "a checkpoint at step 4 or later in $run" checkpoint_since "$run" 4
kill_node_until_exit "$(node 2)"
wait_until 60 "$(node 2) replaced by $(node 3)" says "replaced $(node 2) -> $(node 3)"
kill_node_until_exit "$(node 3)"
echo "lost $(node 2), then $(node 3) as it took over"

state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$out"; fail "job $job ended $state"; }
says "replaced $(node 3) -> $(node 4)" || { cat "$out"; fail "$(node 3) not replaced by $(node 4)"; }
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)" 0 "Slurm requeues of job $job"
json_field "$run/results.json" "d['phases']['recoveries']" | sed 's/^/recoveries: /'
expect_eq "$(json_field "$run/results.json" "' '.join(','.join(r['nodes']) for r in d['phases']['recoveries'])")" \
  "$(node 2) $(node 3)" "nodes taken out, in order"
expect_eq "$(json_field "$run/results.json" "[r['resumed'] for r in d['phases']['recoveries']]")" "[False, True]" \
  "whether each restarted step resumed"
# "resumed" says every rank of the new step started; from where is the trainer's to say: the
# step its ranks reported first (heartbeats) and its own "resumed from" line agree, at the
# checkpoint of step 4 or later that the job had written.
resumed=$(json_field "$run/results.json" "d['phases']['recoveries'][1]['resumed_from_step']")
((resumed >= 4)) || { cat "$out"; fail "the last restart started from step $resumed, not from checkpoint 4 or later"; }
grep -q "^resumed from $run/ckpt_$resumed.pt (step $resumed" "$out" ||
  { cat "$out"; fail "the trainer did not say it resumed from ckpt_$resumed.pt"; }
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after a failure during recovery vs uninterrupted"
echo "ok: a spare lost as it took over was replaced in job $job, final loss $(final_loss "$run")"
