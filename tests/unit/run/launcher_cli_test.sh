#!/bin/bash
# trn-run names the launcher that started it, and why, in every plan (docs/launchers.md):
# --launcher wins, else the environment's variables. Where it cannot train as started (torchrun
# around it, a Slurm login node with no launcher, --launcher slurm outside a job) the message
# names what it detected; a partial environment names the missing variable.
# usage: launcher_cli_test.sh BIN_DIR FIXTURES_DIR
set -u
bin=$1
fixture=$2/trn1.2xlarge
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# Nothing of the machine's own: no Slurm job, no launcher variables.
clean=(env -u SLURM_CONF -u SLURM_JOB_ID -u TORCHELASTIC_RUN_ID -u OMPI_COMM_WORLD_SIZE -u SM_HOSTS
  -u AWS_BATCH_JOB_NODE_INDEX -u AWS_BATCH_JOB_NUM_NODES -u MASTER_ADDR)
plan=("$bin/trn-run" bert_tiny --plan --nodes 2 --fsroot "$fixture")

expect_plan_line() {  # LINE ENV... : the plan's launcher line under ENV
  local line=$1
  shift
  local out
  out=$("${clean[@]}" "$@" "${plan[@]}" 2>&1) || fail "plan under '$*' failed: $out"
  grep -qxF "$line" <<<"$out" || fail "plan under '$*' has no line '$line': $(grep launcher <<<"$out")"
}
expect_plan_line "launcher          local (no launcher's variables are set)"
expect_plan_line "launcher          sagemaker (SM_HOSTS is set)" SM_HOSTS='["algo-10","algo-2"]' SM_CURRENT_HOST=algo-2
expect_plan_line "launcher          batch (AWS_BATCH_JOB_NODE_INDEX is set)" AWS_BATCH_JOB_NODE_INDEX=0 \
  AWS_BATCH_JOB_NUM_NODES=2 AWS_BATCH_JOB_MAIN_NODE_INDEX=0
out=$("${clean[@]}" AWS_BATCH_JOB_NODE_INDEX=0 AWS_BATCH_JOB_NUM_NODES=2 AWS_BATCH_JOB_MAIN_NODE_INDEX=0 \
  "${plan[@]}" --launcher local 2>&1) || fail "--launcher local failed: $out"
grep -qxF "launcher          local (--launcher local)" <<<"$out" || fail "--launcher local does not win: $(grep launcher <<<"$out")"
json=$("${clean[@]}" OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=1 "${plan[@]}" --json)
[[ $(/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin)["launcher"]; print(d["name"], d["reason"])' <<<"$json") == "mpi OMPI_COMM_WORLD_SIZE is set" ]] ||
  fail "--json has no launcher mpi: $(grep -A3 launcher <<<"$json")"

expect_error() {  # PATTERN ENV... -- COMMAND...
  local pattern=$1
  shift
  local err code
  err=$("${clean[@]}" "$@" 2>&1 >/dev/null)
  code=$?
  [ "$code" -eq 2 ] || fail "'$*' exited $code, not 2: $err"
  grep -q -- "$pattern" <<<"$err" || fail "'$*' message: $err"
}
expect_error "on a machine with a Slurm configuration (a head or login node): submit with .sbatch --nodes=N trn-run bert_tiny.*--launcher local" \
  SLURM_CONF=/etc/slurm/slurm.conf "$bin/trn-run" bert_tiny
expect_error "started by torchrun (TORCHELASTIC_RUN_ID is set): trn-run starts torchrun itself" \
  TORCHELASTIC_RUN_ID=x WORLD_SIZE=2 LOCAL_WORLD_SIZE=1 GROUP_RANK=0 MASTER_ADDR=a "$bin/trn-run" bert_tiny
expect_error "AWS_BATCH_JOB_NUM_NODES" AWS_BATCH_JOB_NODE_INDEX=1 "$bin/trn-run" bert_tiny
expect_error "--nodes 4 does not match the 3 node(s) batch started (AWS_BATCH_JOB_NODE_INDEX is set): drop --nodes" \
  AWS_BATCH_JOB_NUM_NODES=3 AWS_BATCH_JOB_NODE_INDEX=1 AWS_BATCH_JOB_MAIN_NODE_INDEX=0 \
  AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=10.0.0.1 "$bin/trn-run" bert_tiny --nodes 4
expect_error "--launcher pbs: unknown launcher; give one of slurm, torchrun, mpi, batch, sagemaker, local" \
  "${plan[@]}" --launcher pbs
expect_error "slurm launch: SLURM_JOB_ID is not set: submit with sbatch" "$bin/trn-run" bert_tiny --launcher slurm

# The run directory's name: the launcher's job where it has one (every node and retry of it
# agree), else the start time of a single instance's run.
run_dir_of() { "${clean[@]}" "$@" "$bin/trn-run" bert_tiny --plan --fsroot "$fixture" --output-root /runs | sed -n 's/^run dir *//p'; }
[[ $(run_dir_of AWS_BATCH_JOB_ID='5f3c#2' AWS_BATCH_JOB_NUM_NODES=4 AWS_BATCH_JOB_NODE_INDEX=2 \
  AWS_BATCH_JOB_MAIN_NODE_INDEX=0 AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=10.0.0.1) == /runs/bert_tiny-5f3c ]] ||
  fail "a Batch node's run directory is not named by the job id"
[[ $(run_dir_of) =~ ^/runs/bert_tiny-local-[0-9]{8}-[0-9]{6}$ ]] || fail "a single instance's run directory: $(run_dir_of)"
# SageMaker's runs go to /opt/ml/checkpoints, which the platform syncs with S3.
sm_plan() { "${clean[@]}" SM_HOSTS='["algo-1"]' SM_CURRENT_HOST=algo-1 TRAINING_JOB_NAME=sm-7 "$bin/trn-run" bert_tiny --plan --fsroot "$fixture" "$@" | sed -n 's/^run dir *//p'; }
[[ $(sm_plan) == /opt/ml/checkpoints/bert_tiny-sm-7 ]] || fail "a SageMaker run's directory: $(sm_plan)"
[[ $(sm_plan --output-root /runs) == /runs/bert_tiny-sm-7 ]] || fail "--output-root does not win over SageMaker's: $(sm_plan --output-root /runs)"

[ "$failures" -eq 0 ] || exit 1
echo "launcher: all checks passed"
