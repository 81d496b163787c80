#!/usr/bin/env bash
# A healthy node that answers late is not lost (issue 27.3, docs/recovery.md#restart): in a
# 2-node job a rank on node 2 is killed after checkpoint 4; trn-run then probes every node with a
# one-task srun, and node 2's answer comes after 3 s (a loaded machine, a busy head node: here
# an srun in the job's PATH that waits 3 s before it asks Slurm for that node). trn-run must not
# drain it: the job restarts on the same two nodes, the trainer resumes from a checkpoint, and
# the final loss equals an uninterrupted 2-node run's.
source "$(dirname "$0")/../lib.sh"
make_scratch
on_exit "slurm scontrol update NodeName=$(node 2) State=RESUME >/dev/null 2>&1 || true"
slow=$(node 2)
mkdir -p "$scratch/late"
cat >"$scratch/late/srun" <<SH
#!/bin/sh
# The probe of $slow (srun ... --nodelist=$slow true) answers 3 s late.
case " \$* " in
  *" --nodelist=$slow true "*) echo "late probe at \$(date +%s.%N)" >>"$scratch/late/probes"; sleep 3 ;;
esac
exec /usr/bin/srun "\$@"
SH
chmod +x "$scratch/late/srun"
args=("${reference_args[@]}" --output-root "$scratch/runs" --set checkpoint_every=4)
job=$(slurm env PATH="$scratch/late:$TRN_BUILD_DIR/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
  sbatch --parsable --exclusive --nodes=2 --nodelist="$(node 1),$slow" -D "$scratch" trn-run "${args[@]}")
run="$scratch/runs/bert_tiny-$job"
out="$scratch/trn-run-$job.out"

wait_until 300 "a checkpoint at step 4 or later in $run" checkpoint_since "$run" 4
beat=$run/watch/attempt-0/rank1.beat
expect_eq "$(json_field "$beat" "d['node']")" "$slow" "node of rank 1"
kill -KILL "$(json_field "$beat" "d['pid']")"
echo "killed rank 1 on $slow after checkpoint $(newest_checkpoint "$run")"

state=$(job_end_state "$job")
[[ $state == COMPLETED ]] || { cat "$out"; fail "job $job ended $state"; }
[[ -s $scratch/late/probes ]] || { cat "$out"; fail "no probe of $slow was made late: the test proves nothing"; }
node_state=$(slurm sinfo -h -N -n "$slow" -o '%T')
[[ $node_state != *drain* ]] || { cat "$out"; fail "$slow was drained ($node_state) for answering late"; }
expect_eq "$(json_field "$run/results.json" "[r['nodes'] for r in d['phases']['recoveries']]")" "[[]]" \
  "nodes taken out by the recovery"
resumed=$(json_field "$run/results.json" "d['phases']['recoveries'][0]['resumed_from_step']")
((resumed >= 4)) || { cat "$out"; fail "the restarted step started from step $resumed, not from checkpoint 4 or later"; }
grep -q "^resumed from $run/ckpt_$resumed.pt (step $resumed" "$out" || { cat "$out"; fail "the trainer did not say it resumed from step $resumed"; }
expect_near "$(final_loss "$run")" "$(reference_final_loss)" 1e-5 "final loss after the restart vs uninterrupted"
echo "ok: $slow answered late ($(wc -l <"$scratch/late/probes") late probe(s)), was kept; resumed from step $resumed (next step $(next_step_s "$run") s after the failure was found)"
