#!/usr/bin/env bash
# A node lost during a restore (docs/recovery.md, fault matrix): a 4-node job, 2 training nodes
# and 2 spares. The second training node is lost after checkpoint 4; the first spare takes its
# place and its rank starts restoring the checkpoint, held there
# (tests/trainer/helpers/slow_restore.py) until the test kills that spare too. The second spare
# takes over, the trainer restores again from the same committed checkpoint, and the run ends at
# the uninterrupted run's final loss, in the same job.
source "$(dirname "$0")/../lib.sh"
make_scratch
for i in 2 3; do on_exit "slurm scontrol update NodeName=$(node "$i") State=RESUME >/dev/null 2>&1 || true"; done
sed "s|python3 -m trn_trainer pretrain|python3 -m slow_restore pretrain|" \
  "$TRN_SOURCE_DIR/launcher/profiles/bert_tiny.yaml" >"$scratch/bert_tiny_held_restore.yaml"
grep -q slow_restore "$scratch/bert_tiny_held_restore.yaml" || fail "bert_tiny.yaml's command changed"
mkdir -p "$scratch/marks" && chmod 0777 "$scratch/marks"
job=$(slurm_with_tools env PYTHONPATH="$TRN_SOURCE_DIR/tests/trainer/helpers" TRN_SLOW_RESTORE_S=30 \
  TRN_RESTORE_MARK_DIR="$scratch/marks" \
  sbatch --parsable --exclusive --nodes=4 --nodelist="$(node 1),$(node 2),$(node 3),$(node 4)" -D "$scratch" \
  trn-run "$scratch/bert_tiny_held_restore.yaml" "${reference_args[@]:1}" --output-root "$scratch/runs" \
  --set checkpoint_every=2 --spare-nodes 2 --hang-timeout 60)
run="$scratch/runs/bert_tiny_held_restore-$job"
out="$scratch/trn-run-$job.out"
wait_until 300 "a checkpoint at step 4 or later in $run" checkpoint_since "$run" 4
kill_node_until_exit "$(node 2)"
wait_until 90 "$(node 2) replaced by $(node 3)" file_says "$out" "replaced $(node 2) -> $(node 3)"
wait_until 120 "rank 1 restoring on $(node 3)" test -e "$scratch/marks/rank-1"
restoring=$(cat "$scratch/marks/rank-1")
kill_node_until_exit "$(node 3)"
echo "lost $(node 3) while its rank restored checkpoint $restoring"
state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { tail -n 40 "$out"; fail "job $job ended $state"; }
grep -q "replaced $(node 3) -> $(node 4)" "$out" || { tail -n 40 "$out"; fail "$(node 3) not replaced by $(node 4)"; }
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)" 0 "Slurm requeues of job $job"
last=$(json_field "$run/results.json" "d['phases']['recoveries'][-1]['resumed_from_step']")
((last >= restoring)) || { tail -n 40 "$out"; fail "the last restart resumed from step $last, before checkpoint $restoring"; }
grep -qE "^resumed from $run/ckpt_$last\.pt" "$out" || { tail -n 40 "$out"; fail "the trainer did not say it resumed from ckpt_$last.pt"; }
expect_eq "$(json_field "$run/results.json" "d['plan']['nodes']")" 2 "nodes training at the end"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after a node lost during a restore vs uninterrupted"
echo "ok: lost $(node 3) during the restore of checkpoint $restoring; resumed from $last (next step $(next_step_s "$run") s after the second loss was found), final loss $(final_loss "$run")"
