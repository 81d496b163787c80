#!/usr/bin/env bash
# trn-run's health gate on the local cluster: every node gets its own recorded tree (--fsroot
# with %n); node 2's kernel log holds a NEURON_HW_ERR line. A 3-node job drains node 2 with a
# "trn-health:" reason, goes on with the 2 healthy nodes, and ends with the same losses as a
# clean 2-node run (strong scaling: same global batch).
source "$(dirname "$0")/../lib.sh"
make_scratch
fixtures=$TRN_SOURCE_DIR/tests/fixtures
mkdir -p "$scratch/nodes"
for i in $(seq 1 "$TRN_TEST_NODES"); do cp -r "$fixtures/cpu-only" "$scratch/nodes/$(node "$i")"; done
echo "3,9,91234567,-;neuron: NEURON_HW_ERR=HBM_UNCORRECTABLE_ERROR instance-id=i-0test nd-id=0 nc-id=1 serial-num=test action=RESTART" \
  >>"$scratch/nodes/$(node 2)/dev/kmsg"
# Whatever happens, the shared cluster gets node 2 back.
on_exit "slurm scontrol update NodeName=$(node 2) State=RESUME >/dev/null 2>&1 || true"

train() {  # train NODELIST: a job on those nodes; prints its run directory
  local nodes=$1 count job
  count=$(tr ',' '\n' <<<"$nodes" | wc -l)
  job=$(slurm_with_tools sbatch --parsable --exclusive --nodes="$count" --nodelist="$nodes" -D "$scratch" \
    trn-run bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --steps 6 --global-batch 48 \
    --fsroot "$scratch/nodes/%n")
  wait_job "$job" >/dev/null || { cat "$scratch/trn-run-$job.out" >&2; fail "job on $nodes failed"; }
  echo "$scratch/runs/bert_tiny-$job"
}

clean=$(train "$(node 1),$(node 3)")
gated=$(train "$(node 1),$(node 2),$(node 3)")
out=$(cat "$scratch/trn-run-${gated##*-}.out")

# Node 2 is drained with the fixed prefix and its evidence; the others are untouched.
line=$(slurm scontrol show node -o "$(node 2)")
grep -q 'State=[A-Z+]*DRAIN' <<<"$line" || fail "node 2 not drained: $line"
grep -q 'Reason=trn-health: kernel-log: NEURON_HW_ERR=HBM_UNCORRECTABLE_ERROR nd-id=0 nc-id=1 (permanent' <<<"$line" ||
  fail "node 2's drain reason: $line"
for i in 1 3; do
  slurm scontrol show node -o "$(node "$i")" | grep -q 'State=[A-Z+]*DRAIN' && fail "node $i drained"
done
grep -q "trn-run: $(node 2) is unhealthy (trn-health: kernel-log: " <<<"$out" || fail "no unhealthy line: $out"
grep -q 'trn-run: going on with the 2 healthy node(s)' <<<"$out" || fail "did not go on: $out"

expect_eq "$(json_field "$gated/results.json" "d['results']['parameters']['world_size']")" 2 "world size after the gate"
expect_eq "$(json_field "$gated/results.json" "d['phases']['health']['excluded']")" "['$(node 2)']" "excluded nodes"
expect_eq "$(json_field "$gated/plan.json" "d['nodes']")" 2 "planned nodes"
"$python" - "$clean" "$gated" <<'PY'
import json, sys
curves = [[json.loads(line)["loss"] for line in open(run + "/metrics.jsonl")] for run in sys.argv[1:]]
assert len(curves[0]) == len(curves[1]) > 0, [len(c) for c in curves]
worst = max(abs(a - b) for a, b in zip(*curves))
sys.exit(0 if worst < 1e-6 else "losses differ from the clean 2-node run by %.2e" % worst)
PY
echo "ok"
