#!/usr/bin/env bash
# The control plane's cost against the node count (issue 31, item 2): trn-run on N local nodes
# (scripts/cluster: one network namespace and slurmd each) with a profile whose workers train
# nothing (bench/cluster/beat_only.py: start, beat for a few steps, exit), so all that is timed is
# what trn-run does around training. For each N: the seconds of each phase before the first step
# (node facts, health gate, plan, cache pull, step launch, first heartbeat, first step), from
# results.json's phases and the ranks' own clocks; then a run with one spare node in which a
# training node is killed: detection, probe, drain, restart and the restarted step's first step.
# Prints a table, writes CSV, a PNG and the 1,000-node model (control_plane_report.py) to OUT.
# Usage: bench/cluster/control_plane.sh [OUT] [COUNTS]   (defaults: build/bench/control-plane and
# "8 16 32 64 128"). Needs root (scripts/cluster) and the ci build (build/ci).
# Above TRN_BENCH_GATE_NODES nodes (default 64) the runs skip the health gate: its reach check
# (every node to every other, 128 KiB each way) does not fit its 10 s budget when all the nodes
# share this machine's cores, and it drains the nodes it could not reach.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$(realpath -m "${1:-build/bench/control-plane}")
read -r -a counts <<<"${2:-8 16 32 64 128}"
build=$root/build/ci
[[ -x $build/bin/trn-run && -f $build/spank_plugin/spank_trn.so ]] ||
  { echo "control_plane.sh: no ci build in $build: run cmake --preset ci && cmake --build --preset ci" >&2; exit 2; }
python=$(scripts/python -c 'import sys; print(sys.prefix)')/bin/python3
largest=0
for n in "${counts[@]}"; do ((n > largest)) && largest=$n; done
nodes=$((largest + 1))  # one more: the spare of the recovery runs
name=cp$$
cluster() { scripts/cluster --name "$name" "$@"; }
slurm() { cluster exec "$@"; }
scratch=$(mktemp -d /tmp/trn-control-plane.XXXXXX)
chmod 1777 "$scratch"  # as /tmp: spank_trn refuses a cache under a folder anyone may rename in
trap 'cluster down >/dev/null 2>&1 || true; [[ -n ${TRN_BENCH_KEEP:-} ]] || rm -rf "$scratch"' EXIT
mkdir -p "$out" "$scratch/topology-cache" "$scratch/neuron-cache" "$scratch/shared-cache"
printf 'required %s bind=none topology_cache=%s local_cache=%s\n' "$build/spank_plugin/spank_trn.so" \
  "$scratch/topology-cache" "$scratch/neuron-cache" >"$scratch/plugstack.conf"

# The profile: no data, no model; one worker per CPU node; weak scaling (one sequence per worker).
profile() {  # profile STEPS SPARES
  cat <<YAML
description: no training (bench/cluster/control_plane.sh) - workers start, beat and exit
command: python3 $root/bench/cluster/beat_only.py --steps {steps_this_run} --step-seconds 0.2
micro_batch: 1
global_batch: 1
scaling: weak
steps: $1
compile_steps: 1
launch: per-core
cpu_workers_per_node: 1
spare_nodes: $2
hang_timeout: 5
max_restarts: 3
env:
  TRN_BENCH_TIMES: "{run_dir}/times"
YAML
}
profile 3 0 >"$scratch/beat_only.yaml"
profile 40 1 >"$scratch/beat_only_spare.yaml"

echo "control-plane bench: up $nodes nodes ($(nproc) cores)"
cluster up "$nodes" --plugstack "$scratch/plugstack.conf" >/dev/null
gate_nodes=${TRN_BENCH_GATE_NODES:-64}
run_job() {  # run_job NODES PROFILE -> the run directory; the job must complete
  local job state gate=()
  (($1 <= gate_nodes + 1)) || gate=(--no-health-check)
  job=$(slurm env PATH="$build/bin:/usr/bin:/bin:/usr/sbin:/sbin" TRN_TRAINING_VENV="${python%/bin/python3}" \
    sbatch --parsable --exclusive --nodes="$1" -D "$scratch" \
    trn-run "$scratch/$2.yaml" --output-root "$scratch/runs" --cache-shared "$scratch/shared-cache" "${gate[@]}")
  echo "$job" >"$scratch/last-job"
  while state=$(slurm squeue -h -j "$job" -o %T 2>/dev/null) && [[ -n $state ]]; do sleep 0.2; done
  echo "$scratch/runs/$2-$job"
}
for n in "${counts[@]}"; do
  run=$(run_job "$n" beat_only)
  [[ -f $run/results.json ]] || { cat "$scratch"/trn-run-*.out | tail -n 40; echo "no results for $n nodes" >&2; exit 1; }
  cp "$run/results.json" "$out/forward-$n.json"
  mkdir -p "$out/forward-$n-times" && cp "$run"/times/*.json "$out/forward-$n-times/"
  echo "  $n nodes: $(tail -n 1 "$scratch/trn-run-$(cat "$scratch/last-job").out")"

  # Recovery: N training nodes and one spare; the second training node is lost after the first
  # steps, and trn-run swaps the spare in within the job.
  job_nodes=$((n + 1))
  ( # the loss, from beside the job: once the ranks are past their first steps
    for _ in $(seq 600); do
      sleep 0.2
      run_dir=$(ls -d "$scratch"/runs/beat_only_spare-* 2>/dev/null | tail -n 1) || continue
      [[ -n $run_dir && -d $run_dir/watch ]] || continue
      victim=$(sed -n 's/.*"node":"\([^"]*\)".*"step":\([0-9]*\).*/\1 \2/p' "$run_dir"/watch/attempt-0/rank1.beat 2>/dev/null | awk '$2 >= 5 {print $1}') || true
      [[ -n $victim ]] && { cluster kill-node "$victim"; echo "$victim $(date +%s.%N)" >"$scratch/victim"; exit 0; }
    done
  ) &
  killer=$!
  run=$(run_job "$job_nodes" beat_only_spare)
  wait "$killer" || true
  [[ -s $scratch/victim ]] || echo "  (no node was killed in the recovery run on $n nodes)" >&2
  victim=$(cut -d' ' -f1 "$scratch/victim" 2>/dev/null || echo "")
  [[ -n $victim ]] && { cluster start-slurmd "$victim" >/dev/null 2>&1; slurm scontrol update NodeName="$victim" State=RESUME >/dev/null 2>&1 || true; }
  [[ -f $run/results.json ]] || { tail -n 40 "$scratch/trn-run-$(cat "$scratch/last-job").out"; echo "no results for the recovery on $n nodes" >&2; exit 1; }
  cp "$run/results.json" "$out/recovery-$n.json"
  cut -d' ' -f2 "$scratch/victim" >"$out/recovery-$n.killed_unix"
  rm -f "$scratch/victim"
  rm -rf "$scratch/runs"
  # every node idle again before the next count
  for _ in $(seq 300); do
    [[ $(slurm sinfo -h -N -t idle -o %N | sort -u | wc -l) -eq $nodes ]] && break
    sleep 0.2
  done
done
"$python" bench/cluster/control_plane_report.py "$out" "${counts[@]}"
