#!/usr/bin/env bash
# `sbatch --nodes=2 trn-run bert_finetune` (docs/finetune.md): two Slurm tasks, one per node, fine-
# tune BERT-tiny for classification; the job's metrics.jsonl (per epoch: train and eval loss,
# eval accuracy) equals that of `torchrun --nproc_per_node=2` on one machine with the profile's
# settings (within 1e-4), and the accuracy rises well above chance (1/3).
source "$(dirname "$0")/../lib.sh"
make_scratch
data=$scratch/data
"$python" "$TRN_SOURCE_DIR/tests/trainer/helpers/finetune_dataset.py" "$data"
chmod -R a+rX "$data"
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" \
  trn-run bert_finetune --data "$data" --output-root "$scratch/runs")
wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "the bert_finetune job failed"; }
run=$scratch/runs/bert_finetune-$job
out=$scratch/trn-run-$job.out
grep -q "^world size        2 = tp 1 x pp 1 x dp 2" "$out" || fail "the plan's world: $(grep '^world size' "$out")"
grep -q "world 2, micro-batch 4 x accumulation 2 = global batch 16" "$out" ||
  fail "the trainer did not run 2 ranks with accumulation 2: $(grep 'finetune BERT' "$out")"
expect_eq "$(ls "$run"/logs/train_*_2.log | wc -l)" 2 "per-node training logs"
[[ -f $run/model.pt ]] || fail "no model.pt in $run"
expect_eq "$(json_field "$run/results.json" "d['plan']['grad_accum']")" 2 "results.json carries the plan"

# The profile's command, on this machine with torchrun: 2 processes, a static rendezvous on a
# free port outside the kernel's ephemeral range (trainer_testlib.free_port says why; -r/-t: each
# worker's output comes back through torchrun's).
port=$(PYTHONPATH=$TRN_SOURCE_DIR/tests/trainer "$python" -c 'from trainer_testlib import free_port; print(free_port())')
PYTHONPATH=$TRN_SOURCE_DIR/trainer "$python" -m torch.distributed.run --nnodes 1 --node_rank 0 \
  --master_addr 127.0.0.1 --master_port "$port" --nproc_per_node 2 -r 1 -t 1 -m trn_trainer finetune \
  --train "$data/train.csv" --eval "$data/eval.csv" --vocab "$data/vocab.txt" --output "$scratch/torchrun" \
  --model tiny --seq-len 32 --micro-batch 4 --global-batch 16 --epochs 3 --lr 2e-3 --warmup 4 \
  --seed 12345 >"$scratch/torchrun.out" 2>&1 || { tail -n 30 "$scratch/torchrun.out"; fail "torchrun finetune"; }
"$python" - "$run" "$scratch/torchrun" <<'PY' || fail "metrics of the Slurm job and of torchrun"
import json, sys
rows = [[json.loads(line) for line in open(run + "/metrics.jsonl")] for run in sys.argv[1:]]
assert [len(r) for r in rows] == [3, 3], [len(r) for r in rows]
worst = max(abs(a[k] - b[k]) for a, b in zip(*rows) for k in ("train_loss", "eval_loss", "eval_accuracy"))
accuracy = [r["eval_accuracy"] for r in rows[0]]
print("sbatch -N 2: accuracy", " ".join("%.4f" % a for a in accuracy), "| torchrun within %.1e" % worst)
sys.exit(0 if worst < 1e-4 and accuracy[-1] >= 0.6 else "the metrics differ, or the accuracy stays near chance")
PY
echo ok
