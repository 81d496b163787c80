#!/usr/bin/env bash
# up/down of an instance of its own: down leaves no namespace, process, mount or file; bad input
# is refused with exit status 2 and creates nothing; a crashed instance is cleaned by the next up.
source "$(dirname "$0")/../lib.sh"
name="${TRN_TEST_CLUSTER}l"
run_root=${TRN_CLUSTER_RUN:-/run/trn-cluster}
own() { "$TRN_SOURCE_DIR/scripts/cluster" --name "$name" "$@"; }

footprint() {
  ip netns list | grep -c "^trn-$name-" || true
  ls -A "$run_root/$name" 2>/dev/null | wc -l
  grep -c "$run_root/$name" /proc/mounts || true
  # Live processes whose command line names the instance (daemons name their config).
  for pid in $(pgrep -f "$run_root/$name/" || true); do
    [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]] && echo "$pid"
  done | wc -l
}
clean=$(printf '0\n0\n0\n0')
trap 'own down >/dev/null 2>&1 || true' EXIT

expect_refused() {
  local out status=0
  out=$("$@" 2>&1) || status=$?
  expect_eq "$status" 2 "exit status of '$*'"
  expect_eq "$(wc -l <<<"$out")" 1 "lines of the error from '$*' ($out)"
  expect_eq "$(footprint)" "$clean" "footprint after refused '$*'"
  echo "refused: $out"
}
expect_eq "$(footprint)" "$clean" "footprint before the test"
expect_refused own up 0
expect_refused own up 254  # past the nodes' /24 subnet
# A machine without the memory for the nodes asked for: the limit is named, nothing is made.
small=$(mktemp)
printf 'MemTotal:        4096000 kB\nMemAvailable:     1024000 kB\n' >"$small"
refusal=$(expect_refused env TRN_CLUSTER_MEMINFO="$small" "$TRN_SOURCE_DIR/scripts/cluster" --name "$name" up 200)
grep -q "node count 200 does not fit: .*1000 MiB available.*choose at most [1-9][0-9]*\$" <<<"$refusal" ||
  fail "the memory refusal does not name the limit: $refusal"
rm -f "$small"
expect_refused setpriv --reuid=nobody --regid=nogroup --clear-groups "$TRN_SOURCE_DIR/scripts/cluster" --name "$name" up 2
expect_refused env PATH=/usr/bin:/bin "$TRN_SOURCE_DIR/scripts/cluster" --name "$name" up 2

# 128 nodes on this machine (issue 31): every slurmd registered, one step on all of them, and
# down leaves nothing behind (bench/cluster/lifecycle.sh measures the times and the memory).
own up 128
own exec srun -N 128 true
expect_eq "$(own exec srun -N 128 hostname | sort -u | wc -l)" 128 "distinct host names of a 128-node step"
# Nodes that all reach one another need 129 x 129 entries in the kernel's one neighbour table:
# past its cap (1,024 by default) packets are dropped, as trn-health's reach check saw at 32.
(($(cat /proc/sys/net/ipv4/neigh/default/gc_thresh3) >= 2 * 129 * 129)) ||
  fail "up 128 left the neighbour table's cap at $(cat /proc/sys/net/ipv4/neigh/default/gc_thresh3)"
own down
expect_eq "$(footprint)" "$clean" "footprint after down of 128 nodes"

own up 2
[[ $(footprint | head -n 1) -eq 3 ]] || fail "expected 3 namespaces while up"
own exec srun -N 2 true
slurm_pids=$(cat "$run_root/$name"/pids/*.pid)
own down
expect_eq "$(footprint)" "$clean" "footprint after down"
for pid in $slurm_pids; do
  [[ ! -d /proc/$pid || $(awk '{print $3}' "/proc/$pid/stat") == Z ]] || fail "daemon $pid survived down"
done

# A crashed instance (daemons killed, state left behind) is detected and replaced by the next up.
own up 2
crashed=$(cat "$run_root/$name"/pids/*.pid)
kill -KILL $crashed
gone_or_zombie() { [[ ! -d /proc/$1 || $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) == Z ]]; }
for pid in $crashed; do
  wait_until 10 "killed daemon $pid gone" gone_or_zombie "$pid"
done
out=$(own up 2 2>&1)
grep -q "cleaning a stale instance" <<<"$out" || fail "up did not report cleaning the stale instance: $out"
own exec srun -N 2 true
own down
expect_eq "$(footprint)" "$clean" "footprint after down of the replaced instance"
echo "ok"
