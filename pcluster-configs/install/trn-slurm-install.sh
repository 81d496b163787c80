#!/usr/bin/env bash
# Installs trn-slurm on one AWS ParallelCluster node. Run by trn-slurm-setup.sh from
# CustomActions.OnNodeConfigured, on the head node first (at cluster creation) and then on
# every compute node as it boots. Idempotent: a second run changes nothing that is in place.
#
#   head node:    build dependencies; trn-slurm built against <slurm> and installed into it
#                 (<slurm> is NFS-shared with every node); the shared cache tier; trn.conf in
#                 <slurm>/etc/plugstack.conf.d and its include in plugstack.conf;
#                 scontrol reconfigure.
#   compute node: Neuron driver, runtime, collectives and tools and EFA when missing, and the
#                 Python training stack in one virtual environment (all pinned in
#                 versions.env; --dry-run lists them); the node-local cache tier and checkpoint
#                 folder on the instance-store NVMe and trn-health-check's options (/etc/trn-slurm/trn-health-check.conf);
#                 checks that the head node's install is visible; restarts slurmd.
#   login node:   checks that the head node's install is visible.
#
# Test mode (--test-root DIR or TRN_INSTALL_TEST_ROOT=DIR) skips everything that needs an AWS
# node (packages, EFA, Neuron, daemons, downloads) and writes all files under DIR, with paths
# inside them pointing under DIR, so the resulting plugstack setup works on any machine. The
# head node's build is not skipped: without --plugin it builds against DIR/opt/slurm's headers.
# Log: /var/log/trn-slurm-install.log (DIR/var/log/... in test mode). Exit status: 0 done,
# non-zero with an ERROR line naming the problem otherwise.
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
# shellcheck source=lib/log.sh
. "$here/lib/log.sh"
# shellcheck source=lib/plugstack.sh
. "$here/lib/plugstack.sh"
# shellcheck source=lib/packages.sh
. "$here/lib/packages.sh"
# shellcheck source=lib/build.sh
. "$here/lib/build.sh"
# shellcheck source=lib/training_stack.sh
. "$here/lib/training_stack.sh"

usage() {
  cat <<'USAGE'
usage: trn-slurm-install.sh [options]
  --role head|compute|login|auto  the node's role (auto: from /etc/parallelcluster/cfnconfig)
  --source-dir DIR                the trn-slurm source tree (default: this script's checkout)
  --slurm-root DIR                the cluster's Slurm (default /opt/slurm)
  --cache-root DIR                shared compile-cache tier (default /fsx/neuron-cache)
  --local-cache DIR               node-local compile-cache tier (default /scratch/neuron-cache)
  --local-checkpoints DIR         node-local checkpoint folder (default /scratch/trn-checkpoints)
  --plugin FILE                   install this prebuilt spank_trn.so instead of building
  --test-root DIR                 test mode: no AWS-only steps, every path under DIR
  --stack xla|torchneuron|auto    the training stack of a compute node (default auto: TorchNeuron
                                  of Neuron 2.33 on trn2/trn3, torch-xla of Neuron 2.28 elsewhere)
  --dry-run                       print what a compute node gets (Neuron packages, the Python
                                  training stack and its environment) and change nothing
USAGE
}

role=auto
source_dir=$(cd "$here/../.." && pwd)
slurm_root=/opt/slurm
cache_root=/fsx/neuron-cache
local_cache=/scratch/neuron-cache
local_checkpoints=/scratch/trn-checkpoints
plugin=
test_root=${TRN_INSTALL_TEST_ROOT:-}
dry_run=
stack=auto

while (($#)); do
  case $1 in
    --role | --source-dir | --slurm-root | --cache-root | --local-cache | --local-checkpoints | \
      --plugin | --test-root | --stack)
      (($# >= 2)) || { echo "trn-slurm-install: $1 needs a value" >&2; usage >&2; exit 2; }
      case $1 in
        --role) role=$2 ;;
        --source-dir) source_dir=$2 ;;
        --slurm-root) slurm_root=$2 ;;
        --cache-root) cache_root=$2 ;;
        --local-cache) local_cache=$2 ;;
        --local-checkpoints) local_checkpoints=$2 ;;
        --plugin) plugin=$2 ;;
        --test-root) test_root=$2 ;;
        --stack) stack=$2 ;;
      esac
      shift 2
      ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "trn-slurm-install: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

case $stack in
  xla | torchneuron | auto) ;;
  *) echo "trn-slurm-install: --stack '$stack' is unknown: use xla, torchneuron or auto" >&2; exit 2 ;;
esac

root=
if [[ -n $test_root ]]; then
  mkdir -p "$test_root"
  root=$(cd "$test_root" && pwd)
  export TRN_INSTALL_TEST_ROOT=$root
