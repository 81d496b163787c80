#!/usr/bin/env bash
# The object-store tier of checkpoints when the store goes down (docs/recovery.md, fault matrix):
# a real S3 API (s3rver from npm) on a node of the local cluster, a 2-node bert_tiny job uploading
# every checkpoint to it (-- --checkpoint-uri s3://...).
# 1. The store stops once checkpoint 4 or later is in it, during the uploads that follow: the uploads fail
#    with warnings (the trainer counts them), training goes on and ends at the uninterrupted
#    run's final loss.
# 2. A new job in an empty run directory whose only checkpoints are in the store, with the store
#    down: a warning naming the store, the trainer starts from step 0 (its own metrics), and ends
#    at the uninterrupted run's final loss.
# 3. The store up again and holding a finished run's newest checkpoint whole, the run directory's
#    copy damaged (a byte flipped in its shard): a job continuing the run (--resume) fetches the
#    store's copy over the damaged one and the trainer resumes from that step, not an older one.
source "$(dirname "$0")/../lib.sh"
make_scratch
s3rver=${TRN_S3RVER:-/usr/local/lib/trn-s3rver/node_modules/.bin/s3rver}
[[ -x $s3rver ]] || fail "$s3rver missing: run scripts/bootstrap (it installs s3rver from npm)"
store_node=4
address=$(address_of "$store_node")
port=$((20000 + $$ % 9000))
store_running() { pgrep -f "$s3rver -d $scratch/s3 " >/dev/null; }
stop_store() { pkill -f "$s3rver -d $scratch/s3 " || true; wait_until 30 "s3rver stopped" eval '! store_running'; }
on_exit stop_store
store_answers() { on_node 1 bash -c "exec 3<>/dev/tcp/$address/$port" 2>/dev/null; }
mkdir -p "$scratch/s3"
start_store() {
  cluster on "$(node "$store_node")" "$s3rver" -d "$scratch/s3" -a "$address" -p "$port" \
    --configure-bucket trn-test --silent >>"$scratch/s3rver.log" 2>&1 &
  wait_until 60 "s3rver answering on $address:$port" store_answers
}
start_store
# sbatch exports this environment to the job's steps: boto3 on every rank finds the store.
store_env=(AWS_ENDPOINT_URL="http://$address:$port" AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
  AWS_DEFAULT_REGION=us-east-1)
run_job() {  # run_job OUTPUT_ROOT PREFIX STEPS [trn-run options]: the reference run's profile and
  # data as a 2-node job on nodes 1 and 2, storing in s3://trn-test/runs/PREFIX
  local root=$1 prefix=$2 steps=$3
  shift 3
  slurm_with_tools env "${store_env[@]}" sbatch --parsable --exclusive --nodes=2 \
    --nodelist="$(node 1),$(node 2)" -D "$scratch" trn-run "${reference_args[@]:0:3}" --steps "$steps" \
    --output-root "$root" --set checkpoint_every=2 "$@" -- --checkpoint-uri "s3://trn-test/runs/$prefix"
}
[[ ${reference_args[3]} == --steps ]] || fail "lib.sh's reference_args changed: $(declare -p reference_args)"
# The newest checkpoint manifest in the store (0: none); s3rver keeps an object as files named
# after its key.
newest_stored() {
  find "$scratch/s3/trn-test/runs/a" -name 'ckpt_*.json*' 2>/dev/null |
    sed -n 's/.*ckpt_\([0-9]*\)\.json.*/\1/p' | sort -n | tail -n 1 | grep . || echo 0
}

# 1. Down during the uploads.
job=$(run_job "$scratch/first" a "${reference_args[4]}")
run="$scratch/first/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
job_running() { [[ -n $(slurm squeue -h -j "$1" -o %T 2>/dev/null) ]]; }
checkpoint_4_stored() {  # fails the test when the job ended first
  (($(newest_stored) >= 4)) && return 0
  job_running "$job" || { tail -n 40 "$out"; fail "job $job ended before checkpoint 4 or later reached the store"; }
  return 1
}
wait_until 300 "checkpoint 4 or later in the store" checkpoint_4_stored
stop_store
echo "stopped the store after checkpoint $(newest_stored) reached it (job $job)"
[[ $(job_end_state "$job") == COMPLETED ]] || { tail -n 40 "$out"; fail "job $job did not complete with the store down"; }
failed=$(json_field "$run/results.json" "d['results']['checkpoints']['uploads_failed']")
((failed > 0)) || { tail -n 40 "$out"; fail "the trainer counted no failed upload after the store stopped"; }
grep -q "warning: .*s3://trn-test/runs/a" "$out" || { tail -n 40 "$out"; fail "no warning names the store"; }
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss with the store down during uploads vs uninterrupted"
echo "1: $failed uploads failed, training went on to the reference's final loss"

# 2. Down when a new job would restore from it.
job=$(run_job "$scratch/second" a "${reference_args[4]}")
run="$scratch/second/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
[[ $(job_end_state "$job") == COMPLETED ]] || { tail -n 40 "$out"; fail "job $job did not complete with the store down"; }
grep -q "warning: .*s3://trn-test/runs/a" "$out" || { tail -n 40 "$out"; fail "no warning names the store"; }
! grep -q "^resumed from" "$out" || fail "the trainer resumed from something: $(grep '^resumed from' "$out")"
expect_eq "$("$python" -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['step'])" "$run/metrics.jsonl")" 1 \
  "the first step the trainer recorded"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss of a job whose store is down at its start vs uninterrupted"
echo "2: the store down at the start cost a warning; the trainer started from step 0"

# 3. A damaged run-directory checkpoint, the store holding it whole.
start_store
job=$(run_job "$scratch/third" c "${reference_args[4]}")
run="$scratch/third/bert_tiny-$job"
[[ $(job_end_state "$job") == COMPLETED ]] || { tail -n 40 "$scratch/trn-run-$job.out"; fail "job $job failed"; }
newest=$(newest_checkpoint "$run")
[[ -n $(find "$scratch/s3/trn-test/runs/c" -name "ckpt_$newest.json*") ]] || fail "checkpoint $newest is not in the store"
"$python" - "$run/ckpt_$newest.pt" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 0xFF  # the same size: only its checksum tells
open(sys.argv[1], "wb").write(bytes(data))
PY
job=$(run_job "$scratch/third" c 28 --resume "$run")
out="$scratch/trn-run-$job.out"
[[ $(job_end_state "$job") == COMPLETED ]] || { tail -n 40 "$out"; fail "the continuing job $job failed"; }
# Whichever rank reads the damaged shard first fetches it (one at a time per run directory), so
# the line is in that rank's node log: the job's output has rank 0's alone.
grep -rq "fetched checkpoint of step $newest from s3://trn-test/runs/c into $run over its damaged copy" "$out" "$run/logs" ||
  { tail -n 40 "$out"; fail "the trainer did not fetch checkpoint $newest from the store over the damaged copy"; }
checkpoint_whole "$run" "$newest" || fail "checkpoint $newest in the run directory is not the committed one after the fetch"
grep -qE "^resumed from $run/ckpt_$newest\.pt" "$out" || { tail -n 40 "$out"; fail "the trainer did not resume from ckpt_$newest.pt"; }
expect_eq "$("$python" -c "import json,sys; print([json.loads(l)['step'] for l in open(sys.argv[1])][$newest])" "$run/metrics.jsonl")" \
  "$((newest + 1))" "the first step the continuing job recorded"
echo "ok: the store down during uploads and at a restore cost warnings, not the runs; a damaged local checkpoint came back from the store"
