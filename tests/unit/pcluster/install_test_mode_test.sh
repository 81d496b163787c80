#!/usr/bin/env bash
# pcluster-configs/install/ in test mode on this (non-AWS) machine: the head node run leaves a
# working plugstack setup under the scratch root, a second run changes nothing, the compute
# node run finds it, and failures stop with a message.
# usage: install_test_mode_test.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
install_dir=$src/pcluster-configs/install
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
count() { grep -cFx -- "$1" "$2" || true; }

# A source tarball as README.md tells users to make it (one top directory), holding what the
# node needs from the source tree.
(cd "$src" && tar -czf "$work/trn-slurm-src.tar.gz" --transform 's,^,trn-slurm/,' pcluster-configs/install)
printf 'not really ELF, the test only moves it around\n' >"$work/spank_trn.so"

root=$work/root
slurm=$root/opt/slurm
mkdir -p "$slurm/etc"
# An existing plugstack.conf whose last line has no newline: it must survive untouched.
printf 'optional /usr/lib/other_spank.so arg=1' >"$slurm/etc/plugstack.conf"

run_head() {
  bash "$install_dir/trn-slurm-setup.sh" --source "$work/trn-slurm-src.tar.gz" \
    --test-root "$root" --role head --plugin "$work/spank_trn.so" >"$work/out" 2>&1 ||
    fail "head node run failed: $(cat "$work/out")"
}

run_head
[[ -f $root/opt/trn-slurm/src/pcluster-configs/install/versions.env ]] || fail "source tarball not unpacked"
conf=$slurm/etc/plugstack.conf.d/trn.conf
expected_line="required $slurm/lib/slurm/spank_trn.so cache_root=$root/fsx/neuron-cache local_cache=$root/scratch/neuron-cache"
[[ $(grep -v '^#' "$conf") == "$expected_line" ]] || fail "trn.conf: $(cat "$conf")"
cmp -s "$work/spank_trn.so" "$slurm/lib/slurm/spank_trn.so" || fail "plugin not installed"
[[ -x $slurm/lib/slurm/spank_trn.so ]] || fail "plugin not executable"
plugstack=$slurm/etc/plugstack.conf
[[ $(count "optional /usr/lib/other_spank.so arg=1" "$plugstack") == 1 ]] || fail "existing line lost: $(cat "$plugstack")"
[[ $(count "include $slurm/etc/plugstack.conf.d/*" "$plugstack") == 1 ]] || fail "include missing: $(cat "$plugstack")"
[[ $(wc -l <"$plugstack") == 2 ]] || fail "plugstack.conf: $(cat "$plugstack")"
[[ $(stat -c %a "$root/fsx/neuron-cache") == 1777 ]] || fail "shared cache tier mode"
compgen -G "$slurm/etc/.trn-install*" >/dev/null && fail "temporary file left behind"
log=$root/var/log/trn-slurm-install.log
grep -q 'trn-slurm install: done (head)' "$log" || fail "log: $(cat "$log")"
grep -q 'test mode, skipped: .*scontrol reconfigure' "$log" || fail "reconfigure not skipped in test mode"
[[ $(grep -c 'done (head)' "$log") == 1 ]] || fail "each line must be logged once: $(cat "$log")"

# Idempotent: a second run leaves every file as it was.
before=$(cd "$root" && find opt/slurm fsx -type f -print0 | sort -z | xargs -0 sha256sum)
run_head
after=$(cd "$root" && find opt/slurm fsx -type f -print0 | sort -z | xargs -0 sha256sum)
[[ $before == "$after" ]] || fail "second run changed files"
grep -q "unchanged: $conf" "$work/out" || fail "second run did not see trn.conf in place: $(cat "$work/out")"

# A compute node, its role read from ParallelCluster's cfnconfig.
mkdir -p "$root/etc/parallelcluster"
echo 'cfn_node_type=ComputeFleet' >"$root/etc/parallelcluster/cfnconfig"
bash "$install_dir/trn-slurm-install.sh" --test-root "$root" >"$work/out" 2>&1 || fail "compute run failed: $(cat "$work/out")"
[[ $(stat -c %a "$root/scratch/neuron-cache") == 755 ]] || fail "node-local cache tier"
[[ $(stat -c %a "$root/scratch/trn-checkpoints") == 1777 ]] || fail "node-local checkpoint folder mode"
[[ $(cat "$root/etc/trn-slurm/trn-health-check.conf") == "TRN_HEALTH_OPTIONS=\"--cache-dir $root/scratch/neuron-cache\"" ]] ||
  fail "trn-health-check.conf: $(cat "$root/etc/trn-slurm/trn-health-check.conf" 2>&1)"
grep -q 'head node install present' "$work/out" || fail "compute run: $(cat "$work/out")"
grep -q 'test mode, skipped: systemctl try-restart slurmd' "$work/out" || fail "slurmd restart not skipped"

# An include that already covers trn.conf is not added twice.
root2=$work/root2
mkdir -p "$root2/opt/slurm/etc"
echo "include $root2/opt/slurm/etc/plugstack.conf.d/*.conf" >"$root2/opt/slurm/etc/plugstack.conf"
bash "$install_dir/trn-slurm-install.sh" --test-root "$root2" --role head --plugin "$work/spank_trn.so" >"$work/out" 2>&1 || fail "head run on root2: $(cat "$work/out")"
[[ $(grep -c '^include' "$root2/opt/slurm/etc/plugstack.conf") == 1 ]] || fail "include duplicated: $(cat "$root2/opt/slurm/etc/plugstack.conf")"

# Failures stop with a message, in the output and in the log.
expect_failure() {
  local message=$1 log_file=$2
  shift 2
  if TRN_INSTALL_TEST_ROOT='' "$@" >"$work/out" 2>&1; then fail "expected failure: $*"; fi
  grep -q -- "$message" "$work/out" || fail "no '$message' in: $(cat "$work/out")"
  [[ -z $log_file ]] || grep -q -- "$message" "$log_file" || fail "no '$message' in $log_file"
}
expect_failure "the head node's install must have failed" "$work/root3/var/log/trn-slurm-install.log" \
  bash "$install_dir/trn-slurm-install.sh" --test-root "$work/root3" --role compute
# Without --plugin the head node builds against <slurm>'s headers (install_build_test.sh), and
# stops first when they are not there.
expect_failure "include/slurm/spank.h not found" "$work/root4/var/log/trn-slurm-install.log" \
  bash "$install_dir/trn-slurm-install.sh" --test-root "$work/root4" --role head
expect_failure "cfnconfig is missing" "" bash "$install_dir/trn-slurm-install.sh" --test-root "$work/root5"
expect_failure "test mode does not download" "" \
  bash "$install_dir/trn-slurm-setup.sh" --source s3://bucket/trn-slurm-src.tar.gz --test-root "$work/root6"
expect_failure "--source is required" "" bash "$install_dir/trn-slurm-setup.sh" --test-root "$work/root7"
expect_failure "unknown argument '--bogus'" "" bash "$install_dir/trn-slurm-install.sh" --test-root "$work/root8" --bogus
echo "install test mode: all checks passed"
