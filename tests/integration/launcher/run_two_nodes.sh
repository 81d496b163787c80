#!/usr/bin/env bash
# The used-by line, literally: `sbatch --exclusive --nodes=2 trn-run bert_tiny` completes, and
# plan.json / results.json hold the nodes, workers, accumulation and global batch; per-node logs.
source "$(dirname "$0")/../lib.sh"
make_scratch
cd "$scratch"
# A training environment as the cluster install makes one (TRN_TRAINING_VENV): its python3, a
# wrapper that records each start, must be the one every worker runs.
mkdir -p "$scratch/venv/bin"
printf '#!/bin/sh\necho "$(hostname) $$" >>"%s"\nexec "%s" "$@"\n' "$scratch/venv-starts" "$TRN_TRAINING_VENV/bin/python3" >"$scratch/venv/bin/python3"
chmod +x "$scratch/venv/bin/python3"
job=$(TRN_TRAINING_VENV=$scratch/venv slurm_with_tools sbatch --parsable --exclusive --nodes=2 -D "$scratch" \
  trn-run bert_tiny --data "$(test_data_dir)" --output-root "$scratch/runs" --steps 10)
wait_job "$job" >/dev/null
run="$scratch/runs/bert_tiny-$job"
[[ -f $run/plan.json && -f $run/results.json ]] || { cat "$scratch"/trn-run-*.out; fail "no plan.json/results.json in $run"; }
expect_eq "$(json_field "$run/plan.json" "d['nodes']")" 2 "plan nodes"
expect_eq "$(json_field "$run/plan.json" "d['workers_per_node']")" 1 "plan workers per node (CPU nodes)"
expect_eq "$(json_field "$run/plan.json" "' '.join(d['node_list'])")" \
  "$(slurm scontrol show hostnames "$(slurm scontrol show job -o "$job" | grep -o ' NodeList=[^ ]*' | cut -d= -f2)" | tr '\n' ' ' | sed 's/ $//')" "plan node list in the job's order"
expect_eq "$(json_field "$run/plan.json" "d['global_batch']")" \
  "$(json_field "$run/plan.json" "d['micro_batch'] * d['grad_accum'] * 2")" "global batch = micro x accum x dp"
expect_eq "$(json_field "$run/results.json" "d['plan']['grad_accum']")" "$(json_field "$run/plan.json" "d['grad_accum']")" "results carry the plan"
expect_eq "$(ls "$run"/logs/train_*_2.log | wc -l)" 2 "per-node training logs"
# What each phase took (bench/cluster/control_plane.sh reads them): the node-facts step, and the
# training step's srun start on the clock the ranks' heartbeats use, before rank 0's last beat.
expect_eq "$(json_field "$run/results.json" "0 < d['phases']['node_facts_seconds'] < d['phases']['plan_seconds']")" True "node_facts_seconds"
expect_eq "$(json_field "$run/results.json" "len(d['phases']['train_step_started_unix'])")" 1 "training steps started"
started=$(json_field "$run/results.json" "d['phases']['train_step_started_unix'][0]")
expect_eq "$(json_field "$run/watch/attempt-0/rank0.beat" "$started < d['since'] < $started + 300")" True "the step's start against rank 0's last heartbeat"
grep -q "step .*/" "$scratch/trn-run-$job.out" || fail "rank 0's progress lines are not in the job output"
# The plan names the launcher and why (docs/launchers.md).
grep -qx "launcher          slurm (SLURM_JOB_ID is set)" "$scratch/trn-run-$job.out" ||
  fail "the plan does not name Slurm as the launcher: $(grep launcher "$scratch/trn-run-$job.out")"
expect_eq "$(json_field "$run/plan.json" "d['launcher']['name']")" slurm "plan.json's launcher"
expect_eq "$(cut -d' ' -f1 "$scratch/venv-starts" 2>/dev/null | sort -u | wc -l)" 2 "nodes whose workers ran the training environment's python3"
echo "ok: $(json_field "$run/plan.json" "'accum %d x micro %d = %d' % (d['grad_accum'], d['micro_batch'], d['global_batch'])")"
