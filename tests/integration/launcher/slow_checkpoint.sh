#!/usr/bin/env bash
# A checkpoint write slower than the hang deadline is not a hang (docs/recovery.md, fault matrix):
# a 2-node bert_tiny job with --hang-timeout 4 whose synchronous saves each take 6 s per shard
# (tests/trainer/helpers/slow_shard_writes.py: the trainer on storage that slow). While a rank
# writes, its heartbeat says "checkpoint" and trn-run's watchdog allows the finish floor instead
# of the hang deadline: no restart, every step trained once, the uninterrupted run's final loss.
source "$(dirname "$0")/../lib.sh"
make_scratch
sed "s|python3 -m trn_trainer pretrain|python3 -m slow_shard_writes pretrain|" \
  "$TRN_SOURCE_DIR/launcher/profiles/bert_tiny.yaml" >"$scratch/bert_tiny_slow_saves.yaml"
grep -q slow_shard_writes "$scratch/bert_tiny_slow_saves.yaml" || fail "bert_tiny.yaml's command changed: the slow-save profile runs the plain trainer"
job=$(slurm_with_tools env PYTHONPATH="$TRN_SOURCE_DIR/tests/trainer/helpers" TRN_SLOW_WRITE_S=6 \
  sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "$scratch/bert_tiny_slow_saves.yaml" \
  "${reference_args[@]:1}" --output-root "$scratch/runs" --hang-timeout 4 --set checkpoint_every=8 \
  -- --checkpoint-mode sync)
run="$scratch/runs/bert_tiny_slow_saves-$job"
out="$scratch/trn-run-$job.out"
[[ $(job_end_state "$job") == COMPLETED ]] || { tail -n 40 "$out"; fail "job $job did not complete"; }
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)" 0 "Slurm requeues of job $job"
restarts=$(json_field "$run/results.json" "len(d['phases'].get('recoveries', []))")
((restarts == 0)) || { grep -v "^step" "$out" | tail -n 40; fail "$restarts restart(s) within the job"; }
# The saves were as slow as meant: the trainer's own timing of each (the step waits for them).
saves=$(grep -cE "^checkpoint $run/ckpt_(8|16|24)\.pt \(([6-9]|[1-9][0-9])\.[0-9]+ s" "$out" || true)
((saves == 3)) || { grep "^checkpoint" "$out"; fail "expected 3 saves of 6 s or more, found $saves"; }
expect_eq "$("$python" -c "import json,sys; s=[json.loads(l)['step'] for l in open(sys.argv[1])]; print(s == list(range(1, 25)))" "$run/metrics.jsonl")" \
  True "every step trained once, in order"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss with saves slower than the hang deadline vs uninterrupted"
echo "ok: three 6 s saves under a 4 s hang deadline, no restart"