fi
# Cluster paths as this run sees them: under the test root in test mode.
slurm_root=$root$slurm_root
cache_root=$root$cache_root
local_cache=$root$local_cache
local_checkpoints=$root$local_checkpoints
[[ $stack == auto ]] && stack=$(trn_detect_stack)
trn_select_stack "$stack"
if [[ -n $dry_run ]]; then
  trn_print_install_plan "$TRN_TRAINING_VENV"
  exit 0
fi
export TRN_INSTALL_LOG=${TRN_INSTALL_LOG:-$root/var/log/trn-slurm-install.log}
[[ -n ${TRN_INSTALL_LOGGING:-} ]] || trn_log_to_file "$TRN_INSTALL_LOG"
export TRN_INSTALL_LOGGING=1
trap 'trn_on_error $? $LINENO "$BASH_COMMAND"' ERR

detect_role() {
  local cfnconfig=$root/etc/parallelcluster/cfnconfig
  [[ -f $cfnconfig ]] || trn_die "cannot tell this node's role: $cfnconfig is missing; pass --role head|compute|login"
  local node_type
  node_type=$(sed -n 's/^cfn_node_type=["'\'']\{0,1\}\([A-Za-z]*\).*/\1/p' "$cfnconfig" | head -1)
  case $node_type in
    HeadNode) echo head ;;
    ComputeFleet) echo compute ;;
    LoginNode) echo login ;;
    *) trn_die "unknown cfn_node_type '$node_type' in $cfnconfig; pass --role head|compute|login" ;;
  esac
}

# The plugin and trn.conf the head node installed into the shared <slurm>.
require_head_node_install() {
  local conf=$slurm_root/etc/plugstack.conf.d/trn.conf
  if [[ -z $(trn_find_plugin "$slurm_root") ]] || [[ ! -f $conf ]]; then
    trn_die "spank_trn.so or $conf not found under $slurm_root: the head node's install must have failed, see /var/log/trn-slurm-install.log there"
  fi
  trn_log "head node install present: $(trn_find_plugin "$slurm_root")"
}

setup_head_node() {
  if ! trn_test_mode; then
    trn_install_build_dependencies
    trn_ensure_cmake
  fi
  if [[ -n $plugin ]]; then
    trn_install_prebuilt_plugin "$plugin" "$slurm_root"
  else
    trn_build_and_install "$source_dir" "$slurm_root"
  fi
  local installed
  installed=$(trn_find_plugin "$slurm_root")
  [[ -n $installed ]] || trn_die "no spank_trn.so under $slurm_root after the install"

  # Shared tier: every user's jobs read and add compiled graphs; sticky like /tmp.
  mkdir -p "$cache_root"
  chmod 1777 "$cache_root"
  trn_log "shared compile cache: $cache_root"

  local conf_dir=$slurm_root/etc/plugstack.conf.d
  trn_write_if_changed "$conf_dir/trn.conf" "$(trn_conf_content "$installed" "$cache_root" "$local_cache")"
  trn_ensure_plugstack_include "$slurm_root/etc/plugstack.conf" "$conf_dir"
  # srun and slurmstepd read plugstack.conf at every launch; reconfigure is for slurmd's own
  # SPANK contexts. Its failure does not undo the install, so it only warns.
  trn_run_on_node "$slurm_root/bin/scontrol" reconfigure || trn_log "WARNING: scontrol reconfigure failed; run it by hand"
}

setup_compute_node() {
  if ! trn_test_mode; then
    trn_install_neuron
    trn_install_efa
    trn_install_training_stack "$TRN_TRAINING_VENV"
  fi
  # Node-local tier on the instance-store NVMe; spank_trn's job prolog makes per-user
  # directories inside it, so it stays root-owned.
  mkdir -p "$local_cache"
  chmod 0755 "$local_cache"
  trn_log "node-local compile cache: $local_cache"
  # Node-local checkpoint tier (the bundled ParallelCluster profiles' checkpoint_local_dir):
  # each run makes its own folder in it as the job's user, so it is sticky like /tmp. Made
  # here rather than left to the first job, whose user would own it and lock the others out.
  mkdir -p "$local_checkpoints"
  chmod 1777 "$local_checkpoints"
  trn_log "node-local checkpoints: $local_checkpoints"
  # trn-health-check (HealthCheckProgram, offered in the cluster configs' CustomSlurmSettings)
  # checks the node-local tier too; Slurm passes it no arguments, so they live here.
  trn_write_if_changed "$root/etc/trn-slurm/trn-health-check.conf" \
    "TRN_HEALTH_OPTIONS=\"--cache-dir $local_cache\""
  require_head_node_install
  trn_run_on_node systemctl try-restart slurmd
}

[[ $role == auto ]] && role=$(detect_role)
trn_log "trn-slurm install: role $role, slurm $slurm_root, source $source_dir${root:+, TEST MODE under $root}"
case $role in
  head) setup_head_node ;;
  compute) setup_compute_node ;;
  login) require_head_node_install ;;
  *) trn_die "unknown role '$role': use head, compute, login or auto" ;;
esac
trn_log "trn-slurm install: done ($role)"
