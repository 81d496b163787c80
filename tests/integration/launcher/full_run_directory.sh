#!/usr/bin/env bash
# The run directory's file system full (docs/recovery.md, fault matrix). The nodes of a real
# cluster share the run directory's file system (FSx, NFS); here it is a small tmpfs, mounted
# before this test's own 2-node cluster starts so every node's mount namespace holds it (the
# shared cluster's nodes were made before it existed). Once checkpoint 4 is committed the test
# fills the file system:
# - the training step fails (the trainer cannot write its metrics) and the job ends with exit
#   status 2: the storage, not a node, so no restart (the trainer started once), no requeue, no
#   node drained; the newest committed checkpoint stays whole;
# - continuing the run (--resume) while the file system is still full is exit 2 before any step;
# - with room again, it resumes from that checkpoint and ends at the uninterrupted run's loss.
source "$(dirname "$0")/../lib.sh"
make_scratch
disk=$scratch/disk
mkdir -p "$disk"
mount -t tmpfs -o size=256m,mode=0777 tmpfs "$disk"
on_exit "umount '$disk'"
TRN_TEST_CLUSTER="${TRN_TEST_CLUSTER}f"
TRN_TEST_NODES=2
on_exit 'cluster down >/dev/null 2>&1 || true'
cluster up 2 --plugstack "$TRN_BUILD_DIR/tests/integration/plugstack.conf" >/dev/null
run_job() {  # run_job [trn-run options]: the reference run on this cluster's 2 nodes, on the small disk
  slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" trn-run "${reference_args[@]}" \
    --output-root "$disk/runs" --set checkpoint_every=4 "$@"
}
exit_code() { slurm scontrol show job -o "$1" | grep -o ' ExitCode=[0-9]*' | cut -d= -f2; }
trainer_starts() { grep -c "^trn_trainer: tiny (" "$1" || true; }
expect_no_drained_node() {
  local drained
  drained=$(slurm sinfo -h -N -t drain,drained,draining -o %N)
  [[ -z $drained ]] || fail "$1: nodes drained: $drained"
}

# 1. Full during the run.
job=$(run_job)
run="$disk/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"
wait_until 300 "checkpoint 4 committed" checkpoint_since "$run" 4
dd if=/dev/zero of="$disk/filler" bs=64k status=none 2>/dev/null || true
echo "filled $disk after checkpoint $(newest_checkpoint "$run") ($(df --output=avail -k "$disk" | tail -n 1 | tr -d ' ') KiB left)"
state=$(job_end_state "$job")
grep -m 1 "file system has" "$out" || true
[[ $state == FAILED ]] || { tail -n 40 "$out"; fail "job $job ended $state, not FAILED"; }
expect_eq "$(exit_code "$job")" 2 "job $job's exit status with its run directory full"
expect_eq "$(trainer_starts "$out")" 1 "trainer starts in job $job (a restart would redo steps it cannot keep)"
expect_eq "$(slurm scontrol show job -o "$job" | grep -o ' Restarts=[0-9]*' | cut -d= -f2)" 0 "Slurm requeues of job $job"
expect_no_drained_node "job $job"
kept=$(newest_checkpoint "$run")
((kept >= 4)) || fail "no committed checkpoint left in $run"
checkpoint_whole "$run" "$kept" || fail "checkpoint $kept is not whole after the file system filled"

# 2. Still full: a job continuing the run stops before any step.
job=$(run_job --resume "$run")
[[ $(job_end_state "$job") == FAILED ]] || fail "job $job continued a run on a full file system"
expect_eq "$(exit_code "$job")" 2 "job $job's exit status, continuing on a full file system"
expect_eq "$(trainer_starts "$scratch/trn-run-$job.out")" 0 "trainer starts in job $job"
expect_no_drained_node "job $job"

# 3. Room again: the run continues from the checkpoint that survived.
rm "$disk/filler"
job=$(run_job --resume "$run")
out="$scratch/trn-run-$job.out"
[[ $(job_end_state "$job") == COMPLETED ]] || { tail -n 40 "$out"; fail "job $job ended $(job_end_state "$job")"; }
grep -qE "^resumed from $run/ckpt_$kept\.pt" "$out" || { tail -n 40 "$out"; fail "the trainer did not resume from checkpoint $kept"; }
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after a full run directory vs uninterrupted"
echo "ok: full after checkpoint $kept: exit 2 with no restart or drain, refused again before any step, then resumed from $kept to the reference's loss"
