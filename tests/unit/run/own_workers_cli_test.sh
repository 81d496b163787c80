#!/bin/bash
# A node that starts its own workers (docs/launchers.md#own-workers), with real processes:
# trn-launcher node-workers gives each task the environment spank_trn gives a Slurm task,
# labels their lines with their global rank, passes SIGUSR1 on, and ends the others one second
# after a task fails (with slurmstepd's CANCELLED line); trn-run's exit status then says whose
# failure it was: 1 for the same error on every rank (not retried), 5 for a lost rank (the
# platform's retry restarts it).
# usage: own_workers_cli_test.sh BIN_DIR FIXTURES_DIR
set -u
bin=$1
fixture=$2/trn1.32xlarge
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
clean=(env -u SLURM_CONF -u SLURM_JOB_ID -u TORCHELASTIC_RUN_ID -u OMPI_COMM_WORLD_SIZE -u SM_HOSTS
  -u AWS_BATCH_JOB_NODE_INDEX -u AWS_BATCH_JOB_NUM_NODES -u MASTER_ADDR -u MASTER_PORT -u RANK)
workers=("${clean[@]}" "$bin/trn-launcher" node-workers)

# Node 1 of 2 on a trn1.32xlarge, 4 tasks: ranks 4-7, 8 NeuronCores each, the main node's address.
"${workers[@]}" --tasks=4 --nodes=2 --node-rank=1 --main-host=127.0.0.1 --fsroot="$fixture" --label \
  --output="$scratch/%N.log" -- sh -c 'echo "$RANK $LOCAL_RANK $WORLD_SIZE $MASTER_ADDR $NEURON_RT_VISIBLE_CORES"' ||
  fail "node-workers exited $?"
log=$scratch/$(hostname -s).log
[[ -f $log ]] || fail "no log named after the node (%N): $(ls "$scratch")"
expected="4: 4 0 8 127.0.0.1 0-7
5: 5 1 8 127.0.0.1 8-15
6: 6 2 8 127.0.0.1 16-23
7: 7 3 8 127.0.0.1 24-31"
[[ $(sort "$log") == "$expected" ]] || fail "the tasks' labelled lines: $(cat "$log")"

# A failing task: the others get a second, then are ended; the status is the failed task's.
start=$SECONDS
"${workers[@]}" --tasks=3 --label --output="$scratch/fail.log" -- \
  sh -c 'if [ "$RANK" = 2 ]; then exit 7; fi; sleep 30'
status=$?
[[ $status == 7 ]] || fail "node-workers exited $status after a task exited 7"
((SECONDS - start < 10)) || fail "the other tasks were not ended: $((SECONDS - start)) s"
grep -qx "2: \*\*\* STEP ON .* CANCELLED: task 2 exited with status 7 (trn-launcher node-workers) \*\*\*" "$scratch/fail.log" ||
  fail "no CANCELLED line: $(cat "$scratch/fail.log")"

# SIGUSR1 reaches every task (trn-run asks for the ranks' stacks that way); SIGINT ends them.
"${workers[@]}" --tasks=2 --label --output="$scratch/usr1.log" -- \
  sh -c 'trap "echo got USR1" USR1; echo ready; while :; do sleep 0.1; done' &
pid=$!
for _ in $(seq 50); do [[ $(grep -c ready "$scratch/usr1.log" 2>/dev/null) == 2 ]] && break; sleep 0.1; done
kill -USR1 "$pid"
for _ in $(seq 50); do [[ $(grep -c "got USR1" "$scratch/usr1.log") == 2 ]] && break; sleep 0.1; done
kill -INT "$pid"
kill -INT "$pid"
wait "$pid"
[[ $(grep -c "got USR1" "$scratch/usr1.log") == 2 ]] || fail "SIGUSR1 did not reach both tasks: $(cat "$scratch/usr1.log")"

"${workers[@]}" --tasks=2 --nodes=2 --node-rank=2 -- true 2>/dev/null && fail "a node rank outside the nodes was taken"

# trn-run on one node: whose failure it was, in its exit status.
profile() {  # NAME COMMAND
  printf 'description: %s\ncommand: %s\ncpu_workers_per_node: 2\nmicro_batch: 1\nglobal_batch: 2\nsteps: 1\nlaunch: per-core\n' \
    "$1" "$2" >"$scratch/$1.yaml"
}
profile same_error "/usr/bin/python3 -c \"raise ValueError('bad learning rate')\""
profile lost_rank "sh -c 'if [ \"\$RANK\" = 1 ]; then kill -9 \$\$; fi; sleep 30'"
run() { "${clean[@]}" "$bin/trn-run" "$scratch/$1.yaml" --output-root "$scratch/runs" >"$scratch/$1.out" 2>&1; }
run same_error
status=$?
[[ $status == 1 ]] || fail "the same error on both ranks exited $status, not 1: $(tail -n 3 "$scratch/same_error.out")"
grep -q "the same error on every rank is the training's own" "$scratch/same_error.out" || fail "same error: $(tail -n 2 "$scratch/same_error.out")"
# After a user error in a run that has checkpoints (a divergence after checkpoint 2), trn-run says
# how to continue that run: a new trn-run would make a new run directory (issue 33.6).
profile failed_after_checkpoint "/usr/bin/python3 -c \"open('{run_dir}/ckpt_2.json', 'w'); raise ValueError('diverged')\""
run failed_after_checkpoint
status=$?
folder=$(sed -n 's/^trn-run: run directory \([^ ;]*\).*/\1/p' "$scratch/failed_after_checkpoint.out")
[[ $status == 1 ]] || fail "the same error after a checkpoint exited $status: $(tail -n 3 "$scratch/failed_after_checkpoint.out")"
grep -qF "trn-run: $folder holds checkpoints up to step 2: after the fix, continue this run with: trn-run $scratch/failed_after_checkpoint.yaml --resume $folder" \
  "$scratch/failed_after_checkpoint.out" || fail "no --resume advice: $(tail -n 3 "$scratch/failed_after_checkpoint.out")"
