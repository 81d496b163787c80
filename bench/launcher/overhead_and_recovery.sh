#!/usr/bin/env bash
# trn-run on a local 4-node cluster: (1) its own time from start to the training srun with the
# compile phase skipped, (2) recovery after a node is lost (slurmd and its tasks killed), side by
# side: the requeue path without a spare vs in-job restart with a spare vs in-job restart with a
# spare and peer snapshots every step (docs/recovery.md) - seconds from the kill to the first
# resumed training step, and steps redone after resuming.
# Usage: bench/launcher/overhead_and_recovery.sh [BUILD_DIR]   (default build/default)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=$(realpath "${1:-build/default}")
source bench/cluster_lib.sh
bench_cluster_up 4
args=(bert_tiny --data "$work/data" --output-root "$work/runs")

overheads=()
for round in 1 2 3; do
  job=$(slurm sbatch --parsable --exclusive --nodes=4 -D "$work" trn-run "${args[@]}" --steps 1 --set warmup=1)
  wait_done "$job"
  overheads+=("$(field "$work/runs/bert_tiny-$job/results.json" "d['phases']['before_train_seconds']")")
done
overhead=$(printf '%s\n' "${overheads[@]}" | sort -g | sed -n 2p)

# recover MODE: a job loses its second node (slurmd and its tasks killed) once step 13 is logged
# (3 steps after the step-10 checkpoint). requeue: 2 nodes, no spare (the job is requeued;
# trn-run releases Slurm's hold on it); spare: 3 nodes with --spare-nodes 1 (the spare takes
# over inside the job); peers: as spare, with the node-local tier in each node's own /dev/shm
# and a peer snapshot every step. Sets total_<MODE> (kill -> first resumed step), lost_<MODE>
# (steps redone) and split_<MODE>.
recover() {
  local mode=$1 nodes=2 extra=() job run victim killed resumed
  [[ $mode != requeue ]] && { nodes=3; extra=(--spare-nodes 1); }
  [[ $mode == peers ]] && extra+=(--set checkpoint_local_dir=/dev/shm/trn-checkpoints --set snapshot_every=1)
  job=$(slurm sbatch --parsable --exclusive --nodes=$nodes -D "$work" trn-run "${args[@]}" --steps 40 \
    --set checkpoint_every=5 "${extra[@]}")
  run=$work/runs/bert_tiny-$job
  # Rank 0's heartbeat: the steps it completed (docs/recovery.md#heartbeats).
  completed() { field "$run/watch/attempt-0/rank0.beat" "d['step']" 2>/dev/null || echo 0; }
  past_step_13() { (($(completed) >= 13)); }
  wait_until 600 "step 13 completed in $run" past_step_13
  victim=$(slurm scontrol show hostnames "$(job_field "$job" NodeList)" | sed -n 2p)
  cluster kill-node "$victim"
  killed=$(date +%s.%N)
  local done_at_kill
  done_at_kill=$(completed)
  # The first resumed step: a metrics row written by the restarted run.
  second_run_logged() {
    "$python" -c "import json,sys; rows=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if sum(1 for r in rows if r.get('first_of_run')) >= 2 else 1)" "$run/metrics.jsonl" 2>/dev/null
  }
  wait_until 600 "a step of the resumed run in $run/metrics.jsonl" second_run_logged
  resumed=$(date +%s.%N)
  # Steps lost: the steps completed when the node was lost minus the step the second run resumed
  # from (the step before its first row; a resumed run drops the rows after that step).
  printf -v "lost_$mode" %s "$("$python" - "$run/metrics.jsonl" "$done_at_kill" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
restart = [i for i, row in enumerate(rows) if row.get("first_of_run")][1]
print(int(sys.argv[2]) - (rows[restart]["step"] - 1))
PY
)"
  printf -v "total_$mode" %.1f "$(echo "$resumed - $killed" | bc)"
  wait_done "$job"
  # The restarted run's own line: how long reading the state took (part of its first step).
  printf -v "restore_$mode" %s "$(grep -o 'state read in [0-9.]* s' "$work/trn-run-$job.out" | tail -n 1)"
  if [[ $mode == peers ]]; then
    stall_peers=$(field "$run/results.json" "'%.1f ms of a %.0f ms step (median), write and copy %.0f ms in the background' % (1e3 * d['results']['checkpoints']['snapshots']['stall_median_s'], 1e3 * d['results']['step_time_median_s'], 1e3 * d['results']['checkpoints']['snapshots']['write_median_s'])")
  fi
  if [[ $mode != requeue ]]; then
    printf -v "split_$mode" %s "$(field "$run/results.json" "'detect %.1f + find %.1f + drain %.1f + restart %.1f + first step %.1f s' % tuple(d['phases']['recoveries'][0][k] for k in ('detection_s', 'find_s', 'drain_s', 'restart_s', 'first_step_s'))")"
  else
    split_requeue="restarts $(job_field "$job" Restarts) (Slurm requeue, hold released by trn-run)"
  fi
  cluster start-slurmd "$victim" >/dev/null
  slurm scontrol update NodeName="$victim" State=RESUME 2>/dev/null || true
  all_idle() { [[ $(slurm sinfo -h -N -t idle -o %N | sort -u | wc -l) -eq 4 ]]; }
  wait_until 120 "every node idle again" all_idle
}
recover requeue
recover spare
recover peers

echo "trn-run on a local 4-node cluster, $(nproc) cores, $(date -u +%F)"
printf '| %-52s | %10s | %8s |\n' measurement measured target
printf '|%s|%s|%s|\n' "------------------------------------------------------" "------------" "----------"
printf '| %-52s | %8.3f s | %6s s |\n' "trn-run start to training srun (compile skipped)" "$overhead" 1
printf '| %-52s | %8.1f s | %8s |\n' "node lost -> first resumed step: requeue, no spare" "$total_requeue" "-"
printf '| %-52s | %8.1f s | %8s |\n' "node lost -> first resumed step: in-job, a spare" "$total_spare" 30
printf '| %-52s | %8.1f s | %8s |\n' "node lost -> first resumed step: in-job, peer snapshots" "$total_peers" 30
printf '| %-52s | %10s | %8s |\n' "steps redone: requeue / in-job / peer snapshots" "$lost_requeue / $lost_spare / $lost_peers" "<= 1"
echo "requeue: $split_requeue; $restore_requeue"
echo "in-job: $split_spare; $restore_spare"
echo "in-job, peer snapshots: $split_peers; $restore_peers"
echo "peer snapshot per step: $stall_peers"
