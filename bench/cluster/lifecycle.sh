#!/usr/bin/env bash
# Local cluster speed and size: `up N` until every node is idle, `down`, the median of
# `srun -NN true`, and what one idle node takes of the machine's memory (MemAvailable before
# `up` and with every node idle, over N; and the slurmds' resident memory, over N).
# Prints a table of each measurement against its target.
# Usage: bench/cluster/lifecycle.sh [ROUNDS] [NODES]   (defaults 5 and 4)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
nodes=${2:-4}
name=bench$$
cluster() { scripts/cluster --name "$name" "$@"; }
trap 'cluster down >/dev/null 2>&1 || true' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
available_kib() { awk '/MemAvailable/ {print $2}' /proc/meminfo; }
state=${TRN_CLUSTER_RUN:-/run/trn-cluster}/$name

ups=() downs=() sruns=() taken=() resident=()
for ((r = 0; r < rounds; r++)); do
  sync; before=$(available_kib)
  t0=$(now); cluster up "$nodes" >/dev/null; t1=$(now)
  ups+=("$(echo "$t1 - $t0" | bc)")
  sleep 1  # the daemons' first allocations settle
  taken+=("$(echo "($before - $(available_kib)) / 1024 / $nodes" | bc -l)")
  # shellcheck disable=SC2046
  resident+=("$(ps -o rss= -p $(cat "$state"/pids/slurmd-*.pid | paste -sd, -) | awk -v n="$nodes" '{s += $1} END {print s / 1024 / n}')")
  for ((i = 0; i < 10; i++)); do
    t0=$(now); cluster exec srun -N"$nodes" true; t1=$(now)
    sruns+=("$(echo "$t1 - $t0" | bc)")
  done
  t0=$(now); cluster down >/dev/null; t1=$(now)
  downs+=("$(echo "$t1 - $t0" | bc)")
done

# The targets of 2026-11-22 are for 4 nodes; other sizes are reported without one.
row() {
  local target=$3 ratio="-"
  if [[ $target == - ]]; then target="-"; else ratio=$(printf '%.2f' "$(echo "$2 / $target" | bc -l)"); fi
  printf '| %-30s | %10.3f %-3s | %8s %-3s | %6s |\n' "$1" "$2" "$4" "$target" "$4" "$ratio"
}
four() { if ((nodes == 4)); then echo "$1"; else echo -; fi; }
echo "local cluster, $nodes nodes, $rounds rounds, $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(date -u +%F)"
printf '| %-30s | %16s | %14s | %6s |\n' "measurement (median)" "measured" "target" "ratio"
printf '|%s|%s|%s|%s|\n' "--------------------------------" "------------------" "----------------" "--------"
row "up $nodes to all nodes idle" "$(printf '%s\n' "${ups[@]}" | median)" "$(four 2)" s
row "down" "$(printf '%s\n' "${downs[@]}" | median)" "$(four 5)" s
row "srun -N$nodes true" "$(printf '%s\n' "${sruns[@]}" | median)" "$(four 0.150)" s
row "memory per idle node" "$(printf '%s\n' "${taken[@]}" | median)" - MiB
row "slurmd resident per node" "$(printf '%s\n' "${resident[@]}" | median)" - MiB
