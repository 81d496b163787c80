#!/usr/bin/env bash
# trn-health's cost. (1) Per check and for the whole process, on every recorded tree and on
# this machine's root, and with the neuron-ls test double: median of RUNS runs (the issue's
# bound: 10 s per node). (2) `trn-health --step` on a local 4-node cluster, RUNS times: the reach
# check's seconds per node, and the neuron-ls and nccom-test doubles' checks on trn1.2xlarge
# trees. (3) trn-run on the cluster with and without the health gate, in alternating pairs:
# seconds from the job's start (its batch script's first line) to the first training step (the
# trainer's metrics row of step 1, whose "step 1/" line rank 0 logs) and to the training srun.
# Usage: bench/health/health_bench.sh [BUILD_DIR] [RUNS] [PAIRS]   (default build/ci 20 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=$(realpath "${1:-build/ci}")
python=$root/scripts/python
runs=${2:-20}
pairs=${3:-5}
fixtures=$root/tests/fixtures

echo "== trn-health on one node: median of $runs runs per tree, $(nproc) cores, $(date -u +%F)"
"$python" - "$build/bin/trn-health" "$runs" "$fixtures" <<'PY'
import json, os, statistics, subprocess, sys, time
tool, runs, fixtures = sys.argv[1], int(sys.argv[2]), sys.argv[3]
trees = ["trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge", "inf2.48xlarge",
         "cpu-only", "faulty/missing-efa", "faulty/hardware-error-line"]
checks = ["neuron-devices", "error-counters", "kernel-log", "efa", "cache-tier"]
print("| tree | " + " | ".join(checks) + " | process wall |")
print("|---" * (len(checks) + 2) + "|")
doubles = os.path.join(os.path.dirname(fixtures), "doubles")
os.environ["TRN_DOUBLE_NEURON_LS_JSON"] = os.path.join(fixtures, "trn2.48xlarge/neuron-ls-lnc1.json")
for tree in trees + ["/ (this machine)", "trn2.48xlarge + neuron-ls double"]:
    args = [tool, "--json", "--node", "bench"]
    if tree.endswith("double"):
        args += ["--fsroot", os.path.join(fixtures, tree.split()[0]), "--neuron-tools", doubles]
    elif not tree.startswith("/"):
        args += ["--fsroot", os.path.join(fixtures, tree)]
    per_check = {c: [] for c in checks}
    walls = []
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(args, capture_output=True, text=True).stdout
        walls.append(time.perf_counter() - start)
        for c in json.loads(out)["checks"]:
            per_check[c["check"]].append(c["seconds"])
    cells = ["%.2f ms" % (1000 * statistics.median(per_check[c])) for c in checks]
    print("| %s | %s | %.1f ms |" % (tree, " | ".join(cells), 1000 * statistics.median(walls)))
PY

source bench/cluster_lib.sh
bench_cluster_up 4
nodes=$(slurm sinfo -h -N -o %N | sort -u | paste -sd,)

echo
echo "== trn-health --step on the 4 nodes: median of $runs steps (seconds each check reports)"
step_reports() {  # step_reports FSROOT [ENV...]: labelled --json reports of one 4-node step
  local fsroot=$1
  shift
  slurm env TRN_DOUBLE_NEURON_LS_JSON="$work/neuron-ls.json" "$@" srun --label --nodes=4 --ntasks=4 \
    --ntasks-per-node=1 --nodelist="$nodes" trn-health --step --json --fsroot "$fsroot" \
    --neuron-tools "$root/tests/doubles" 2>/dev/null || true
}
echo '[{"neuron_device": 0, "bdf": "00:1e.0", "nc_count": 2, "logical_neuroncore_config": 1}]' \
  >"$work/neuron-ls.json"
for ((i = 0; i < runs; i++)); do
  start=$EPOCHREALTIME
  step_reports "$fixtures/cpu-only" >"$work/step-cpu-$i.txt"
  echo "$start $EPOCHREALTIME" >"$work/step-cpu-$i.wall"
  step_reports "$fixtures/trn1.2xlarge" >"$work/step-trn1-$i.txt"
