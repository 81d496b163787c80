#!/usr/bin/env bash
# A node lost during a peer-snapshot exchange (docs/recovery.md, fault matrix): a 3-node job,
# 2 training nodes and a spare, with a snapshot every step in each node's own /dev/shm. The
# exchange of step 6's snapshot is held (tests/trainer/helpers/slow_peer_exchange.py) until the
# test has killed the second training node in it. Snapshot 6 is never committed, so it is never
# read: the spare takes the lost node's place and the trainer resumes from the newest committed
# state (snapshot 5, or a checkpoint committed since), and ends at the uninterrupted run's loss.
source "$(dirname "$0")/../lib.sh"
make_scratch
on_exit "slurm scontrol update NodeName=$(node 2) State=RESUME >/dev/null 2>&1 || true"
sed "s|python3 -m trn_trainer pretrain|python3 -m slow_peer_exchange pretrain|" \
  "$TRN_SOURCE_DIR/launcher/profiles/bert_tiny.yaml" >"$scratch/bert_tiny_held_exchange.yaml"
grep -q slow_peer_exchange "$scratch/bert_tiny_held_exchange.yaml" || fail "bert_tiny.yaml's command changed"
mkdir -p "$scratch/marks" && chmod 0777 "$scratch/marks"
job=$(slurm_with_tools env PYTHONPATH="$TRN_SOURCE_DIR/tests/trainer/helpers" TRN_SLOW_EXCHANGE_STEP=6 \
  TRN_SLOW_EXCHANGE_S=30 TRN_EXCHANGE_MARK_DIR="$scratch/marks" \
  sbatch --parsable --exclusive --nodes=3 --nodelist="$(node 1),$(node 2),$(node 3)" -D "$scratch" \
  trn-run "$scratch/bert_tiny_held_exchange.yaml" "${reference_args[@]:1}" --output-root "$scratch/runs" \
  --set checkpoint_every=10 --set checkpoint_local_dir=/dev/shm/trn-checkpoints --set snapshot_every=1 \
  --spare-nodes 1 --hang-timeout 60)
run="$scratch/runs/bert_tiny_held_exchange-$job"
out="$scratch/trn-run-$job.out"
in_exchange() { [[ -e $scratch/marks/step-6-rank-0 && -e $scratch/marks/step-6-rank-1 ]]; }
wait_until 300 "both ranks in step 6's snapshot exchange" in_exchange
kill_node_until_exit "$(node 2)"
echo "lost $(node 2) in step 6's snapshot exchange"
state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { tail -n 40 "$out"; fail "job $job ended $state"; }
grep -q "replaced $(node 2) -> $(node 3)" "$out" || { tail -n 40 "$out"; fail "$(node 2) not replaced by $(node 3)"; }
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)" 0 "Slurm requeues of job $job"
resumed=$(json_field "$run/results.json" "d['phases']['recoveries'][0]['resumed_from_step']")
((resumed != 6)) || { tail -n 40 "$out"; fail "the trainer resumed from step 6, whose snapshot exchange was cut off"; }
((resumed >= 5)) || { tail -n 40 "$out"; fail "the trainer resumed from step $resumed, older than snapshot 5"; }
grep -qE "^resumed from .*ckpt_$resumed\.(pt|json)" "$out" || { tail -n 40 "$out"; fail "the trainer did not say it resumed from step $resumed"; }
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after a node lost in a snapshot exchange vs uninterrupted"
echo "ok: lost in step 6's exchange, resumed from step $resumed (next step $(next_step_s "$run") s after the loss was found), final loss $(final_loss "$run")"
