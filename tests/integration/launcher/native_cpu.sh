#!/usr/bin/env bash
# The native path (`--native`: FSDP2 and DTensor, docs/architecture.md#native-path) through
# trn-run on the local cluster's CPU nodes, launched as on trn2 - one torchrun per node starting
# its workers: Llama-tiny at tensor parallel 2 x data parallel 2 (two nodes of two workers) and
# BERT-tiny with FSDP2 at data parallel 4 (four nodes) each give the losses of one process
# training the same global batch without any parallelism, step by step within 1e-5 (fp32).
source "$(dirname "$0")/../lib.sh"
make_scratch
data=$scratch/lm-data
prepare_lm_data "$data"
compare() {  # compare WHAT RUN_DIR SINGLE_DIR: every step's loss within 1e-5, falling
  "$python" - "$@" <<'PY'
import json, sys
what, runs = sys.argv[1], sys.argv[2:]
curves = [[json.loads(line)["loss"] for line in open(run + "/metrics.jsonl")] for run in runs]
assert len(curves[0]) == len(curves[1]) > 1, [len(c) for c in curves]
worst = max(abs(a - b) for a, b in zip(*curves))
print(f"{what}:", " ".join("%.5f" % x for x in curves[0]), "| one process within %.1e" % worst)
sys.exit(0 if worst < 1e-5 and curves[0][-1] < curves[0][0] else f"{what}: the losses differ or do not fall")
PY
}
native_job() {  # native_job NODES PROFILE ARGS...: the job's run directory
  local nodes=$1 profile=$2 job
  shift 2
  job=$(slurm_with_tools sbatch --parsable --exclusive --nodes="$nodes" -D "$scratch" trn-run "$profile" \
    --output-root "$scratch/runs" --set launch=torchrun "$@" -- --native)
  wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "the native $profile job failed"; }
  grep -q "^launch            torchrun" "$scratch/trn-run-$job.out" ||
    fail "the plan does not launch torchrun: $(grep '^launch' "$scratch/trn-run-$job.out")"
  echo "$scratch/runs/$profile-$job"
}
single() { PYTHONPATH=$TRN_SOURCE_DIR/trainer "$python" -m trn_trainer "$@" >/dev/null || fail "single process: $*"; }

run=$(native_job 2 llama_tiny --data "$data" --steps 8) || exit 1
grep -q "tp 2 x dp 2, native: DTensor + FSDP2" "$run"/logs/train_*.log ||
  fail "the Llama run was not the native path at tp 2 x dp 2: $(grep -h '^trn_trainer: llama' "$run"/logs/train_*.log)"
single pretrain-lm --data "$data" --output "$scratch/lm-single" --model tiny --micro-batch 2 --global-batch 16 \
  --steps 8 --lr 1e-3 --warmup 2 --seed 12345
compare "native Llama tp 2 x dp 2" "$run" "$scratch/lm-single" || fail "native Llama losses"

run=$(native_job 4 bert_tiny --data "$(test_data_dir)" --steps 8) || exit 1
single pretrain --data "$(test_data_dir)" --output "$scratch/bert-single" --model tiny --micro-batch 8 \
  --global-batch 64 --steps 8 --optimizer adamw --lr 4e-4 --warmup 4 --seed 12345 --seq-len 128
grep -q "native FSDP over dp 4" "$run"/logs/train_*.log ||
  fail "the BERT run was not FSDP2 over dp 4: $(grep -h '^trn_trainer: ' "$run"/logs/train_*.log | head -1)"
compare "native BERT FSDP2 dp 4" "$run" "$scratch/bert-single" || fail "native BERT losses"
echo ok
