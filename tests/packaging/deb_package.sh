#!/usr/bin/env bash
# The .deb: builds it with CPack from the build tree, checks its metadata and contents, installs
# it into a scratch root, runs the installed launcher against the installed profiles, checks the
# preinst refuses another Slurm's major.minor, then loads the installed spank_trn.so (through
# the installed trn.conf) in a one-node local cluster: srun works, srun --help lists the
# plugin's options, and a trn-run job runs from the installed launcher and trainer.
# Environment (set by packaging/CMakeLists.txt): TRN_SOURCE_DIR, TRN_BUILD_DIR, TRN_PKG_CLUSTER,
# TRN_PACKAGE_NAME, TRN_PACKAGE_VERSION, TRN_SLURM_MAJOR_MINOR, TRN_SLURM_ROOT,
# TRN_SLURM_PLUGIN_DIR, TRN_PLUGSTACK_DIR, TRN_PACKAGE_PREFIX.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [[ $1 == "$2" ]] || fail "$3: expected '$2', got '$1'"; }
: "${TRN_SOURCE_DIR:?}" "${TRN_BUILD_DIR:?}" "${TRN_PKG_CLUSTER:?}" "${TRN_PACKAGE_NAME:?}"
: "${TRN_PACKAGE_VERSION:?}" "${TRN_SLURM_MAJOR_MINOR:?}" "${TRN_SLURM_PLUGIN_DIR:?}"
: "${TRN_PLUGSTACK_DIR:?}" "${TRN_PACKAGE_PREFIX:?}"

