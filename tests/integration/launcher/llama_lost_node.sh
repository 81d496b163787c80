#!/usr/bin/env bash
# A Llama tp 2 job with ZeRO-1 losing a node (docs/recovery.md#fault-matrix): a 3-node
# llama_tiny job with --spare-nodes 1 trains tp 2 x dp 2 on 2 nodes (each node one tensor-parallel
# group, AdamW's state sharded over data parallelism); after checkpoint 4 the second node dies.
# The spare takes its place in the same job, every rank loads its tensor-parallel slice and its
# ZeRO-1 shard of checkpoint 4 or later, and every step's loss equals a single process training
# the same global batch without any parallelism (within 1e-5).
source "$(dirname "$0")/../lib.sh"
make_scratch
data=$scratch/data
prepare_lm_data "$data"
steps=12
args=(llama_tiny --data "$data" --steps "$steps" --output-root "$scratch/runs" --set checkpoint_every=4
  --set max_restarts=2 --spare-nodes 1)
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=3 --nodelist="$(node 1),$(node 2),$(node 3)" \
  -D "$scratch" trn-run "${args[@]}" -- --zero1)
run=$scratch/runs/llama_tiny-$job
out=$scratch/trn-run-$job.out
wait_until 300 "a checkpoint at step 4 or later in $run" checkpoint_since "$run" 4
kill_node_until_exit "$(node 2)"
echo "lost $(node 2) after checkpoint $(newest_checkpoint "$run")"

state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$out"; fail "job $job ended $state"; }
grep -q "tp 2 x dp 2" "$out" || fail "the trainer did not run tp 2 x dp 2"
grep -q -- "--zero1" "$run/plan.json" || fail "the trainer was not given --zero1: $(grep -o '"command".*' "$run/plan.json" | head -c 300)"
json_field "$run/results.json" "d['phases']['recoveries']" | sed 's/^/recoveries: /'
expect_eq "$(json_field "$run/results.json" "' '.join(','.join(r['nodes']) for r in d['phases']['recoveries'])")" \
  "$(node 2)" "nodes taken out"
expect_eq "$(json_field "$run/watch/attempt-1/rank2.beat" "d['node']")" "$(node 3)" "node of rank 2 after the recovery"
resumed=$(json_field "$run/results.json" "d['phases']['recoveries'][0]['resumed_from_step']")
((resumed >= 4)) || { cat "$out"; fail "the restart started from step $resumed, not from checkpoint 4 or later"; }

PYTHONPATH=$TRN_SOURCE_DIR/trainer "$python" -m trn_trainer pretrain-lm --data "$data" --output "$scratch/single" \
  --model tiny --micro-batch 2 --global-batch 16 --steps "$steps" --lr 1e-3 --warmup 2 --seed 12345 >/dev/null
"$python" - "$run" "$scratch/single" "$steps" <<'PY' || fail "loss curves"
import json, sys
def curve(run):  # the last loss logged for each step: a resumed run logs the steps it redid again
    losses = {}
    for line in open(run + "/metrics.jsonl"):
        record = json.loads(line)
        if "loss" in record:
            losses[record["step"]] = record["loss"]
    return [losses[s] for s in sorted(losses)]
recovered, single = curve(sys.argv[1]), curve(sys.argv[2])
assert len(recovered) == len(single) == int(sys.argv[3]), (len(recovered), len(single))
worst = max(abs(a - b) for a, b in zip(recovered, single))
print("recovered tp 2 x dp 2 (ZeRO-1):", " ".join("%.5f" % x for x in recovered), "| one process within %.1e" % worst)
sys.exit(0 if worst < 1e-5 else "the losses differ from one process's")
PY
echo "ok: llama tp 2 ZeRO-1 lost $(node 2), the spare resumed from step $resumed, losses equal one process's"