done
"$python" - "$work" "$runs" <<'PY'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
def reports(path):  # srun --label cuts lines at 1024 bytes: join each task's pieces
    tasks = {}
    for line in open(path):
        task, _, text = line.rstrip("\n").partition(": ")
        tasks[task] = tasks.get(task, "") + text
    return [json.loads(t) for t in tasks.values()]
def seconds(kind, check):
    return [c["seconds"] for i in range(runs) for r in reports("%s/step-%s-%d.txt" % (work, kind, i))
            for c in r["checks"] if c["check"] == check]
walls = []
for i in range(runs):
    a, b = open("%s/step-cpu-%d.wall" % (work, i)).read().split()
    walls.append(float(b) - float(a))
print("| measurement | min | median | max |")
print("|---|---|---|---|")
for name, xs in (("reach (cpu-only trees), per node", seconds("cpu", "reach")),
                 ("neuron-devices with the neuron-ls double (trn1.2xlarge)", seconds("trn1", "neuron-devices")),
                 ("collectives with the nccom-test double (trn1.2xlarge)", seconds("trn1", "collectives")),
                 ("the whole srun of trn-health --step (cpu-only)", walls)):
    print("| %s | %.1f ms | %.1f ms | %.1f ms |" % (name, 1000 * min(xs), 1000 * statistics.median(xs), 1000 * max(xs)))
PY

echo
echo "== job start to the first training step, 4 nodes, with and without the gate ($pairs pairs)"
# The batch script: records when the job's script starts, then is trn-run.
cat >"$work/timed-trn-run" <<SCRIPT
#!/bin/sh
date +%s.%N >"$work/start-\$SLURM_JOB_ID"
exec trn-run "\$@"
SCRIPT
chmod +x "$work/timed-trn-run"
first_step() {  # first_step EXTRA_ARGS...: one 1-step job; prints "to-first-step to-train-srun"
  local job run
  job=$(slurm sbatch --parsable --exclusive --nodes=4 -D "$work" "$work/timed-trn-run" bert_tiny \
    --data "$work/data" --output-root "$work/runs" --steps 1 --set warmup=1 "$@")
  wait_done "$job"
  run=$work/runs/bert_tiny-$job
  grep -q 'step 1/1 ' "$run"/logs/train_*_4.log ||
    { echo "no 'step 1/1' line in $run/logs" >&2; exit 1; }
  # metrics.jsonl is written (and flushed) once, at step 1: its time is the step's.
  "$python" - "$work/start-$job" "$run" <<'PY'
import json, os, sys
start = float(open(sys.argv[1]).read())
run = sys.argv[2]
results = json.load(open(os.path.join(run, "results.json")))
print("%.3f %.3f" % (os.stat(os.path.join(run, "metrics.jsonl")).st_mtime - start,
                     results["phases"]["before_train_seconds"]))
PY
}
with=() without=()
for ((i = 0; i < pairs; i++)); do
  if ((i % 2)); then
    without+=("$(first_step --no-health-check)"); with+=("$(first_step)")
  else
    with+=("$(first_step)"); without+=("$(first_step --no-health-check)")
  fi
done
"$python" - "$(printf '%s\n' "${with[@]}")" "$(printf '%s\n' "${without[@]}")" <<'PY'
import statistics, sys
w = [tuple(map(float, l.split())) for l in sys.argv[1].splitlines()]
wo = [tuple(map(float, l.split())) for l in sys.argv[2].splitlines()]
print("| | min | median | max |")
print("|---|---|---|---|")
for column, what in ((0, "job start to first training step"), (1, "trn-run start to training srun")):
    xs, ys = [r[column] for r in w], [r[column] for r in wo]
    for name, values in (("with the gate", xs), ("--no-health-check", ys)):
        print("| %s, %s | %.3f s | %.3f s | %.3f s |" % (what, name, min(values), statistics.median(values), max(values)))
    diffs = [a - b for a, b in zip(xs, ys)]
    print("| %s, per-pair difference | %.3f s | %.3f s | %.3f s |" % (what, min(diffs), statistics.median(diffs), max(diffs)))
print()
print("pairs in run order (job start to first step, with / without the gate): " +
      ", ".join("%.2f/%.2f" % (a[0], b[0]) for a, b in zip(w, wo)))
PY
