#!/usr/bin/env bash
# CustomActions.OnNodeConfigured entry point of the bundled ParallelCluster configs.
# ParallelCluster downloads this one file and runs it as root with the config's Args:
#
#   trn-slurm-setup.sh --source URL|TARBALL|DIR [trn-slurm-install.sh options...]
#
# It fetches the trn-slurm source (s3:// or https:// URL of trn-slurm-src.tar.gz, a local
# tarball, or a source directory), unpacks it to /opt/trn-slurm/src and runs
# pcluster-configs/install/trn-slurm-install.sh from it with the remaining arguments, so that
# the install steps and pinned versions travel with the source. --test-root DIR (or
# TRN_INSTALL_TEST_ROOT=DIR) is the installer's test mode; downloads are refused there.
# Log: /var/log/trn-slurm-install.log.
set -Eeuo pipefail

log() { printf '%s trn-slurm-setup: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

source_arg=
test_root=${TRN_INSTALL_TEST_ROOT:-}
forward=()
while (($#)); do
  case $1 in
    --source) (($# >= 2)) || die "--source needs a value"; source_arg=$2; shift 2 ;;
    --test-root) (($# >= 2)) || die "--test-root needs a value"; test_root=$2; forward+=("$1" "$2"); shift 2 ;;
    -h | --help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) forward+=("$1"); shift ;;
  esac
done

root=
if [[ -n $test_root ]]; then
  mkdir -p "$test_root"
  root=$(cd "$test_root" && pwd)
fi
export TRN_INSTALL_LOG=${TRN_INSTALL_LOG:-$root/var/log/trn-slurm-install.log}
mkdir -p "$(dirname "$TRN_INSTALL_LOG")"
exec > >(tee -a "$TRN_INSTALL_LOG") 2>&1
# Wait for tee at exit, so that whoever reads our output has all of it once we are gone.
log_tee=$!
trap 'exec >&- 2>&-; wait "$log_tee" 2>/dev/null || true' EXIT
export TRN_INSTALL_LOGGING=1
trap 'log "ERROR: \"$BASH_COMMAND\" failed with status $? (line $LINENO); see $TRN_INSTALL_LOG"' ERR

[[ -n $source_arg ]] ||
  die "--source is required: the s3:// or https:// URL of trn-slurm-src.tar.gz (see pcluster-configs/README.md), a tarball or a source directory"

unpack() {
  local tarball=$1 dest=$root/opt/trn-slurm/src
  rm -rf "$dest.new"
  mkdir -p "$dest.new"
  tar -xzf "$tarball" -C "$dest.new" --strip-components=1 ||
    die "cannot unpack $tarball: it must be a .tar.gz with one top directory (git archive --prefix=trn-slurm/)"
  rm -rf "$dest"
  mv "$dest.new" "$dest"
  echo "$dest"
}

fetch() {
  local url=$1 work
  [[ -z $root ]] || die "test mode does not download $url: pass a local tarball or directory as --source"
  work=$(mktemp -d)
  case $url in
    s3://*) aws s3 cp --only-show-errors "$url" "$work/src.tar.gz" ||
      die "cannot download $url: check the bucket name and that the node's IAM role may read it (Iam.S3Access)" ;;
    *) curl -fsSL --retry 3 -o "$work/src.tar.gz" "$url" || die "cannot download $url" ;;
  esac
  unpack "$work/src.tar.gz"
  rm -rf "$work"
}

case $source_arg in
  s3://* | https://* | http://*) source_dir=$(fetch "$source_arg") ;;
  *)
    if [[ -d $source_arg ]]; then
      source_dir=$(cd "$source_arg" && pwd)
    elif [[ -f $source_arg ]]; then
      source_dir=$(unpack "$source_arg")
    else
      die "--source $source_arg: no such URL, file or directory"
    fi
    ;;
esac
installer=$source_dir/pcluster-configs/install/trn-slurm-install.sh
[[ -f $installer ]] || die "$source_arg holds no pcluster-configs/install/trn-slurm-install.sh: is it the trn-slurm source?"
log "running $installer"
exec bash "$installer" --source-dir "$source_dir" "${forward[@]}"
