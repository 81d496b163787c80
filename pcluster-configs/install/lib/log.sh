# shellcheck shell=bash
# Logging, failure and command running for the install scripts (sourced, not run).
# Everything goes to stdout/stderr and to $TRN_INSTALL_LOG, so that a failed OnNodeConfigured
# can be diagnosed from the node (and from CloudWatch, which collects /var/log).

# On stderr, so that messages from functions run in $(...) are not captured as their result.
trn_log() { printf '%s trn-slurm-install: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }

trn_die() {
  trn_log "ERROR: $*"
  exit 1
}

# Appends all further output of the script to the log file (created with its directory).
trn_log_to_file() {
  local log=$1
  mkdir -p "$(dirname "$log")" || { echo "trn-slurm-install: cannot create $(dirname "$log")" >&2; exit 1; }
  exec > >(tee -a "$log") 2>&1
  # tee runs on after the script: closing our ends and waiting for it means that whoever reads
  # our output (ParallelCluster, a test) has all of it once we exit.
  trn_log_tee=$!
  trap 'exec >&- 2>&-; wait "$trn_log_tee" 2>/dev/null || true' EXIT
}

# Reports the failing command before `set -e` ends the script.
trn_on_error() {
  local status=$1 line=$2 command=$3
  trn_log "ERROR: '$command' failed with status $status (${BASH_SOURCE[1]:-?}:$line); see $TRN_INSTALL_LOG"
  exit "$status"
}

trn_test_mode() { [[ -n ${TRN_INSTALL_TEST_ROOT:-} ]]; }

# Runs a command that only makes sense on a real cluster node; test mode logs it instead.
trn_run_on_node() {
  if trn_test_mode; then
    trn_log "test mode, skipped: $*"
    return 0
  fi
  trn_log "running: $*"
  "$@"
}
