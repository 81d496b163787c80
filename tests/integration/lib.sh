# Shared helpers for the integration test scripts (sourced).
set -euo pipefail

# The project's Python (requirements.txt, scripts/bootstrap): the tests' own checks run it, and it
# is the training environment (TRN_TRAINING_VENV) trn-run gives the local cluster's jobs, first on
# PATH for every other launcher and job script too.
python=$TRN_SOURCE_DIR/scripts/python
TRN_TRAINING_VENV=$("$python" -c 'import sys; print(sys.prefix)') || exit 2
export TRN_TRAINING_VENV PATH=$TRN_TRAINING_VENV/bin:$PATH
# The job scripts' Python (jobscripts/*: TRN_PYTHON), which their jobs' reset PATH would not find.
export TRN_PYTHON=$TRN_TRAINING_VENV/bin/python3
# The local cluster's nodes share this machine's few cores: one OpenMP thread per training process,
# as PyTorch's default of one per core oversubscribes them many times (docs/hardware.md#cpu-threads).
export OMP_NUM_THREADS=1

cluster() { "$TRN_SOURCE_DIR/scripts/cluster" --name "$TRN_TEST_CLUSTER" "$@"; }
slurm() { cluster exec "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [[ $1 == "$2" ]] || fail "$3: expected '$2', got '$1'"; }
# expect_near GOT WANT TOLERANCE WHAT: numbers (losses) equal to within TOLERANCE, never exactly.
expect_near() {
  "$python" -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > float(sys.argv[3]))' \
    "$1" "$2" "$3" || fail "$4: expected $2 (within $3), got $1"
}
source "$(dirname "${BASH_SOURCE[0]}")/wait_until.sh"

