#!/usr/bin/env bash
# Nodes lost before the first step (docs/recovery.md#fault-matrix): a 4-node job with
# --spare-nodes 2 trains on 2 nodes, compiling first with the neuron_parallel_compile test double
# (tests/doubles; each node's compiler cache in its own /dev/shm, lost with it).
# (1) The second node is lost while it compiles: trn-run finds it, drains it, puts the first
# spare in its place and compiles again there (the compiler really runs on the spare: its log).
# (2) The node of rank 1 then dies once its rank has started (its heartbeat exists) but before it
# finished any step. No checkpoint exists: the second spare takes its place and the new step
# trains from step 0 (what the ranks report in their heartbeats and results.json), to the
# uninterrupted run's final loss, in the same job.
source "$(dirname "$0")/../lib.sh"
make_scratch
export NEURON_COMPILE_CACHE_URL=/dev/shm/trn-test-compile-cache TRN_TEST_NPC_LOG="$scratch/npc.log"
# 3 graphs of 2 s each: a compile long enough to lose a node in.
export TRN_TEST_NPC_COMPILE_SECONDS=2
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=4)
job=$(with_compiler_double sbatch --parsable --exclusive --nodes=4 --nodelist="$(node 1),$(node 2),$(node 3),$(node 4)" \
  -D "$scratch" trn-run "${args[@]}" --spare-nodes 2 --cache-shared "$scratch/shared-cache")
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
on_exit "slurm scancel $job 2>/dev/null || true"

# (1) In the compile phase: node 2's compiler has its graphs and compiles them.
compile_log() { echo "$run/logs/compile_$1_2.log"; }
compiling() { grep -qs "New graph list from script [1-9]" "$(compile_log "$1")"; }
wait_until 300 "$(node 2) compiling" compiling "$(node 2)"
kill_node_until_exit "$(node 2)"
echo "lost $(node 2) while it compiled"
wait_until 120 "$(node 2) replaced by $(node 3) in the compile phase" \
  file_says "$out" "node lost in the compile phase on $(node 2); replaced $(node 2) -> $(node 3)"

# (2) Before the first step: rank 1 started on the node that replaced node 2.
beat=$run/watch/attempt-0/rank1.beat
starting() { [[ -s $beat && $(json_field "$beat" "d['step']" 2>/dev/null) == 0 ]]; }
wait_until 300 "rank 1 started, before its first step" starting
victim=$(json_field "$beat" "d['node']")
expect_eq "$victim" "$(node 3)" "node of rank 1 after the compile phase's recovery"
kill_node_until_exit "$victim"
[[ -f $run/metrics.jsonl ]] && grep -q '"step"' "$run/metrics.jsonl" &&
  echo "note: a step was logged as $victim was killed"
echo "lost $victim (rank 1) before the first step"

state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$out"; fail "job $job ended $state"; }
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)" 0 "Slurm requeues of job $job"
json_field "$run/results.json" "d['phases']['recoveries']" | sed 's/^/recoveries: /'
expect_eq "$(json_field "$run/results.json" "' '.join(r.get('phase', 'train') + ':' + ','.join(r['nodes']) for r in d['phases']['recoveries'])")" \
  "compile:$(node 2) train:$victim" "nodes taken out, by phase"
# The compile ran again with the spare: the compiler's own summary in the spare's log, and the
# run's compile record is that second, successful one.
grep -q "Total successful compilations: 3" "$(compile_log "$(node 3)")" ||
  fail "no compile on $(node 3) after it replaced $(node 2): $(cat "$(compile_log "$(node 3)")" 2>&1 | tail -n 5)"
expect_eq "$(json_field "$run/compile.json" "d['outcome']")" compiled "the compile phase's outcome"
# The restarted step's rank 1 ran on the second spare, and every rank started from step 0.
expect_eq "$(json_field "$run/watch/attempt-1/rank1.beat" "d['node']")" "$(node 4)" "node of rank 1 after the recovery"
expect_eq "$(json_field "$run/results.json" "d['phases']['recoveries'][1]['resumed_from_step']")" 0 "step the restart resumed from"
grep -q "^resumed from" "$out" && { cat "$out"; fail "the trainer resumed from a checkpoint, but none was committed"; }
for lost in "$(node 2)" "$victim"; do
  slurm scontrol show node -o "$lost" | grep -q 'Reason=trn-health: runtime: lost' ||
    fail "$lost not drained as lost: $(slurm scontrol show node -o "$lost" | grep -o 'Reason=.*')"
done
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after losing a node before the first step"
echo "ok: lost $(node 2) while compiling and $victim before the first step; spares took over, final loss $(final_loss "$run")"
