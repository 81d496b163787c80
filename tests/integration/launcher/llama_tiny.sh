#!/usr/bin/env bash
# `sbatch --nodes=2 trn-run llama_tiny` (docs/llama.md): two workers per node form one
# tensor-parallel group, data parallel across the nodes; the run gives the losses of a single
# process training the same global batch without any parallelism (within 1e-4).
source "$(dirname "$0")/../lib.sh"
make_scratch
data=$scratch/data
prepare_lm_data "$data"
args=(llama_tiny --data "$data" --steps 8)
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${args[@]}" --output-root "$scratch/runs")
wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "the llama_tiny job failed"; }
run=$scratch/runs/llama_tiny-$job
grep -q "^world size        4 = tp 2 x pp 1 x dp 2" "$scratch/trn-run-$job.out" ||
  fail "the plan's world: $(grep '^world size' "$scratch/trn-run-$job.out")"
grep -q "tp 2 x dp 2" "$scratch/trn-run-$job.out" || fail "the trainer did not run tp 2 x dp 2"
expect_eq "$(ls "$run"/logs/train_*_2.log | wc -l)" 2 "per-node training logs"

PYTHONPATH=$TRN_SOURCE_DIR/trainer "$python" -m trn_trainer pretrain-lm --data "$data" --output "$scratch/single" \
  --model tiny --micro-batch 2 --global-batch 16 --steps 8 --lr 1e-3 --warmup 2 --seed 12345 >/dev/null
"$python" - "$run" "$scratch/single" <<'PY' || fail "loss curves"
import json, sys
curves = [[json.loads(line)["loss"] for line in open(run + "/metrics.jsonl")] for run in sys.argv[1:]]
assert len(curves[0]) == len(curves[1]) == 8, [len(c) for c in curves]
worst = max(abs(a - b) for a, b in zip(*curves))
print("tp 2 x dp 2:", " ".join("%.5f" % x for x in curves[0]), "| one process within %.1e" % worst)
sys.exit(0 if worst < 1e-4 and curves[0][-1] < curves[0][0] else "the losses differ or do not fall")
PY
echo ok
