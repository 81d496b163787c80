#!/bin/bash
# The deploy/ examples stay true to trn-run: each parses, its trn-run command plans for its node
# count on trn1.32xlarge, the Batch retry strategy retries exactly the status trn-run documents
# for a node failure, and the SageMaker entry point and submitter are valid.
# usage: deploy_examples_test.sh BIN_DIR DEPLOY_DIR
set -u
bin=$1
deploy=$2
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
python=/usr/bin/python3
clean=(env -u SLURM_CONF -u SLURM_JOB_ID -u TORCHELASTIC_RUN_ID -u OMPI_COMM_WORLD_SIZE -u SM_HOSTS
  -u AWS_BATCH_JOB_NODE_INDEX -u AWS_BATCH_JOB_NUM_NODES -u MASTER_ADDR)
plans() {  # NODES ARGS...: the trn-run arguments plan on NODES trn1.32xlarge nodes
  local nodes=$1 out
  shift
  out=$("${clean[@]}" "$bin/trn-run" "$@" --plan --nodes "$nodes" --instance-type trn1.32xlarge 2>&1) ||
    fail "'trn-run $*' does not plan on $nodes nodes: $(tail -n 2 <<<"$out")"
}

# AWS Batch: every node runs the container command; exit 5 is retried, nothing else.
read -r nodes retried others command < <($python - "$deploy/batch/job-definition.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["type"] == "multinode"
rules = d["retryStrategy"]["evaluateOnExit"]
retried = [r["onExitCode"] for r in rules if r["action"] == "RETRY"]
others = [r for r in rules if r["action"] == "EXIT" and r.get("onReason") == "*"]
container = d["nodeProperties"]["nodeRangeProperties"][0]["container"]
print(d["nodeProperties"]["numNodes"], ",".join(retried), len(others), " ".join(container["command"]))
PY
)
[[ $retried == 5 && $others == 1 ]] || fail "the Batch retry strategy retries '$retried' (want exit 5 alone)"
"$bin/trn-run" --help | grep -q "5 a node failed" || fail "trn-run --help no longer documents exit 5 as a node failure"
[[ $command == "trn-run "* ]] || fail "the Batch container command is not trn-run: $command"
read -ra words <<<"${command#trn-run }"
plans "$nodes" "${words[@]}"

# EKS: the launcher pod's command, with --launcher mpi; planned for the worker replicas.
read -r workers command < <($python - "$deploy/eks/mpijob.yaml" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
spec = d["spec"]["mpiReplicaSpecs"]
launcher = spec["Launcher"]["template"]["spec"]["containers"][0]["command"]
assert d["kind"] == "MPIJob" and d["spec"]["slotsPerWorker"] == 1
print(spec["Worker"]["replicas"], " ".join(launcher))
PY
)
[[ $command == "trn-run "*"--launcher mpi"* ]] || fail "the MPIJob launcher does not run trn-run --launcher mpi: $command"
command=${command/ --launcher mpi/}
read -ra words <<<"${command#trn-run }"
plans "$workers" "${words[@]}"

# SageMaker: the entry point is a valid shell script that execs trn-run; the submitter compiles.
sh -n "$deploy/sagemaker/train" || fail "deploy/sagemaker/train is not valid sh"
[[ -x $deploy/sagemaker/train ]] || fail "deploy/sagemaker/train is not executable"
grep -q '^exec trn-run ' "$deploy/sagemaker/train" || fail "deploy/sagemaker/train does not exec trn-run"
plans 4 bert_pretrain --data /opt/ml/input/data/train
$python -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$deploy/sagemaker/estimator.py" ||
  fail "deploy/sagemaker/estimator.py does not parse"

[ "$failures" -eq 0 ] || exit 1
echo "deploy examples: all checks passed"