# on_exit CMD: runs CMD when the test exits, however it exits (last registered runs first).
exit_hooks=()
run_exit_hooks() {
  local i
  for ((i = ${#exit_hooks[@]} - 1; i >= 0; i--)); do eval "${exit_hooks[i]}" || true; done
}
on_exit() { exit_hooks+=("$1"); trap run_exit_hooks EXIT; }

# Sets $scratch to a directory every job user can write to, removed when the test exits.
# node I: the local cluster's node I (1-based), as Slurm and the hosts file name it.
node() { echo "$TRN_TEST_CLUSTER-$1"; }

# on_node I CMD...: CMD on node I as a container or a login shell there would run it, no Slurm
# in sight (no SLURM_CONF), this build's tools first on PATH; limited to 180 s.
on_node() {
  local i=$1
  shift
  cluster on "$(node "$i")" timeout 180 env -u SLURM_CONF PATH="$TRN_BUILD_DIR/bin:/usr/bin:/bin:/usr/sbin:/sbin" "$@"
}
# address_of I: node I's address, as the nodes resolve its name.
address_of() { cluster on "$(node 1)" getent hosts "$(node "$1")" | awk '{print $1}'; }

# every_node NAME N FUNCTION: runs `FUNCTION I` for nodes 1..N at once (one trn-run each, as a
# launcher other than Slurm starts them), its output in $scratch/NAME-I.out; fails naming the
# node whose command failed.
every_node() {
  local name=$1 count=$2 function=$3 i pids=()
  for i in $(seq 1 "$count"); do
    "$function" "$i" >"$scratch/$name-$i.out" 2>&1 &
    pids+=($!)
  done
  for i in $(seq 1 "$count"); do
    wait "${pids[$((i - 1))]}" || { tail -n 30 "$scratch/$name-$i.out"; fail "$name: node $i's command failed"; }
  done
}

make_scratch() {
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/trn-itest.XXXXXX")
  chmod 0777 "$scratch"
  on_exit 'rm -rf "$scratch"'
}

# Kills a node's slurmd (a node failure as Slurm sees it) and brings it back when the test
# exits, so a failing test never leaves the shared cluster short of a node.
kill_slurmd_until_exit() {
  cluster kill-slurmd "$1"
  restore_node_on_exit "$1"
}

# Loses a whole node (slurmd, step daemons, tasks), likewise restored when the test exits.
kill_node_until_exit() {
  cluster kill-node "$1"
  restore_node_on_exit "$1"
}

# At exit: the node's slurmd started again and the node resumed (trn-run drains a node it lost);
# once every node is back (hooks run last registered first), a wait for all of them to be idle.
restore_node_on_exit() {
  if [[ -z ${nodes_idle_wait_registered:-} ]]; then
    on_exit "wait_nodes_idle 60 >/dev/null"
    nodes_idle_wait_registered=1
  fi
  on_exit "cluster start-slurmd '$1' >/dev/null 2>&1; slurm scontrol update NodeName='$1' State=RESUME >/dev/null 2>&1"
}

# Waits until every node of the cluster is idle again (after a test disturbed one).
wait_nodes_idle() {
  local deadline=$((SECONDS + ${1:-60})) idle
  while ((SECONDS < deadline)); do
    idle=$(slurm sinfo -h -N -t idle -o %N | sort -u | wc -l)
    [[ $idle -eq $TRN_TEST_NODES ]] && return 0
    sleep 0.5
  done
  slurm sinfo -N
  fail "nodes did not all return to idle within ${1:-60}s"
}

# Submits a batch job and waits for it to end, polling faster than sbatch --wait does.
# Prints the job id; fails unless the job COMPLETED.
sbatch_and_wait() {
  local job
  job=$(slurm sbatch --parsable "$@")
  wait_job "$job" >/dev/null
  echo "$job"
}

# How long a test waits for one of its jobs to end: under the longest CTest TIMEOUT (600 s), so
# a job that never ends fails with its state rather than a bare timeout.
readonly job_deadline_s=540

# Prints a job's final state once it has ended, whatever it is; fails when it has not ended
# within job_deadline_s.
job_end_state() {
  local state deadline=$((SECONDS + job_deadline_s))
  while ((SECONDS < deadline)); do
    state=$(slurm scontrol show job -o "$1" | grep -o ' JobState=[^ ]*' | cut -d= -f2)
    case $state in
      PENDING | RUNNING | CONFIGURING | COMPLETING | REQUEUED) sleep 0.2 ;;
      *) echo "$state"; return ;;
    esac
  done
  fail "job $1 still $state after ${job_deadline_s}s"
}

# Waits for a job to end; fails unless it COMPLETED. Prints the job id.
wait_job() {
  local state
  state=$(job_end_state "$1")
  [[ $state == COMPLETED ]] || fail "job $1 ended $state"
  echo "$1"
}

# Slurm clients with this build's tools first on PATH, and Debian's python3 (with torch) before
# any other: sbatch exports this environment to the job.
slurm_with_tools() { slurm env PATH="$TRN_BUILD_DIR/bin:/usr/bin:/bin:/usr/sbin:/sbin" "$@"; }
# A Slurm command whose jobs find the neuron_parallel_compile test double (tests/doubles) first
# on PATH, with its settings from the caller's environment: the compiler's cache
# (NEURON_COMPILE_CACHE_URL), the file counting its runs (TRN_TEST_NPC_LOG, read by
# `compiles`) and how long each graph takes (TRN_TEST_NPC_COMPILE_SECONDS, default 0).
with_compiler_double() {
  slurm env PATH="$TRN_SOURCE_DIR/tests/doubles:$TRN_BUILD_DIR/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
    NEURON_COMPILE_CACHE_URL="$NEURON_COMPILE_CACHE_URL" TRN_TEST_NPC_LOG="$TRN_TEST_NPC_LOG" \
    TRN_TEST_NPC_COMPILE_SECONDS="${TRN_TEST_NPC_COMPILE_SECONDS:-0}" "$@"
}
compiles() { [[ -f $TRN_TEST_NPC_LOG ]] && wc -l <"$TRN_TEST_NPC_LOG" || echo 0; }

# Shards prepared once for all launcher tests (the trainer_data fixture).
test_data_dir() { echo "$TRN_BUILD_DIR/tests/integration/data"; }

# A JSON field: json_field FILE EXPRESSION (Python, `d` is the document).
json_field() { "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# newest_checkpoint RUN_DIR: the newest committed checkpoint's step (0: none yet).
newest_checkpoint() { ls "$1" 2>/dev/null | sed -n 's/^ckpt_\([0-9]*\)\.json$/\1/p' | sort -n | tail -n 1 | grep . || echo 0; }
# checkpoint_since RUN_DIR STEP: a checkpoint at STEP or later is committed (for wait_until).
checkpoint_since() { (($(newest_checkpoint "$1") >= $2)); }
# checkpoint_whole RUN_DIR STEP: every shard of committed checkpoint STEP matches its manifest.
checkpoint_whole() {
  "$python" - "$1" "$2" <<'PY'
import hashlib, json, sys
run, step = sys.argv[1], sys.argv[2]
for shard in json.load(open(f"{run}/ckpt_{step}.json"))["shards"]:
    assert hashlib.sha256(open(f"{run}/{shard['file']}", "rb").read()).hexdigest() == shard["sha256"], shard
PY
}
# file_says FILE PATTERN: FILE exists and has a line matching PATTERN (for wait_until).
file_says() { grep -q "$2" "$1" 2>/dev/null; }

# next_step_s RUN_DIR [I]: seconds from trn-run's finding of recovery I's fault (default the last)
# to the restarted step's first completed step (restart_s + first_step_s in results.json), for
# the fault matrix's "next step" column.
next_step_s() {
  json_field "$1/results.json" "(lambda r: round(r['restart_s'] + r.get('first_step_s', 0), 1))(d['phases']['recoveries'][${2:--1}])"
}

# A finished run's final loss, as its results.json reports it.
final_loss() { json_field "$1/results.json" "[m['MeasuredValue'] for m in d['results']['metrics'] if m['MetricName'] == 'Final loss'][0]"; }

# The uninterrupted run the recovery tests compare with (the trn_reference fixture,
# launcher/reference_run.sh): 2 nodes, bert_tiny, 24 steps; add --output-root and the
# checkpoint settings. reference_final_loss prints its final loss.
reference_args=(bert_tiny --data "$(test_data_dir)" --steps 24)
reference_dir() { echo "$TRN_BUILD_DIR/tests/integration/reference"; }
reference_final_loss() {
  [[ -s $(reference_dir)/final_loss ]] || fail "no reference run in $(reference_dir): run the trn_run_reference test (fixture)"
  cat "$(reference_dir)/final_loss"
}

# The step of the checkpoint the trainer in OUT (a job's output) last said it resumed from,
# checked to be the checkpoint of step MIN or later of run RUN and to be followed by the step
# after it (the trainer's own lines, not trn-run's). Prints the step.
trainer_resumed_step() {  # OUT RUN MIN
  local out=$1 run=$2 min=$3 resumed step first
  resumed=$(grep -oE "^resumed from $run/ckpt_[0-9]+\.pt" "$out" | tail -n 1) ||
    { cat "$out" >&2; fail "the trainer did not say it resumed from a checkpoint of $run"; }
  step=${resumed##*/ckpt_}
  step=${step%.pt}
  ((step >= min)) || fail "resumed from step $step, before the step-$min checkpoint the job had written"
  first=$(awk -v line="$resumed" 'after && /^step [0-9]+\// { split($2, n, "/"); print n[1]; exit }
                                  index($0, line) == 1 { after = 1 }' "$out")
  [[ -n $first ]] || { cat "$out" >&2; fail "no step logged after '$resumed'"; }
  expect_eq "$first" "$((step + 1))" "first step after resuming from ckpt_$step.pt"
  echo "$step"
}

# An LM corpus for llama_tiny in DIR: the fortunes text, 128-token samples, a 512-token
# vocabulary, 2 shards.
prepare_lm_data() {  # DIR
  PYTHONPATH=$TRN_SOURCE_DIR/trainer "$python" -m trn_trainer prepare-lm --input /usr/share/games/fortunes \
    --output "$1" --seq-len 128 --vocab-size 512 --num-shards 2 >/dev/null
  chmod -R a+rX "$1"
}
