#!/usr/bin/env bash
# The head node's install as production runs it (no --plugin): trn-slurm built from the source
# tree with CMake against <slurm>'s headers and installed into <slurm>, here in test mode with
# <slurm> under a scratch root holding this machine's Slurm headers. The plugin it installs is a
# real SPANK plugin, trn.conf loads it, and a second run finds it in place without rebuilding.
# usage: install_build_test.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

[[ -f /usr/include/slurm/spank.h ]] || fail "/usr/include/slurm/spank.h missing: apt-get install libslurm-dev"
root=$work/root
slurm=$root/opt/slurm
mkdir -p "$slurm/include" "$slurm/etc"
cp -r /usr/include/slurm "$slurm/include/"

run_head() {
  bash "$src/pcluster-configs/install/trn-slurm-install.sh" --test-root "$root" --role head \
    --source-dir "$src" >"$work/out" 2>&1 || fail "head node run failed: $(tail -n 40 "$work/out")"
}

run_head
plugin=$slurm/lib/slurm/spank_trn.so
[[ -f $plugin ]] || fail "no $plugin after the build: $(tail -n 40 "$work/out")"
file -L "$plugin" | grep -q 'ELF .* shared object' || fail "$plugin is no shared object: $(file -L "$plugin")"
symbols=$(nm -D --defined-only "$plugin")
for symbol in slurm_spank_init plugin_name plugin_version; do
  grep -qw "$symbol" <<<"$symbols" || fail "$plugin does not define $symbol"
done
grep -q "^required $plugin " "$slurm/etc/plugstack.conf.d/trn.conf" ||
  fail "trn.conf does not load the built plugin: $(cat "$slurm/etc/plugstack.conf.d/trn.conf")"
[[ -x $slurm/bin/trn-run ]] || fail "the tools were not installed into $slurm/bin"
grep -q "building trn-slurm from $src against $slurm" "$root/var/log/trn-slurm-install.log" ||
  fail "the log does not show the build"

# The same source again: nothing is rebuilt.
before=$(sha256sum "$plugin")
run_head
grep -q "trn-slurm from this source is already installed in $slurm" "$work/out" ||
  fail "second run did not find the install in place: $(tail -n 20 "$work/out")"
[[ $(sha256sum "$plugin") == "$before" ]] || fail "second run changed $plugin"
echo "install build: all checks passed"