cluster() { "$TRN_SOURCE_DIR/scripts/cluster" --name "$TRN_PKG_CLUSTER" "$@"; }
# The project's Python (requirements.txt) is the installed trainer's training environment here.
python=$TRN_SOURCE_DIR/scripts/python
TRN_TRAINING_VENV=$("$python" -c 'import sys; print(sys.prefix)')
export TRN_TRAINING_VENV
scratch=$(mktemp -d "${TMPDIR:-/tmp}/trn-pkgtest.XXXXXX")
chmod 0755 "$scratch"
cleanup() {
  cluster down >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT

# --- build -----------------------------------------------------------------------------------
cpack -G DEB --config "$TRN_BUILD_DIR/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
  { tail -n 30 "$scratch/cpack.log"; fail "cpack -G DEB failed"; }
debs=("$scratch"/out/*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || fail "cpack made no single .deb: $(ls "$scratch/out")"
deb=${debs[0]}
echo "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"

# --- metadata --------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
expect_eq "$(field Package)" "$TRN_PACKAGE_NAME" "package name"
[[ $(field Package) == *"slurm$TRN_SLURM_MAJOR_MINOR" ]] || fail "the package name does not carry Slurm $TRN_SLURM_MAJOR_MINOR"
expect_eq "$(basename "$deb")" "${TRN_PACKAGE_NAME}_${TRN_PACKAGE_VERSION}_$(dpkg --print-architecture).deb" "file name"
expect_eq "$(field Version)" "$TRN_PACKAGE_VERSION" "version"
expect_eq "$(field Provides)" trn-slurm "Provides"
expect_eq "$(field Conflicts)" trn-slurm "Conflicts"
expect_eq "$(field Replaces)" trn-slurm "Replaces"
depends=$(field Depends)
depends_names=$(tr ',' '\n' <<<"$depends" | awk '{print $1}')
for wanted in libhwloc15 libyaml-cpp0.7 libboost-program-options1.74.0 libstdc++6 \
  python3 python3-numpy python3-h5py; do
  grep -qxF "$wanted" <<<"$depends_names" || fail "Depends lacks $wanted: $depends"
done
# libfabric is loaded only to list its providers (the EFA installer brings it on AWS).
tr ',' '\n' <<<"$(field Recommends)" | awk '{print $1}' | grep -qxF libfabric1 ||
  fail "Recommends lacks libfabric1: $(field Recommends)"
if [[ -z ${TRN_SLURM_ROOT:-} ]]; then
  next=$("$python" -c "import sys; a, b = sys.argv[1].split('.'); print(f'{a}.{int(b) + 1:02d}')" "$TRN_SLURM_MAJOR_MINOR")
  for bound in ">= $TRN_SLURM_MAJOR_MINOR" "<< $next~"; do
    grep -qF "slurm-wlm-basic-plugins ($bound)" <<<"$depends" ||
      fail "Depends does not pin Debian's Slurm to $TRN_SLURM_MAJOR_MINOR ($bound): $depends"
  done
fi
dpkg-deb -e "$deb" "$scratch/control"
[[ -x $scratch/control/preinst ]] || fail "no executable preinst"
expect_eq "$(cat "$scratch/control/conffiles")" "$TRN_PLUGSTACK_DIR/trn.conf" "conffiles"
owners=$(dpkg-deb -c "$deb" | awk '{print $2}' | sort -u)
expect_eq "$owners" root/root "owner of every file"

# --- contents --------------------------------------------------------------------------------
root=$scratch/root
dpkg -x "$deb" "$root"
prefix=$root$TRN_PACKAGE_PREFIX
for tool in trn-run trn-compile trn-launcher trn-topo trn-cache trn-cluster trn-health; do
  [[ -x $prefix/bin/$tool ]] || fail "$TRN_PACKAGE_PREFIX/bin/$tool is missing"
done
[[ -f $root$TRN_SLURM_PLUGIN_DIR/spank_trn.so ]] || fail "spank_trn.so is not in $TRN_SLURM_PLUGIN_DIR"
[[ -f $root$TRN_PLUGSTACK_DIR/trn.conf ]] || fail "trn.conf is not in $TRN_PLUGSTACK_DIR"
share=$prefix/share/trn-slurm
for profile in "$TRN_SOURCE_DIR"/launcher/profiles/*.yaml; do
  cmp -s "$profile" "$share/profiles/$(basename "$profile")" || fail "profile $(basename "$profile") is not installed as it is"
done
# Every module of every package of the trainer.
while IFS= read -r module; do
  [[ -f $share/trainer/trn_trainer/$module ]] || fail "trainer module $module is missing"
done < <(cd "$TRN_SOURCE_DIR/trainer/trn_trainer" && find . -name '*.py' | sed 's|^\./||')
[[ -z $(find "$share" -name __pycache__ -o -name '*.pyc') ]] || fail "compiled Python files in the package"
for script in bert_pretrain_chain.sh bert_phase1.sbatch bert_phase2.sbatch compile.sbatch scaling_sweep.sh collect_sweep.py health_check.sbatch; do
  [[ -x $share/jobscripts/$script ]] || fail "jobscript $script is missing"
done
for page in man1/trn-run.1 man1/trn-compile.1 man1/trn-topo.1 man1/trn-cache.1 man1/trn-health.1 man8/spank_trn.8; do
  file=$prefix/share/man/$page.gz
  [[ -f $file ]] || fail "man page $page.gz is missing"
  warnings=$(zcat "$file" | groff -man -ww -z 2>&1)
  [[ -z $warnings ]] || fail "installed $page does not render cleanly: $warnings"
done
# The scripts exec the launcher where the package puts it, not where the build tree was.
for script in trn-run trn-compile; do
  grep -q "^exec \"$TRN_PACKAGE_PREFIX/bin/trn-launcher\" " "$prefix/bin/$script" ||
    fail "$script does not exec $TRN_PACKAGE_PREFIX/bin/trn-launcher: $(grep exec "$prefix/bin/$script")"
done

grep -q "^exec $TRN_PACKAGE_PREFIX/bin/trn-health --slurm " "$prefix/sbin/trn-health-check" ||
  fail "trn-health-check does not exec $TRN_PACKAGE_PREFIX/bin/trn-health: $(grep exec "$prefix/sbin/trn-health-check" 2>&1)"

# --- the installed launcher finds the installed profiles and trainer -------------------------
plan=$(env -u TRN_PROFILE_PATH -u XDG_CONFIG_HOME -u SLURM_JOB_ID HOME="$scratch" \
  "$prefix/bin/trn-launcher" run bert_tiny --nodes 2 --plan --json)
expect_eq "$("$python" -c "import json,sys; print(json.load(sys.stdin)['profile_file'])" <<<"$plan")" \
  "$share/profiles/bert_tiny.yaml" "profile file the installed launcher used"
expect_eq "$("$python" -c "import json,sys; d=json.load(sys.stdin); print(d['nodes'], d['global_batch'])" <<<"$plan")" \
  "2 64" "installed plan nodes and global batch"
PYTHONPATH=$share/trainer "$python" -m trn_trainer --version >/dev/null || fail "the installed trainer does not start"
"$prefix/bin/trn-topo" --no-fabric >/dev/null || fail "the installed trn-topo does not run"
"$prefix/bin/trn-cache" --help >/dev/null || fail "the installed trn-cache does not run"
"$prefix/bin/trn-health" --fsroot "$TRN_SOURCE_DIR/tests/fixtures/trn1.32xlarge" >/dev/null ||
  fail "the installed trn-health does not run"
"$prefix/bin/trn-cluster" check "$TRN_SOURCE_DIR/pcluster-configs/trn1-small.yaml" >/dev/null 2>&1 ||
  fail "the installed trn-cluster does not run"

# --- preinst: this Slurm passes, another major.minor is refused ------------------------------
sh "$scratch/control/preinst" install || fail "preinst refused this machine's Slurm"
daemon=$(sed -n 's/^for daemon in \([^ ]*\) .*/\1/p' "$scratch/control/preinst")
[[ -x $daemon ]] || fail "$daemon (the Slurm the preinst checks) is not installed"
printf '#!/bin/sh\necho "slurm 23.11.4"\n' >"$scratch/slurmd-23.11"
chmod +x "$scratch/slurmd-23.11"
refused=$(unshare --mount --propagation private sh -c \
  'mount --bind "$1" "$2" && sh "$3" install' sh "$scratch/slurmd-23.11" "$daemon" "$scratch/control/preinst" 2>&1) &&
  fail "preinst accepted Slurm 23.11 for a plugin built for $TRN_SLURM_MAJOR_MINOR"
grep -q "built for Slurm $TRN_SLURM_MAJOR_MINOR, but $daemon is Slurm 23.11" <<<"$refused" ||
  fail "preinst's refusal does not name both versions: $refused"
TRN_SLURM_IGNORE_VERSION=1 unshare --mount --propagation private sh -c \
  'mount --bind "$1" "$2" && sh "$3" install' sh "$scratch/slurmd-23.11" "$daemon" "$scratch/control/preinst" ||
  fail "TRN_SLURM_IGNORE_VERSION=1 does not override the check"

# --- the installed plugin in a local cluster, loaded through the installed trn.conf ----------
plugin=$root$TRN_SLURM_PLUGIN_DIR/spank_trn.so
awk -v plugin="$plugin" '$1 == "required" || $1 == "optional" { $2 = plugin } { print }' \
  "$root$TRN_PLUGSTACK_DIR/trn.conf" >"$scratch/plugstack.conf"
grep -q "^required $plugin" "$scratch/plugstack.conf" || fail "trn.conf has no 'required spank_trn.so' line: $(cat "$scratch/plugstack.conf")"
cluster up 1 --plugstack "$scratch/plugstack.conf" >/dev/null
slurm() { cluster exec env PATH=/usr/bin:/bin:/usr/sbin:/sbin "$@"; }
env_out=$(slurm srun -N1 env) || fail "srun with the installed plugin failed"
grep -q '^TRN_INSTANCE_TYPE=' <<<"$env_out" || fail "the installed plugin did not set up the task"
grep -q '^RANK=0$' <<<"$env_out" || fail "the installed plugin set no RANK"
listed=$(slurm srun --help | grep -oE -- '--neuron-[a-z-]+' | sort -u)
documented=$(sed 's/\\-/-/g' "$TRN_SOURCE_DIR/man/spank_trn.8" | grep -oE -- '--neuron-[a-z-]*[a-z]' | sort -u)
[[ $(wc -l <<<"$listed") -ge 7 ]] || fail "srun --help lists too few plugin options: $listed"
expect_eq "$listed" "$documented" "plugin options in srun --help vs spank_trn(8)"
bad=$(slurm srun -N1 --neuron-bind=sideways true 2>&1) && fail "srun accepted --neuron-bind=sideways"
grep -q "neuron-bind" <<<"$bad" || fail "no message naming --neuron-bind: $bad"

# A trn-run job from the installed launcher, trainer and profile (the package prefix is only
# under the scratch root, so the batch script runs the launcher by that path).
data=$TRN_BUILD_DIR/tests/integration/data
[[ -f $data/vocab.txt ]] || fail "no training data in $data (the trainer_data fixture prepares it)"
job=$(slurm sbatch --parsable --nodes=1 -D "$scratch" -o "$scratch/job-%j.out" \
  --wrap "exec '$prefix/bin/trn-launcher' run bert_tiny --data '$data' --output-root '$scratch/runs' --steps 2 --set warmup=2")
deadline=$((SECONDS + 300))
while [[ $(slurm scontrol show job -o "$job" | grep -o ' JobState=[^ ]*') =~ PENDING|RUNNING|CONFIGURING|COMPLETING ]]; do
  ((SECONDS < deadline)) || fail "trn-run job $job from the package did not end within 300s"
  sleep 0.2
done
state=$(slurm scontrol show job -o "$job" | grep -o ' JobState=[^ ]*' | cut -d= -f2)
[[ $state == COMPLETED ]] || { cat "$scratch/job-$job.out"; fail "trn-run from the package ended $state"; }
run=$scratch/runs/bert_tiny-$job
[[ -f $run/results.json ]] || fail "no results.json in $run"
grep -q "^profile .*$share/profiles/bert_tiny.yaml" "$scratch/job-$job.out" || fail "the job did not use the installed profile"
echo "ok: $(basename "$deb") installs, plugin loads in Slurm $TRN_SLURM_MAJOR_MINOR, trn-run runs from the package"
