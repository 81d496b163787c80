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
readonly plugin_vars='TRN_FSROOT NEURON_RT_VISIBLE_CORES NEURON_RT_ROOT_COMM_ID NEURON_LOGICAL_NC_CONFIG NEURON_COMPILE_CACHE_URL FI_PROVIDER FI_EFA_USE_DEVICE_RDMA FI_EFA_FORK_SAFE MASTER_ADDR MASTER_PORT RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE NODE_RANK PET_NNODES PET_NODE_RANK PET_NPROC_PER_NODE PET_MASTER_ADDR PET_MASTER_PORT TRN_CPUS TRN_INSTANCE_TYPE TRN_EFA_DEVICES NEURON_PJRT_PROCESS_INDEX NEURON_PJRT_WORLD_SIZE NEURON_PJRT_PROCESSES_NUM_DEVICES PJRT_LOCAL_PROCESS_COUNT PJRT_LOCAL_PROCESS_RANK'

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

# expect_neuron_world CORES_PER_NODE SRUN_ARGS... -- WORKER_PREFIX...: runs the torch-neuronx
# initializer double (tests/doubles/torch_neuronx_world) as every worker of the step and fails
# unless the workers form one world that uses each NeuronCore of the step once. (torchrun callers
# pass "-r 1 -t 1": Debian's torch 1.13 torchrun crashes on Python 3.11 with its default "-r 0".)
neuron_world_double=$TRN_SOURCE_DIR/tests/doubles/torch_neuronx_world
expect_neuron_world() {
  local cores=$1 world
  shift
  local srun_args=() worker=()
  while [[ $1 != -- ]]; do srun_args+=("$1"); shift; done
  shift
  worker=("$@")
  world=$(mktemp -d "$scratch/world.XXXXXX")
  # The doubles on PATH: the compile agent looks for neuron_parallel_compile.
  pslurm env PATH="$TRN_SOURCE_DIR/tests/doubles:$PATH" srun "${srun_args[@]}" "${worker[@]}" \
    "$neuron_world_double" record "$world" ||
    fail "srun ${srun_args[*]}: a worker did not join the world"
  "$neuron_world_double" check "$world" --cores-per-node "$cores" ||
    fail "srun ${srun_args[*]}: the workers did not form one world"
}

# [KEEP=VARS] expect_same_task_env FSROOT SRUN_ARGS...: in every task of `srun --exclusive SRUN_ARGS`, the
# variables spank_trn set, and those trn-launcher slurm-task (what trn-run's tasks start through on
# a cluster without the plugin) computes in the same task with spank_trn's variables removed,
# are the same, variable by variable. spank_trn places tasks on the CPUs Slurm allocated to the
# step (S_STEP_ALLOC_CORES), which a task cannot read: on a real cluster task/cgroup confines it
# to them; here the plugin is told alloc_cores=ignore for the comparison, as slurm-task places.
expect_same_task_env() {
  local fsroot=$1 unset_vars="" var out
  shift
  # The user's own settings stay (KEEP: e.g. NEURON_LOGICAL_NC_CONFIG given with --export).
  for var in $plugin_vars; do [[ " ${KEEP:-} " == *" $var "* ]] || unset_vars+=" -u $var"; done
  local plugin_line
  plugin_line=$(cat "$plugstack")
  sed -i 's/$/ alloc_cores=ignore/' "$plugstack"
  out=$(pslurm srun -l "$@" bash -c "env | grep -E '^($(tr ' ' '|' <<<"$plugin_vars"))=' | sort | sed 's/^/plugin /'
    env$unset_vars '$TRN_BUILD_DIR/bin/trn-launcher' slurm-task --fsroot='$fsroot' --local-cache='$scratch/cache' -- env |
      grep -E '^($(tr ' ' '|' <<<"$plugin_vars"))=' | sort | sed 's/^/step /'") || fail "srun $*: $out"
  echo "$plugin_line" >"$plugstack"
  local by_plugin by_step
  by_plugin=$(sed -n 's/^ *\([0-9]*\): plugin /\1 /p' <<<"$out" | sort)
  by_step=$(sed -n 's/^ *\([0-9]*\): step /\1 /p' <<<"$out" | sort)
  [[ -n $by_plugin ]] || fail "srun $*: spank_trn set nothing: $out"
  [[ $by_step == "$by_plugin" ]] ||
    fail "srun $*: the tasks' environments differ (< spank_trn, > slurm-task): $(diff <(echo "$by_plugin") <(echo "$by_step") | head -n 20)"
  echo "$(wc -l <<<"$by_plugin") task variables alike"
}
