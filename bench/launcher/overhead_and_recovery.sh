#!/usr/bin/env bash
# trn-run on a local 4-node cluster: (1) its own time from start to the training srun with the
# compile phase skipped, (2) recovery after a node is lost (slurmd and its tasks killed): seconds from the kill to
# the first resumed training step, and steps lost (redone after resuming). Slurm holds a
# requeued job for about two minutes (BeginTime) before it may start again; that hold is part
# of the recovery time and is shown separately.
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
  job=$(slurm sbatch --parsable --exclusive --nodes=4 -D "$work" trn-run "${args[@]}" --steps 1)
  wait_done "$job"
  overheads+=("$(field "$work/runs/bert_tiny-$job/results.json" "d['phases']['before_train_seconds']")")
done
overhead=$(printf '%s\n' "${overheads[@]}" | sort -g | sed -n 2p)

job=$(slurm sbatch --parsable --exclusive --nodes=2 -D "$work" trn-run "${args[@]}" --steps 40 --set checkpoint_every=5)
run=$work/runs/bert_tiny-$job
wait_until 600 "checkpoint $run/ckpt_10 committed" test -f "$run/ckpt_10.json"
victim=$(slurm scontrol show hostnames "$(job_field "$job" NodeList)" | tail -n 1)
cluster kill-node "$victim"
killed=$(date +%s.%N)
restarted_once() { [[ $(job_field "$job" Restarts) -ge 1 ]]; }
wait_until 120 "job $job requeued after losing $victim" restarted_once
requeued=$(date +%s.%N)
running() { [[ $(job_field "$job" JobState) == RUNNING ]]; }
wait_until 300 "requeued job $job running again" running
restarted=$(date +%s.%N)
# The first resumed step: a metrics row written by the restarted run.
second_run_logged() {
  /usr/bin/python3 -c "import json,sys; rows=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if sum(1 for r in rows if r.get('first_of_run')) >= 2 else 1)" "$run/metrics.jsonl" 2>/dev/null
}
wait_until 600 "a step of the resumed run in $run/metrics.jsonl" second_run_logged
resumed=$(date +%s.%N)
# Steps lost: the first run's last logged step minus the checkpoint the second run resumed from.
steps_lost=$(/usr/bin/python3 - "$run/metrics.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
restart = [i for i, row in enumerate(rows) if row.get("first_of_run")][1]
print(max(row["step"] for row in rows[:restart]) - (rows[restart]["step"] - 1))
PY
)
wait_done "$job"

echo "trn-run on a local 4-node cluster, $(nproc) cores, $(date -u +%F)"
printf '| %-52s | %10s | %8s |\n' measurement measured target
printf '|%s|%s|%s|\n' "------------------------------------------------------" "------------" "----------"
printf '| %-52s | %8.3f s | %6s s |\n' "trn-run start to training srun (compile skipped)" "$overhead" 1
printf '| %-52s | %8.1f s | %8s |\n' "node lost -> job requeued" "$(echo "$requeued - $killed" | bc)" "-"
printf '| %-52s | %8.1f s | %8s |\n' "requeued -> running again (Slurm BeginTime hold)" "$(echo "$restarted - $requeued" | bc)" "-"
printf '| %-52s | %8.1f s | %8s |\n' "running again -> first resumed step" "$(echo "$resumed - $restarted" | bc)" "-"
printf '| %-52s | %8.1f s | %8s |\n' "node lost -> first resumed step (total)" "$(echo "$resumed - $killed" | bc)" "-"
printf '| %-52s | %10s | %8s |\n' "steps lost (logged before kill - resumed from)" "$steps_lost" "<= 5"
