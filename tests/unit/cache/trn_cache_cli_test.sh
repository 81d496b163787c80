#!/bin/bash
# trn-cache's command line against caches that the neuron_parallel_compile test double fills:
# states, exit statuses, one-line errors, pull/push, prune, clear-locks (refused while a
# compiler runs, found in the real /proc).
# usage: trn_cache_cli_test.sh TRN_CACHE NEURON_PARALLEL_COMPILE_DOUBLE
set -u
trn_cache=$1
npc=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/trn-cache-cli-XXXXXX")
double_pid=
cleanup() {
  [ -n "$double_pid" ] && kill "$double_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_eq() { [ "$1" == "$2" ] || fail "$3: expected '$2', got '$1'"; }
json() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

export NEURON_COMPILE_CACHE_URL=$work/cache
export TRN_TEST_NPC_LOG=$work/npc.log
unset NEURON_CC_FLAGS TRN_TEST_NPC_FAIL TRN_TEST_NPC_GRAPHS
# A "training script" that fails unless it runs under the compiler's extraction mode.
trainer=(/bin/sh -c 'echo "step 1"; test "$NEURON_EXTRACT_GRAPHS_ONLY" = 1' trainer)

# --- the double: first run compiles, same shapes hit the cache, other shapes compile ---
out=$("$npc" --num_parallel 2 "${trainer[@]}" --micro-batch 16 --output "$work/run-1" 2>&1)
expect_eq "$?" 0 "first compile exit"
grep -q "INFO ||NEURON_PARALLEL_COMPILE||: Total graphs: 3$" <<<"$out" || fail "summary: $out"
grep -q "Total successful compilations: 3$" <<<"$out" || fail "successful line"
grep -q "Total failed compilations: 0$" <<<"$out" || fail "failed line"
grep -q "^step 1$" <<<"$out" || fail "trainer output not echoed"
status=$("$trn_cache" status --json)
expect_eq "$(json 'd["done"]["entries"]' <<<"$status")" 3 "done after first compile"
expect_eq "$(json 'd["root"]' <<<"$status")" "$work/cache" "root from NEURON_COMPILE_CACHE_URL"
ls -d "$work/cache/neuronxcc-2.14.213.0+013d129b/MODULE_"*+* >/dev/null || fail "layout"

out=$("$npc" "${trainer[@]}" --micro-batch 16 --output "$work/run-2" 2>&1)
expect_eq "$?" 0 "cache-hit exit"
grep -q "No todo hlos found" <<<"$out" || fail "same shapes should find nothing to do: $out"
# Another node of the same job: torchrun's per-node options do not change the graphs.
out=$("$npc" "${trainer[@]}" --node_rank 1 --master_addr=node2 --micro-batch 16 --output "$work/run-2" 2>&1)
grep -q "No todo hlos found" <<<"$out" || fail "node rank changed the graphs: $out"

"$npc" "${trainer[@]}" --micro-batch 8 --output "$work/run-3" >/dev/null 2>&1
expect_eq "$("$trn_cache" status --json | json 'd["done"]["entries"]')" 6 "micro-batch 8 compiles"
expect_eq "$(wc -l <"$TRN_TEST_NPC_LOG")" 4 "invocations counted"

TRN_TEST_NPC_FAIL=2 "$npc" "${trainer[@]}" --micro-batch 4 >/dev/null 2>&1
expect_eq "$?" 2 "exit status = failed compilations"
status=$("$trn_cache" status --json)
expect_eq "$(json 'd["failed"]["entries"]' <<<"$status")" 2 "failed entries"
expect_eq "$(json 'd["done"]["entries"]' <<<"$status")" 7 "done entries"

TRN_TEST_NPC_GRAPHS=257 TRN_TEST_NPC_FAIL=257 TRN_TEST_NPC_NEFF_BYTES=1 \
  NEURON_COMPILE_CACHE_URL=$work/wrap "$npc" "${trainer[@]}" >/dev/null 2>&1
expect_eq "$?" 1 "257 failures wrap to exit 1"

out=$("$npc" /bin/sh -c 'echo boom >&2; exit 3' 2>&1)
expect_eq "$?" 1 "training script failure exit"
grep -q "There was an error in the training script." <<<"$out" || fail "script failure line"

"$npc" --command bogus true >/dev/null 2>&1
expect_eq "$?" 2 "double: bad --command"

# --- status text ---
out=$("$trn_cache" status --list)
expect_eq "$?" 0 "status exit"
grep -Eq "^  done +7 entries" <<<"$out" || fail "status text: $out"
grep -Eq "^  failed +2 entries" <<<"$out" || fail "status failed row"
expect_eq "$(grep -c '^failed ' <<<"$out")" 2 "status --list rows for failed"

# --- pull / push ---
out=$("$trn_cache" pull --from "$work/cache" --to "$work/local" --json)
expect_eq "$(json 'd["copied"]["entries"]' <<<"$out")" 7 "cold pull copies done entries only"
expect_eq "$(json 'd["not_complete"]["entries"]' <<<"$out")" 2 "failed entries not pulled"
out=$("$trn_cache" pull --from "$work/cache" --to "$work/local")
grep -q "pulled 0 entries" <<<"$out" || fail "warm pull: $out"
grep -q "present 7" <<<"$out" || fail "warm pull present: $out"
diff -r "$work/cache/neuronxcc-2.14.213.0+013d129b" "$work/local/neuronxcc-2.14.213.0+013d129b" \
  2>/dev/null | grep -q "^Only in $work/cache" || fail "failed entries must stay behind"
out=$(NEURON_COMPILE_CACHE_URL=$work/local "$trn_cache" push --to "$work/shared" --json)
expect_eq "$(json 'd["copied"]["entries"]' <<<"$out")" 7 "push from the default local root"
# A mistyped shared tier or an S3 URL is an error, not a silent success.
out=$("$trn_cache" pull --from "$work/nowhere" --to "$work/local" 2>&1)
expect_eq "$?" 2 "pull from a missing shared tier"
grep -q "nowhere is not an existing folder" <<<"$out" || fail "missing source message: $out"
out=$("$trn_cache" pull --from s3://bucket/neuron-cache --to "$work/local" 2>&1)
expect_eq "$?" 2 "pull from s3://"
grep -q "folders only; sync an S3 cache" <<<"$out" || fail "s3 source message: $out"
# Outside a job step (no NEURON_COMPILE_CACHE_URL) a pull does not make Neuron's default folder,
# which is also spank_trn's node-local tier.
out=$(env -u NEURON_COMPILE_CACHE_URL "$trn_cache" pull --from "$work/cache" 2>&1)
expect_eq "$?" 2 "pull without a destination outside a step"
grep -q "pass --to DIR" <<<"$out" || fail "no destination message: $out"
# One odd local entry (a file where an entry's folder belongs) and one unreadable source file
# are skipped and named; every other entry is still pulled.
version=neuronxcc-2.14.213.0+013d129b
mkdir -p "$work/odd/$version"
odd=$(basename "$(ls -d "$work/cache/$version/MODULE_"* | head -1)")
touch "$work/odd/$version/$odd"
out=$("$trn_cache" pull --from "$work/cache" --to "$work/odd" 2>&1)
expect_eq "$?" 0 "pull with one odd local entry"
grep -q "skipped $work/cache/$version/$odd: $work/odd/$version/$odd is not a folder" <<<"$out" ||
  fail "odd local entry message: $out"
grep -q "pulled 6 entries" <<<"$out" || fail "the other entries were not pulled: $out"
# --jobs: how many entries are copied at once changes nothing in the result.
one=$("$trn_cache" pull --from "$work/cache" --to "$work/jobs1" --jobs 1 --json)
three=$("$trn_cache" pull --from "$work/cache" --to "$work/jobs3" --jobs 3 --json)
expect_eq "$(json 'd["jobs"]' <<<"$three")" 3 "--jobs in the JSON report"
expect_eq "$(json 'd["copied"]["entries"]' <<<"$three")" "$(json 'd["copied"]["entries"]' <<<"$one")" \
  "entries pulled with --jobs 3 and --jobs 1"
diff -r "$work/jobs1" "$work/jobs3" >/dev/null || fail "--jobs 3 and --jobs 1 pulled different trees"
# As an unprivileged user (root reads anything): the suite runs as root, setpriv is util-linux's.
if ! command -v setpriv >/dev/null || [ "$(id -u)" != 0 ]; then
  fail "the unreadable-file case needs root and setpriv (util-linux) to read as another user"
else
  chmod 755 "$work"
  cp -a "$work/cache" "$work/unreadable" && mkdir "$work/mine" && chown 65534 "$work/mine"
  chmod -R a+rX "$work/unreadable"
  chmod 000 "$(ls -d "$work/unreadable/$version/MODULE_"*/model.neff | head -1)"
  out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$trn_cache" pull --from "$work/unreadable" --to "$work/mine" 2>&1)
  expect_eq "$?" 0 "pull with one unreadable file"
  grep -q "skipped .*model.neff" <<<"$out" || fail "unreadable entry message: $out"
  grep -q "pulled 6 entries" <<<"$out" || fail "the readable entries were not pulled: $out"
fi

# --- prune ---
out=$("$trn_cache" prune --failed)
grep -q "removed 2 entries" <<<"$out" || fail "prune --failed: $out"
expect_eq "$("$trn_cache" status --json | json 'd["failed"]["entries"]')" 0 "no failed left"
out=$("$trn_cache" prune --max-size 0 --dry-run --json)
expect_eq "$(json 'len(d["removed"])' <<<"$out")" 7 "dry run lists all"
expect_eq "$("$trn_cache" status --json | json 'd["done"]["entries"]')" 7 "dry run removed nothing"

# --- clear-locks ---
entry=$(ls -d "$work/cache/neuronxcc-2.14.213.0+013d129b/MODULE_"* | head -1)
touch -d '2 hours ago' "$entry/model.hlo_module.pb.lock"
mkdir -p "$work/proc/1" && echo init >"$work/proc/1/comm" && printf '/sbin/init\0' >"$work/proc/1/cmdline"
expect_eq "$("$trn_cache" status --json | json 'd["locked"]["entries"]')" 1 "lock seen"
"$trn_cache" clear-locks --proc-root "$work/proc" --older-than 3h >/dev/null
expect_eq "$?" 0 "clear-locks exit"
[ -e "$entry/model.hlo_module.pb.lock" ] || fail "a lock younger than --older-than was removed"
mkdir -p "$work/proc/4242" && echo neuronx-cc >"$work/proc/4242/comm"
err=$("$trn_cache" clear-locks --proc-root "$work/proc" 2>&1 >/dev/null)
expect_eq "$?" 2 "clear-locks refused exit"
grep -q "^trn-cache: .*neuronx-cc (pid 4242)" <<<"$err" || fail "refusal message: $err"
expect_eq "$(wc -l <<<"$err")" 1 "one-line error"
rm -r "$work/proc/4242"
out=$("$trn_cache" clear-locks --proc-root "$work/proc")
grep -q "removed 1 stale lock" <<<"$out" || fail "clear-locks: $out"
# An age that overflows is an error, never "older than the epoch": a fresh lock stays.
touch "$entry/model.hlo_module.pb.lock"
"$trn_cache" clear-locks --proc-root "$work/proc" --older-than 9999999999999999999s >/dev/null 2>&1
expect_eq "$?" 2 "clear-locks with an overflowing age"
[ -e "$entry/model.hlo_module.pb.lock" ] || fail "an overflowing age removed a fresh lock"
rm -f "$entry/model.hlo_module.pb.lock"
# A root that does not exist: an error, unless --missing-ok (a node that never compiled).
"$trn_cache" clear-locks --root "$work/no-cache" --proc-root "$work/proc" >/dev/null 2>&1
expect_eq "$?" 2 "clear-locks on a missing root"
out=$("$trn_cache" clear-locks --root "$work/no-cache" --proc-root "$work/proc" --missing-ok)
expect_eq "$?" 0 "clear-locks --missing-ok on a missing root"
grep -q "no lock to clear" <<<"$out" || fail "clear-locks --missing-ok: $out"

# A compiler really running on this node (the double, seen in /proc) blocks clear-locks.
TRN_TEST_NPC_COMPILE_SECONDS=30 "$npc" "${trainer[@]}" --micro-batch 2 >/dev/null 2>&1 &
double_pid=$!
for _ in $(seq 100); do
  ls "$work"/cache/neuronxcc-*/MODULE_*/model.hlo_module.pb.lock >/dev/null 2>&1 && break
  sleep 0.1
done
err=$("$trn_cache" clear-locks --older-than 0s 2>&1)
expect_eq "$?" 2 "clear-locks while the compiler runs"
grep -q "neuron_parallel_compile (pid $double_pid)" <<<"$err" || fail "running double: $err"
ls "$work"/cache/neuronxcc-*/MODULE_*/model.hlo_module.pb.lock >/dev/null 2>&1 ||
  fail "live lock removed"
kill "$double_pid"; wait "$double_pid" 2>/dev/null; double_pid=

# --- usage errors: one line, exit 2 ---
for args in "" "frobnicate" "prune" "prune --max-size 10X" "pull" "status --bogus" \
    "status --root $work/none" "clear-locks --older-than soon" \
    "prune --older-than 106751991167301d" "prune --max-size 99999999999T" \
    "clear-locks --older-than 9999999999999999999s" "status extra --root $work/cache" \
    "pull --from $work/cache --to $work/jobs --jobs 0" "push --to $work/jobs --jobs many" \
    "pull --from $work/cache --to $work/jobs --jobs 257"; do
  # shellcheck disable=SC2086
  err=$("$trn_cache" $args 2>&1 >/dev/null)
  code=$?
  expect_eq "$code" 2 "exit of 'trn-cache $args'"
  expect_eq "$(wc -l <<<"$err")" 1 "one line for 'trn-cache $args'"
  grep -q "^trn-cache: " <<<"$err" || fail "prefix for 'trn-cache $args': $err"
done
"$trn_cache" prune --max-size 10X 2>&1 | grep -q "max-size '10X'" || fail "bad size names it"
"$trn_cache" pull --from "$work/cache" --to "$work/jobs" --jobs 0 2>&1 | grep -q -- "--jobs.*0.*1 to 256" ||
  fail "a bad --jobs names it and the range"
[ ! -e "$work/jobs" ] || fail "a pull refused for its --jobs made its destination"
NEURON_COMPILE_CACHE_URL=s3://bucket/c "$trn_cache" status 2>&1 | grep -q "s3://bucket/c" ||
  fail "s3 URL named"

# A --root that is not UTF-8 (paths are bytes) is reported, its bad byte as U+FFFD, where the
# JSON library threw "invalid UTF-8 byte".
odd=$work/cache-$'\xff'
mkdir -p "$odd"
out=$("$trn_cache" status --root "$odd" --json) || fail "status --json of a root that is not UTF-8: $out"
json_root=$(/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["root"])' <<<"$out") ||
  fail "not JSON: $out"
[[ $json_root == *"cache-"$'\xef\xbf\xbd' ]] || fail "the root in the report: $json_root"

# --- TorchNeuron's NEFF cache (--layout torchneuron), filled by its double (same folder) ---
tn=$(dirname "$npc")/torchneuron_compile
export TORCH_NEURONX_NEFF_CACHE_DIR=$work/neff TORCH_NEURONX_NEFF_LOCAL_CACHE_DIR=$work/neff-locks
"$tn" --native --steps 2 --micro-batch 4 >/dev/null || fail "the TorchNeuron double failed"
out=$("$trn_cache" push --layout torchneuron --to "$work/tier" --json) || fail "push --layout torchneuron: $out"
expect_eq "$(json '(d["copied"]["entries"], d["layout"])' <<<"$out")" "(3, 'torchneuron')" "NEFFs pushed"
expect_eq "$(find "$work/tier/torchneuron-neff" -name '*.neff' | wc -l)" 3 "NEFFs in the shared tier's torchneuron-neff"
out=$("$trn_cache" pull --layout torchneuron --from "$work/tier" --to "$work/neff-2" --json) || fail "pull --to: $out"
expect_eq "$(json 'd["copied"]["entries"]' <<<"$out")" 3 "NEFFs pulled into an empty tier"
# The pulled tier holds the double's NEFFs at their paths, byte for byte, and TorchNeuron (its
# double) finds every graph there: three hits, nothing compiled.
neffs() { (cd "$1" && find . -name '*.neff' -type f | sort); }
expect_eq "$(neffs "$work/neff" | wc -l)" 3 "NEFFs the double compiled"
expect_eq "$(neffs "$work/neff-2")" "$(neffs "$work/neff")" "the pulled tier's NEFFs against the source tier's"
for neff in $(neffs "$work/neff"); do
  cmp -s "$work/neff/$neff" "$work/tier/torchneuron-neff/$neff" || fail "$neff: the pushed bytes differ"
  cmp -s "$work/neff/$neff" "$work/neff-2/$neff" || fail "$neff: the pulled bytes differ"
done
TORCH_NEURONX_NEFF_CACHE_DIR=$work/neff-2 TRN_TEST_TN_LOG=$work/tn-hits.log "$tn" --native --steps 2 --micro-batch 4 >/dev/null ||
  fail "the TorchNeuron double on the pulled tier failed"
expect_eq "$(json '(len(d["compiled"]), len(d["hit"]))' <"$work/tn-hits.log")" "(0, 3)" \
  "the double on the pulled tier (compiled, hits)"
out=$("$trn_cache" pull --layout torchneuron --from "$work/tier" --json) || fail "pull to TORCH_NEURONX_NEFF_CACHE_DIR: $out"
expect_eq "$(json '(d["to"], d["present"]["entries"], d["copied"]["entries"])' <<<"$out")" "('$work/neff', 3, 0)" \
  "a pull into the tier TorchNeuron uses, which holds them"
out=$("$trn_cache" spread --layout torchneuron --from "$work/tier" 2>&1)
expect_eq "$?" 2 "spread --layout torchneuron exit"
grep -q "streams the neuronx-cc layout only" <<<"$out" || fail "spread --layout torchneuron: $out"
out=$("$trn_cache" pull --layout neff --from "$work/tier" 2>&1)
expect_eq "$?" 2 "an unknown --layout exit"
grep -q -- "--layout neff: use neuronx-cc or torchneuron" <<<"$out" || fail "unknown layout: $out"
# TorchNeuron's cache has no neuronxcc-<V> folders: a version to select by is refused, not ignored.
out=$("$trn_cache" pull --layout torchneuron --compiler-version 2.21.0 --from "$work/tier" --to "$work/neff-3" 2>&1)
expect_eq "$?" 2 "--compiler-version with --layout torchneuron exit"
grep -q -- "--compiler-version with --layout torchneuron: .*leave --compiler-version out" <<<"$out" ||
  fail "--compiler-version with --layout torchneuron: $out"
[[ ! -e $work/neff-3 ]] || fail "the refused pull made $work/neff-3"
unset TORCH_NEURONX_NEFF_CACHE_DIR TORCH_NEURONX_NEFF_LOCAL_CACHE_DIR

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "trn-cache CLI: all checks passed"
