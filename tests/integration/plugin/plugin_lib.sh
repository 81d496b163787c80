# Helpers for the spank_trn integration tests (sourced after ../lib.sh). Each test runs its own
# small cluster, named after the shared one plus "p", with the freshly built plugin loaded from a
# plugstack file the test writes; the instance is brought down when the test exits.
plugin_so=${TRN_SPANK_PLUGIN:-$TRN_BUILD_DIR/spank_plugin/spank_trn.so}
[[ -f $plugin_so ]] || fail "spank_trn.so not found at $plugin_so: build the spank_trn target"
fixtures=$TRN_SOURCE_DIR/tests/fixtures
pname="${TRN_TEST_CLUSTER}p"

pcluster() { "$TRN_SOURCE_DIR/scripts/cluster" --name "$pname" "$@"; }
pslurm() { pcluster exec "$@"; }

# plugin_cluster_up NODES SHAPE ARGS...: a cluster of NODES nodes shaped SOCKETS:CORES:THREADS
# (a fixture's shape, so Slurm's core ids match the fixture's), the plugin loaded as required
# with ARGS and caches under the scratch directory. Sets $plugstack (rewrite it to change the
# plugin's arguments: srun and slurmstepd read it for every step).
plugin_cluster_up() {
  local nodes=$1 shape=$2
  shift 2
  make_scratch
  # Sticky like /tmp: the plugin refuses a compile-cache path under a directory anyone can rename in.
  chmod 1777 "$scratch"
  on_exit 'pcluster down >/dev/null 2>&1 || true'
  mkdir -p "$scratch/topology" "$scratch/cache"
  plugstack=$scratch/plugstack.conf
  plugin_args "$@"
  pcluster up "$nodes" --node-shape "$shape" --plugstack "$plugstack" >/dev/null
}

# plugin_args ARGS...: rewrites the plugstack line with new plugin arguments.
plugin_args() {
  echo "required $plugin_so topology_cache=$scratch/topology local_cache=$scratch/cache $*" >"$plugstack"
}

# task_var OUTPUT TASK NAME: the value of NAME in `srun -l env` output for task TASK.
task_var() { sed -n "s/^ *$2: $3=//p" <<<"$1"; }

# Every variable spank_trn may set.
readonly plugin_vars='NEURON_RT_VISIBLE_CORES NEURON_RT_ROOT_COMM_ID NEURON_LOGICAL_NC_CONFIG NEURON_COMPILE_CACHE_URL FI_PROVIDER FI_EFA_USE_DEVICE_RDMA FI_EFA_FORK_SAFE MASTER_ADDR MASTER_PORT RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE NODE_RANK PET_NNODES PET_NODE_RANK PET_NPROC_PER_NODE PET_MASTER_ADDR PET_MASTER_PORT TRN_CPUS TRN_INSTANCE_TYPE TRN_EFA_DEVICES'

# psbatch_wait ARGS...: sbatch on this test's cluster, waiting for the job faster than
# sbatch --wait polls; fails unless the job COMPLETED.
psbatch_wait() {
  local job state deadline=$((SECONDS + job_deadline_s))
  job=$(pslurm sbatch --parsable "$@")
  while ((SECONDS < deadline)); do
    state=$(pslurm scontrol show job -o "$job" | grep -o ' JobState=[^ ]*' | cut -d= -f2)
    case $state in
      COMPLETED) return 0 ;;
      PENDING | RUNNING | CONFIGURING | COMPLETING) sleep 0.1 ;;
      *) fail "job $job ended $state" ;;
    esac
  done
  fail "job $job still $state after ${job_deadline_s}s"
}
