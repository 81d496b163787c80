#!/usr/bin/env bash
# In-job recovery with spare nodes (docs/recovery.md): a 4-node trn-run job with --spare-nodes 2
# trains on 2 nodes. (1) The second training node is lost (slurmd, step daemons and tasks
# killed): trn-run finds it without waiting for Slurm, drains it and starts a new training step
# with the first spare in its place, in the same job. (2) A rank on that spare then stops
# (SIGSTOP, as a hung device would): the watchdog names it from the heartbeats, every rank's
# stack is written, its node is drained and the second spare takes over (each spare first pulls
# the shared compile-cache tier). The job is never requeued, the world keeps its size, and the
# final loss equals an uninterrupted 2-node run's. Peer snapshots every step (the node-local
# tier in each node's own /dev/shm, lost with it): each restart resumes from the newest
# snapshot, the lost node's shards from the next node's copy, not from the run directory.
source "$(dirname "$0")/../lib.sh"
make_scratch
for i in 2 3; do on_exit "slurm scontrol update NodeName=$(node "$i") State=RESUME >/dev/null 2>&1 || true"; done
# Checkpoints every 10 steps: the failures come between them, where only snapshots are newer.
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=10
  --set checkpoint_local_dir=/dev/shm/trn-checkpoints --set snapshot_every=1)
# The newest step rank 0 logged (0: none yet), and whether it is STEP or later.
newest_step() { sed -n 's/^{"step": \([0-9]*\),.*/\1/p' "$1/metrics.jsonl" 2>/dev/null | sort -n | tail -n 1 | grep . || echo 0; }
step_since() { (($(newest_step "$1") >= $2)); }

# A shared compile-cache tier: a spare pulls from it before it trains, the idle spares do not.
mkdir -p "$scratch/shared-cache"
job=$(slurm_with_tools sbatch --parsable --exclusive --nodes=4 --nodelist="$(node 1),$(node 2),$(node 3),$(node 4)" \
  -D "$scratch" trn-run "${args[@]}" --spare-nodes 2 --hang-timeout 4 --cache-shared "$scratch/shared-cache")
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
says() { file_says "$out" "$1"; }

wait_until 300 "step 4 or later logged in $run" step_since "$run" 4
grep -q "2 node(s) kept to replace a lost one in the job: $(node 3), $(node 4)" "$out" || { cat "$out"; fail "the plan names no spares"; }
[[ -f $run/logs/pull_$(node 1).json && ! -e $run/logs/pull_$(node 3).json ]] ||
  fail "the cache pull before training ran on $(ls "$run/logs"), not on the training nodes alone"
kill_node_until_exit "$(node 2)"
echo "lost $(node 2) after step $(newest_step "$run")"
wait_until 60 "$(node 2) replaced by $(node 3)" says "replaced $(node 2) -> $(node 3)"

# The restarted step on nodes 1 and 3: stop node 3's rank once it trained two more steps.
watch="$run/watch/attempt-1"
after=$(($(newest_step "$run") + 2))
wait_until 120 "step $after or later logged" step_since "$run" "$after"
pid=$(json_field "$watch/rank1.beat" "d['pid']")
node_of_rank1=$(json_field "$watch/rank1.beat" "d['node']")
expect_eq "$node_of_rank1" "$(node 3)" "node of rank 1 after the first recovery"
on_exit "kill -CONT $pid 2>/dev/null"
# Stopped inside the all-reduce, rank 1 would look like rank 0 waiting there (every rank alike:
# nobody to name). Stop it where it is alone: computing, or done with a step.
stop_outside_the_all_reduce() {
  kill -STOP "$pid"
  [[ $(json_field "$watch/rank1.beat" "d['phase']") != allreduce ]] && return 0
  kill -CONT "$pid"
  sleep 0.05
  return 1
}
wait_until 30 "rank 1 stopped outside the all-reduce" stop_outside_the_all_reduce
echo "stopped rank 1 (pid $pid) on $(node 3) after step $(newest_step "$run")"

state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$out"; fail "job $job ended $state"; }
says "hang" || { cat "$out"; fail "no hang reported"; }
says "replaced $(node 3) -> $(node 4)" || { cat "$out"; fail "$(node 3) not replaced by $(node 4) after the hang"; }
for i in 3 4; do
  [[ -f $run/logs/pull_$(node "$i").json ]] || fail "$(node "$i") did not pull the shared cache tier when it was swapped in"
done
# The stopped rank's stack cannot be written, rank 0's (waiting in the all-reduce) is.
grep -q "File " "$watch/rank0.stack" || fail "rank 0's stack not written to $watch/rank0.stack"
reason() { slurm scontrol show node -o "$(node "$1")" | grep -o 'Reason=[^=]*' ; }
reason 2 | grep -q '^Reason=trn-health: runtime: lost' || fail "node 2: $(reason 2)"
reason 3 | grep -q '^Reason=trn-health: runtime: hang' || fail "node 3: $(reason 3)"
restarts=$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)
expect_eq "$restarts" 0 "Slurm requeues of job $job"

recoveries=$(json_field "$run/results.json" "' '.join(r['cause'] + ':' + ','.join(r['nodes']) for r in d['phases']['recoveries'])")
expect_eq "$recoveries" "node lost:$(node 2) hang:$(node 3)" "recoveries in results.json"
json_field "$run/results.json" "d['phases']['recoveries']" |
  sed 's/^/recoveries: /'
# A snapshot every step: the newest is one step old, or two while it was still being written
# (a snapshot waits for the one before it, never for more).
for i in 0 1; do
  redone=$(json_field "$run/results.json" "d['phases']['recoveries'][$i]['steps_redone']")
  ((redone >= 0 && redone <= 2)) || fail "recovery $i redid $redone steps, more than a snapshot every step allows"
done
snapshot_resumes=$(grep -cE "^resumed from the nodes' snapshot /dev/shm/trn-checkpoints/bert_tiny-$job/snapshots/ckpt_[0-9]+\.json .*from another node's node-local tier, none from the run directory" "$out" || true)
expect_eq "$snapshot_resumes" 2 "restarts resumed from the nodes' snapshots"
expect_eq "$(json_field "$run/results.json" "d['results']['checkpoints']['snapshots']['peer_copies']")" True \
  "peer copies of the snapshots"
expect_eq "$(json_field "$run/results.json" "d['plan']['nodes']")" 2 "nodes training at the end"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after two recoveries vs uninterrupted"
echo "ok: two recoveries in job $job (next step $(next_step_s "$run" 0) s and $(next_step_s "$run" 1) s after each was found), final loss $(final_loss "$run")"
