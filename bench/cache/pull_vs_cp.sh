#!/bin/bash
# trn-cache pull vs cp -a, side by side, on a synthetic Neuron compile cache in the real layout
# (docs/hardware.md#compile-cache): ENTRIES entries of model.hlo_module.pb (4 KiB),
# compile_flags.json, model.neff (NEFF_KIB KiB of random bytes) and model.done - about 1 GiB by
# default.
#   cold: the destination is empty;  warm: the destination already holds everything.
# The cold pull runs twice: with its default --jobs (several entries at once) and --jobs 1.
# Each case runs REPEATS times; the table shows medians. The source tree is in the page cache
# for both tools alike (caches are not dropped: the machine is shared). Run by hand, not in
# scripts/test: it writes about 3 GiB and takes about a minute on a 2-core VM.
#
# usage: bench/cache/pull_vs_cp.sh [TRN_CACHE]   (default: the first build/*/bin/trn-cache)
# env:   ENTRIES=1000 NEFF_KIB=1024 REPEATS=3 WORK=/var/tmp (must hold 3.5x the cache)
# Exit status: 0, or 1 when the warm pull is not at least 20x faster than cp -a, or the cold
# pull (default --jobs) is slower than cp -a.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
trn_cache=${1:-$(ls "$here"/../../build/*/bin/trn-cache 2>/dev/null | head -1)}
[ -x "$trn_cache" ] || { echo "pull_vs_cp: no trn-cache binary; pass its path" >&2; exit 2; }
entries=${ENTRIES:-1000}
neff_kib=${NEFF_KIB:-1024}
repeats=${REPEATS:-3}
work=$(mktemp -d "${WORK:-/var/tmp}/trn-cache-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
version=neuronxcc-2.14.213.0+013d129b

echo "generating $entries entries of $neff_kib KiB neffs in $work/shared ..." >&2
"$here/../../scripts/python" - "$work/shared/$version" "$entries" "$neff_kib" <<'EOF'
import os, sys
root, entries, neff_kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(entries):
    entry = os.path.join(root, f"MODULE_{10**18 + i * 7919}+d41d8cd9")
    os.makedirs(entry)
    for name, data in (("model.hlo_module.pb", os.urandom(4096)),
                       ("compile_flags.json", b'["--model-type", "transformer"]'),
                       ("model.neff", os.urandom(neff_kib * 1024)), ("model.done", b"")):
        with open(os.path.join(entry, name), "wb") as f:
            f.write(data)
EOF
sync
total=$(du -sb "$work/shared" | cut -f1)

now() { echo "$EPOCHREALTIME"; }
elapsed() { echo "$2 - $1" | bc -l; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# time_cmd VAR CMD...: appends the wall time of CMD to the array named VAR.
time_cmd() {
  local -n times=$1; shift
  local start end
  start=$(now); "$@" >/dev/null; end=$(now)
  times+=("$(elapsed "$start" "$end")")
  sync
}

pull_cold=() pull_warm=() cp_cold=() cp_warm=() serial_cold=()
for round in $(seq "$repeats"); do
  rm -rf "$work/local" "$work/cp" "$work/serial"; sync
  # The first copy after the removal and sync pays for the freed blocks: the two cold pulls
  # take turns going first.
  if (( round % 2 )); then
    time_cmd serial_cold "$trn_cache" pull --jobs 1 --from "$work/shared" --to "$work/serial"
    time_cmd pull_cold "$trn_cache" pull --from "$work/shared" --to "$work/local"
  else
    time_cmd pull_cold "$trn_cache" pull --from "$work/shared" --to "$work/local"
    time_cmd serial_cold "$trn_cache" pull --jobs 1 --from "$work/shared" --to "$work/serial"
  fi
  time_cmd pull_warm "$trn_cache" pull --from "$work/shared" --to "$work/local"
  time_cmd cp_cold cp -a "$work/shared" "$work/cp"
  time_cmd cp_warm cp -a "$work/shared/." "$work/cp/"
done

# The pulled tree must be the source, byte for byte.
diff -r "$work/shared" "$work/local" >/dev/null || { echo "pull_vs_cp: trees differ" >&2; exit 2; }
diff -r "$work/shared" "$work/serial" >/dev/null || { echo "pull_vs_cp: trees differ (--jobs 1)" >&2; exit 2; }
"$trn_cache" pull --from "$work/shared" --to "$work/local" | grep -q "pulled 0 entries" ||
  { echo "pull_vs_cp: warm pull copied something" >&2; exit 2; }

pc=$(median "${pull_cold[@]}") pw=$(median "${pull_warm[@]}") sc=$(median "${serial_cold[@]}")
cc=$(median "${cp_cold[@]}") cw=$(median "${cp_warm[@]}")
printf '%d entries, %.2f GiB, %s, %s default jobs, medians of %d\n\n' "$entries" \
  "$(echo "$total / 1073741824" | bc -l)" "$(df -T "$work" | awk 'NR==2 {print $2}')" \
  "$("$trn_cache" pull --json --from "$work/shared" --to "$work/local" | grep -o '"jobs": [0-9]*' | cut -d' ' -f2)" \
  "$repeats"
printf '| case | trn-cache pull | cp -a    | cp -a / pull |\n'
printf '|------|----------------|----------|--------------|\n'
printf '| cold | %10.3f s   | %6.3f s | %10.1fx  |\n' "$pc" "$cc" "$(echo "$cc / $pc" | bc -l)"
printf '| warm | %10.3f s   | %6.3f s | %10.1fx  |\n' "$pw" "$cw" "$(echo "$cw / $pw" | bc -l)"
printf '| cold, --jobs 1 | %6.3f s | %6.3f s | %10.1fx  |\n' "$sc" "$cc" "$(echo "$cc / $sc" | bc -l)"
echo
echo "all runs (s): pull cold ${pull_cold[*]}; pull cold --jobs 1 ${serial_cold[*]}; pull warm ${pull_warm[*]}; cp cold ${cp_cold[*]}; cp warm ${cp_warm[*]}"
ratio=$(echo "$cw / $pw" | bc -l)
if [ "$(echo "$ratio < 20" | bc)" -eq 1 ]; then
  echo "pull_vs_cp: warm pull only $(printf %.1f "$ratio")x faster than cp -a (target 20x)" >&2
  exit 1
fi
if [ "$(echo "$cc / $pc < 1" | bc)" -eq 1 ]; then
  echo "pull_vs_cp: cold pull $(printf %.2f "$(echo "$cc / $pc" | bc -l)")x the speed of cp -a (target 1.0x)" >&2
  exit 1
fi
