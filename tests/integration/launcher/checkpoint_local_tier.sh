#!/usr/bin/env bash
# The node-local checkpoint tier through trn-run: with checkpoint_local_dir set, trn-run gives
# the training step TRN_CHECKPOINT_LOCAL_DIR (bert_tiny's command has no checkpoint flag), every
# rank of a two-node job writes its shard first to <checkpoint_local_dir>/<run directory's name>
# and then to the run directory, and a new job with --resume RUN_DIR reads the shards from the
# node-local tier. The local cluster's nodes share one file system, so both nodes' node-local
# folders are the same path.
source "$(dirname "$0")/../lib.sh"
make_scratch
args=(bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --set checkpoint_every=4
  --set "checkpoint_local_dir=$scratch/local")
first=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${args[@]}" --steps 8)
out=$scratch/trn-run-$first.out
wait_job "$first" >/dev/null || { cat "$out"; fail "the first job failed"; }
run=$scratch/runs/bert_tiny-$first
local_tier=$scratch/local/bert_tiny-$first
grep -qF "local checkpoints $local_tier on every node" "$out" ||
  { cat "$out"; fail "the plan does not name the run's node-local folder"; }
grep -qF "TRN_CHECKPOINT_LOCAL_DIR=$local_tier (training step)" "$out" ||
  { cat "$out"; fail "the plan does not say the training step gets TRN_CHECKPOINT_LOCAL_DIR"; }
expect_eq "$(json_field "$run/plan.json" "d['checkpoint_local_dir']")" "$local_tier" "plan.json's node-local folder"
for tier in "$local_tier" "$run"; do
  for file in ckpt_8.pt ckpt_8.shard1.pt ckpt_8.json; do
    [[ -f $tier/$file ]] || { ls -l "$tier"; fail "$tier has no $file"; }
  done
  expect_eq "$(json_field "$tier/ckpt_8.json" "sorted(e['rank'] for e in d['shards'])")" "[0, 1]" \
    "ranks in the manifest of $tier"
done

second=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${args[@]}" \
  --steps 12 --resume "$run")
out=$scratch/trn-run-$second.out
wait_job "$second" >/dev/null || { cat "$out"; fail "the resuming job failed"; }
grep -E "^resumed from $run/ckpt_8\.pt " "$out" | grep -qF "shards read from the node-local tier $local_tier" ||
  { cat "$out"; fail "the resuming job did not read ckpt_8's shards from the node-local tier"; }
[[ -f $local_tier/ckpt_12.json && -f $run/ckpt_12.json ]] || fail "the resumed run did not checkpoint step 12 in both tiers"
echo "ok: job $second resumed job $first's run from the node-local tier $local_tier"
