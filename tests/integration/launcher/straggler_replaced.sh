#!/usr/bin/env bash
# A straggler (docs/recovery.md#heartbeats): in a 3-node job with --spare-nodes 1
# --replace-stragglers, the rank on the second node is slowed to a quarter of a CPU (as a node with
# a failing fan or a noisy neighbour runs slow). The watchdog names the node from the
# ranks' compute times, trn-run stops the step at the next committed checkpoint, drains the node
# and trains on with the spare in its place: the trainer resumes from that checkpoint with at
# most one step redone, rank 1 runs on the spare, and the final loss equals an uninterrupted
# run's.
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
# Slow for the kernel's scheduler, not for a timer of ours: the rank's process gets 25% of one
# CPU (a CFS quota in a cgroup of its own), so every window it computes in is several times the
# others' whatever else the machine does. Where the cpu controller cannot be written, a duty
# cycle of SIGSTOP and SIGCONT (stopped five sixths of the time) slows it instead.
cgroup=/sys/fs/cgroup/cpu/trn-straggler-$$
if mkdir "$cgroup" 2>/dev/null && echo 100000 >"$cgroup/cpu.cfs_period_us" && echo 25000 >"$cgroup/cpu.cfs_quota_us" &&
  echo "$pid" >"$cgroup/cgroup.procs"; then
  on_exit "rmdir $cgroup 2>/dev/null || true"
  how="a 25% CPU quota"
else
  (while kill -STOP "$pid" 2>/dev/null; do sleep 0.25; kill -CONT "$pid" 2>/dev/null; sleep 0.05; done) &
  throttle=$!
  on_exit "kill $throttle 2>/dev/null; kill -CONT $pid 2>/dev/null"
  how="SIGSTOP five sixths of the time (no writable cpu cgroup)"
fi
echo "slowing rank 1 (pid $pid) on $(node 2): $how"

state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$out"; fail "job $job ended $state"; }
grep -q "trn-run: straggler: $(node 2) computes" "$out" || { cat "$out"; fail "$(node 2) not named a straggler"; }
grep -q "replaced $(node 2) -> $(node 3)" "$out" || { cat "$out"; fail "$(node 2) not replaced by the spare"; }
slurm scontrol show node -o "$(node 2)" | grep -q 'Reason=trn-health: runtime: straggler' ||
  fail "$(node 2) not drained as a straggler"
expect_eq "$(json_field "$run/results.json" "d['phases']['stragglers'][0]['node']")" "$(node 2)" "straggler in results.json"
expect_eq "$(json_field "$run/results.json" "d['phases']['recoveries'][0]['cause']")" straggler "recovery cause"
# Where the trainer itself went on: the swap came at a committed checkpoint, so the new step
# resumed from it, and rank 1 then ran on the spare.
resumed=$(json_field "$run/results.json" "d['phases']['recoveries'][0]['resumed_from_step']")
grep -q "^resumed from $run/ckpt_$resumed.pt (step $resumed" "$out" || { cat "$out"; fail "the trainer did not say it resumed from ckpt_$resumed.pt"; }
# Steps redone: those the old step completed after the checkpoint, before trn-run stopped it
# (it looks once a second): at most one.
redone=$(json_field "$run/results.json" "d['phases']['recoveries'][0]['steps_redone']")
expect_eq "$redone" "$(json_field "$run/results.json" "d['phases']['recoveries'][0]['last_step'] - $resumed")" "steps redone after the swap"
((redone <= 1)) || fail "$redone steps redone after a swap at a checkpoint"
expect_eq "$(json_field "$run/watch/attempt-1/rank1.beat" "d['node']")" "$(node 3)" "node of rank 1 after the swap"
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after replacing the straggler vs uninterrupted"
echo "ok: straggler $(node 2) replaced (next step $(next_step_s "$run") s after it was stopped), final loss $(final_loss "$run")"
