#!/usr/bin/env bash
# `trn-run torchtitan_qwen3_8b`: TorchTitan's own trainer under trn-run (docs/launchers.md#torchtitan).
# TorchTitan does not run without an accelerator, so its launch contract is tested with a double
# of `python3 -m torchtitan.train` (tests/doubles/torchtitan: TorchTitan 0.3.0's arguments, strict,
# torchrun's world, step-N checkpoint folders committed by their .metadata): one torchrun per
# node forms one world of every worker, with the plan's tensor-parallel degree and the run
# directory as TorchTitan's dump folder; a job resuming the run continues from TorchTitan's
# newest checkpoint there.
source "$(dirname "$0")/../lib.sh"
make_scratch
cpu_args=(--set cpu_workers_per_node=2 --set tensor_parallel=2 --set global_batch=2 --set checkpoint_every=3)
titan() { slurm_with_tools env PYTHONPATH="$TRN_SOURCE_DIR/tests/doubles" sbatch --parsable --exclusive "$@"; }

first=$(titan --nodes=2 -D "$scratch" trn-run torchtitan_qwen3_8b --steps 6 --output-root "$scratch/runs" "${cpu_args[@]}")
wait_job "$first" >/dev/null || { cat "$scratch/trn-run-$first.out"; fail "the TorchTitan job failed"; }
run=$scratch/runs/torchtitan_qwen3_8b-$first
expect_world() {  # expect_world LOADED_STEP LAST_STEP: what every rank of the last start saw
  "$python" - "$run" "$1" "$2" <<'PY'
import json, os, sys
run, loaded, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
records = [json.load(open(os.path.join(run, "titan-double", f))) for f in sorted(os.listdir(run + "/titan-double"))]
assert sorted(r["rank"] for r in records) == [0, 1, 2, 3], [r["rank"] for r in records]
assert {r["world_size"] for r in records} == {4} and len({r["master"] for r in records}) == 1, records
nodes = {}
for r in records:
    nodes.setdefault(r["node"], []).append((r["local_rank"], r["local_world_size"]))
assert sorted(map(sorted, nodes.values())) == [[(0, 2), (1, 2)]] * 2, nodes
assert {(r["module"], r["config"], r["tp"], r["dp"]) for r in records} == {
    ("torchtitan_neuron.models.qwen3", "qwen3_8b_tp4_fsdp16_sac", 2, 2)}, records[0]
assert {r["dump_folder"] for r in records} == {os.path.realpath(run)}, records[0]["dump_folder"]
assert {(r["loaded_step"], r["last_step"], r["steps_seen"]) for r in records} == {(loaded, last, last)}, records
print(f"world of 4 on {len(nodes)} nodes, tp 2 x dp 2, loaded step {loaded}, trained to {last}")
PY
}
expect_world 0 6 || fail "the first job's TorchTitan world"
for step in 3 6; do test -f "$run/checkpoint/step-$step/.metadata" || fail "no TorchTitan checkpoint step-$step"; done

second=$(titan --nodes=2 -D "$scratch" trn-run torchtitan_qwen3_8b --steps 9 --resume "$run" "${cpu_args[@]}")
wait_job "$second" >/dev/null || { cat "$scratch/trn-run-$second.out"; fail "the resuming TorchTitan job failed"; }
expect_world 6 9 || fail "the resumed job's TorchTitan world"
test -f "$run/checkpoint/step-9/.metadata" || fail "no TorchTitan checkpoint step-9"
echo ok
