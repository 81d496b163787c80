#!/usr/bin/env bash
# A node lost while an asynchronous checkpoint is being written (docs/recovery.md, fault matrix;
# issue 27's first repro): a 3-node job, 2 training nodes and a spare, a checkpoint every 4
# steps written in the background. Rank 1's shard of checkpoint 8 is held
# (tests/trainer/helpers/slow_shard_writes.py) while rank 0's is written, and the second training
# node is lost in that write: checkpoint 8 is left as a shard without its manifest. It must never
# be read: the spare takes the lost node's place, the trainer warns that step 8 was cut off,
# resumes from checkpoint 4 and ends at the uninterrupted run's final loss.
source "$(dirname "$0")/../lib.sh"
make_scratch
sed "s|python3 -m trn_trainer pretrain|python3 -m slow_shard_writes pretrain|" \
  "$TRN_SOURCE_DIR/launcher/profiles/bert_tiny.yaml" >"$scratch/bert_tiny_held_save.yaml"
grep -q slow_shard_writes "$scratch/bert_tiny_held_save.yaml" || fail "bert_tiny.yaml's command changed"
mkdir -p "$scratch/marks" && chmod 0777 "$scratch/marks"
job=$(slurm_with_tools env PYTHONPATH="$TRN_SOURCE_DIR/tests/trainer/helpers" TRN_SLOW_WRITE_S=60 \
  TRN_SLOW_WRITE_STEP=8 TRN_SLOW_WRITE_RANKS=1 TRN_WRITE_MARK_DIR="$scratch/marks" \
  sbatch --parsable --exclusive --nodes=3 --nodelist="$(node 1),$(node 2),$(node 3)" -D "$scratch" \
  trn-run "$scratch/bert_tiny_held_save.yaml" "${reference_args[@]:1}" --output-root "$scratch/runs" \
  --set checkpoint_every=4 --spare-nodes 1 --hang-timeout 60)
run="$scratch/runs/bert_tiny_held_save-$job"
out="$scratch/trn-run-$job.out"
# Rank 1 held in its write of checkpoint 8, rank 0's shard of it written: a save without a commit.
cut_off() { [[ -e $scratch/marks/step-8-rank-1 && -e $run/ckpt_8.pt && ! -e $run/ckpt_8.json ]]; }
wait_until 300 "rank 1 held in checkpoint 8's write, rank 0's shard written" cut_off
kill_node_until_exit "$(node 2)"
echo "lost $(node 2) while checkpoint 8 was written"
[[ ! -e $run/ckpt_8.json ]] || fail "checkpoint 8 was committed before the node was lost: the fault came too late"
state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { tail -n 40 "$out"; fail "job $job ended $state"; }
grep -q "replaced $(node 2) -> $(node 3)" "$out" || { tail -n 40 "$out"; fail "$(node 2) not replaced by $(node 3)"; }
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)" 0 "Slurm requeues of job $job"
resumed=$(json_field "$run/results.json" "d['phases']['recoveries'][0]['resumed_from_step']")
expect_eq "$resumed" 4 "the step the trainer resumed from (checkpoint 8 was cut off)"
grep -qE "^resumed from .*ckpt_4\.(pt|json)" "$out" || { tail -n 40 "$out"; fail "the trainer did not say it resumed from checkpoint 4"; }
grep -q "warning: step(s) 8 in .* have files but no committed manifest" "$out" ||
  { tail -n 40 "$out"; fail "the trainer did not warn that checkpoint 8 was cut off"; }
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after a node lost in a checkpoint write vs uninterrupted"
echo "ok: lost in checkpoint 8's write, resumed from step $resumed (next step $(next_step_s "$run") s after the loss was found), final loss $(final_loss "$run")"
