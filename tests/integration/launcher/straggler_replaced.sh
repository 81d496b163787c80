#!/usr/bin/env bash
# A straggler (docs/recovery.md#heartbeats): in a 3-node job with --spare-nodes 1
# --replace-stragglers, the rank on the second node is throttled (stopped 5/6 of the time, as a
# node with a failing fan or a noisy neighbour runs slow). The watchdog names the node from the
# ranks' compute times, trn-run stops the step at the next committed checkpoint, drains the node
# and trains on with the spare in its place; the final loss equals an uninterrupted run's.
source "$(dirname "$0")/../lib.sh"
make_scratch
on_exit "slurm scontrol update NodeName=$(node 2) State=RESUME >/dev/null 2>&1 || true"
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=4)

job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=3 --nodelist="$(node 1),$(node 2),$(node 3)" \
  -D "$scratch" trn-run "${args[@]}" --spare-nodes 1 --replace-stragglers --set straggler_window=2)
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
beat="$run/watch/attempt-0/rank1.beat"
trained_a_step() { [[ -f $beat ]] && (($(json_field "$beat" "d['step']") >= 1)); }
wait_until 300 "rank 1 of job $job past its first step" trained_a_step
pid=$(json_field "$beat" "d['pid']")
expect_eq "$(json_field "$beat" "d['node']")" "$(node 2)" "node of rank 1"
# The throttle ends by itself once the rank is gone (the step stopped for the swap). Stopped
# five sixths of the time: every 2-step window it computes in is clearly slow, even on a loaded
# machine (at three quarters, CI once saw a window that was not, and the run ended first).
(while kill -STOP "$pid" 2>/dev/null; do sleep 0.25; kill -CONT "$pid" 2>/dev/null; sleep 0.05; done) &
throttle=$!
on_exit "kill $throttle 2>/dev/null; kill -CONT $pid 2>/dev/null"
echo "throttling rank 1 (pid $pid) on $(node 2)"

state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$out"; fail "job $job ended $state"; }
grep -q "trn-run: straggler: $(node 2) computes" "$out" || { cat "$out"; fail "$(node 2) not named a straggler"; }
grep -q "replaced $(node 2) -> $(node 3)" "$out" || { cat "$out"; fail "$(node 2) not replaced by the spare"; }
slurm scontrol show node -o "$(node 2)" | grep -q 'Reason=trn-health: runtime: straggler' ||
  fail "$(node 2) not drained as a straggler"
expect_eq "$(json_field "$run/results.json" "d['phases']['stragglers'][0]['node']")" "$(node 2)" "straggler in results.json"
expect_eq "$(json_field "$run/results.json" "d['phases']['recoveries'][0]['cause']")" straggler "recovery cause"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after replacing the straggler vs uninterrupted"
echo "ok: straggler $(node 2) replaced, final loss $(final_loss "$run")"
