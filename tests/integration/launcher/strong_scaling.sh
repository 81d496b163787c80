#!/usr/bin/env bash
# One profile on 1, 2 and 4 nodes: the same global batch, the accumulation halving as the node
# count doubles, and the same loss curve (world-size-invariant sampling, exact accumulation).
# The 2- and 4-node jobs are forecast from the 1-node run's measurements (--calibrate): their
# plans start with the forecast and results.json sets it beside what they measured. The local
# nodes share this machine's cores, which the model does not assume, so those errors are printed
# (bench/RESULTS.md); where its assumption holds - a second 1-node run, calibrated from the
# first - the forecast must be within 50% of what that run measured (+2% on a quiet machine,
# bench/RESULTS.md; CI builds and tests beside it at a lower priority, which moves either run's
# speed by up to a third).
source "$(dirname "$0")/../lib.sh"
make_scratch
steps=8
declare -A run_of
for nodes in 1 2 4; do
  calibrate=()
  if [[ $nodes -gt 1 ]]; then calibrate=(--calibrate "${run_of[1]}"); fi
  job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=$nodes -D "$scratch" \
    trn-run bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --steps $steps "${calibrate[@]}")
  wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "job on $nodes nodes failed"; }
  run_of[$nodes]="$scratch/runs/bert_tiny-$job"
  if [[ $nodes -eq 1 ]]; then first_job=$job; fi
done
for nodes in 1 2 4; do
  plan=${run_of[$nodes]}/plan.json
  expect_eq "$(json_field "$plan" "d['global_batch']")" 64 "global batch on $nodes nodes"
  expect_eq "$(json_field "$plan" "d['grad_accum']")" $((8 / nodes)) "accumulation on $nodes nodes"
  expect_eq "$(json_field "${run_of[$nodes]}/results.json" "d['results']['parameters']['world_size']")" "$nodes" "trainer world size on $nodes nodes"
done
expect_eq "$(grep -c '^forecast: none (CPU nodes have no published calibration: pass --calibrate' "$scratch/trn-run-$first_job.out")" 1 \
  "the uncalibrated 1-node plan's forecast line"
for nodes in 2 4; do
  "$python" - "${run_of[$nodes]}" "${run_of[1]}" "$nodes" <<'PY' || fail "forecast of the $nodes-node run"
import json, sys
run, calibration, nodes = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(run + "/results.json"))
f = d["forecast"]
measured = next(m["MeasuredValue"] for m in d["results"]["metrics"] if m["MetricName"] == "Average throughput")
assert f["measured_seq_per_s"] == measured, (f, measured)
assert f["step"]["seq_per_s"] > 0 and abs(f["error"] - (f["step"]["seq_per_s"] / measured - 1)) < 1e-9, f
assert calibration + "/results.json" in f["calibrated_from"], f["calibrated_from"]
print("forecast on %s nodes from the 1-node run: %.1f seq/s predicted, %.1f measured (%+.1f%%)"
      % (nodes, f["step"]["seq_per_s"], measured, 100 * f["error"]))
PY
done
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=1 -D "$scratch" \
  trn-run bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --steps $steps --calibrate "${run_of[1]}")
wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out"; fail "the second 1-node job failed"; }
"$python" - "$scratch/runs/bert_tiny-$job" <<'PY' || fail "forecast of the second 1-node run"
import json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
measured = next(m["MeasuredValue"] for m in d["results"]["metrics"] if m["MetricName"] == "Average throughput")
predicted = d["forecast"]["step"]["seq_per_s"]
error = predicted / measured - 1
print("forecast of a second 1-node run: %.1f seq/s predicted, %.1f measured (%+.1f%%)" % (predicted, measured, 100 * error))
sys.exit(0 if abs(error) < 0.5 else "the forecast misses the measured throughput by %+.0f%% (bound 50%%)" % (100 * error))
PY
losses() { "$python" -c "import json,sys; print(' '.join('%.6f' % json.loads(l)['loss'] for l in open(sys.argv[1])))" "$1/metrics.jsonl"; }
"$python" - "${run_of[1]}" "${run_of[2]}" "${run_of[4]}" <<'PY'
import json, sys
curves = [[json.loads(line)["loss"] for line in open(run + "/metrics.jsonl")] for run in sys.argv[1:]]
assert all(len(c) == len(curves[0]) for c in curves), [len(c) for c in curves]
worst = max(abs(a - b) for c in curves[1:] for a, b in zip(curves[0], c))
print("losses (1 node):", " ".join("%.5f" % x for x in curves[0]), "| max difference %.2e" % worst)
sys.exit(0 if worst < 1e-4 else "loss curves differ by %.2e across node counts" % worst)
PY
echo "ok"
