#!/usr/bin/env bash
# Local cluster speed: `up 4` until every node is idle, `down`, and the median of `srun -N4 true`.
# Prints a table of each measurement against its target. Usage: bench/cluster/lifecycle.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
name=bench$$
cluster() { scripts/cluster --name "$name" "$@"; }
trap 'cluster down >/dev/null 2>&1 || true' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

ups=() downs=() sruns=()
for ((r = 0; r < rounds; r++)); do
  t0=$(now); cluster up 4 >/dev/null; t1=$(now)
  ups+=("$(echo "$t1 - $t0" | bc)")
  for ((i = 0; i < 20; i++)); do
    t0=$(now); cluster exec srun -N4 true; t1=$(now)
    sruns+=("$(echo "$t1 - $t0" | bc)")
  done
  t0=$(now); cluster down >/dev/null; t1=$(now)
  downs+=("$(echo "$t1 - $t0" | bc)")
done

row() { printf '| %-28s | %10.3f s | %8s s | %6.2f |\n' "$1" "$2" "$3" "$(echo "$2 / $3" | bc -l)"; }
echo "local cluster, $rounds rounds, $(nproc) cores, $(date -u +%F)"
printf '| %-28s | %12s | %10s | %6s |\n' "measurement (median)" "measured" "target" "ratio"
printf '|%s|%s|%s|%s|\n' "------------------------------" "--------------" "------------" "--------"
row "up 4 to all nodes idle" "$(printf '%s\n' "${ups[@]}" | median)" 2
row "down" "$(printf '%s\n' "${downs[@]}" | median)" 5
row "srun -N4 true" "$(printf '%s\n' "${sruns[@]}" | median)" 0.150