run lost_rank
status=$?
[[ $status == 5 ]] || fail "a lost rank exited $status, not 5: $(tail -n 3 "$scratch/lost_rank.out")"
grep -q "exit 5: run the same trn-run command again with --resume RUN_DIR" "$scratch/lost_rank.out" ||
  fail "lost rank: $(tail -n 2 "$scratch/lost_rank.out")"

# Runs never mix on one instance: a run folder named by the second is made exclusively, so two
# trn-runs started in the same second (here: the folders of this second and the next two already
# taken) each get their own.
profile quick true
for offset in 0 1 2; do
  taken="$scratch/runs/quick-local-$(date -d "+$offset seconds" +%Y%m%d-%H%M%S)"
  mkdir -p "$taken" && touch "$taken/earlier-run"
done
"${clean[@]}" "$bin/trn-run" "$scratch/quick.yaml" --output-root "$scratch/runs" >"$scratch/quick.out" 2>&1 ||
  fail "quick run: $(tail -n 3 "$scratch/quick.out")"
mine=$(sed -n 's/^trn-run: run directory \([^ ]*\).*/\1/p' "$scratch/quick.out")
[[ -n $mine && -f $mine/plan.json && ! -e $mine/earlier-run ]] ||
  fail "the run took an earlier run's folder: '$mine' ($(ls "$scratch/runs"))"
[[ $(find "$scratch/runs" -path '*/quick-*/plan.json' | wc -l) == 1 ]] || fail "a taken folder got a plan.json: $(find "$scratch/runs" -name plan.json)"
# --resume of a folder without a committed checkpoint says that it starts at step 0.
"${clean[@]}" "$bin/trn-run" "$scratch/quick.yaml" --resume "$mine" >"$scratch/resume.out" 2>&1 ||
  fail "resume: $(tail -n 3 "$scratch/resume.out")"
grep -qF "trn-run: run directory $mine (it holds no committed checkpoint: training starts at step 0)" "$scratch/resume.out" ||
  fail "--resume without a checkpoint: $(grep 'run directory' "$scratch/resume.out")"
# A launcher's fixed folder (mpi) resumes by itself only with the plan that wrote it.
mpi=(OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_LOCAL_SIZE=1 OMPI_COMM_WORLD_RANK=0)
mkdir -p "$scratch/runs/quick-mpi"
"${clean[@]}" "$bin/trn-run" "$scratch/quick.yaml" --plan --json --global-batch 4 >"$scratch/runs/quick-mpi/plan.json" 2>/dev/null ||
  fail "the plan of the earlier run"
echo '{}' >"$scratch/runs/quick-mpi/ckpt_1.json"
out=$("${clean[@]}" "${mpi[@]}" "$bin/trn-run" "$scratch/quick.yaml" --output-root "$scratch/runs" --plan 2>&1)
status=$?
[[ $status == 2 && $out == *"quick-mpi (resumed: it holds a committed checkpoint): the run there has global_batch 4 but this plan 2"* ]] ||
  fail "an automatic resume at another global batch: exit $status: $out"

# No spare and no restart exists where trn-run starts its own workers: a spare asked for under
# Batch is an error, and a plan there promises no requeue.
batch=(AWS_BATCH_JOB_NODE_INDEX=0 AWS_BATCH_JOB_NUM_NODES=2 AWS_BATCH_JOB_MAIN_NODE_INDEX=0)
out=$("${clean[@]}" "${batch[@]}" "$bin/trn-run" bert_tiny --plan --spare-nodes 1 2>&1)
status=$?
[[ $status == 2 && $out == *"spare_nodes 1: a spare replaces a lost node inside a Slurm job; started by batch"* ]] ||
  fail "--spare-nodes under Batch: exit $status: $out"
out=$("${clean[@]}" "${batch[@]}" "$bin/trn-run" bert_tiny --plan 2>&1) || fail "plan under Batch: $out"
grep -q "^restarts  *none in the job: a node or fabric failure exits 5" <<<"$out" ||
  fail "the plan under Batch promises restarts: $(grep '^restarts' <<<"$out")"

[ "$failures" -eq 0 ] || exit 1
echo "own workers: all checks passed"
