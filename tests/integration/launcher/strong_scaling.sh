#!/usr/bin/env bash
# One profile on 1, 2 and 4 nodes: the same global batch, the accumulation halving as the node
# count doubles, and the same loss curve (world-size-invariant sampling, exact accumulation).
source "$(dirname "$0")/../lib.sh"
make_scratch
steps=8
declare -A run_of
for nodes in 1 2 4; do
  job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=$nodes -D "$scratch" \
    trn-run bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --steps $steps)
  wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "job on $nodes nodes failed"; }
  run_of[$nodes]="$scratch/runs/bert_tiny-$job"
done
for nodes in 1 2 4; do
  plan=${run_of[$nodes]}/plan.json
  expect_eq "$(json_field "$plan" "d['global_batch']")" 64 "global batch on $nodes nodes"
  expect_eq "$(json_field "$plan" "d['grad_accum']")" $((8 / nodes)) "accumulation on $nodes nodes"
  expect_eq "$(json_field "${run_of[$nodes]}/results.json" "d['results']['parameters']['world_size']")" "$nodes" "trainer world size on $nodes nodes"
done
losses() { /usr/bin/python3 -c "import json,sys; print(' '.join('%.6f' % json.loads(l)['loss'] for l in open(sys.argv[1])))" "$1/metrics.jsonl"; }
/usr/bin/python3 - "${run_of[1]}" "${run_of[2]}" "${run_of[4]}" <<'PY'
import json, sys
curves = [[json.loads(line)["loss"] for line in open(run + "/metrics.jsonl")] for run in sys.argv[1:]]
assert all(len(c) == len(curves[0]) for c in curves), [len(c) for c in curves]
worst = max(abs(a - b) for c in curves[1:] for a, b in zip(curves[0], c))
print("losses (1 node):", " ".join("%.5f" % x for x in curves[0]), "| max difference %.2e" % worst)
sys.exit(0 if worst < 1e-4 else "loss curves differ by %.2e across node counts" % worst)
PY
echo "ok"
