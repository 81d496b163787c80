#!/usr/bin/env bash
# What spank_trn adds to a job step: `srun -N4 --ntasks-per-node=8 true` on a local cluster that
# loads the plugin against an identical cluster that does not, run alternately so both see the
# same machine load. Prints a table of the medians, their ratio, and the median of the ratios of
# the back-to-back pairs ("pairs", the steadier one on a loaded machine); target <= 1.05. The
# last columns: the other way to set tasks up, where the plugin is not in plugstack.conf -
# every task starts through `trn-launcher slurm-task ... -- true` (docs/launchers.md#without-the-plugin),
# against the same bare step.
#
#   bench/plugin/srun_overhead.sh [RUNS] [PLUGIN_SO]
#
# Two node shapes: trn1.32xlarge (the plugin reads the recorded trn1.32xlarge tree: 8 tasks x 4
# NeuronCores, EFA, compile cache; Slurm's nodes shaped 2:32:2 like it), and the machine itself
# with 8 CPUs per node (real discovery and CPU binding; alloc_cores=ignore because slurm.conf
# then describes more CPUs than the machine has).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-30}
plugin=${2:-build/default/spank_plugin/spank_trn.so}
[[ -f $plugin ]] || { echo "srun_overhead: $plugin not found: build the spank_trn target or pass its path" >&2; exit 2; }
plugin=$(realpath "$plugin")
launcher=$(realpath "$(dirname "$plugin")/../bin/trn-launcher")
work=$(mktemp -d /tmp/trn-bench-plugin.XXXXXX)
chmod 1777 "$work"
with=bp$$w
without=bp$$o
cluster() { local name=$1; shift; scripts/cluster --name "$name" "$@"; }
cleanup() { cluster "$with" down >/dev/null 2>&1 || true; cluster "$without" down >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
step() {  # step CLUSTER [PREFIX...]: seconds of one srun step running PREFIX true
  local t0 t1 name=$1
  shift
  t0=$(now); cluster "$name" exec srun -N4 --ntasks-per-node=8 "$@" true; t1=$(now); echo "$t1 - $t0" | bc
}

measure() {  # measure LABEL SHAPE FSROOT PLUGIN_ARGS...: prints one table row
  local label=$1 shape=$2 fsroot=$3 r a b c
  shift 3
  local task_step=("$launcher" slurm-task "--fsroot=$fsroot" "--local-cache=$work/cache"
    "--topology-cache=$work/topology" --)
  echo "required $plugin topology_cache=$work/topology local_cache=$work/cache $*" >"$work/with.conf"
  : >"$work/without.conf"
  cluster "$with" up 4 --node-shape "$shape" --plugstack "$work/with.conf" >/dev/null
  cluster "$without" up 4 --node-shape "$shape" --plugstack "$work/without.conf" >/dev/null
  # Warm up both (first step: slurmstepd pages in, the plugin discovers and caches the topology).
  for r in 1 2 3; do step "$with" >/dev/null; step "$without" >/dev/null; step "$without" "${task_step[@]}" >/dev/null; done
  local with_times=() without_times=() task_times=() pair_ratios=() task_ratios=()
  for ((r = 0; r < runs; r++)); do
    if ((r % 2)); then
      a=$(step "$with"); b=$(step "$without"); c=$(step "$without" "${task_step[@]}")
    else
      c=$(step "$without" "${task_step[@]}"); b=$(step "$without"); a=$(step "$with")
    fi
    with_times+=("$a")
    without_times+=("$b")
    task_times+=("$c")
    pair_ratios+=("$(echo "$a / $b" | bc -l)")
    task_ratios+=("$(echo "$c / $b" | bc -l)")
  done
  cluster "$with" down >/dev/null
  cluster "$without" down >/dev/null
  a=$(printf '%s\n' "${with_times[@]}" | median)
  b=$(printf '%s\n' "${without_times[@]}" | median)
  c=$(printf '%s\n' "${task_times[@]}" | median)
  printf '| %-34s | %9.1f ms | %9.1f ms | %5.3f | %5.3f | %9.1f ms | %5.3f | %5.3f |\n' "$label" \
    "$(echo "$a * 1000" | bc -l)" "$(echo "$b * 1000" | bc -l)" "$(echo "$a / $b" | bc -l)" \
    "$(printf '%s\n' "${pair_ratios[@]}" | median)" "$(echo "$c * 1000" | bc -l)" "$(echo "$c / $b" | bc -l)" \
    "$(printf '%s\n' "${task_ratios[@]}" | median)"
}

echo "srun -N4 --ntasks-per-node=8 true, median of $runs runs each, alternating; $(nproc) cores, $(date -u +%F)"
printf '| %-34s | %12s | %12s | %5s | %5s | %12s | %5s | %5s |\n' "nodes (plugin arguments)" "with plugin" "without" \
  "ratio" "pairs" "slurm-task" "ratio" "pairs"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "------------------------------------" "--------------" "--------------" "-------" \
  "-------" "--------------" "-------" "-------"
measure "trn1.32xlarge tree, shape 2:32:2" 2:32:2 "$PWD/tests/fixtures/trn1.32xlarge" \
  "fsroot=$PWD/tests/fixtures/trn1.32xlarge"
measure "this machine, 8 CPUs per node" 1:8:1 / alloc_cores=ignore
