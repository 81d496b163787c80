#!/usr/bin/env bash
# trn-run --plan outside a job plans for the compute nodes' instance type (--instance-type, the
# partition's from its nodes' features, the profile's instance_type), not for this machine;
# --resume and --run-dir refuse a directory whose earlier plan does not fit. Bad input: exit 2.
# usage: trn_run_plan_cli_test.sh TRN_RUN
set -euo pipefail
trn_run=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# A fake sinfo stands in for the cluster's: it prints $FAKE_SINFO, or fails like sinfo without
# a controller when that is unset.
mkdir "$out/bin"
cat >"$out/bin/sinfo" <<'SH'
#!/bin/sh
[ -n "${FAKE_SINFO:-}" ] || { echo "sinfo: error: Could not establish a configuration source" >&2; exit 1; }
printf '%b' "$FAKE_SINFO"
SH
chmod +x "$out/bin/sinfo"
plan() { env -u SLURM_JOB_ID PATH="$out/bin:$PATH" "$trn_run" --plan --json "$@" 2>"$out/stderr"; }
field() { /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
expect_plan() {  # expect_plan KEY WANT ARGS...: the plan's KEY is WANT
  local key=$1 want=$2 got
  shift 2
  got=$(plan "$@" | field "$key") || fail "trn-run --plan $*: $(cat "$out/stderr")"
  [[ $got == "$want" ]] || fail "trn-run --plan $*: $key is '$got', expected '$want'"
}
expect_error() {  # expect_error PATTERN ARGS...: exit 2 and one line saying PATTERN
  local pattern=$1 status=0
  shift
  plan "$@" >/dev/null || status=$?
  [[ $status == 2 ]] || fail "trn-run --plan $*: exit $status, expected 2 ($(cat "$out/stderr"))"
  grep -qE -e "$pattern" "$out/stderr" || fail "trn-run --plan $*: said '$(cat "$out/stderr")', expected /$pattern/"
}

# No Slurm to ask: the profile's instance_type (trn1.32xlarge, 32 NeuronCores), as on the nodes.
expect_plan grad_accum 2 --nodes 16 bert_pretrain
expect_plan global_batch 16384 --nodes 16 bert_pretrain
expect_plan workers_per_node 32 --nodes 16 bert_pretrain
grep -q "planning for trn1.32xlarge nodes (the profile's instance_type)" "$out/stderr" ||
  fail "no note on the assumed instance type: $(cat "$out/stderr")"
# --instance-type first; trn2 with logical NeuronCore config 2: 64 workers.
expect_plan workers_per_node 64 --nodes 16 --instance-type trn2.48xlarge bert_pretrain
expect_plan workers_per_node 1 --nodes 16 --instance-type c5.4xlarge bert_pretrain
# The default partition's nodes' features (ParallelCluster's) before the profile's type.
export FAKE_SINFO='cpu static,c5.4xlarge,cpu1\ntrn* static,trn2.48xlarge,trn2-1,efa\ntrn* dynamic,trn2.48xlarge,trn2-1,efa\n'
expect_plan workers_per_node 64 --nodes 16 bert_pretrain
grep -q "the default partition's node features" "$out/stderr" || fail "source not named: $(cat "$out/stderr")"
expect_plan workers_per_node 32 --nodes 16 --instance-type trn1.32xlarge bert_pretrain
export FAKE_SINFO='trn* static,trn1.32xlarge,a\ntrn* static,trn2.48xlarge,b\n'
expect_error "the default partition has nodes of trn1.32xlarge, trn2.48xlarge: .*--instance-type" --nodes 16 bert_pretrain
unset FAKE_SINFO
# No instance type anywhere (bert_tiny is for CPU nodes): this node's own topology, as before.
expect_plan workers_per_node 1 --nodes 4 bert_tiny
expect_plan instance_type None --nodes 4 bert_tiny

expect_error "instance type 'trn1.23xlarge' \(--instance-type\) .*trn1.32xlarge" --nodes 2 --instance-type trn1.23xlarge bert_pretrain
expect_error "'trn1' \(--instance-type\) is not an EC2 instance type" --nodes 2 --instance-type trn1 bert_pretrain
expect_error "instance_type must be an EC2 instance type" --nodes 2 --set instance_type=big bert_pretrain

# Run directories named by the user: --resume needs an earlier run there, whose plan must fit.
expect_error "--resume $out/none: $out/none/plan.json does not exist" --nodes 2 --resume "$out/none" bert_tiny
mkdir "$out/run"
plan --nodes 2 bert_tiny >"$out/run/plan.json"
expect_plan run_dir "$out/run" --nodes 4 --resume "$out/run" bert_tiny
expect_error "--resume $out/run: the run there has global_batch 64 but this plan 128" --nodes 4 --resume "$out/run" --global-batch 128 bert_tiny
expect_error "--run-dir $out/run: the run there has profile bert_tiny but this plan bert_pretrain" --nodes 4 --run-dir "$out/run" bert_pretrain
expect_plan run_dir "$out/new" --nodes 4 --run-dir "$out/new" bert_tiny
expect_error "--run-dir and --resume both name the run directory" --nodes 4 --run-dir "$out/a" --resume "$out/run" bert_tiny
# Where no node count works, the fix does not send the user to "one of those".
expect_error "no node count works; fix: make global_batch a multiple of 768" --nodes 2 --instance-type inf2.48xlarge bert_pretrain

# Planned away from the nodes, the text names the count and the planned type, not empty names.
text=$(env -u SLURM_JOB_ID PATH="$out/bin:$PATH" "$trn_run" --plan --nodes 16 bert_pretrain 2>/dev/null) ||
  fail "text plan failed"
grep -qxE "nodes +16 x trn1.32xlarge \(planned: no job shows the nodes\)" <<<"$text" ||
  fail "the nodes line: $(grep '^nodes' <<<"$text")"
expect_plan node_list "[]" --nodes 16 bert_pretrain
echo "ok: trn-run --plan plans for the compute nodes' instance type and checks run directories"
