# Shared helpers for the integration test scripts (sourced).
set -euo pipefail

cluster() { "$TRN_SOURCE_DIR/scripts/cluster" --name "$TRN_TEST_CLUSTER" "$@"; }
slurm() { cluster exec "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [[ $1 == "$2" ]] || fail "$3: expected '$2', got '$1'"; }

# Sets $scratch to a directory every job user can write to, removed when the test exits.
make_scratch() {
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/trn-itest.XXXXXX")
  chmod 0777 "$scratch"
  trap 'rm -rf "$scratch"' EXIT
}

# Waits until every node of the cluster is idle again (after a test disturbed one).
wait_nodes_idle() {
  local deadline=$((SECONDS + ${1:-60})) idle
  while ((SECONDS < deadline)); do
    idle=$(slurm sinfo -h -N -t idle -o %N | sort -u | wc -l)
    [[ $idle -eq $TRN_TEST_NODES ]] && return 0
    sleep 0.5
  done
  slurm sinfo -N
  fail "nodes did not all return to idle within ${1:-60}s"
}

# Submits a batch job and waits for it to end, polling faster than sbatch --wait does.
# Prints the job id; fails unless the job COMPLETED.
sbatch_and_wait() {
  local job
  job=$(slurm sbatch --parsable "$@")
  wait_job "$job" >/dev/null
  echo "$job"
}

# Waits for a job to end; fails unless it COMPLETED.
wait_job() {
  local job=$1 state
  while :; do
    state=$(slurm scontrol show job -o "$job" | grep -o ' JobState=[^ ]*' | cut -d= -f2)
    case $state in
      COMPLETED) echo "$job"; return 0 ;;
      PENDING | RUNNING | CONFIGURING | COMPLETING | REQUEUED) sleep 0.1 ;;
      *) fail "job $job ended $state" ;;
    esac
  done
}

# Slurm clients with this build's tools first on PATH, and Debian's python3 (with torch) before
# any other: sbatch exports this environment to the job.
slurm_with_tools() { slurm env PATH="$TRN_BUILD_DIR/bin:/usr/bin:/bin:/usr/sbin:/sbin" "$@"; }

# Shards prepared once for all launcher tests (the trainer_data fixture).
test_data_dir() { echo "$TRN_BUILD_DIR/tests/integration/data"; }

# A JSON field: json_field FILE EXPRESSION (Python, `d` is the document).
json_field() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
