#!/usr/bin/env bash
# Two nodes lost at once with one spare (docs/recovery.md#fault-matrix): a 4-node job with
# --spare-nodes 1 trains on 3 nodes; after checkpoint 4, nodes 2 and 3 die together. One spare
# cannot replace two: trn-run drains both as lost, finds no spare left and, with requeue off,
# ends the job cleanly with exit 5 ("no spare node left"), the checkpoint it had committed intact
# for a later job (--resume).
source "$(dirname "$0")/../lib.sh"
make_scratch
args=(bert_tiny --data "$(test_data_dir)" --steps 24 --global-batch 48 --output-root "$scratch/runs"
  --set checkpoint_every=4 --set requeue=never)
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=4 --nodelist="$(node 1),$(node 2),$(node 3),$(node 4)" \
  -D "$scratch" trn-run "${args[@]}" --spare-nodes 1)
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
wait_until 300 "a checkpoint at step 4 or later in $run" checkpoint_since "$run" 4
kill_node_until_exit "$(node 2)"
kill_node_until_exit "$(node 3)"
committed=$(newest_checkpoint "$run")
echo "lost $(node 2) and $(node 3) together after checkpoint $committed"

state=$(job_end_state "$job")
[[ $state == FAILED ]] || { cat "$out"; fail "job $job ended $state, expected FAILED"; }
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2)" "5:0" "exit code with no spare left"
grep -q "no spare node left" "$out" || { cat "$out"; fail "the end does not say that no spare was left"; }
grep -q "trn-run: training (restart" "$out" && { cat "$out"; fail "a step was restarted without a spare for both nodes"; }
for i in 2 3; do
  slurm scontrol show node -o "$(node "$i")" | grep -q 'Reason=trn-health: runtime: lost' ||
    fail "$(node "$i") not drained as lost: $(slurm scontrol show node -o "$(node "$i")" | grep -o 'Reason=.*')"
done
# The committed checkpoint stays readable for the next job: the trainer loads it.
newest=$(newest_checkpoint "$run")
((newest >= committed)) || fail "checkpoint $committed is gone (newest now $newest)"
PYTHONPATH=$TRN_SOURCE_DIR/trainer "$python" - "$run" "$newest" <<'PY' || fail "checkpoint $newest cannot be loaded"
import sys
from trn_trainer.checkpoint.restore import load_newest
from trn_trainer.checkpoint.tiers import Tiers
state, step, _ = load_newest(Tiers(sys.argv[1], keep=0), print)
assert step == int(sys.argv[2]) and state["step"] == step, (step, sys.argv[2])
print("checkpoint", step, "loads")
PY
echo "ok: two nodes lost with one spare: exit 5, both drained, checkpoint $newest intact"
