#!/usr/bin/env bash
# The shared compile-cache tier spread node to node (trn-cache spread) against every node reading
# it (trn-cache pull), side by side on N local nodes (scripts/cluster: one network namespace and
# slurmd each), issue 31 item 3. A shared tier of ENTRIES complete entries of NEFF_MIB each; every
# node's local tier in its own /dev/shm (each local node has a private one: a node's own disk,
# never the bottleneck here). For each N, each
# way runs REPEATS times (the local tiers emptied before each) and the table shows medians of:
# the srun step's wall seconds and the bytes read from the shared tier, from the nodes' own
# reports (pull: what each node copied; spread: shared_tier_bytes). All nodes share this
# machine's cores and its page cache, so the shared tier costs nothing to read here: what it costs
# on FSx for Lustre is modelled in docs/hardware.md#cache-spread from the bytes counted here.
# Usage: bench/cache/spread_vs_readers.sh [OUT] [COUNTS]   (defaults: build/bench/cache-spread and
# "2 4 8 16 32"). env: ENTRIES=16 NEFF_MIB=8 REPEATS=3 FANOUT=2; TRN_BENCH_KEEP=1 keeps the
# scratch folder. Needs root and the ci build.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$(realpath -m "${1:-build/bench/cache-spread}")
read -r -a counts <<<"${2:-2 4 8 16 32}"
entries=${ENTRIES:-16}
neff_mib=${NEFF_MIB:-8}
repeats=${REPEATS:-3}
fanout=${FANOUT:-2}
build=$root/build/ci
[[ -x $build/bin/trn-cache ]] || { echo "spread_vs_readers.sh: no ci build in $build" >&2; exit 2; }
python=$(scripts/python -c 'import sys; print(sys.prefix)')/bin/python3
largest=0
for n in "${counts[@]}"; do ((n > largest)) && largest=$n; done
name=cs$$
cluster() { scripts/cluster --name "$name" "$@"; }
scratch=$(mktemp -d /tmp/trn-cache-spread.XXXXXX)
locals=/dev/shm/trn-cache-spread.$$  # on each node, in its own /dev/shm
chmod 0777 "$scratch"
trap 'cluster down >/dev/null 2>&1 || true; [[ -n ${TRN_BENCH_KEEP:-} ]] || rm -rf "$scratch"' EXIT
mkdir -p "$out"
version=neuronxcc-2.14.213.0+013d129b
for i in $(seq 1 "$entries"); do
  dir="$scratch/shared/$version/MODULE_$((1000000 + i))+d41d8cd9"
  mkdir -p "$dir"
  head -c $((neff_mib * 1048576)) /dev/urandom >"$dir/model.neff"
  head -c 4096 /dev/urandom >"$dir/model.hlo_module.pb"
  echo '["--model-type", "transformer"]' >"$dir/compile_flags.json"
  : >"$dir/model.done"
done
shared_bytes=$(find "$scratch/shared" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
for way in pull spread; do
  extra=""
  [[ $way == spread ]] && extra="--fanout $fanout"
  cat >"$scratch/$way.sh" <<SCRIPT
#!/bin/sh
exec "$build/bin/trn-cache" $way --from "$scratch/shared" --to "$locals" $extra --json >"$scratch/report-$way-\$SLURM_NODEID.json"
SCRIPT
  chmod +x "$scratch/$way.sh"
done

cat >"$scratch/count.sh" <<SCRIPT
#!/bin/sh
find "$locals/$version" -name model.done 2>/dev/null | wc -l >"$scratch/count-\$SLURM_NODEID"
SCRIPT
chmod +x "$scratch/count.sh"

echo "cache spread bench: up $largest nodes ($(nproc) cores), shared tier $((shared_bytes / 1048576)) MiB in $entries entries"
cluster up "$largest" >/dev/null
csv="$out/spread_vs_readers.csv"
echo "nodes,way,repeat,seconds,shared_tier_bytes,fallbacks" >"$csv"
for n in "${counts[@]}"; do
  for repeat in $(seq 1 "$repeats"); do
    for way in pull spread; do
      rm -f "$scratch"/report-* "$scratch"/count-*
      cluster exec srun --nodes="$n" --nodelist="$name-[1-$n]" --ntasks-per-node=1 rm -rf "$locals"
      started=$(date +%s.%N)
      cluster exec srun --nodes="$n" --nodelist="$name-[1-$n]" --ntasks-per-node=1 "$scratch/$way.sh"
      ended=$(date +%s.%N)
      read -r bytes fallbacks < <("$python" - "$scratch" "$way" "$n" <<'PY'
import json, sys
scratch, way, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
reports = [json.load(open(f"{scratch}/report-{way}-{i}.json")) for i in range(n)]
if way == "pull":
    print(sum(r["copied"]["bytes"] for r in reports), 0)
else:
    print(sum(r["spread"]["shared_tier_bytes"] for r in reports),
          sum(1 for r in reports if r["spread"]["fallback"]))
PY
)
      cluster exec srun --nodes="$n" --nodelist="$name-[1-$n]" --ntasks-per-node=1 "$scratch/count.sh"
      for i in $(seq 0 $((n - 1))); do
        [[ $(cat "$scratch/count-$i") == "$entries" ]] ||
          { echo "node $i of $n holds $(cat "$scratch/count-$i") entries after $way, not $entries" >&2; cat "$scratch/report-$way-$i.json" >&2; exit 1; }
      done
      echo "$n,$way,$repeat,$(awk "BEGIN {print $ended - $started}"),$bytes,$fallbacks" >>"$csv"
    done
  done
done
"$python" - "$csv" "$shared_bytes" "$fanout" <<'PY'
import csv, math, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
shared, fanout = int(sys.argv[2]), int(sys.argv[3])
def median(n, way, field):
    return statistics.median(float(r[field]) for r in rows if int(r["nodes"]) == n and r["way"] == way)
print(f"| nodes | tree depth (fanout {fanout}) | pull s | spread s | spread / pull | shared tier read, pull | shared tier read, spread | fallbacks |")
print("|---|---|---|---|---|---|---|---|")
for n in sorted({int(r["nodes"]) for r in rows}):
    depth, node = 0, n - 1
    while node > 0:
        node, depth = (node - 1) // fanout, depth + 1
    pull, spread = median(n, "pull", "seconds"), median(n, "spread", "seconds")
    print(f"| {n} | {depth} | {pull:.2f} | {spread:.2f} | {spread / pull:.2f} | "
          f"{median(n, 'pull', 'shared_tier_bytes') / shared:.0f} x | "
          f"{median(n, 'spread', 'shared_tier_bytes') / shared:.0f} x | "
          f"{int(max(float(r['fallbacks']) for r in rows if int(r['nodes']) == n and r['way'] == 'spread'))} |")
PY
echo "CSV: $csv"
