#!/usr/bin/env bash
# nccom-test in `trn-health --step` on the local cluster, through the tests/doubles/nccom-test
# and neuron-ls doubles (--neuron-tools), every node a recorded trn1.2xlarge (2 NeuronCores):
#  1. on node 2 the all-reduce fails as nccom-test documents it, and node 3's runs at 1% of a
#     healthy node's bus bandwidth: node 2's collectives check fails with that evidence, node
#     3's as below the floor, node 1's passes;
#  2. the tools hang: the step still ends within the node's 10 s budget, every tool is a
#     warning and nothing fails; reach, run beside the slow checks, still passes everywhere.
source "$(dirname "$0")/../lib.sh"
make_scratch
nodes="$(node 1),$(node 2),$(node 3)"
echo '[{"neuron_device": 0, "bdf": "00:1e.0", "nc_count": 2, "logical_neuroncore_config": 1}]' \
  >"$scratch/neuron-ls.json"
step() {  # step ENV...: trn-health --step --json on the 3 nodes with the doubles; labelled reports
  slurm env PATH="$TRN_BUILD_DIR/bin:/usr/bin:/bin" TRN_DOUBLE_NEURON_LS_JSON="$scratch/neuron-ls.json" "$@" \
    srun --label --nodes=3 --ntasks=3 --ntasks-per-node=1 --kill-on-bad-exit=0 --nodelist="$nodes" \
    trn-health --step --json --fsroot "$TRN_SOURCE_DIR/tests/fixtures/trn1.2xlarge" \
    --neuron-tools "$TRN_SOURCE_DIR/tests/doubles" 2>/dev/null || true
}
# check REPORTS PYTHON: asserts on {node: {check: (status, evidence)}} as `r`
check() {
  "$python" - "$1" "$(node 1)" "$(node 2)" "$(node 3)" "$2" <<'PY' || fail "reports: $1"
import json, sys
out, n1, n2, n3, test = sys.argv[1:]
tasks = {}  # srun --label cuts lines at 1024 bytes: join each task's pieces
for line in out.splitlines():
    task, _, text = line.partition(": ")
    tasks[task] = tasks.get(task, "") + text
r = {}
for text in tasks.values():
    d = json.loads(text)
    r[d["node"]] = {c["check"]: (c["status"], c["evidence"]) for c in d["checks"]}
assert set(r) == {n1, n2, n3}, sorted(r)
exec(test)
PY
}

out=$(step TRN_DOUBLE_NCCOM_FAIL_NODES="$(node 2)" TRN_DOUBLE_NCCOM_SLOW_NODES="$(node 3)")
check "$out" '
assert r[n2]["collectives"][0] == "FAILED", r[n2]
assert "over 2 NeuronCores failed: Failure running neuron-bench" in r[n2]["collectives"][1], r[n2]
assert r[n3]["collectives"][0] == "FAILED", r[n3]
assert "GB/s, below the floor of 2 GB/s" in r[n3]["collectives"][1], r[n3]
assert r[n1]["collectives"][0] == "ok", r[n1]
for n in (n1, n2, n3):
    assert r[n]["neuron-devices"][0] == "ok" and "agrees" in r[n]["neuron-devices"][1], r[n]
'

start=$SECONDS
out=$(step TRN_DOUBLE_DELAY_S=60)
elapsed=$((SECONDS - start))
((elapsed <= 15)) || fail "the step with hanging tools took ${elapsed}s: $out"
check "$out" '
for n in (n1, n2, n3):
    assert r[n]["neuron-devices"][0] == "warning", r[n]
    assert r[n]["collectives"][0] == "warning", r[n]
    assert r[n]["reach"][0] == "ok", r[n]
    assert "FAILED" not in [s for s, _ in r[n].values()], r[n]
'
echo "ok"
