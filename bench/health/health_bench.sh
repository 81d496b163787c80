#!/usr/bin/env bash
# trn-health's cost. (1) Per check and for the whole process, on every recorded tree and on
# this machine's root: median of RUNS runs (the issue's bound: 10 s per node). (2) trn-run on a
# local 4-node cluster: seconds from trn-run's start to the training srun with and without the
# health gate, in alternating pairs; the ratio of the medians and the median per-pair difference.
# Usage: bench/health/health_bench.sh [BUILD_DIR] [RUNS] [PAIRS]   (default build/ci 20 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=$(realpath "${1:-build/ci}")
runs=${2:-20}
pairs=${3:-5}
fixtures=$root/tests/fixtures

echo "== trn-health on one node: median of $runs runs per tree, $(nproc) cores, $(date -u +%F)"
/usr/bin/python3 - "$build/bin/trn-health" "$runs" "$fixtures" <<'PY'
import json, os, statistics, subprocess, sys, time
tool, runs, fixtures = sys.argv[1], int(sys.argv[2]), sys.argv[3]
trees = ["trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge", "inf2.48xlarge",
         "cpu-only", "faulty/missing-efa", "faulty/hardware-error-line"]
checks = ["neuron-devices", "error-counters", "kernel-log", "efa", "cache-tier"]
print("| tree | " + " | ".join(checks) + " | process wall |")
print("|---" * (len(checks) + 2) + "|")
for tree in trees + ["/ (this machine)"]:
    args = [tool, "--json", "--node", "bench"]
    args += ["--fsroot", os.path.join(fixtures, tree)] if not tree.startswith("/") else []
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

echo
echo "== trn-run start to the training srun, 4 nodes, with and without the gate ($pairs pairs)"
source bench/cluster_lib.sh
bench_cluster_up 4
before_train() {  # before_train EXTRA_ARGS...: one 1-step job; prints phases.before_train_seconds
  local job
  job=$(slurm sbatch --parsable --exclusive --nodes=4 -D "$work" trn-run bert_tiny --data "$work/data" \
    --output-root "$work/runs" --steps 1 "$@")
  wait_done "$job"
  field "$work/runs/bert_tiny-$job/results.json" "d['phases']['before_train_seconds']"
}
with=() without=()
for ((i = 0; i < pairs; i++)); do
  if ((i % 2)); then
    without+=("$(before_train --no-health-check)"); with+=("$(before_train)")
  else
    with+=("$(before_train)"); without+=("$(before_train --no-health-check)")
  fi
done
/usr/bin/python3 - "${with[*]}" "${without[*]}" <<'PY'
import statistics, sys
w = [float(x) for x in sys.argv[1].split()]
wo = [float(x) for x in sys.argv[2].split()]
print("| | min | median | max |")
print("|---|---|---|---|")
for name, xs in (("with the gate", w), ("--no-health-check", wo)):
    print("| %s | %.3f s | %.3f s | %.3f s |" % (name, min(xs), statistics.median(xs), max(xs)))
diffs = [a - b for a, b in zip(w, wo)]
print("| per-pair difference | %.3f s | %.3f s | %.3f s |" % (min(diffs), statistics.median(diffs), max(diffs)))
print("ratio of medians (with / without): %.2f" % (statistics.median(w) / statistics.median(wo)))
PY
