# shellcheck shell=bash
# Building trn-slurm against the cluster's Slurm and installing it there (sourced, not run).
# The head node exports <slurm> (/opt/slurm) to every node over NFS, so installing into it
# once puts spank_trn.so and the trn-* tools on the whole cluster.

# A digest of the source tree: the build is skipped when it matches the last install's.
trn_source_digest() {
  local source=$1
  (cd "$source" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
}

# Prints the installed spank_trn.so under PREFIX (Slurm's plugin directory first).
trn_find_plugin() {
  local prefix=$1
  if [[ -f $prefix/lib/slurm/spank_trn.so ]]; then
    echo "$prefix/lib/slurm/spank_trn.so"
    return 0
  fi
  find "$prefix" -name spank_trn.so -type f -print -quit 2>/dev/null
}

# Builds SOURCE against SLURM_ROOT and installs it into SLURM_ROOT, unless already done.
trn_build_and_install() {
  local source=$1 slurm_root=$2
  local stamp=$slurm_root/share/trn-slurm/source-digest
  local digest
  digest=$(trn_source_digest "$source")
  if [[ -f $stamp ]] && [[ $(cat "$stamp") == "$digest" ]] && [[ -n $(trn_find_plugin "$slurm_root") ]]; then
    trn_log "trn-slurm from this source is already installed in $slurm_root"
    return 0
  fi
  [[ -f $slurm_root/include/slurm/spank.h ]] ||
    trn_die "$slurm_root/include/slurm/spank.h not found: is $slurm_root the cluster's Slurm? (pass --slurm-root)"
  local build=${TRN_INSTALL_TEST_ROOT:-}/opt/trn-slurm/build  # test mode: under the test root
  # Test mode checks the install, not the code (the test suite's own builds do that): it
  # builds unoptimised (-O0) and as a unity build (8 sources per compiler run), which compile
  # faster.
  local build_type=Release unity=OFF
  if [[ -n ${TRN_INSTALL_TEST_ROOT:-} ]]; then build_type=None unity=ON; fi
  rm -rf "$build"
  trn_log "building trn-slurm from $source against $slurm_root"
  cmake -S "$source" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DCMAKE_UNITY_BUILD="$unity" \
    -DSLURM_ROOT="$slurm_root" -DCMAKE_INSTALL_PREFIX="$slurm_root" \
    -DTRN_BUILD_TESTS=OFF -DTRN_BUILD_BENCH=OFF
  cmake --build "$build" -j "$(nproc)"
  cmake --install "$build"
  [[ -n $(trn_find_plugin "$slurm_root") ]] ||
    trn_die "the build installed no spank_trn.so under $slurm_root: check the build output above"
  mkdir -p "$(dirname "$stamp")"
  echo "$digest" >"$stamp"
}

# Installs a spank_trn.so built elsewhere (--plugin) into Slurm's plugin directory.
trn_install_prebuilt_plugin() {
  local plugin=$1 slurm_root=$2
  [[ -f $plugin ]] || trn_die "--plugin $plugin: no such file"
  local target=$slurm_root/lib/slurm/spank_trn.so
  mkdir -p "$(dirname "$target")"
  if [[ -f $target ]] && cmp -s "$plugin" "$target"; then
    trn_log "unchanged: $target"
    return 0
  fi
  install -m 0755 "$plugin" "$target.tmp.$$"
  mv -f "$target.tmp.$$" "$target"
  trn_log "installed $plugin as $target"
}
